"""Toy examples worked by hand from the source papers' own definitions (not from our docs):
Poliak's dissertation §5.5 (give-away words of hypotheses), Tsuchiya (2018: the easy/hard
split's condition, the unknown-token premise of Table 4, per-class results of Fig. 2),
Sinha's thesis (eq. 4.3, Ω_max, Figs. 4.4-4.5) and the three-label recast."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

from clutrr.core.kb import load_kb
from clutrr.diagnostics.audit import UNKNOWN, paired_test, unknown_premise
from clutrr.diagnostics.confusion import confusion, per_class_accuracy
from clutrr.diagnostics.easy_hard import weak_splits
from clutrr.diagnostics.giveaway import hypothesis_giveaway
from clutrr.diagnostics.naive_bayes import MultinomialNB
from clutrr.diagnostics.permutation_metrics import accepted_entropy, length_acceptance, permutation_acceptance
from clutrr.diagnostics.recast import CONTRADICTION, ENTAILED, NEUTRAL, recast_splits, settle
from clutrr.io.datadir import Split
from diag_rows import make_row

KB = load_kb("kinship")
E, N, C = "entailed", "not-entailed", "contradiction"


def test_poliak_giveaway_words_per_label_by_frequency_and_coverage_for_any_label():
    # eq. 5.1: p(l | w) = count(w, l) / count(w), words seen >= 5 times, on the split's own hypotheses
    hyps = ([(["is", "son", "tie"], E)] * 3 + [(["is", "son"], E)] * 2 + [(["is", "uncle"], E)]
            + [(["is", "uncle", "tie", "aunt"], N)] * 3 + [(["is", "uncle", "aunt"], N)] + [(["is", "son"], N)])
    gw = hypothesis_giveaway([h for h, _ in hyps], [lab for _, lab in hyps], min_count=5)
    # is: 11 (6 E), son: 6 (5 E), uncle: 5 (4 N), tie: 6 (3 E, 3 N: leans to no label), aunt: 4 (< 5, not counted)
    assert gw["n_words"] == 4
    assert gw["per_label"] == {E: [{"word": "is", "p": 6 / 11, "count": 11}, {"word": "son", "p": 5 / 6, "count": 6}],
                               N: [{"word": "uncle", "p": 4 / 5, "count": 5}]}
    # coverage: a hypothesis counts when one of its words has p(l | w) >= x for SOME label l (the last
    # hypothesis is N, but "son" leans to E with 5/6: it counts at x = 0.82)
    gw = hypothesis_giveaway([h for h, _ in hyps], [lab for _, lab in hyps], min_count=5, xs=(0.5, 0.8, 0.82, 0.9))
    assert [c["share"] for c in gw["coverage"]] == [1.0, 1.0, 6 / 11, 0.0]


def test_poliak_top_ten_per_label():
    hyps = [[f"w{i}"] for i in range(12) for _ in range(5 + i)]  # w_i seen 5 + i times, always entailed
    gw = hypothesis_giveaway(hyps, [E] * len(hyps))
    assert [d["word"] for d in gw["per_label"][E]] == [f"w{i}" for i in range(11, 1, -1)]  # the 10 most frequent


def test_tsuchiya_split_only_where_the_biased_model_beats_majority_significantly():
    gold = ["son"] * 12
    majority = ["son"] * 2 + ["aunt"] * 10  # right on 2
    strong = ["son"] * 12  # right on all: 10 wins, 0 losses, two-sided p = 2 / 2^10 = 0.00195
    weak = ["son"] * 8 + ["aunt"] * 4  # 6 wins, 0 losses: p = 2 / 2^6 = 0.03125
    splits = []
    for name, biased in (("a", strong), ("b", weak)):
        t = paired_test(biased, majority, gold, alpha=0.01)
        splits.append({"split": name, "groups": [{"q": {"vs_majority": t}}]})
    assert splits[0]["groups"][0]["q"]["vs_majority"]["p_value"] == 2 / 1024
    assert splits[1]["groups"][0]["q"]["vs_majority"]["p_value"] == 2 / 64
    assert weak_splits(splits, "q") == ["b"]


def test_tsuchiya_unknown_token_premise_keeps_the_length_only():
    assert unknown_premise("Ann met [Bob] twice.", ["bob", "is", "ann", "son"]) == [
        "bob", "is", "ann", "son", UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN]
    # identical hypotheses "h"; entailed premises have 1 word, not-entailed ones 3. Add-one Naive Bayes:
    # p(h|E) = 2/4, p(unk|E) = 2/4; p(h|N) = 2/6, p(unk|N) = 4/6. A 1-word premise: E 1/4 > N 2/9;
    # a 3-word premise: E 1/16 < N 8/81. The hypothesis alone ties.
    model = MultinomialNB().fit([unknown_premise("a", ["h"]), unknown_premise("a b c", ["h"])], [E, N])
    scores = np.exp(model.scores([unknown_premise("x", ["h"]), unknown_premise("x y z", ["h"])]))
    assert scores[0] == pytest.approx([0.5 * 1 / 4, 0.5 * 2 / 9])
    assert scores[1] == pytest.approx([0.5 / 16, 0.5 * 8 / 81])
    assert MultinomialNB().fit([["h"], ["h"]], [E, N]).predict_ties([["h"]])[1] == [True]


def test_per_class_accuracy_and_confusion_matrix():
    gold = [E, E, E, N, N, C]
    pred = [E, N, E, N, E, C]
    assert per_class_accuracy(gold, pred) == {C: {"n": 1, "accuracy": 1.0}, E: {"n": 3, "accuracy": 2 / 3},
                                              N: {"n": 2, "accuracy": 0.5}}
    assert confusion(gold, pred) == {"labels": [C, E, N], "matrix": [[1, 0, 0], [0, 2, 1], [0, 1, 1]]}


def test_sinha_eq_4_3_averages_per_example():
    # two stories right originally: 1 of 2 permutations accepted, and 1 of 4
    m = permutation_acceptance(["son", "aunt"], ["son", "aunt"], [["son", "wife"], ["aunt"] + ["wife"] * 3], 22)
    assert m.p_correct == (1 / 2 + 1 / 4) / 2 == 3 / 8  # eq. 4.3; pooled it would be 2/6
    assert (m.accepted_correct, m.permutations_correct) == (2, 6)


def test_sinha_omega_max_formula_and_prose():
    # 3 stories, q = 4, acceptances 1/4, 1/2, 0. Prose: at least one accepted -> 2/3.
    # Formula: acceptance above x = 1/|D_test| = 1/3 -> only 1/2 -> 1/3.
    gold = ["son"] * 3
    permuted = [["son", "x", "x", "x"], ["son", "son", "x", "x"], ["x"] * 4]
    m = permutation_acceptance(gold, gold, permuted, n_labels=22)
    assert (m.omega_max, m.omega_max_thesis) == (2 / 3, 1 / 3)
    # a random guesser over 22 labels with q = 4: more than 4/3 accepted, i.e. 2 or more
    p = 1 / 22
    assert m.random_omega_max_thesis == pytest.approx(1 - (1 - p) ** 4 - 4 * p * (1 - p) ** 3)


def test_sinha_entropy_of_accepted_permutations_by_dc_and_df():
    h = -(0.25 * math.log2(0.25) + 0.75 * math.log2(0.75))  # H(1/4, 3/4) = 0.811 bits
    gold = [0, 1, 1]
    original = np.array([[0.75, 0.25], [1.0, 0.0], [1.0, 0.0]])  # right, wrong, wrong
    story_index = [0, 0, 1, 1, 2]
    probs = np.array([[1.0, 0.0], [0.25, 0.75], [0.25, 0.75], [1.0, 0.0], [1.0, 0.0]])
    out = accepted_entropy(gold, original, story_index, probs)
    # D^c = {0}: its accepted permutation has entropy 0, its original H; D^f = {1} (story 2 accepts none)
    assert out["D^c"] == {"stories": 1, "accepted_permutations": 1, "entropy_accepted": 0.0,
                          "entropy_original": pytest.approx(h)}
    assert out["D^f"] == {"stories": 1, "accepted_permutations": 1, "entropy_accepted": pytest.approx(h),
                          "entropy_original": 0.0}


def test_sinha_acceptance_by_length():
    out = length_acceptance([12, 15, 31], [1.0, 0.5, 0.25], [True, True, False], width=10)
    assert out == {"right": [{"length": 10, "stories": 2, "acceptance": 0.75}],
                   "wrong": [{"length": 30, "stories": 1, "acceptance": 0.25}]}


def _two_families():
    row = make_row("toy", ("Ann", "female"), ("Bob", "male"), "son",
                   story="[Ann]'s son is [Bob]. [Carl]'s daughter is [Dora].")
    return replace(row, genders=[("Ann", "female"), ("Bob", "male"), ("Carl", "male"), ("Dora", "female")],
                   story_edges=[(0, 1), (2, 3)], edge_types=["son", "daughter"])


def test_three_label_recast():
    row = _two_families()
    (item,), _ = settle([row], KB, negatives=NEUTRAL)
    # Bob is Ann's son: he cannot be her husband (nobody marries a relative) or her brother
    assert {"husband", "brother"} <= item.negatives
    ((_, records, summary),) = recast_splits([Split("1.2_test", None, [row])], KB, labels=3)
    assert [r["label"] for r in records] == [ENTAILED, NEUTRAL, CONTRADICTION]
    assert records[0]["hypothesis"] == "Bob is Ann's son."
    neutral, contra = records[1], records[2]
    head, tail = item.neutral[neutral["relation"]]
    assert neutral["hypothesis"] == f"{tail} is {head}'s {neutral['relation']}."
    assert contra["relation"] in item.negatives and contra["hypothesis"].startswith("Bob is Ann's ")
    assert summary.pairs == Counter({ENTAILED: 1, NEUTRAL: 1, CONTRADICTION: 1})
    assert summary.as_dict()["negatives"] == {CONTRADICTION: 1, NEUTRAL: 1}


def _export(path, stories, accepted, n_labels=22):
    """An export of ``stories`` (gold label 0 each, right originally) whose story i has 4
    permutations, the first ``accepted[i]`` of them predicted with the gold label."""
    words = [f"w{j}" for j in range(n_labels)]
    right, wrong = np.eye(n_labels)[0], np.eye(n_labels)[1]
    probs, index = [], []
    for i, a in enumerate(accepted):
        probs += [right] * a + [wrong] * (4 - a)
        index += [i] * 4
    np.savez_compressed(path, labels=np.array(words), test_file=np.array([s.path.name for s, _ in stories]),
                        story=np.array([r.id for _, r in stories]), gold=np.zeros(len(stories), dtype=np.int16),
                        original_probs=np.array([right] * len(stories)), story_index=np.array(index),
                        probs=np.array(probs))
    return path


def test_probe_acceptance_prints_both_readings_of_omega_max(tmp_path, capsys):
    from clutrr.cli import main
    from clutrr.io.datadir import load_splits
    from diag_rows import FIXTURES

    test = next(s for s in load_splits(FIXTURES) if not s.is_train)
    export = _export(tmp_path / "e.npz", [(test, r) for r in test.rows[:3]], [1, 2, 0])
    assert main(["probe", str(FIXTURES), "--acceptance", str(export), "--figures", str(tmp_path / "fig")]) == 0
    out = capsys.readouterr().out
    assert "Omega_max 0.67 (prose: at least one accepted" in out  # 2 of 3 stories
    assert "Omega_max 0.33 (formula: acceptance above 1/|D_test| = 1/3" in out  # only the story at 1/2
    assert "the two readings differ" in out and "P^c 0.250 over |D^c| = 3" in out  # (1/4 + 1/2 + 0) / 3
    assert (tmp_path / "fig" / f"acceptance_{test.path.stem}.png").is_file()
    assert main(["probe", str(FIXTURES), "--acceptance", str(export), "--omega-max", "thesis"]) == 0
    out = capsys.readouterr().out
    assert "(formula:" in out and "(prose:" not in out and "readings" not in out
    (tmp_path / "bad.npz").write_text("not an export")
    for bad in (tmp_path / "bad.npz", tmp_path / "missing.npz"):
        assert main(["probe", str(FIXTURES), "--acceptance", str(bad)]) == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_audit_giveaway_per_class_and_figures_on_a_recast_folder(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from clutrr.cli import main
    from diag_rows import FIXTURES

    nli = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(nli)]) == 0
    capsys.readouterr()
    rep = tmp_path / "rep"
    assert main(["audit", str(nli), "--encoder", "none", "--giveaway", "--per-class", "--figures",
                 "--out", str(rep)]) == 0
    out = capsys.readouterr().out
    assert "## Give-away words of the hypotheses" in out and "## Per-class accuracy" in out
    assert (rep / "giveaway_coverage.png").is_file() and (rep / "confusion_1.2_test.png").is_file()
    assert main(["audit", str(nli), "--figures"]) == 2 and "give --out" in capsys.readouterr().err
