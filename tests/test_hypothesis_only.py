"""The recast audit's baselines: the hypothesis-only encoder (a plug-in from the baselines), the
Naive Bayes and the overlap heuristic against the majority, with the bar to beat their maximum."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from clutrr.cli import main
from clutrr.diagnostics.audit import PREMISE_UNK
from clutrr.diagnostics.nli_audit import HYP_ENCODER, HYP_NB, OVERLAP, overlap_label, relation_word
from diag_rows import FIXTURES

BLOCK = "import sys; sys.modules['torch'] = None; "


def _nli(path, pairs, premise=lambda i, word: f"P{i} met Q{i}."):
    with open(path, "w") as fh:
        for i, (word, label) in enumerate(pairs):
            fh.write(json.dumps({"premise": premise(i, word), "hypothesis": f"Q{i // 2} is P{i // 2}'s {word}.",
                                 "label": label, "source_id": f"s{i // 2}", "k": 2, "relation": word}) + "\n")


@pytest.fixture(scope="module")
def recast(tmp_path_factory):
    nli = tmp_path_factory.mktemp("nli") / "nli"
    assert main(["recast", str(FIXTURES), "--out", str(nli)]) == 0
    return nli


def test_the_encoder_learns_a_hypothesis_that_gives_the_label_away(tmp_path):
    pytest.importorskip("torch")
    from clutrr.baselines.hypothesis_only import dev_split, fit_predict

    texts = [f"Q{i} is P{i}'s {'son' if i % 2 == 0 else 'uncle'}." for i in range(80)]
    labels = ["entailed" if i % 2 == 0 else "not-entailed" for i in range(80)]
    groups = [f"s{i // 2}" for i in range(80)]
    train, dev = dev_split(groups, 0.1, seed=0)
    assert len(dev) == 8 and {groups[i] for i in train}.isdisjoint({groups[i] for i in dev})  # whole stories
    out = fit_predict(texts, labels, groups, ["Z is Y's son.", "Z is Y's uncle."], seed=0)
    assert out["predictions"] == ["entailed", "not-entailed"]
    assert out["labels"] == ["entailed", "not-entailed"] and len(out["scores"]) == 2
    info = out["info"]
    assert info["dev_items"] == 8 and info["dev_accuracy"] == 1.0 and 1 <= info["best_epoch"] <= info["epochs_run"]
    again = fit_predict(texts, labels, groups, ["Z is Y's son.", "Z is Y's uncle."], seed=0)
    assert again["scores"] == out["scores"]  # one seed, the same numbers


def test_the_audit_prints_every_baseline_and_the_bar_is_their_maximum(recast, tmp_path, capsys):
    pytest.importorskip("torch")
    assert main(["audit", str(recast), "--out", str(tmp_path / "rep")]) == 0
    out = capsys.readouterr().out
    assert "| majority | own maj. | hyp-NB | p | hyp-enc | p | unk-prem | p | overlap | p | to beat |" in out
    assert "**Hypothesis-only encoder:** BiLSTM trained 6 time(s)" in out  # 5 folds of the training split, then once
    report = json.loads((tmp_path / "rep" / "audit.json").read_text())
    assert report["models"] == [HYP_NB, HYP_ENCODER, PREMISE_UNK, OVERLAP]
    for split in report["splits"]:
        for g in split["groups"]:
            scores = {"majority": g["majority"]["bar"], **{m: g[m]["accuracy"] for m in report["models"]}}
            assert g["to_beat"] == max(scores.values()) and scores[g["to_beat_by"]] == g["to_beat"]
    assert [s["evaluation"] for s in report["splits"]] == ["5-fold cross-validation by story"] + [
        "trained on the training split"] * 2
    assert len(report["encoder"]["trainings"]) == 6


def test_without_torch_the_encoder_is_skipped_in_one_line(recast, tmp_path):
    code = BLOCK + f"from clutrr.cli import main; raise SystemExit(main(['audit', {str(recast)!r}]))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [line for line in r.stdout.splitlines() if "encoder" in line.lower()]
    assert lines == ["**Hypothesis-only encoder:** skipped (the baselines need PyTorch and torch_geometric: "
                     "pip install torch==2.13.0 'clutrr[baselines]' (torch first, for its CPU build))."]
    assert "| hyp-NB | p | unk-prem | p | overlap | p | to beat |" in r.stdout and "hyp-enc" not in r.stdout


@pytest.mark.parametrize("spec", ["bilstm2", "no_such_module:fit", "toy_encoders:missing", "toy_encoders:broken"])
def test_a_bad_encoder_is_one_line_and_exit_2(recast, spec, capsys, tmp_path):
    assert main(["audit", str(recast), "--encoder", spec, "--out", str(tmp_path / "rep")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert not (tmp_path / "rep").exists()


def test_the_overlap_heuristic_reads_one_word_of_the_premise(tmp_path, capsys):
    rec = {"premise": "Ann baked a cake for her son Bob.", "hypothesis": "Bob is Ann's son.", "label": "entailed"}
    assert relation_word(rec) == "son" and overlap_label(rec) == "entailed"
    assert overlap_label({**rec, "hypothesis": "Bob is Ann's nephew."}) == "not-entailed"
    assert relation_word({**rec, "relation": "son-in-law"}) == "son-in-law"
    # the premise names the entailed relation in 3 stories of 4: the heuristic scores 6 of 8
    folder = tmp_path / "lex"
    folder.mkdir()
    pairs = [("son", "entailed"), ("uncle", "not-entailed")] * 4
    _nli(folder / "1.2_test.jsonl", pairs, premise=lambda i, w: f"P{i // 2} and her son Q{i // 2}."
         if i < 6 else f"P{i // 2} and her uncle Q{i // 2}.")
    assert main(["audit", str(folder), "--encoder", "none", "--out", str(tmp_path / "rep")]) == 0
    g = json.loads((tmp_path / "rep" / "audit.json").read_text())["splits"][0]["groups"][0]
    assert g[OVERLAP]["accuracy"] == 6 / 8  # the fourth story's premise names the other relation
    assert g[HYP_NB]["accuracy"] == 1.0 and g["to_beat"] == 1.0 and g["to_beat_by"] == HYP_NB  # "son" gives it away
