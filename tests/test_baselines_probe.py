"""Permutation acceptance of trained baselines on word-permute probes."""
from __future__ import annotations

import numpy as np
import pytest

from clutrr.baselines.probe_eval import load_export
from clutrr.baselines.train import main as train_main, train_and_evaluate
from clutrr.cli import main as clutrr_main
from clutrr.diagnostics.permutation_metrics import acceptance_shares, entropy_bits, omega
from clutrr.errors import UsageError
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec

Q = 3


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    root = tmp_path_factory.mktemp("probe")
    write_dataset(DatasetSpec(train_k=(2,), test_k=(2,), train_rows=200, test_rows=30, seed=2), root / "data",
                  progress=False)
    assert clutrr_main(["probe", str(root / "data"), "--kind", "word-permute", "--q", str(Q),
                        "--out", str(root / "probes")]) == 0
    return root / "data", root / "probes"


def test_a_model_that_ignores_word_order_is_refused(probed):
    data, probes = probed
    with pytest.raises(UsageError, match="reads the story's facts as a graph"):
        train_and_evaluate("gat", data, overrides={"epochs": 1}, probe=probes)


def test_text_model_reports_the_metrics_with_their_denominators(probed, tmp_path):
    data, probes = probed
    doc = train_and_evaluate("bilstm-mean", data, overrides={"epochs": 1}, probe=probes, out=tmp_path / "run")
    m = doc["per_run"][0]["permutation"]["1.2_test.csv"]
    assert 0.0 <= m["omega_rand"] <= m["omega_max"] <= 1.0
    assert m["originally_correct"] + m["originally_wrong"] == m["stories"] == 30 and m["q"] == Q
    assert m["permutations_wrong"] == Q * m["originally_wrong"]
    assert m["permutations_flipped"] == Q * m["flipped"] and m["flipped"] <= m["originally_wrong"]
    if m["originally_wrong"]:
        assert m["p_wrong_all"] == m["accepted_wrong"] / m["permutations_wrong"]
    if m["flipped"]:  # the thesis's P^f: over the wrong stories with an accepted permutation
        assert m["p_wrong"] == m["accepted_wrong"] / m["permutations_flipped"] >= m["p_wrong_all"]

    export = load_export(tmp_path / "run" / "permutations" / "seed0.npz")
    assert len(export["story"]) == 30 and export["probs"].shape == (30 * Q, len(export["labels"]))
    assert np.allclose(export["probs"].astype(float).sum(axis=1), 1.0, atol=1e-2)
    words = list(export["labels"])
    gold = [words[g] for g in export["gold"]]
    permuted = [[] for _ in gold]
    for i, p in zip(export["story_index"], export["probs"]):
        permuted[i].append(words[int(p.argmax())])
    shares = acceptance_shares(gold, permuted)  # the Omega_x curve comes from the export alone
    assert omega(shares, 0.0) == m["omega_max"] and omega(shares, 1 / len(words)) == m["omega_rand"]
    assert entropy_bits(export["probs"].astype(float)).shape == (30 * Q,)


def test_the_cli_prints_the_p_f_denominator(probed, capsys):
    data, probes = probed
    assert train_main(["--model", "bilstm-mean", "--data", str(data), "--epochs", "1", "--probe", str(probes),
                       "--quiet"]) == 0
    assert f"q={Q}; P^f over the " in capsys.readouterr().out


def test_probe_folder_must_hold_word_permute_probes_matching_a_test_file(probed, tmp_path):
    data, _ = probed
    with pytest.raises(UsageError, match="holds no word-permute probes"):
        train_and_evaluate("bilstm-mean", data, overrides={"epochs": 1}, probe=tmp_path)
    (tmp_path / "probe.json").write_text('{"kind": "word-permute"}')
    with pytest.raises(UsageError, match="no probe CSV"):
        train_and_evaluate("bilstm-mean", data, overrides={"epochs": 1}, probe=tmp_path)


def test_probe_evaluation_shows_progress_on_a_terminal(probed, monkeypatch):
    import sys

    from clutrr.diagnostics import progress
    from test_progress import Terminal

    data, probes = probed
    monkeypatch.setattr(progress, "DELAY", 0.0)
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term.stream)
    train_and_evaluate("bilstm-mean", data, overrides={"epochs": 1}, probe=probes, progress=True)
    shown = term.close()
    assert "1.2_test.csv permutations" in shown and "%|" in shown
