"""NLI recasting: one entailed and one not-entailed pair per story, balanced hypotheses."""
from __future__ import annotations

import json
import random
from collections import Counter

from clutrr.cli import main
from clutrr.io.datadir import Split, load_splits
from clutrr.core.kb import GENDERS, load_kb
from clutrr.diagnostics.recast import ENTAILED, NOT_ENTAILED, negative_relations, recast_splits
from diag_rows import FIXTURES, make_row

KB = load_kb("kinship")
F = "female"


def _split(labels: list[str]) -> Split:
    rows = [make_row(f"r{i}", ("Ann", F), ("Bob", GENDERS[KB.parse_word(t)[1]]), t) for i, t in enumerate(labels)]
    return Split("1.2_test", FIXTURES / "unused.csv", rows)


def test_each_story_gives_one_pair_of_each_label():
    results = recast_splits(load_splits(FIXTURES), KB, seed=3)
    for split, records, summary in results:
        by_story = Counter((r["source_id"], r["label"]) for r in records)
        assert set(by_story.values()) == {1}
        assert summary.pairs[ENTAILED] == summary.pairs[NOT_ENTAILED] == len(split.rows)
        assert {r["split"] for r in records} == {split.name}
        assert {r["source_id"] for r in records} == {row.id for row in split.rows}


def test_negatives_keep_the_gender_and_never_repeat_the_gold():
    for split, records, _ in recast_splits(load_splits(FIXTURES), KB, seed=0):
        gold = {r["source_id"]: r["relation"] for r in records if r["label"] == ENTAILED}
        for r in records:
            if r["label"] == NOT_ENTAILED:
                assert r["relation"] != gold[r["source_id"]]
                assert KB.parse_word(r["relation"])[1] == KB.parse_word(gold[r["source_id"]])[1]


def test_hypothesis_relations_are_balanced_across_labels():
    labels = ["son"] * 5 + ["brother"] * 4 + ["uncle"] * 3 + ["niece"] * 3 + ["aunt"] * 2 + ["wife"] * 2
    split = _split(labels)
    records, summary = recast_splits([split], KB, seed=1)[0][1:]
    assert summary.fallback_negatives == 0
    ent = Counter(r["relation"] for r in records if r["label"] == ENTAILED)
    neg = Counter(r["relation"] for r in records if r["label"] == NOT_ENTAILED)
    assert ent == neg == Counter(labels)


def test_dominant_label_falls_back_to_the_prior():
    split = _split(["son"] * 3 + ["father"])
    negs, fallback = negative_relations(split.rows, KB, {0: Counter({"son": 5, "father": 1, "uncle": 2}), 1: Counter()},
                                        random.Random(0))
    assert fallback >= 1
    assert all(n != g for n, g in zip(negs, ["son"] * 3 + ["father"]))
    assert all(KB.parse_word(n)[1] == 0 for n in negs)


def test_record_text_and_fields():
    split = _split(["son"])
    split.rows[0].story = "[Ann] hugged [Bob]."
    rec = recast_splits([split], KB)[0][1][0]
    assert rec == {"premise": "Ann hugged Bob.", "hypothesis": "Bob is Ann's son.", "label": ENTAILED,
                   "source_id": "r0", "k": 2, "split": "1.2_test", "relation": "son"}


def test_cli_writes_one_jsonl_per_split(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["1.2_test.jsonl", "1.2_train.jsonl", "1.3_test.jsonl", "summary.json"]
    lines = (out / "1.3_test.jsonl").read_text().splitlines()
    assert len(lines) == 8 and json.loads(lines[0])["k"] == 3
    assert json.loads((out / "summary.json").read_text())["splits"]["1.2_train"]["stories"] == 32


def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
