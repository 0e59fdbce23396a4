"""NLI recasting: labels from the KB's closure, possible and surely false negatives, balanced words."""
from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace

import pytest

from clutrr.cli import main
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.core.kb import GENDERS, load_kb
from clutrr.diagnostics.recast import (
    DROP_TARGET, ENTAILED, NOT_ENTAILED, Item, negative_relations, recast_splits, settle,
)
from clutrr.diagnostics.verify import query_predicates
from clutrr.io.datadir import Split, load_splits
from diag_rows import FIXTURES, RELEASE, make_row

KB = load_kb("kinship")
M, F = "male", "female"


def _row(i: int, word: str, head_gender: str = M) -> object:
    """A one-fact story: the tail is the head's ``word``, and the target says so."""
    tail_gender = GENDERS[KB.parse_word(word)[1]]
    row = make_row(f"r{i}", (f"H{i}", head_gender), (f"T{i}", tail_gender), word)
    return replace(row, edge_types=[word])


def _split(words: list[str], head_gender: str = M) -> Split:
    return Split("1.2_test", FIXTURES / "unused.csv", [_row(i, w, head_gender) for i, w in enumerate(words)])


def _generated(n: int) -> Split:
    rows = [make_example(GeneratorConfig(templates="synthetic"), k, "none", 5, i, "test").row
            for k in (2, 3) for i in range(n)]
    return Split("1.3_test", FIXTURES / "unused.csv", rows)


def test_each_kept_story_gives_one_pair_of_each_label():
    for split, records, summary in recast_splits(load_splits(FIXTURES), KB, seed=3):
        by_story = Counter((r["source_id"], r["label"]) for r in records)
        assert set(by_story.values()) == {1}
        assert summary.pairs[ENTAILED] == summary.pairs[NOT_ENTAILED] == summary.kept
        assert summary.kept + sum(summary.dropped.values()) == len(split.rows)
        assert {r["split"] for r in records} == {split.name}


def test_negatives_are_possible_for_both_genders_and_never_derivable():
    split = _generated(220)
    rows = {r.id: r for r in split.rows}
    (_, records, summary), = recast_splits([split], KB, seed=0)
    assert summary.kept == len(split.rows)  # generated stories always entail their target
    spouse_negatives = 0
    for rec in records:
        row = rows[rec["source_id"]]
        pred, gender = KB.parse_word(rec["relation"])
        genders = dict(row.genders)
        assert GENDERS[gender] == genders[row.query[1]]
        derived = query_predicates(KB, row)
        assert (pred in derived) == (rec["label"] == ENTAILED)
        if rec["label"] == NOT_ENTAILED and pred == KB.index["spouse"]:
            spouse_negatives += 1
            assert genders[row.query[0]] != genders[row.query[1]], rec  # never "Edward is Kevin's husband"
    assert spouse_negatives > 0


def test_labels_come_from_the_closure_not_the_target_column():
    right = _row(0, "son")
    wrong = replace(_row(1, "son"), target="brother")  # the story says son; the column says brother
    unknown = replace(_row(2, "son"), edge_types=[])  # no typed fact: the KB cannot settle it
    items, dropped = settle([right, wrong, unknown], KB)
    assert [it.row.id for it in items] == ["r0"]
    assert dropped == Counter({DROP_TARGET: 2})
    assert "son" not in items[0].negatives and "brother" in items[0].negatives


def test_a_negative_must_be_surely_false():
    # one fact: the tail is the head's aunt. An aunt can also be a niece (worlds where one
    # person is both), so "niece" is not surely false; "mother" is.
    item = settle([_row(0, "aunt")], KB)[0][0]
    assert "niece" not in item.negatives and "aunt" not in item.negatives
    assert "mother" in item.negatives


def test_hypothesis_relations_are_balanced_across_labels():
    words = ["son"] * 5 + ["brother"] * 4 + ["uncle"] * 3 + ["niece"] * 3 + ["daughter"] * 2 + ["wife"] * 2
    (_, records, summary), = recast_splits([_split(words)], KB, seed=1)
    assert summary.fallback_negatives == 0 and summary.imbalance == 0
    ent = Counter(r["relation"] for r in records if r["label"] == ENTAILED)
    neg = Counter(r["relation"] for r in records if r["label"] == NOT_ENTAILED)
    assert ent == neg == Counter(words)
    assert "word balance" not in summary.line("1.2_test")


def test_broken_word_balance_is_said_in_the_summary():
    (_, records, summary), = recast_splits([_split(["son"] * 3 + ["daughter"] * 3)], KB, seed=0)
    assert summary.fallback_negatives == 6 and summary.imbalance == 1.0
    assert "word balance broken" in summary.line("1.2_test")
    assert summary.as_dict()["word_balance"] == "broken"


def test_fallback_draws_only_surely_false_words():
    items = settle([_row(i, "son") for i in range(3)] + [_row(3, "father")], KB)[0]
    prior = {0: Counter({"son": 5, "father": 1, "husband": 4}), 1: Counter()}
    negs, fallback = negative_relations(items, KB, prior, random.Random(0))
    assert fallback >= 1
    assert all(n in it.negatives for n, it in zip(negs, items))
    assert "husband" not in negs  # the heads are men


def test_an_unsound_kb_is_refused(capsys, tmp_path):
    assert main(["recast", str(FIXTURES), "--out", str(tmp_path / "nli"), "--kb", "clutrr_v1"]) == 2
    assert "needs a sound KB" in capsys.readouterr().err
    assert not (tmp_path / "nli").exists()


def test_record_text_and_fields():
    split = _split(["son"])
    split.rows[0].story = "[H0] hugged [T0]."
    rec = recast_splits([split], KB)[0][1][0]
    assert rec == {"premise": "H0 hugged T0.", "hypothesis": "T0 is H0's son.", "label": ENTAILED,
                   "source_id": "r0", "k": 2, "split": "1.2_test", "relation": "son"}


def test_cli_writes_one_jsonl_per_split_and_the_counts(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["1.2_test.jsonl", "1.2_train.jsonl", "1.3_test.jsonl", "summary.json"]
    summary = json.loads((out / "summary.json").read_text())["splits"]
    for name, info in summary.items():
        lines = (out / f"{name}.jsonl").read_text().splitlines()
        assert len(lines) == 2 * info["kept"]
        assert info["kept"] + sum(info["dropped"].values()) == info["stories"]
    assert summary["1.2_train"]["stories"] == 32
    assert capsys.readouterr().out.count("stories ->") == 3


def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not (RELEASE / "data_7c5b0e70").is_dir(), reason="released CLUTRR data absent")
def test_released_labels_are_not_taken_on_trust():
    splits = [s for s in load_splits(RELEASE / "data_7c5b0e70") if s.name in ("1.2_test", "2.3_test")]
    results = {s.name: (recs, info) for s, recs, info in recast_splits(splits, KB)}
    recs, info = results["2.3_test"]
    assert info.dropped[DROP_TARGET] == 72 and info.kept == 29  # as `clutrr verify` counts them
    rows = {r.id: r for s in splits for r in s.rows}
    for rec in recs:
        pred = KB.parse_word(rec["relation"])[0]
        assert (pred in query_predicates(KB, rows[rec["source_id"]])) == (rec["label"] == ENTAILED)
    recs, info = results["1.2_test"]
    assert info.fallback_negatives == info.kept == 38 and info.imbalance == 1.0
