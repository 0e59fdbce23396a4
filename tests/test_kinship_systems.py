"""Each of the seven shipped systems generates at the issue's k (train 2,3; test 2..6) files whose
every label ``clutrr verify`` accepts, reading the system from the dataset's config.json; rows
count their facts, not the words of hyphenated terms (a few rows each, to stay cheap)."""
from __future__ import annotations

import dataclasses
import json

import pytest

from clutrr.cli import main
from clutrr.io.csv_format import read_csv
from clutrr.kinship.terminology import builtin_terminologies, load_terminology

SEVEN = ("eskimo", "hawaiian", "sudanese", "iroquois", "dravidian", "crow", "omaha")


def test_the_seven_are_built_in():
    assert sorted(builtin_terminologies()) == sorted(SEVEN)


@pytest.mark.parametrize("name", SEVEN)
def test_generate_then_verify_without_naming_the_system(name, tmp_path, capsys):
    out = tmp_path / name
    assert main(["generate", "--kinship", name, "--k", "2,3", "--test-k", "2..6", "--train-rows", "3",
                 "--test-rows", "3", "--format", "csv,jsonl", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["verify", str(out)]) == 0
    report = capsys.readouterr().out
    assert report.startswith(f"KB: {name} (sound), the kinship system config.json records (--kinship {name})")
    assert "uniquely entailed: 21/21 (100.0%)" in report  # 2 train files and 5 test files of 3 rows
    table = load_terminology(name).table()
    for k in range(2, 7):
        records = [json.loads(line) for line in (out / f"1.{k}_test.jsonl").read_text().splitlines()]
        rows = read_csv(out / f"1.{k}_test.csv")
        assert len(records) == len(rows) == 3
        for record, row in zip(records, rows):
            speaker = record["people"][record["query"][0]]["gender"]
            assert table[(speaker, record["kin_type"])] == record["target"]  # the label, read off the table
            assert row.k == k and dataclasses.replace(row, task_name="").k == k  # facts, not words


def test_larger_families_than_a_system_proves_its_rules_for_are_refused(tmp_path, capsys):
    assert main(["generate", "--kinship", "hawaiian", "--generations", "4", "--k", "2", "--test-k", "2",
                 "--train-rows", "2", "--test-rows", "2", "--quiet", "--out", str(tmp_path / "h")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "proved only for families of at most 3 generations; lower --generations" in err
    assert not (tmp_path / "h").exists()
    assert main(["generate", "--kinship", "hawaiian", "--k", "13", "--test-k", "none", "--train-rows", "2",
                 "--quiet", "--out", str(tmp_path / "h")]) == 2  # long chains grow families to four generations
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "drop k=13 or its distractors (these stories use 4 generations)" in err
    assert not (tmp_path / "h").exists()


def test_verify_refuses_datasets_of_two_systems_together(tmp_path, capsys):
    for name in ("eskimo", "sudanese"):
        assert main(["generate", "--kinship", name, "--k", "2", "--test-k", "2", "--train-rows", "2",
                     "--test-rows", "2", "--quiet", "--out", str(tmp_path / name)]) == 0
    capsys.readouterr()
    assert main(["verify", str(tmp_path / "eskimo"), str(tmp_path / "sudanese")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different kinship systems (eskimo, sudanese)" in err
    assert main(["verify", str(tmp_path / "sudanese"), "--kinship", "eskimo"]) == 1  # told otherwise, it obeys


def test_k_counts_facts_whatever_the_hyphens():
    from clutrr.core.records import StoryRow, split_f_comb

    words = ["ibn-amm", "son-in-law", "akh"]
    row = StoryRow(id="r", story="", query=("a", "b"), target="akh", clean_story="", proof_state=[],
                   f_comb="-".join(words), task_name="task_1.3", story_edges=[(0, 1), (1, 2), (2, 3)],
                   edge_types=words, query_edge=(0, 3), genders=[], node_mapping={}, task_split="test")
    assert row.k == 3 and dataclasses.replace(row, task_name="").k == 3
    assert dataclasses.replace(row, task_name="", f_comb="").k == 3  # no pattern: its typed facts
    assert split_f_comb("ibn-amm-son-in-law-akh", set(words)) == words
    assert split_f_comb("son-in-law-brother") == ["son-in-law", "brother"]  # the English default
