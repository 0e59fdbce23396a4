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
from clutrr.core.entailment import story_closure
from clutrr.core.kb import bits
from clutrr.diagnostics.recast import (
    CONTRADICTION, DROP_NEUTRAL, DROP_TARGET, ENTAILED, MIXED, NEUTRAL, NOT_ENTAILED, negative_relations,
    recast_splits, settle,
)
from clutrr.diagnostics.verify import query_predicates, row_facts
from clutrr.diagnostics.worlds import world_facts
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
    rec, neg = recast_splits([split], KB)[0][1]
    assert rec == {"premise": "H0 hugged T0.", "hypothesis": "T0 is H0's son.", "label": ENTAILED,
                   "source_id": "r0", "k": 2, "split": "1.2_test", "relation": "son"}
    assert neg["label"] == NOT_ENTAILED and neg["negative"] == CONTRADICTION


def test_cli_writes_one_jsonl_per_split_and_the_counts(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [".clutrr-output.json", "1.2_test.jsonl", "1.2_train.jsonl", "1.3_test.jsonl", "summary.json"]
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


def _two_families():
    """Ann's son Bob and Carl's daughter Dora: nothing links the two pairs."""
    row = make_row("toy", ("Ann", F), ("Bob", M), "son", story="[Ann]'s son is [Bob]. [Carl]'s daughter is [Dora].")
    return replace(row, genders=[("Ann", F), ("Bob", M), ("Carl", M), ("Dora", F)], story_edges=[(0, 1), (2, 3)],
                   edge_types=["son", "daughter"])


def test_neutral_relations_are_witnessed_for_the_query_pair_and_open_pairs():
    (item,), dropped = settle([_two_families()], KB, negatives=NEUTRAL)
    assert item.gold == "son" and "brother" in item.negatives  # a son is never also a brother
    # Carl may be Ann's husband and Dora their daughter: a world with both, and worlds without
    assert item.neutral["husband"] == ("Ann", "Carl") and item.neutral["daughter"] == ("Ann", "Dora")
    assert "son" not in item.negatives and item.neutral["son"] == ("Ann", "Carl")  # Carl may be Bob's brother
    # one fact alone: the query pair's relation is settled and no other pair exists
    lone = replace(_two_families(), story="[Ann]'s son is [Bob].", genders=[("Ann", F), ("Bob", M)],
                   story_edges=[(0, 1)], edge_types=["son"])
    assert settle([lone], KB, negatives=NEUTRAL) == ([], Counter({DROP_NEUTRAL: 1}))
    assert settle([lone], KB)[0][0].neutral == {}  # contradictions only: no search
    # a fact without a relation word (released noise) might refute what a world ignoring it holds
    untyped = replace(_two_families(), story_edges=[(0, 1), (2, 3), (1, 2)])
    assert settle([untyped], KB, negatives=NEUTRAL) == ([], Counter({DROP_NEUTRAL: 1}))


def test_neutral_negatives_are_neither_derived_nor_refuted():
    split = _generated(60)
    rows = {r.id: r for r in split.rows}
    world = world_facts(KB)
    (_, records, summary), = recast_splits([split], KB, seed=0, negatives=NEUTRAL)
    assert summary.kinds == Counter({NEUTRAL: summary.kept}) and summary.kept > 10
    assert summary.dropped == Counter({DROP_NEUTRAL: len(split.rows) - summary.kept})
    for rec in records:
        if rec["label"] == ENTAILED:
            continue
        row = rows[rec["source_id"]]
        tail, head = rec["hypothesis"][:-1].split(" is ")
        head = head.removesuffix(f"'s {rec['relation']}")
        names = [n for n, _ in row.genders]
        x, y = names.index(head), names.index(tail)
        closure = story_closure(KB, row_facts(KB, row))
        derived = bits(closure.get((x, y), 0))
        pred, gender = KB.parse_word(rec["relation"])
        genders = [GENDERS.index(g) for _, g in row.genders]
        assert gender == genders[y] and pred not in derived
        assert world.possible(pred, genders[x], genders[y])
        assert not any(world.excludes(pred, d) for d in derived)  # not refuted by what the story entails
        assert (x, y) == tuple(row.query_edge) or not derived  # the query pair, or a pair the story leaves open


def test_mixed_negatives_hold_both_kinds_and_stay_one_pair_per_label(tmp_path, capsys):
    out = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(out), "--negatives", "mixed"]) == 0
    assert "neutral" in capsys.readouterr().out
    summary = json.loads((out / "summary.json").read_text())
    assert summary["negatives"] == MIXED
    kinds = Counter()
    for name, info in summary["splits"].items():
        recs = [json.loads(line) for line in (out / f"{name}.jsonl").read_text().splitlines()]
        assert Counter(r["label"] for r in recs) == {ENTAILED: info["kept"], NOT_ENTAILED: info["kept"]}
        kinds.update(r["negative"] for r in recs if r["label"] == NOT_ENTAILED)
        assert info["negatives"] == {k: sum(r.get("negative") == k for r in recs) for k in (CONTRADICTION, NEUTRAL)}
    assert kinds[CONTRADICTION] and kinds[NEUTRAL]
