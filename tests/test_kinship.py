"""Kinship terminologies as data: validation, compilation to a KB with derived sound rules, and
generation and verification in a system's terms (fixtures in tests/fixtures/kinship)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from clutrr.cli import main
from clutrr.core.kb import KBError, load_kb
from clutrr.kinship.derive import kinship_kb, worlds
from clutrr.kinship.terminology import REQUIRED, load_terminology, parse_terminology
from helpers import REPO

FIXTURES = REPO / "tests" / "fixtures" / "kinship"
ENGLISH = str(FIXTURES / "english.yaml")
GENERATIONAL = str(FIXTURES / "generational.yaml")


def _file(terms: str) -> str:
    return f"name: toy\ndescription: a toy\nsource: none\nterms:\n{terms}"


def _english_terms(**changes: str) -> str:
    text = (FIXTURES / "english.yaml").read_text()
    terms = text[text.index("terms:\n") + len("terms:\n"):]
    for old, new in changes.items():
        assert old in terms
        terms = terms.replace(old, new)
    return _file(terms)


def test_table_lists_every_kin_type_for_each_speaker():
    table = load_terminology(ENGLISH).table()
    assert table[("male", "FZS")] == table[("female", "MBD")] == "cousin"
    assert table[("female", "HBS")] == "nephew" and table[("male", "WZD")] == "niece"
    assert all((s, kt) in table for kt in REQUIRED for s in ("male", "female"))
    gen = load_terminology(GENERATIONAL).table()
    assert gen[("male", "FB")] == gen[("female", "F")] == "father"
    assert gen[("female", "MZS")] == "brother"


def test_speaker_prefixes_split_a_kin_type_by_the_speaker_sex(tmp_path):
    text = _english_terms(**{"nephew: {kin_types: [BS, ZS,": 'nephew: {kin_types: ["ws BS", ZS,',
                             "son: {kin_types: [S]}": 'son: {kin_types: [S, "ms BS"]}'})
    table = parse_terminology(text).table()
    assert table[("male", "BS")] == "son" and table[("female", "BS")] == "nephew"


@pytest.mark.parametrize("changes, message", [
    ({"cousin: {kin_types: [FBS,": "cousin: {kin_types: [FB, FBS,"},
     "ambiguous: kin type FB (male speaking) is named by both 'uncle' and 'cousin'"),
    ({"son: {kin_types: [S]}": 'son: {kin_types: [S, "ws BS"]}'},
     "ambiguous: kin type BS (female speaking) is named by both 'son' and 'nephew'"),
    ({"cousin: {kin_types: [FBS, FBD, FZS, FZD, MBS, MBD, MZS, MZD]}": "cousin: {kin_types: [FBS, FBD]}"},
     "no term for required kin types FZS (male speaking), FZS (female speaking), FZD (male speaking)"),
    ({"grandson: {kin_types: [SS, DS]}": 'grandson: {kin_types: [SS, "ms DS"]}'},
     "no term for required kin type DS (female speaking)"),
    ({"wife: {kin_types: [W]}": "wife: {kin_types: [Q]}"}, "kin type 'Q' is not letters of FMBZSDHW"),
])
def test_defective_files_are_refused_with_one_line(tmp_path, capsys, changes, message):
    path = tmp_path / "bad.yaml"
    path.write_text(_english_terms(**changes))
    with pytest.raises(KBError, match="^" + str(path).replace(".", r"\.") + ": "):
        load_terminology(path)
    assert main(["generate", "--kinship", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err and str(path) in err
    assert not (tmp_path / "out").exists()


def test_a_term_no_sound_rule_uses_is_refused(tmp_path, capsys, monkeypatch):
    # a man has no husband in the world model: a term for that kin type alone composes with nothing
    monkeypatch.setenv("CLUTRR_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "impossible.yaml"
    path.write_text(_english_terms(**{"husband: {kin_types: [H]}":
                                      'husband: {kin_types: ["ws H"]}\n  nobody: {kin_types: ["ms H"]}'}))
    assert main(["kinship", "show", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.endswith("no sound composition rule uses the term 'nobody' (no story could state "
                                             "or ask it)")
    assert not (tmp_path / "cache").exists() or not list((tmp_path / "cache").iterdir())  # no partial file left


@pytest.mark.parametrize("value", ["1", "0.5", "three", "true", "-2"])
def test_a_bad_generations_key_is_refused_in_one_line(tmp_path, value):
    path = tmp_path / "bad.yaml"
    path.write_text(_english_terms().replace("terms:\n", f"generations: {value}\nterms:\n", 1))
    with pytest.raises(KBError, match=f"^{path}: 'generations' must be a whole number of at least 2"):
        load_terminology(path)


def test_english_terms_derive_the_default_rules_in_both_genders():
    """The default KB's 32 rules, read in the genders of their two facts' people, are derived
    rules of the English fixture (whose words are the default KB's, plus cousin) wherever the
    genders can occur (a son has no husband), and no derived rule contradicts one."""
    kb, default = kinship_kb(ENGLISH), load_kb("kinship")
    rules = {(kb.pred_names[a], kb.pred_names[b]): kb.pred_names[c] for (a, b), c in kb.rules.items()}
    absent = []
    for (a, b), c in default.rules.items():
        for gy in (0, 1):
            for gz in (0, 1):
                pair = (default.word(a, gy), default.word(b, gz))
                assert rules.get(pair) in (None, default.word(c, gz)), (pair, rules.get(pair))
                if pair not in rules:
                    absent.append(pair)
    assert ("son", "husband") in absent and rules[("son", "wife")] == "daughter-in-law" and len(absent) < 32
    for masks in worlds(kb, n=30, seed=3):  # what is absent never occurs (x, z distinct)
        for w1, w2 in absent:
            inst = (masks[kb.index[w1]].astype(int) @ masks[kb.index[w2]].astype(int)) > 0
            np.fill_diagonal(inst, False)
            assert not inst.any(), (w1, w2)
    assert rules[("uncle", "son")] == "cousin" and rules[("cousin", "father")] == "uncle"
    assert ("cousin", "son") not in rules  # a cousin's son has no term
    assert kb.predicates[kb.index["cousin"]].inverse == kb.index["cousin"]


def test_derived_rules_hold_in_other_worlds():
    kb = kinship_kb(GENERATIONAL)
    for masks in worlds(kb, n=20, seed=7):
        f = masks.astype(np.float32)
        for (a, b), c in kb.rules.items():
            inst = (f[a] @ f[b]) > 0
            np.fill_diagonal(inst, False)
            assert not (inst & ~masks[c]).any()


def test_generate_in_a_systems_terms_and_verify(tmp_path, capsys):
    out = tmp_path / "gen"
    assert main(["generate", "--kinship", GENERATIONAL, "--k", "2,3", "--test-k", "2,3", "--train-rows", "12",
                 "--test-rows", "8", "--format", "csv,jsonl", "--quiet", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in (out / "1.3_test.jsonl").read_text().splitlines()]
    words = set(load_terminology(GENERATIONAL).terms)
    assert all(r["target"] in words and all(e["relation"] in words for e in r["edges"]) for r in rows)
    assert json.loads((out / "config.json").read_text())["arguments"]["kinship"] == GENERATIONAL
    capsys.readouterr()
    assert main(["verify", str(out), "--kinship", GENERATIONAL]) == 0
    assert "uniquely entailed: 40/40 (100.0%)" in capsys.readouterr().out
    # under the English terms the same files do not parse: the words differ in meaning
    assert main(["verify", str(out), "--kinship", ENGLISH]) == 1


def test_one_seed_gives_the_same_bytes_whatever_the_cache_folder(tmp_path):
    """The compiled KB and bank live in the user's cache: config.json names them by the system
    and its terminology's sha256, not by where this machine keeps them."""
    outs = []
    for name in ("one", "two"):
        env = {**os.environ, "CLUTRR_CACHE_DIR": str(tmp_path / f"cache-{name}")}
        outs.append(tmp_path / name)
        res = subprocess.run([sys.executable, "-m", "clutrr.cli", "generate", "--kinship", "hawaiian", "--k", "2",
                              "--test-k", "2", "--train-rows", "6", "--test-rows", "4", "--quiet", "--out",
                              str(outs[-1])], capture_output=True, text=True, env=env, cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    files = sorted(p.name for p in outs[0].iterdir())
    assert files == sorted(p.name for p in outs[1].iterdir()) and "config.json" in files
    assert all((outs[0] / f).read_bytes() == (outs[1] / f).read_bytes() for f in files)
    config = (outs[0] / "config.json").read_text()
    assert str(tmp_path) not in config
    digest = load_terminology("hawaiian").digest
    spec = json.loads(config)["spec"]["config"]
    assert spec["kb"] == f"kinship:hawaiian@sha256:{digest}"
    assert spec["templates"] == f"kinship:hawaiian@sha256:{digest}/templates"


def test_kin_type_is_the_shortest_path_with_ties_broken_by_letter_order():
    from clutrr.core.family import Family
    from clutrr.kinship.kintypes import kin_type

    # 0 m + 1 f: children 2 m (wife 4) and 3 f (husband 6); 5 m is 2's son, 7 f is 3's daughter
    genders = [0, 1, 0, 1, 1, 0, 0, 1]
    father = [-1, -1, 0, 0, -1, 2, -1, 6]
    mother = [-1, -1, 1, 1, -1, 4, -1, 3]
    spouse = [1, 0, 4, 6, 2, -1, 3, -1]
    family = Family(genders, father, mother, spouse, kinship_kb(ENGLISH))
    expected = {(5, 2): "F", (5, 3): "FZ", (5, 7): "FZD", (5, 0): "FF", (2, 3): "Z", (4, 3): "HZ", (7, 4): "MBW",
                (3, 2): "B", (0, 5): "SS", (6, 2): "WB"}
    assert {pair: kin_type(family, *pair) for pair in expected} == expected


def test_rows_carry_the_kin_type_and_glossary_in_every_format(tmp_path):
    import pyarrow.parquet as pq

    from clutrr.io.csv_format import read_csv

    out = tmp_path / "gen"
    assert main(["generate", "--kinship", ENGLISH, "--k", "2", "--test-k", "3", "--train-rows", "6",
                 "--test-rows", "6", "--noise", "all", "--format", "csv,jsonl,parquet", "--quiet",
                 "--out", str(out)]) == 0
    table = load_terminology(ENGLISH).table()
    records = [json.loads(line) for line in (out / "5.3_test.jsonl").read_text().splitlines()]
    for r in records:
        genders = [p["gender"] for p in r["people"]]
        speaker = genders[r["query"][0]]
        assert table[(speaker, r["kin_type"])] == r["target"]  # the label, looked up in the table
        used = {e["relation"] for e in r["edges"]}
        assert {g.split(" is ")[0][len("X's "):] for g in r["glossary"]} == used
    parquet = pq.read_table(out / "5.3_test.parquet")
    assert parquet.column("kin_type").to_pylist() == [r["kin_type"] for r in records]
    assert str(parquet.schema.field("glossary").type) == "list<element: string>"
    header = (out / "5.3_test.csv").read_text().splitlines()[0]
    assert header.endswith(",task_split,kin_type,glossary")
    assert len(read_csv(out / "5.3_test.csv")) == 6
    # the prompt's question holds the story's definitions, unless --no-glossary
    from clutrr.eval.data import load_eval_set
    from clutrr.kinship.derive import kinship_kb_path
    from clutrr.llm.prompts import GLOSSARY_HEAD

    data = load_eval_set(out, kb=kinship_kb_path(ENGLISH))
    item = data.item(0)
    first = next(r for r in records if r["id"] == item["id"])
    assert f"{GLOSSARY_HEAD}\n" + "\n".join(first["glossary"]) + "\nHow is " in item["question"]
    data.glossary = False
    assert GLOSSARY_HEAD not in data.item(0)["question"]
    assert data.item(0)["question"].endswith(f"\nHow is {item['query'][1]} related to {item['query'][0]}?")


def test_a_hyphenated_term_stays_one_word_of_its_clause(tmp_path):
    from clutrr.kinship.templates import bank_text
    from clutrr.render.bank_files import load_bank

    text = _english_terms(**{"cousin:": "first-cousin-once:"})  # a hyphenated term no English KB knows
    path = tmp_path / "bank.yaml"
    path.write_text(bank_text(parse_terminology(text)))
    clauses = {t.clause for t in load_bank(str(path)).templates()}
    assert ("first-cousin-once",) in clauses and ("son-in-law",) in clauses and len(clauses) == 23


def test_speaker_sensitive_terms_get_a_predicate_per_speaker_and_rules_that_depend_on_it(tmp_path, capsys):
    """Iroquois (shipped, and compiled once for the whole suite) splits the generation below by
    the speaker's sex: a man's brother's son is his son, a woman's brother's son her nephew."""
    kb = kinship_kb("iroquois")
    rules = {(kb.pred_names[a], kb.pred_names[b]): kb.pred_names[c] for (a, b), c in kb.rules.items()}
    assert rules[("brother_ms", "son_ms")] == "son_ms" and rules[("brother_ws", "son_ms")] == "nephew_ws"
    assert rules[("sister_ws", "son_ws")] == "son_ws" and rules[("sister_ms", "son_ws")] == "nephew_ms"
    assert kb.fact_predicate("son", 0) == kb.index["son_ms"] and kb.fact_predicate("son", 1) == kb.index["son_ws"]
    out = tmp_path / "gen"
    assert main(["generate", "--kinship", "iroquois", "--k", "2,3", "--test-k", "3", "--train-rows", "10",
                 "--test-rows", "10", "--noise", "all", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(out), "--kinship", "iroquois"]) == 0
    assert "uniquely entailed: 30/30 (100.0%)" in capsys.readouterr().out


def test_kinship_draw_refuses_other_pictures_and_show_prints_the_table(tmp_path, capsys):
    assert main(["kinship", "draw", GENERATIONAL, "--out", str(tmp_path / "tree.pdf")]) == 2
    assert "the picture is a .png or .svg file" in capsys.readouterr().err
    assert main(["kinship", "show", GENERATIONAL]) == 0
    out = capsys.readouterr().out
    assert "\nfather         F FB MB FZH MZH\n" in out
    assert f"\n{len(kinship_kb(GENERATIONAL).rules)} composition rules derived" in out
