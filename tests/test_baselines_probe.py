"""Permutation acceptance of trained baselines on word-permute probes."""
from __future__ import annotations

import pytest

from clutrr.baselines.train import train_and_evaluate
from clutrr.cli import main as clutrr_main
from clutrr.io.dataset import DatasetSpec, write_dataset
from clutrr.errors import UsageError


@pytest.fixture(scope="module")
def probed(tmp_path_factory):
    root = tmp_path_factory.mktemp("probe")
    write_dataset(DatasetSpec(train_k=(2,), test_k=(2,), train_rows=200, test_rows=30, seed=2), root / "data",
                  progress=False)
    assert clutrr_main(["probe", str(root / "data"), "--kind", "word-permute", "--q", "3", "--out", str(root / "probes")]) == 0
    return root / "data", root / "probes"


def test_graph_model_mostly_ignores_word_order(probed):
    data, probes = probed
    doc = train_and_evaluate("gat", data, overrides={"epochs": 3}, probe=probes)
    run = doc["per_run"][0]
    m = run["permutation"]["1.2_test.csv"]
    assert m["stories"] == 30 and m["originally_correct"] == run["reports"]["data"]["by_split"]["1.2_test"]["correct"]
    # the GAT reads the facts, which the probe keeps; only its random entity ids change, so it
    # accepts permutations of the stories it gets right far more often than those it gets wrong
    if m["p_correct"] is not None and m["p_wrong"] is not None:
        assert m["p_correct"] > m["p_wrong"]


def test_text_model_reports_all_four_metrics(probed):
    data, probes = probed
    doc = train_and_evaluate("bilstm-mean", data, overrides={"epochs": 1}, probe=probes)
    m = doc["per_run"][0]["permutation"]["1.2_test.csv"]
    assert 0.0 <= m["omega_rand"] <= m["omega_max"] <= 1.0
    assert m["originally_correct"] + m["originally_wrong"] == 30


def test_probe_folder_must_match_a_test_file(probed, tmp_path):
    data, _ = probed
    with pytest.raises(UsageError, match="no probe CSV"):
        train_and_evaluate("gat", data, overrides={"epochs": 1}, probe=tmp_path)
