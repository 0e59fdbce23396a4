"""The artifact audit: exact sign test, skew, gender-prior ceiling, give-away words, CLI."""
from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest

from clutrr.diagnostics.audit import (
    audit_splits, gender_prior, label_skew, query_features, story_tokens, train_query_overlap,
)
from clutrr.diagnostics.giveaway import giveaway_words
from clutrr.cli import main
from clutrr.io.datadir import Split, load_splits
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.core.kb import load_kb
from clutrr.diagnostics.stats import GREATER, binomial_two_sided, binomial_upper_tail, sign_test
from diag_rows import FIXTURES, RELEASE, make_row, write_csv

M, F = "male", "female"


def test_binomial_tail_matches_hand_values():
    # P(X >= 9 | n=10, p=1/2) = (C(10,9) + C(10,10)) / 2^10 = 11/1024
    assert binomial_upper_tail(9, 10) == 11 / 1024
    assert binomial_upper_tail(5, 5) == 1 / 32
    assert binomial_upper_tail(0, 7) == 1.0
    assert binomial_upper_tail(3, 2) == 0.0
    # (C(6,4) + C(6,5) + C(6,6)) / 64 = 22/64
    assert binomial_upper_tail(4, 6) == 22 / 64


def test_sign_test_counts_only_discordant_items():
    # A right / B wrong on 7 items, the reverse on 1, both right on 3, both wrong on 2.
    a = [True] * 7 + [False] + [True] * 3 + [False] * 2
    b = [False] * 7 + [True] + [True] * 3 + [False] * 2
    t = sign_test(a, b)
    assert (t.wins, t.losses, t.discordant) == (7, 1, 8)
    assert t.alternative == "two-sided"
    assert t.p_value == 18 / 256  # 2 (C(8,7) + C(8,8)) / 2^8
    assert sign_test(b, a).p_value == 18 / 256  # two-sided: the order does not matter
    assert sign_test(a, b, GREATER).p_value == 9 / 256  # one-sided: (C(8,7) + C(8,8)) / 2^8
    assert sign_test(b, a, GREATER).p_value == 255 / 256


def test_two_sided_p_doubles_the_smaller_tail_and_stops_at_one():
    assert binomial_two_sided(7, 8) == binomial_two_sided(1, 8) == 18 / 256
    assert binomial_two_sided(4, 8) == 1.0  # 2 * P(X >= 4) = 2 * 163/256 > 1
    assert binomial_two_sided(0, 0) == 1.0
    # the case: a one-sided p of .0053 becomes .0107 two-sided and loses its flag at .01
    wins, n = 18, 23  # p = .0053 one-sided, .0106 two-sided
    assert binomial_upper_tail(wins, n) < 0.01 < binomial_two_sided(wins, n) == 2 * binomial_upper_tail(wins, n)


def test_label_skew_of_a_two_label_split():
    skew = label_skew(["grandson"] * 3 + ["daughter"] * 3, vocab_size=22)
    assert skew["n_labels"] == 2
    assert skew["majority_share"] == 0.5
    assert skew["entropy_bits"] == pytest.approx(1.0)
    assert skew["evenness"] == pytest.approx(1.0)


def test_gender_prior_ceiling_by_hand():
    rows = [make_row(f"r{i}", ("A", M), ("B", M), "son") for i in range(3)]
    rows += [make_row("r3", ("A", M), ("B", M), "brother")]
    rows += [make_row(f"f{i}", ("C", F), ("D", M), "husband") for i in range(2)]
    rows += [make_row(f"s{i}", ("A", M), ("E", F), "sister") for i in range(2)]
    ceiling, preds = gender_prior(rows)
    # (male, male): 3 of 4 are "son"; (female, male): both "husband"; (male, female): both "sister".
    assert ceiling == pytest.approx(7 / 8)
    assert preds[:4] == ["son"] * 4
    answer_only, _ = gender_prior(rows, key=lambda r: dict(r.genders)[r.query[1]])
    assert answer_only == pytest.approx(5 / 8)  # males: 3 son of 6; females: 2 sister of 2


def test_query_features_name_genders_and_first_mentions():
    row = make_row("q", ("Ann", F), ("Bob", M), "son", story="[Bob] met [Ann]. [Ann] smiled.")
    assert query_features(row) == [
        "head_gender=female", "head_name=ann", "head_rank=1",
        "tail_gender=male", "tail_name=bob", "tail_rank=0",
    ]
    assert story_tokens("[Bob]'s son-in-law left.") == ["bob", "son-in-law", "left"]


def test_giveaway_words_and_coverage():
    rows = [make_row(f"z{i}", ("A", M), ("B", M), "son", story="the zebra ran") for i in range(5)]
    rows += [make_row(f"y{i}", ("A", M), ("B", F), "daughter", story="the yak ran") for i in range(5)]
    gw = giveaway_words(rows, lambda r: r.target, lambda r: story_tokens(r.story), min_count=5, xs=(0.5, 1.0))
    top = {d["word"]: d for d in gw["top"]}
    assert top["zebra"]["label"] == "son" and top["zebra"]["p"] == 1.0 and top["zebra"]["count"] == 5
    assert top["the"]["p"] == 0.5
    # out of fold (5 folds of 2 stories), "zebra" and "yak" are seen in at most 4 other stories: too
    # few for min_count 5, so no story holds a word that gives its label away
    assert gw["coverage"][1] == {"x": 1.0, "share": 0.0}
    assert giveaway_words(rows, lambda r: r.target, lambda r: story_tokens(r.story), min_count=3,
                          xs=(1.0,))["coverage"] == [{"x": 1.0, "share": 1.0}]
    assert giveaway_words(rows, lambda r: r.target, lambda r: story_tokens(r.story), min_count=6)["n_words"] == 2


def _generated(split: str, k: int, n: int) -> list:
    return [make_example(GeneratorConfig(), k, "none", 7, i, split).row for i in range(n)]


def test_generated_data_stays_under_the_gender_ceiling_and_planted_names_do_not(tmp_path):
    kb = load_kb("kinship")
    train = Split("1.2_train", tmp_path / "1.2_train.csv", _generated("train", 2, 330))
    test = Split("1.2_test", tmp_path / "1.2_test.csv", _generated("test", 2, 220))
    report = audit_splits([train, test], kb)
    assert report["summary"]["passes"], report["summary"]
    group = report["splits"][1]["groups"][0]
    assert group["query_only"]["accuracy"] <= group["gender_ceiling"] + 0.05

    def plant(row):  # the tail's name now spells out the label
        name = "X" + row.target.replace("-", "")
        return replace(row, query=(row.query[0], name),
                       genders=[(name if n == row.query[1] else n, g) for n, g in row.genders])

    planted = [Split(s.name, s.path, [plant(r) for r in s.rows]) for s in (train, test)]
    report = audit_splits(planted, kb)
    assert "1.2_test" in report["summary"]["exceeds_gender_ceiling"]
    group = report["splits"][1]["groups"][0]
    assert group["query_only"]["accuracy"] == 1.0
    assert group["query_only"]["vs_majority"]["better"]


def test_audit_reports_each_split_and_k(tmp_path):
    rows = [make_row(f"a{i}", ("A", M), ("B", M), "son", split="train", k=2) for i in range(6)]
    rows += [make_row(f"b{i}", ("A", M), ("B", F), "niece", split="train", k=3) for i in range(6)]
    write_csv(tmp_path / "1.2,1.3_train.csv", rows)
    write_csv(tmp_path / "1.2_test.csv", [make_row("t", ("A", M), ("B", M), "son")])
    report = audit_splits(load_splits(tmp_path), load_kb("kinship"))
    train, test = report["splits"]
    assert train["evaluation"] == "5-fold cross-validation"
    assert [g["k"] for g in train["groups"]] == ["all", 2, 3]
    assert test["evaluation"] == "trained on the training split"
    assert test["groups"][0]["majority"]["label"] == "niece"  # ties go to the first label alphabetically


def test_cli_writes_markdown_and_json(tmp_path, capsys):
    out = tmp_path / "report"
    assert main(["audit", str(FIXTURES), "--out", str(out)]) == 0
    assert "| 1.2_test | 2 | 8 |" in capsys.readouterr().out
    data = json.loads((out / "audit.json").read_text())
    assert [s["split"] for s in data["splits"]] == ["1.2_train", "1.2_test", "1.3_test"]
    assert (out / "audit.md").read_text().startswith("# Artifact audit")
    assert main(["audit", str(FIXTURES), "--out", str(out)]) == 2  # not empty without --force


@pytest.mark.parametrize("make_dir", ["missing", "empty"])
def test_cli_bad_directory_exits_2_and_writes_nothing(tmp_path, capsys, make_dir):
    src = tmp_path / "data"
    if make_dir == "empty":
        src.mkdir()
    out = tmp_path / "report"
    assert main(["audit", str(src), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err
    assert not out.exists()


@pytest.mark.skipif(not (RELEASE / "data_089907f8").is_dir(), reason="released CLUTRR data absent")
def test_released_k2_test_has_two_labels(tmp_path):
    (tmp_path / "1.2_test.csv").symlink_to(RELEASE / "data_089907f8" / "1.2_test.csv")
    report = audit_splits(load_splits(tmp_path), load_kb("kinship"))
    labels = report["splits"][0]["groups"][0]["labels"]
    assert labels["n_labels"] == 2
    assert labels["majority_share"] == 0.5


def test_train_query_overlap_counts_reused_name_pairs():
    train = [make_row("a", ("Ann", F), ("Bob", M), "son"), make_row("b", ("Cy", M), ("Di", F), "wife")]
    test = [make_row("c", ("Ann", F), ("Bob", M), "son"), make_row("d", ("Cy", M), ("Di", F), "sister"),
            make_row("e", ("Ed", M), ("Fay", F), "niece"), make_row("f", ("Bob", M), ("Ann", F), "mother")]
    assert train_query_overlap(test, train) == {"seen": 0.5, "same_label": 0.25}


def test_the_split_s_own_majority_is_the_bar_when_it_is_stronger(tmp_path):
    """A test split whose labels never appear as the training majority: the training
    majority scores 0%, so beating it says nothing; the split's own majority is the bar."""
    train = [make_row(f"s{i}", ("A", M), (f"S{i}", M), "son", split="train") for i in range(30)]
    train += [make_row(f"d{i}", ("A", M), (f"D{i}", F), "daughter", split="train") for i in range(20)]
    test = [make_row(f"t{i}", ("A", M), (f"T{i}", F), "daughter" if i % 2 else "niece") for i in range(40)]
    write_csv(tmp_path / "1.2_train.csv", train)
    write_csv(tmp_path / "1.2_test.csv", test)
    report = audit_splits(load_splits(tmp_path), load_kb("kinship"))
    group = report["splits"][1]["groups"][0]
    assert group["majority"]["accuracy"] == 0.0 and group["majority"]["label"] == "son"
    assert group["majority"]["own_share"] == 0.5 and group["majority"]["stronger"] == "own"
    assert group["query_only"]["accuracy"] == 0.5  # answers "daughter" for every woman
    assert not group["query_only"]["vs_majority"]["significant"]  # not informative against the own majority
    assert "1.2_test" not in report["summary"]["query_only_beats_majority"]


@pytest.mark.skipif(not (RELEASE / "data_089907f8").is_dir(), reason="released CLUTRR data absent")
def test_released_k2_test_query_is_not_informative_against_its_own_majority(tmp_path):
    for name in ("1.2,1.3_train.csv", "1.2_test.csv"):
        (tmp_path / name).symlink_to(RELEASE / "data_089907f8" / name)
    report = audit_splits(load_splits(tmp_path), load_kb("kinship"))
    group = report["splits"][1]["groups"][0]
    assert group["majority"]["accuracy"] == 0.0 and group["majority"]["own_share"] == 0.5
    assert not group["query_only"]["vs_majority"]["significant"]


def _nli(path, pairs):
    with open(path, "w") as fh:
        for i, (hyp_word, label) in enumerate(pairs):
            fh.write(json.dumps({"premise": f"P{i} met Q{i}.", "hypothesis": f"Q{i} is P{i}'s {hyp_word}.",
                                 "label": label, "source_id": f"s{i // 2}", "k": 2}) + "\n")


def test_a_recast_folder_gets_the_hypothesis_only_audit(tmp_path, capsys):
    biased = tmp_path / "biased"
    biased.mkdir()
    # the entailed hypotheses always say "son", the others "uncle": the hypothesis gives the label away
    _nli(biased / "1.2_train.jsonl", [("son", "entailed"), ("uncle", "not-entailed")] * 20)
    _nli(biased / "1.2_test.jsonl", [("son", "entailed"), ("uncle", "not-entailed")] * 10)
    assert main(["audit", str(biased), "--out", str(tmp_path / "rep"), "--strict", "--encoder", "none"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("# Hypothesis-only audit: biased") and "beats the majority baseline in: 1.2_train, 1.2_test" in out
    test = json.loads((tmp_path / "rep" / "audit.json").read_text())["splits"][1]["groups"][0]
    assert test["hypothesis_nb"]["accuracy"] == 1.0 and test["majority"]["bar"] == 0.5
    assert test["to_beat"] == 1.0 and test["to_beat_by"] == "hypothesis_nb"

    nli = tmp_path / "nli"  # a real recast is balanced: the hypothesis alone is no better than the majority
    assert main(["recast", str(FIXTURES), "--out", str(nli)]) == 0
    capsys.readouterr()
    assert main(["audit", str(nli), "--strict", "--encoder", "none"]) == 0
    assert "does not beat the majority baseline in any split" in capsys.readouterr().out


def test_predictions_and_easy_hard_subsets(tmp_path, capsys):
    from clutrr.io.csv_format import read_csv

    out, sub = tmp_path / "report", tmp_path / "subsets"
    # the query-only model is not significantly better than the majority here: the split is refused ...
    assert main(["audit", str(FIXTURES), "--out", str(out), "--easy-hard", str(sub)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not beat the majority baseline significantly" in err
    assert not out.exists() and not sub.exists()
    # ... unless forced, which is said
    assert main(["audit", str(FIXTURES), "--out", str(out), "--easy-hard", str(sub), "--force-split"]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force-split: easy and hard written although the q-only model" in err
    preds = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    splits = load_splits(FIXTURES)
    assert [(p["split"], p["id"]) for p in preds] == [(s.name, r.id) for s in splits for r in s.rows]
    manifest = json.loads((sub / "easy_hard.json").read_text())
    assert manifest["biased_model"] == "query_only" and manifest["forced_in"] == [s.name for s in load_splits(FIXTURES)]
    for s in splits:
        easy = {r.id for r in read_csv(sub / "easy" / f"{s.name}.csv")}
        hard = {r.id for r in read_csv(sub / "hard" / f"{s.name}.csv")}
        right = {p["id"] for p in preds if p["split"] == s.name and p["query_only"] == p["gold"]}
        assert easy == right and hard == {r.id for r in s.rows} - right
        assert manifest["splits"][s.name]["easy"] == len(easy)

    nli = tmp_path / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(nli)]) == 0
    capsys.readouterr()
    # balanced hypotheses: the Naive Bayes cannot tell them apart, so easy/hard would be a label split
    assert main(["audit", str(nli), "--easy-hard", str(tmp_path / "nli_sub"), "--encoder", "none",
                 "--out", str(tmp_path / "nli_rep")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot tell the items of" in err and "hyp-NB" in err
    assert not (tmp_path / "nli_sub").exists() and not (tmp_path / "nli_rep").exists()
    # a plugged-in hypothesis-only classifier that tells them apart gives a real split
    assert main(["audit", str(nli), "--easy-hard", str(tmp_path / "nli_sub"),
                 "--encoder", "toy_encoders:by_length", "--force-split"]) == 0
    assert ("| hyp-NB easy | hyp-NB hard | unk-prem easy | unk-prem hard | overlap easy | overlap hard |"
            in capsys.readouterr().out)
    manifest = json.loads((tmp_path / "nli_sub" / "easy_hard.json").read_text())
    assert manifest["biased_model"] == "hypothesis_encoder"
    easy = (tmp_path / "nli_sub" / "easy" / "1.2_test.jsonl").read_text().splitlines()
    hard = (tmp_path / "nli_sub" / "hard" / "1.2_test.jsonl").read_text().splitlines()
    assert sorted(easy + hard) == sorted((nli / "1.2_test.jsonl").read_text().splitlines())


def test_nli_records_without_a_story_id_are_cross_validated_one_by_one():
    """Foreign NLI records lack ``source_id``: they must not all fall into one fold (train = test)."""
    from clutrr.diagnostics.nli_audit import NliSplit, audit_recast

    rng = random.Random(3)
    words = ["aunt", "uncle", "niece", "nephew", "sister", "brother"]
    records = [{"premise": "p", "hypothesis": f"A is B's {rng.choice(words)} {rng.choice(words)}",
                "label": rng.choice(["entailed", "not_entailed"])} for _ in range(200)]
    result = audit_recast([NliSplit("x_train", Path("x_train.jsonl"), records)])
    preds = result.predictions["x_train"]
    assert preds.evaluation == "5-fold cross-validation"
    hyp = sum(p == r["label"] for p, r in zip(preds.by_model["hypothesis_nb"], records)) / len(records)
    assert hyp < 0.6  # random labels: held-out predictions cannot learn them


def test_cli_sign_test_giveaway_rank_and_biased_flags(tmp_path, capsys):
    two, one = tmp_path / "two", tmp_path / "one"
    assert main(["audit", str(FIXTURES), "--out", str(two)]) == 0
    assert main(["audit", str(FIXTURES), "--out", str(one), "--sign-test", "one-sided", "--giveaway-rank", "frequency"]) == 0
    a, b = (json.loads((d / "audit.json").read_text()) for d in (two, one))
    assert (a["sign_test"], b["sign_test"]) == ("two-sided", "greater")
    for sa, sb in zip(a["splits"], b["splits"]):
        ta, tb = sa["groups"][0]["query_only"]["vs_majority"], sb["groups"][0]["query_only"]["vs_majority"]
        assert (ta["wins"], ta["losses"]) == (tb["wins"], tb["losses"])
        if tb["wins"] > tb["losses"]:  # the one-sided p of the leading model is half the two-sided one
            assert ta["p_value"] == min(1.0, 2 * tb["p_value"])
        counts = [d["count"] for d in sb["giveaway"]["top"]]
        assert counts == sorted(counts, reverse=True) and sb["giveaway"]["rank"] == "frequency"
    assert "ranked by frequency (as Poliak et al.)" in (one / "audit.md").read_text()
    capsys.readouterr()
    assert main(["audit", str(FIXTURES), "--easy-hard", str(tmp_path / "eh"), "--biased", "hypothesis_nb"]) == 2
    assert "--biased 'hypothesis_nb'" in capsys.readouterr().err and not (tmp_path / "eh").exists()
    assert main(["audit", str(FIXTURES), "--easy-hard", str(tmp_path / "eh"), "--biased", "story_bag",
                 "--force-split"]) == 0
    assert json.loads((tmp_path / "eh" / "easy_hard.json").read_text())["biased_model"] == "story_bag"
