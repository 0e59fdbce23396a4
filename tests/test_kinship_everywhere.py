"""``--kinship`` where a KB is chosen beyond generate/verify/eval/show: probes (a gender swap
re-rendered through the system's own templates), audits and the RL datasets; and the sources a
kinship dataset's config.json records, found again on this machine."""
from __future__ import annotations

import json

import pytest

from clutrr.cli import main
from clutrr.core.kb import KBError, load_kb
from clutrr.diagnostics.kin_flip import counterparts
from clutrr.diagnostics.probes import Rerenderer
from clutrr.diagnostics.verify import summarize, verify_file
from clutrr.io.csv_format import read_csv
from clutrr.kinship.terminology import load_terminology
from clutrr.llm.prompts import GLOSSARY_HEAD
from clutrr.rl import DatasetConfig, make_dataset
from clutrr.rl.dataset import FileDataset
from clutrr.story.systems import kinship_fields, recorded_source


@pytest.fixture(scope="module")
def eskimo(tmp_path_factory):
    out = tmp_path_factory.mktemp("kin") / "eskimo"
    assert main(["generate", "--kinship", "eskimo", "--k", "2,3", "--test-k", "2,3", "--train-rows", "30",
                 "--test-rows", "20", "--quiet", "--out", str(out)]) == 0
    return out


def test_recorded_sources_are_found_again_and_a_changed_terminology_is_named(eskimo):
    spec = json.loads((eskimo / "config.json").read_text(encoding="utf-8"))["spec"]["config"]
    fields = kinship_fields("eskimo")
    assert recorded_source(spec["kb"]) == fields["kb"] and recorded_source(spec["templates"]) == fields["templates"]
    assert recorded_source("paraphrase") == "paraphrase"
    stale = spec["kb"][:-6] + "000000"
    with pytest.raises(KBError, match="no installed kinship system"):
        recorded_source(stale)


def test_counterparts_mirror_every_kin_type_and_skewed_systems_lack_some():
    eskimo = counterparts(load_terminology("eskimo"))
    assert eskimo["uncle"] == "aunt" and eskimo["cousin"] == "cousin" and eskimo["son-in-law"] == "daughter-in-law"
    assert all(eskimo[eskimo[t]] == t for t in eskimo)
    assert counterparts(load_terminology("sudanese"))["amm"] == "khala"  # FB mirrored is MZ
    assert "father" not in counterparts(load_terminology("crow"))  # the Crow father (F, FB, FZS) has no mirror


def test_a_gender_swap_of_kinship_stories_is_rerendered_and_verified(eskimo, tmp_path, capsys):
    kb = load_kb(kinship_fields("eskimo")["kb"])
    rerender = Rerenderer.beside(eskimo / "1.3_test.csv", kb)
    assert rerender is not None and rerender.templates
    out = tmp_path / "swap"
    assert main(["probe", str(eskimo), "--kind", "gender-swap", "--kinship", "eskimo", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1.3_test.csv: 20 of 20 stories re-rendered through their templates" in printed
    flips = counterparts(load_terminology("eskimo"))
    for name in ("1.2_test.csv", "1.3_test.csv"):
        before, after = read_csv(eskimo / name), read_csv(out / name)
        assert [flips[r.target] for r in before] == [r.target for r in after]
        counts = summarize(verify_file(kb, out / name))
        assert counts["entailed"] == len(after) == sum(counts.values())


def test_audit_takes_a_kinship_system(eskimo, capsys):
    assert main(["audit", str(eskimo), "--kinship", "eskimo"]) == 0
    assert main(["audit", str(eskimo), "--kinship", "eskimo", "--kb", "kinship-blood"]) == 2
    assert "--kinship sets the KB" in capsys.readouterr().err


def test_rl_datasets_speak_a_kinship_system(eskimo):
    items = make_dataset(DatasetConfig(size=6, kinship="eskimo"), seed=0)
    words = set(load_kb(kinship_fields("eskimo")["kb"]).words)
    for item in items:
        assert GLOSSARY_HEAD in item["question"] and item["answer"] in words
        assert items.score_answer(f"<answer>{item['answer']}</answer>", item) == 1.0
    files = FileDataset(eskimo, kinship="eskimo")
    assert len(files) == 40 and all(files.score_answer(it["answer"], it) == 1.0 for it in files)


def test_a_kinship_rows_k_comes_from_its_task_name_whatever_its_hyphenated_terms(tmp_path):
    from clutrr.core.records import StoryRow

    row = StoryRow(id="x", story="", query=("A", "B"), target="ibn-amm", clean_story="", proof_state=[],
                   f_comb="ibn-amm-bint-ukht", task_name="task_1.2", story_edges=[], edge_types=[], query_edge=(0, 1),
                   genders=[], node_mapping={}, task_split="test", kin_type="FBS")
    assert row.k == 2
    row.kin_type, row.glossary = "", ["X's ibn-amm is X's father's brother's son."]  # a count of 0 has no kin type
    assert row.k == 2
