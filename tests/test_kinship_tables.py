"""The seven terminology files (kb_rules/systems/*.yaml) agree with their cited tables, term by term.

Each EXPECTED table below is transcribed by hand from the source the file cites, written per
kin type (the files are written per term), so a slip in either shows up as a difference.
Rows give the term for a male and for a female speaker ("son/nephew": male speaker says son,
female speaker nephew); one word means both say it.
"""
from __future__ import annotations

import re

import pytest
import yaml

from helpers import REPO

SYSTEMS = REPO / "kb_rules" / "systems"
NAMES = ("eskimo", "hawaiian", "sudanese", "iroquois", "dravidian", "crow", "omaha")
REQUIRED = ("F M B Z S D H W FF FM MF MM SS SD DS DD FB FZ MB MZ BS BD ZS ZD "
            "FBS FBD FZS FZD MBS MBD MZS MZD").split()
KIN_TYPE = re.compile(r"^(?:(ms|ws) )?([FMBZSDHW]+)$")
TERM = re.compile(r"^[a-z]+(?:-[a-z]+)*$")
COMMON = {"F": "father", "M": "mother", "S": "son", "D": "daughter", "H": "husband", "W": "wife",
          "FF": "grandfather", "MF": "grandfather", "FM": "grandmother", "MM": "grandmother",
          "SS": "grandson", "DS": "grandson", "SD": "granddaughter", "DD": "granddaughter"}


def table(**rows: str) -> dict[str, str]:
    return {**COMMON, **rows}


EXPECTED = {
    # English as defined in kb_rules/kinship.yaml (Eskimo type: Murdock 1970, Ethnology 9:165-207).
    "eskimo": table(B="brother", Z="sister", FB="uncle", MB="uncle", FZ="aunt", MZ="aunt",
                    BS="nephew", ZS="nephew", BD="niece", ZD="niece",
                    FBS="cousin", FBD="cousin", FZS="cousin", FZD="cousin",
                    MBS="cousin", MBD="cousin", MZS="cousin", MZD="cousin",
                    FZH="uncle", MZH="uncle", FBW="aunt", MBW="aunt", DH="son-in-law", SW="daughter-in-law",
                    HF="father-in-law", WF="father-in-law", HM="mother-in-law", WM="mother-in-law",
                    HB="brother-in-law", WB="brother-in-law", ZH="brother-in-law",
                    HZ="sister-in-law", WZ="sister-in-law", BW="sister-in-law",
                    HBS="nephew", HZS="nephew", WBS="nephew", WZS="nephew",
                    HBD="niece", HZD="niece", WBD="niece", WZD="niece"),
    # Morgan 1877, Ancient Society, Part III ch. 2: the Hawaiian system (all by generation and sex).
    "hawaiian": table(B="brother", Z="sister", FB="father", MB="father", FZ="mother", MZ="mother",
                      BS="son", ZS="son", BD="daughter", ZD="daughter",
                      FBS="brother", FZS="brother", MBS="brother", MZS="brother",
                      FBD="sister", FZD="sister", MBD="sister", MZD="sister"),
    # Rivers 1914, Kinship and Social Organisation, p. 78 (Arabic of Egypt); Seligman 1918 (Kababish).
    "sudanese": {"F": "ab", "M": "umm", "S": "ibn", "D": "bint", "H": "zawj", "W": "zawja",
                 "B": "akh", "Z": "ukht", "FF": "jadd", "MF": "jadd", "FM": "jadda", "MM": "jadda",
                 "SS": "hafid", "DS": "hafid", "SD": "hafida", "DD": "hafida",
                 "FB": "amm", "FZ": "amma", "MB": "khal", "MZ": "khala",
                 "BS": "ibn-akh", "BD": "bint-akh", "ZS": "ibn-ukht", "ZD": "bint-ukht",
                 "FBS": "ibn-amm", "FBD": "bint-amm", "FZS": "ibn-amma", "FZD": "bint-amma",
                 "MBS": "ibn-khal", "MBD": "bint-khal", "MZS": "ibn-khala", "MZD": "bint-khala"},
    # Morgan 1877, Ancient Society, Part III ch. 3: the Seneca-Iroquois column.
    "iroquois": table(B="brother", Z="sister", FB="father", MZ="mother", MB="uncle", FZ="aunt",
                      BS="son/nephew", BD="daughter/niece", ZS="nephew/son", ZD="niece/daughter",
                      FBS="brother", MZS="brother", FBD="sister", MZD="sister",
                      FZS="cousin", FZD="cousin", MBS="cousin", MBD="cousin",
                      DH="son-in-law", SW="daughter-in-law"),
    # Morgan 1871, Tamil schedule (Kinbank Morgan1871_Tamil_tami1289.csv); Dumont 1953, Man 53:34-39.
    "dravidian": table(B="brother", Z="sister", FB="father", MZ="mother", MB="uncle", FZ="aunt",
                       BS="son/nephew", BD="daughter/niece", ZS="nephew/son", ZD="niece/daughter",
                       FBS="brother", MZS="brother", FBD="sister", MZD="sister",
                       FZS="brother-in-law", MBS="brother-in-law", FZD="sister-in-law", MBD="sister-in-law",
                       WF="uncle", HF="uncle", FZH="uncle", DH="nephew", SW="niece",
                       ZH="brother-in-law", WB="brother-in-law", HB="brother-in-law",
                       BW="sister-in-law", WZ="sister-in-law", HZ="sister-in-law"),
    # Lowie 1912 (Crow relationship terms); Murdock 1970: FZD called by the FZ term.
    "crow": table(B="brother", Z="sister", FB="father", MZ="mother", MB="uncle", FZ="aunt",
                  BS="son/nephew", BD="daughter/niece", ZS="nephew/son", ZD="niece/daughter",
                  FBS="brother", MZS="brother", FBD="sister", MZD="sister",
                  FZS="father", FZD="aunt", MBS="son/nephew", MBD="daughter/niece"),
    # Dorsey 1884, Omaha Sociology, sections 74-75; Murdock 1970: MBS called by the MB term.
    "omaha": table(B="brother", Z="sister", FB="father", MZ="mother", MB="uncle", FZ="aunt",
                   BS="son/nephew", BD="daughter/niece", ZS="nephew/son", ZD="niece/daughter",
                   FBS="brother", MZS="brother", FBD="sister", MZD="sister",
                   MBS="uncle", MBD="mother", FZS="nephew/son", FZD="niece/daughter"),
}


def load(name: str) -> dict:
    return yaml.safe_load((SYSTEMS / f"{name}.yaml").read_text(encoding="utf-8"))


def by_speaker(system: dict) -> dict[str, dict[str, list[str]]]:
    """speaker ("ms"/"ws") -> kin type -> every term the file gives it."""
    out: dict[str, dict[str, list[str]]] = {"ms": {}, "ws": {}}
    for term, entry in system["terms"].items():
        for kin_type in entry["kin_types"]:
            m = KIN_TYPE.match(kin_type)
            assert m, f"{system['name']}: {term}: {kin_type!r} is not a kin type"
            for speaker in [m.group(1)] if m.group(1) else ["ms", "ws"]:
                out[speaker].setdefault(m.group(2), []).append(term)
    return out


def test_the_seven_files_are_there():
    assert sorted(p.stem for p in SYSTEMS.glob("*.yaml")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_file_has_the_agreed_shape(name):
    system = load(name)
    assert system["name"] == name
    assert {"name", "description", "source", "terms"} <= set(system) <= {"name", "description", "source", "terms",
                                                                         "generations"}
    assert len(system["description"]) > 200 and len(system["source"]) > 100
    assert re.search(r"1[89]\d\d|20\d\d", system["source"]), "the source names a year"
    for term, entry in system["terms"].items():
        assert TERM.match(term), f"{term!r} is not a lower-case word or hyphenated words"
        assert set(entry) == {"kin_types"} and entry["kin_types"]


@pytest.mark.parametrize("name", NAMES)
def test_every_required_kin_type_has_exactly_one_term_per_speaker(name):
    for speaker, kin in by_speaker(load(name)).items():
        assert not [k for k in REQUIRED if k not in kin], f"{name} {speaker}: a required kin type has no term"
        twice = {k: t for k, t in kin.items() if len(t) > 1}
        assert not twice, f"{name} {speaker}: kin types with two terms: {twice}"


@pytest.mark.parametrize("name", NAMES)
def test_file_matches_its_cited_table_term_by_term(name):
    kin = by_speaker(load(name))
    for kin_type, cell in EXPECTED[name].items():
        male, _, female = cell.partition("/")
        for speaker, want in (("ms", male), ("ws", female or male)):
            assert kin[speaker].get(kin_type) == [want], (name, speaker, kin_type, kin[speaker].get(kin_type))


@pytest.mark.parametrize("name", NAMES)
def test_file_names_no_kin_type_the_transcription_lacks(name):
    """Every kin type in the file is in the transcribed table: nothing was added beyond the source."""
    for speaker, kin in by_speaker(load(name)).items():
        assert set(kin) <= set(EXPECTED[name]), (name, speaker, set(kin) - set(EXPECTED[name]))


def test_skewing_and_merging_follow_the_typology():
    """The defining equations of each type hold in its file (Murdock 1970's cousin patterns)."""
    t = {name: by_speaker(load(name)) for name in NAMES}
    same = lambda name, a, b, sp="ms": t[name][sp][a] == t[name][sp][b]  # noqa: E731
    assert all(same("hawaiian", c, "B") for c in ("FBS", "FZS", "MBS", "MZS"))
    assert len({t["eskimo"]["ms"][c][0] for c in ("FBS", "FZS", "MBS", "MZS", "FBD", "MZD")}) == 1
    assert not same("eskimo", "FBS", "B")
    cousins = [t["sudanese"]["ms"][c][0] for c in ("FBS", "FBD", "FZS", "FZD", "MBS", "MBD", "MZS", "MZD")]
    assert len(set(cousins)) == 8 and not {"akh", "ukht"} & set(cousins)
    for name in ("iroquois", "dravidian", "crow", "omaha"):
        assert same(name, "FBS", "B") and same(name, "MZS", "B") and same(name, "FB", "F")
        assert not same(name, "FZS", "B") and not same(name, "MB", "F")
    assert same("iroquois", "FZS", "MBS") and same("iroquois", "FZD", "MBD")
    assert same("dravidian", "MBS", "WB") and same("dravidian", "MB", "WF")
    for sp in ("ms", "ws"):
        assert same("crow", "FZD", "FZ", sp) and same("crow", "FZS", "F", sp)
        assert same("omaha", "MBS", "MB", sp) and same("omaha", "MBD", "M", sp)
    assert same("crow", "MBS", "S", "ms") and not same("crow", "MBS", "S", "ws")
    assert same("omaha", "FZS", "S", "ws") and not same("omaha", "FZS", "S", "ms")


BASE = {"parent": {"F", "M"}, "~parent": {"S", "D"}, "spouse": {"H", "W"}, "sibling": {"B", "Z"}}
MALE = set("FBSH")


def kin_types_of(define: str, predicates: dict) -> set[str]:
    """The kin types a kinship.yaml ``define`` covers ("a . b" composes, "a | b" joins), keeping
    only marriages of a man and a woman."""
    def expr(tokens: list[str]) -> set[str]:
        out = term(tokens)
        while tokens and tokens[0] == "|":
            tokens.pop(0)
            out |= term(tokens)
        return out

    def term(tokens: list[str]) -> set[str]:
        out = atom(tokens)
        while tokens and tokens[0] == ".":
            tokens.pop(0)
            right = atom(tokens)
            out = {a + b for a in out for b in right
                   if b[0] not in "HW" or (b[0] == "W") == (a[-1] in MALE)}
        return out

    def atom(tokens: list[str]) -> set[str]:
        tok = tokens.pop(0)
        if tok == "(":
            out = expr(tokens)
            assert tokens.pop(0) == ")"
            return out
        if tok in BASE:
            return set(BASE[tok])
        return kin_types_of(predicates[tok]["define"], predicates)

    return expr(re.findall(r"~?\w+|[().|]", define))


def test_eskimo_words_cover_the_kin_types_kinship_yaml_defines():
    """The 22 older eskimo words cover exactly what kb_rules/kinship.yaml's definitions reach."""
    kb = yaml.safe_load((REPO / "kb_rules" / "kinship.yaml").read_text(encoding="utf-8"))
    terms = load("eskimo")["terms"]
    words = 0
    for name, predicate in kb["predicates"].items():  # the sibling's define (parent . ~parent) is B, Z
        covered = BASE.get(name) or kin_types_of(predicate["define"], kb["predicates"])
        for sex, word in predicate["words"].items():
            want = {k for k in covered if (k[-1] in MALE) == (sex == "male")}
            assert set(terms[word]["kin_types"]) == want, word
            words += 1
    older = {w for p in kb["predicates"].values() for w in p["words"].values()}
    assert words == 22 and set(terms) - older == {"cousin"}
