"""draw_terms: every required kin type of every system is a box labelled with its term and kin type."""
from __future__ import annotations

import xml.etree.ElementTree as ET

import matplotlib
import pytest
import yaml

from clutrr.errors import UsageError
from clutrr.graph.kinship_tree import draw_terms, speaker_terms, terms_figure
from helpers import REPO

matplotlib.use("Agg")
SYSTEMS = REPO / "kb_rules" / "systems"
NAMES = sorted(p.stem for p in SYSTEMS.glob("*.yaml"))
REQUIRED = ("F M B Z S D H W FF FM MF MM SS SD DS DD FB FZ MB MZ BS BD ZS ZD "
            "FBS FBD FZS FZD MBS MBD MZS MZD").split()
SVG = "{http://www.w3.org/2000/svg}"


def terms_of(name: str) -> dict[tuple[str, str], str]:
    return speaker_terms(yaml.safe_load((SYSTEMS / f"{name}.yaml").read_text(encoding="utf-8")))


def texts_by_id(path) -> dict[str, str]:
    """id of each group in the SVG -> the text it holds."""
    out = {}
    for g in ET.parse(path).iter(f"{SVG}g"):
        if g.get("id", "").startswith("kin-"):
            out[g.get("id")] = "".join(t.text or "" for t in g.iter(f"{SVG}text")).strip()
    return out


def test_speaker_terms_expands_prefixes():
    system = {"terms": {"son": {"kin_types": ["S", "ms BS"]}, "nephew": {"kin_types": ["ws BS"]}}}
    assert speaker_terms(system) == {("male", "S"): "son", ("female", "S"): "son",
                                     ("male", "BS"): "son", ("female", "BS"): "nephew"}


@pytest.mark.parametrize("name", NAMES)
def test_every_required_kin_type_is_a_labelled_box(name, tmp_path):
    terms = terms_of(name)
    out = tmp_path / f"{name}.svg"
    draw_terms(terms, out, name)
    texts = texts_by_id(out)
    for speaker in ("male", "female"):
        spouse = "W" if speaker == "male" else "H"
        for kin_type in REQUIRED:
            if kin_type in "HW" and kin_type != spouse:
                continue  # one spouse per speaker in the world model
            box = f"kin-{speaker}-{kin_type}"
            assert box in texts, f"{name}: no box for {speaker} {kin_type}"
            assert texts[f"{box}-term"] == terms[(speaker, kin_type)]
            assert texts[f"{box}-type"] == kin_type
        assert f"kin-{speaker}-extra" not in texts, f"{name}: a named kin type has no place in the tree"
    drawn = {k.removesuffix("-term") for k in texts if k.endswith("-term")}
    named = {f"kin-{s}-{k}" for (s, k) in terms}
    assert drawn - named == {"kin-male-ego", "kin-female-ego"}, "only named relatives (and ego) are drawn"


@pytest.mark.parametrize("name", NAMES)
def test_one_colour_per_term(name):
    terms = terms_of(name)
    fig = terms_figure(terms, name)
    colour = {}
    for ax in fig.axes:
        for patch in ax.patches:
            _, speaker, kin_type = patch.get_gid().split("-", 2)
            if kin_type != "ego":
                colour.setdefault(terms[(speaker, kin_type)], set()).add(patch.get_facecolor())
    assert all(len(c) == 1 for c in colour.values())
    assert len({next(iter(c)) for c in colour.values()}) == len(colour), "two terms share a colour"
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert sorted(legend) == sorted(set(terms.values()))


def test_drawing_is_deterministic_and_png_by_suffix(tmp_path):
    terms = terms_of("omaha")
    a, b, png = tmp_path / "a.svg", tmp_path / "b.svg", tmp_path / "c.png"
    draw_terms(terms, a, "omaha")
    draw_terms(terms, b, "omaha")
    assert a.read_bytes() == b.read_bytes()
    draw_terms(terms, png, "omaha")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    draw_terms(terms, png, "omaha")  # its own picture may be redrawn


def test_a_file_clutrr_did_not_draw_is_not_overwritten(tmp_path):
    mine = tmp_path / "mine.png"
    mine.write_bytes(b"not a picture")
    with pytest.raises(UsageError, match="not a picture clutrr drew"):
        draw_terms(terms_of("crow"), mine, "crow")
    assert mine.read_bytes() == b"not a picture"
    with pytest.raises(UsageError, match=".svg or .png"):
        draw_terms(terms_of("crow"), tmp_path / "tree.pdf", "crow")


def test_kin_types_without_a_place_are_listed_not_dropped(tmp_path):
    terms = {("female", "S"): "son", ("female", "FFB"): "grandfather", ("female", "MBSW"): "in-law",
             ("female", "W"): "wife", ("female", "WB"): "brother-in-law"}  # a woman has no wife: not listed
    out = tmp_path / "extra.svg"
    draw_terms(terms, out, "extra")
    texts = texts_by_id(out)
    assert texts["kin-female-extra"] == "also named: FFB grandfather, MBSW in-law"
    assert texts["kin-female-S-term"] == "son" and "kin-female-FFB" not in texts
    with pytest.raises(UsageError, match="no terms to draw"):
        draw_terms({}, tmp_path / "none.svg", "none")


def test_a_single_speaker_gives_one_panel():
    terms = {k: v for k, v in terms_of("iroquois").items() if k[0] == "female"}
    fig = terms_figure(terms, "iroquois, female speaker")
    assert [ax.get_title() for ax in fig.axes] == ["female speaker"]
