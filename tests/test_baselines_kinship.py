"""The baselines on kinship systems (``python -m clutrr.baselines.kinship``): per-system figures, a
clear line for a system that cannot generate, and the composer's transfer through the glossary."""
from __future__ import annotations

import json

import pytest
from helpers import REPO

pytest.importorskip("torch")

from clutrr.baselines.kinship import main  # noqa: E402
from clutrr.baselines.kinship_report import kinship_lines  # noqa: E402
from clutrr.baselines.kinship_transfer import term_map  # noqa: E402
from clutrr.kinship.terminology import load_terminology  # noqa: E402

ENGLISH = REPO / "tests" / "fixtures" / "kinship" / "english.yaml"
GENERATIONAL = REPO / "tests" / "fixtures" / "kinship" / "generational.yaml"


def test_terms_are_read_through_the_focal_kin_type_of_the_glossary():
    eskimo, sudanese, hawaiian = (load_terminology(s) for s in ("eskimo", "sudanese", "hawaiian"))
    forward = term_map(eskimo, sudanese)
    assert forward[("male", "uncle")] == "amm" and forward[("female", "cousin")] == "ibn-amm"
    back = term_map(sudanese, eskimo)
    assert back[("male", "khal")] == "uncle" and back[("female", "bint-khala")] == "cousin"
    assert term_map(hawaiian, eskimo)[("male", "father")] == "father"
    assert forward[("male", "son-in-law")] is None  # the Sudanese file names no affines
    assert all(term_map(sudanese, sudanese)[(s, t)] == t for s in ("male", "female") for t in sudanese.terms)


def test_the_command_scores_each_system_reports_one_that_cannot_generate_and_transfers(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text(ENGLISH.read_text(encoding="utf-8").replace("name: english-fixture", "name: broken")
                      .replace("  son: {kin_types: [S]}\n", ""), encoding="utf-8")
    results = tmp_path / "results"
    code = main(["--results", str(results), "--systems", f"eskimo,{broken},{GENERATIONAL}", "--models", "composer",
                 "--train-rows", "40", "--test-rows", "8", "--test-k", "2..4", "--work", str(tmp_path / "work"), "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    doc = json.loads((results / "kinship.json").read_text(encoding="utf-8"))
    assert list(doc["systems"]) == ["eskimo", "broken", "generational"]
    assert "models" not in doc["systems"]["broken"]
    reason = doc["systems"]["broken"]["cannot_generate"]
    assert "S" in reason and f"broken: cannot generate: {reason}" in out.splitlines()
    curve = doc["systems"]["eskimo"]["models"]["composer"]["by_k"]
    assert sorted(map(int, curve)) == [2, 3, 4] and all(c["n"] == 8 for c in curve.values())
    for name in ("eskimo", "generational"):  # reading a system's stories through its own glossary changes nothing
        assert doc["transfer"][f"{name} -> {name}"]["by_k"] == doc["systems"][name]["models"]["composer"]["by_k"]
    pair = ("eskimo", "generational")
    assert set(doc["transfer"]) == {f"{a} -> {b}" for a in pair for b in pair}
    assert doc["transfer"]["generational -> eskimo"]["untyped_facts"] > 0  # the fixture names no son-in-law
    assert doc["transfer"]["eskimo -> generational"]["untyped_facts"] == 0
    # a system whose longest chains cannot be built is scored on the shorter ones, the rest named
    entry = doc["systems"]["generational"]
    tested = sorted(map(int, entry["models"]["composer"]["by_k"]))
    cut = entry.get("cannot_generate_from_k")
    if cut is None:
        assert tested == [2, 3, 4]
    else:
        assert tested == list(range(2, cut["k"])) and str(cut["k"]) in cut["reason"]
        assert f"generational: cannot generate k={cut['k']}..4: {cut['reason']}" in out.splitlines()
    assert "\n".join(kinship_lines(doc)) in out


def test_an_unknown_system_name_exits_2_and_writes_nothing(tmp_path, capsys):
    assert main(["--results", str(tmp_path / "r"), "--systems", "eskimo,klingon", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "klingon" in err and not (tmp_path / "r").exists()
