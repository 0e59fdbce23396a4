"""Leak-free splits: no held-out pattern in train, no story in two splits, balanced labels."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from clutrr.io.csv_format import read_csv
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec
from clutrr.story.generator import GeneratorConfig, pattern_heldout


@pytest.fixture(scope="module")
def dataset(tmp_path_factory):
    out = tmp_path_factory.mktemp("ds") / "data"
    spec = DatasetSpec(train_k=(2, 3), test_k=(2, 3, 4), noise="none", test_noise=("none", "irrelevant"),
                       train_rows=660, test_rows=220, seed=5, config=GeneratorConfig(holdout=0.25))
    manifest = write_dataset(spec, out, progress=False)
    return out, spec, manifest


def test_files_are_named_as_in_the_original(dataset):
    out, _, _ = dataset
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(["1.2,1.3_train.csv", "1.2,1.3_train.jsonl", "1.2_test.csv", "1.2_test.jsonl",
                            "1.3_test.csv", "1.3_test.jsonl", "1.4_test.csv", "1.4_test.jsonl",
                            "3.2_test.csv", "3.2_test.jsonl", "3.3_test.csv", "3.3_test.jsonl",
                            "3.4_test.csv", "3.4_test.jsonl", "config.json", "manifest.json"])


def test_no_heldout_pattern_in_train_and_some_in_test(dataset):
    out, spec, manifest = dataset
    train = read_csv(out / "1.2,1.3_train.csv")
    assert len(train) == 1320
    assert not any(pattern_heldout(r.f_comb, r.k, spec.seed, 0.25) for r in train)
    test3 = read_csv(out / "1.3_test.csv")
    held = [r for r in test3 if pattern_heldout(r.f_comb, 3, spec.seed, 0.25)]
    assert held, "test at k=3 should contain held-out patterns"
    train_patterns = {r.f_comb for r in train}
    assert not {r.f_comb for r in held} & train_patterns
    # k=2 patterns are never held out
    assert not any(pattern_heldout(r.f_comb, 2, spec.seed, 0.99) for r in read_csv(out / "1.2_test.csv"))
    assert manifest["checks"]["heldout_patterns_in_train"] == 0


def test_no_story_appears_twice(dataset):
    out, _, manifest = dataset
    stories = [r.story for p in sorted(out.glob("*.csv")) for r in read_csv(p)]
    assert len(stories) == len(set(stories))
    assert manifest["checks"]["duplicate_stories"] == 0


def test_targets_are_balanced_across_all_22_words(dataset, kb):
    out, _, _ = dataset
    for name in ("1.2,1.3_train.csv", "1.4_test.csv", "3.3_test.csv"):
        counts = Counter(r.target for r in read_csv(out / name))
        assert set(counts) == set(kb.words), name
        assert max(counts.values()) - min(counts.values()) <= 2, (name, counts)


def test_manifest_reports_rows_labels_and_patterns(dataset):
    out, _, manifest = dataset
    on_disk = json.loads((out / "config.json").read_text())
    assert on_disk["seed"] == 5 and on_disk["version"]
    f = on_disk["files"]["1.2,1.3_train"]
    assert f["rows"] == 1320 and sum(f["labels"].values()) == 1320
    # bounded statistics: the exact top 20 patterns and the number of distinct ones
    counts = Counter(r.f_comb for r in read_csv(out / "1.2,1.3_train.csv"))
    ranked = sorted(counts.items(), key=lambda pc: (-pc[1], pc[0]))
    assert f["patterns"] == {"distinct": len(counts), "top": [list(pc) for pc in ranked[:20]]}
    assert on_disk["splits"]["test"]["rows"] == 6 * 220


def test_manifest_records_the_template_split(dataset):
    out, _, _ = dataset
    manifest = json.loads((out / "config.json").read_text())
    test_ids = set(manifest["templates"]["test_template_ids"])
    assert manifest["templates"]["template_split"] and test_ids
    for path in out.glob("*.jsonl"):
        used = {p["template"] for line in path.read_text().splitlines() for p in json.loads(line)["pieces"]}
        if path.name.endswith("_train.jsonl"):
            assert not used & test_ids
        else:
            assert used <= test_ids
