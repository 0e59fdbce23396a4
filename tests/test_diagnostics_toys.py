"""The toy examples of docs/diagnostics.md, computed by hand there, computed by the library here."""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from clutrr.core.kb import load_kb
from clutrr.diagnostics.audit import gender_prior, majority_baselines, story_tokens
from clutrr.diagnostics.easy_hard import halves, indistinct
from clutrr.diagnostics.giveaway import giveaway_words
from clutrr.diagnostics.models import Predictions
from clutrr.diagnostics.naive_bayes import MultinomialNB
from clutrr.diagnostics.nli_audit import nli_group, overlap_label
from clutrr.diagnostics.permutation_metrics import permutation_acceptance, random_omega
from clutrr.diagnostics.probes import sentence_shuffle, word_permute
from clutrr.diagnostics.recast import NEUTRAL, settle
from clutrr.diagnostics.stats import GREATER, binomial_two_sided, binomial_upper_tail, sign_test
from diag_rows import make_row

KB = load_kb("kinship")
M, F = "male", "female"
E, N = "entailed", "not-entailed"


def test_toy_majority_baselines():
    block, bar_preds = majority_baselines(["son"] * 4, ["aunt", "aunt", "niece", "son"])
    assert (block["accuracy"], block["own_label"], block["own_share"]) == (0.25, "aunt", 0.5)
    assert block["stronger"] == "own" and block["bar"] == 0.5 and bar_preds == ["aunt"] * 4


def test_toy_sign_test():
    a = [True] * 7 + [False] + [True] * 3 + [False] * 2
    b = [False] * 7 + [True] + [True] * 3 + [False] * 2
    assert sign_test(a, b, GREATER).p_value == 9 / 256  # .035: significant at .05 one-sided
    assert sign_test(a, b).p_value == 18 / 256  # .070: not two-sided
    assert round(binomial_upper_tail(18, 23), 4) == 0.0053 and round(binomial_two_sided(18, 23), 4) == 0.0106


def test_toy_gender_prior_ceiling():
    rows = [make_row(f"s{i}", ("A", M), ("B", M), "son") for i in range(3)]
    rows += [make_row("b", ("A", M), ("B", M), "brother")]
    rows += [make_row(f"h{i}", ("C", F), ("D", M), "husband") for i in range(2)]
    rows += [make_row(f"x{i}", ("A", M), ("E", F), "sister") for i in range(2)]
    assert gender_prior(rows)[0] == 7 / 8
    assert gender_prior(rows, key=lambda r: dict(r.genders)[r.query[1]])[0] == 5 / 8


def test_toy_giveaway_words_from_the_training_split():
    def rows(spec):
        return [make_row(f"r{i}", ("A", M), ("B", M if lab == "brother" else F), lab, story=word)
                for i, (word, lab) in enumerate(spec)]

    train = rows([("baked", "sister")] + [("baked", "brother")] * 4 + [("sang", "sister")] * 5)
    test = rows([("baked", "sister"), ("baked", "sister"), ("sang", "sister"), ("sang", "brother")])
    tokens = lambda r: story_tokens(r.story)  # noqa: E731
    gw = giveaway_words(test, lambda r: r.target, tokens, train, min_count=5, xs=(0.5,))
    assert [(d["word"], d["label"], d["p"], d["count"], d["in_split"]) for d in gw["top"]] == [
        ("sang", "sister", 1.0, 5, 2), ("baked", "brother", 0.8, 5, 2)]
    assert gw["coverage"] == [{"x": 0.5, "share": 0.25}]  # only the third story: p(sister | sang) = 1
    # estimated within the test split (the audit's earlier figure): "baked" looks like a give-away for sister
    within = giveaway_words(test, lambda r: r.target, tokens, min_count=2)["top"]
    assert [(d["word"], d["label"], d["p"], d["count"]) for d in within] == [
        ("baked", "sister", 1.0, 2), ("sang", "brother", 0.5, 2)]


def test_toy_giveaway_ranking():
    spec = [("cake", "son")] * 6 + [("cake", "aunt")] * 4 + [("kite", "son")] * 5
    rows = [make_row(f"r{i}", ("A", M), ("B", M), lab, story=w) for i, (w, lab) in enumerate(spec)]
    label, tokens = (lambda r: r.target), (lambda r: story_tokens(r.story))
    by_p = giveaway_words(rows, label, tokens, min_count=5)["top"]
    by_freq = giveaway_words(rows, label, tokens, min_count=5, rank="frequency")["top"]
    assert [(d["word"], d["p"], d["count"]) for d in by_p] == [("kite", 1.0, 5), ("cake", 0.6, 10)]
    assert [d["word"] for d in by_freq] == ["cake", "kite"]


def test_toy_easy_hard_halves():
    gold = [E, E, E, N, N, N]
    preds = Predictions({"biased": [E, E, N, N, N, E], "other": [E, N, E, N, E, N]}, "toy")
    h = halves(preds, "biased", gold)
    assert (h["easy"], h["hard"]) == (4, 2)
    assert h["accuracy"]["other"] == {"easy": 0.5, "hard": 1.0}


def test_toy_hypothesis_only_naive_bayes_ties_on_balanced_hypotheses():
    train = ["Bob is Ann's son.", "Bob is Ann's uncle.", "Cy is Di's uncle.", "Cy is Di's son."]
    model = MultinomialNB().fit([story_tokens(t) for t in train], [E, N, E, N])
    preds, tied = model.predict_ties([story_tokens("Ed is Flo's son."), story_tokens("Ed is Flo's uncle.")])
    assert preds == [E, E] and tied == [True, True]
    p = Predictions({"hypothesis_nb": preds}, "toy", {"hypothesis_nb": tied})
    assert indistinct({"test": p}, "hypothesis_nb") == ["test"]


def test_toy_overlap_heuristic_and_the_bar():
    rec = {"premise": "Ann baked a cake for her son Bob.", "hypothesis": "Bob is Ann's son.", "label": E}
    assert overlap_label(rec) == E and overlap_label({**rec, "hypothesis": "Bob is Ann's nephew."}) == N
    records = [{"label": lab} for lab in (E, N, E, N)]
    preds = Predictions({"majority": [E] * 4, "hypothesis_nb": [N, E, N, N], "overlap": [E, N, E, E]}, "toy")
    g = nli_group(records, preds)
    assert (g["majority"]["bar"], g["hypothesis_nb"]["accuracy"], g["overlap"]["accuracy"]) == (0.5, 0.25, 0.75)
    assert g["to_beat"] == 0.75 and g["to_beat_by"] == "overlap"


def test_toy_permutation_acceptance():
    gold = ["son", "aunt", "wife", "niece"]
    original = ["son", "aunt", "son", "uncle"]
    permuted = [["son", "son", "aunt", "son"], ["uncle"] * 4, ["wife", "son", "son", "son"], ["uncle"] * 4]
    m = permutation_acceptance(gold, original, permuted, n_labels=4)
    assert (m.omega_max, m.omega_rand, m.p_correct, m.p_wrong, m.p_wrong_all) == (0.5, 0.25, 3 / 8, 1 / 4, 1 / 8)
    assert m.omega_max_thesis == 0.25  # x = 1/|D_test| = 1/4: story 3's 1/4 is not above it
    assert m.random_omega_max == pytest.approx(175 / 256) and m.random_omega_rand == pytest.approx(67 / 256)
    assert round(random_omega(22, 100, 0.0), 3) == 0.990 and round(random_omega(22, 100, 1 / 22), 3) == 0.479


def test_toy_permutation_rules():
    five = make_row("five", ("Ann", F), ("Bob", M), "son", story="[Ann] hugged her son [Bob].")
    assert word_permute(five, seed=0, q=100) == []
    same = make_row("ab", ("Ann", F), ("Bob", M), "son", story="a a a b b b")
    assert [r.story for r in word_permute(same, seed=0, q=1)] == ["b b b a a a"] and word_permute(same, 0, 2) == []
    assert sentence_shuffle(five, seed=0) == []


def test_toy_neutral_and_contradiction_negatives():
    row = make_row("toy", ("Ann", F), ("Bob", M), "son", story="[Ann]'s son is [Bob]. [Carl]'s daughter is [Dora].")
    row = replace(row, genders=[("Ann", F), ("Bob", M), ("Carl", M), ("Dora", F)], story_edges=[(0, 1), (2, 3)],
                  edge_types=["son", "daughter"])
    (item,), dropped = settle([row], KB, negatives=NEUTRAL)
    assert dropped == Counter() and "brother" in item.negatives
    assert item.neutral["husband"] == ("Ann", "Carl") and item.neutral["daughter"] == ("Ann", "Dora")
