"""--relations: stories that state and ask only the original release's relation words."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from clutrr.story.generator import GeneratorConfig, make_example, offered_targets
from clutrr.core.vocabulary import load_vocabulary, reachable_targets, word_mask
from clutrr.diagnostics.verify import summarize, verify_file
from clutrr.errors import UsageError
from clutrr.io.csv_format import measure_words, read_csv
from helpers import run_generate

V1 = load_vocabulary("clutrr_v1")


def test_clutrr_v1_is_what_the_release_uses(release):
    edges, targets = measure_words(sorted(release.rglob("*.csv")))
    assert set(edges) == set(V1.edges)
    assert set(targets) == set(V1.targets)


def test_reachability_follows_the_rules(kb):
    one = {kb.word(p, g) for p, g in reachable_targets(kb, V1, 1)}
    assert one == set(V1.edges) & set(V1.targets)
    two = {kb.word(p, g) for p, g in reachable_targets(kb, V1, 2)}
    assert {"nephew", "son-in-law", "mother-in-law"} <= two <= set(V1.targets)
    assert len(reachable_targets(kb, load_vocabulary("all"), 7)) == len(kb.words)


def test_unknown_words_and_names_are_usage_errors(kb):
    with pytest.raises(UsageError, match="'stepson' is not a word"):
        word_mask(kb, ("son", "stepson"))
    with pytest.raises(UsageError, match="unknown relation vocabulary 'nope'"):
        load_vocabulary("nope")


def test_examples_use_only_the_vocabulary(kb):
    config = GeneratorConfig(relations="clutrr_v1")
    for k, noise in ((2, "all"), (4, "supporting"), (6, "irrelevant")):
        offered = {kb.word(p, g) for p, g in offered_targets(config, k)}
        assert offered <= set(V1.targets)
        for i in range(12):
            ex = make_example(config, k, noise, 5, i, "test")
            assert set(ex.row.edge_types) <= set(V1.edges)
            assert ex.row.target in offered
            assert len(ex.row.edge_types) > k or noise == "none"


def test_long_chains_leave_out_targets_families_cannot_reach(kb):
    # a parent, child or sibling reached through 6 blood or marriage facts needs more
    # children per couple than the default families have
    offered = {kb.word(p, g) for p, g in offered_targets(GeneratorConfig(relations="clutrr_v1"), 6)}
    assert not offered & {"son", "daughter", "father", "mother", "brother", "sister"}
    assert {"nephew", "grandson", "uncle"} <= offered


def test_generated_dataset_speaks_the_vocabulary_and_verifies(tmp_path, kb):
    out = tmp_path / "d"
    res = run_generate("--relations", "clutrr_v1", "--k", "2,3", "--test-k", "3,6", "--noise", "all",
                       "--train-rows", "90", "--test-rows", "36", "--seed", "4", "--out", str(out))
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "config.json").read_text())
    report = manifest["relations"]
    assert report["name"] == "clutrr_v1" and manifest["spec"]["config"]["relations"] == "clutrr_v1"
    assert report["targets_left_out"]["3"] == []
    assert set(report["targets_left_out"]["6"]) == {"son", "daughter", "father", "mother", "brother", "sister"}
    assert sorted(p.name for p in out.glob("*.csv")) == ["5.2,5.3_train.csv", "5.3_test.csv", "5.6_test.csv"]
    for path in sorted(out.glob("*.csv")):
        rows = read_csv(path)
        assert rows
        for row in rows:
            assert set(row.edge_types) <= set(V1.edges) and len(row.edge_types) == len(row.story_edges)
            assert row.target in V1.targets
        counts = summarize(verify_file(kb, path))
        assert counts["entailed"] == len(rows), (path.name, counts)
        if path.name == "5.6_test.csv":  # balanced over the 12 targets offered at k=6
            labels = Counter(r.target for r in rows)
            assert len(labels) == 12 and set(labels.values()) == {3}
    for line in (out / "5.6_test.jsonl").read_text().splitlines():
        assert {e["relation"] for e in json.loads(line)["edges"]} <= set(V1.edges)


def test_unknown_vocabulary_is_one_line_exit_2(tmp_path):
    res = run_generate("--relations", "nonsense", "--out", str(tmp_path / "d"))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "unknown --relations 'nonsense'" in lines[0]
    assert not (tmp_path / "d").exists()
