"""Small end-to-end runs: both model families learn a tiny generated set well above chance."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import torch

from clutrr.baselines.bilstm import BiLSTMClassifier
from clutrr.baselines.config import load_config, merge
from clutrr.baselines.train import main, train_and_evaluate
from clutrr.io.csv_format import CsvWriter
from clutrr.core.generator import GeneratorConfig, make_example

CHANCE = 1 / 22


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory) -> Path:
    """250 generated training stories for each of k=1 and k=2, and 100 test stories per k.

    Test stories reuse the training templates, so a text model can learn them from so few rows.
    """
    root = tmp_path_factory.mktemp("tiny")
    config = GeneratorConfig(template_split=False)
    files = [("1.1,1.2_train.csv", [(1, "train", range(250)), (2, "train", range(250))]),
             ("1.1_test.csv", [(1, "test", range(100))]), ("1.2_test.csv", [(2, "test", range(100))])]
    for name, parts in files:
        with open(root / name, "w", newline="", encoding="utf-8") as fh:
            writer = CsvWriter(fh)
            for k, split, indices in parts:
                for i in indices:
                    writer.write(make_example(config, k, "none", 7, i, split).row)
    return root


def test_gat_composes_relations_well_above_chance(tiny_data):
    start = time.perf_counter()
    doc = train_and_evaluate("gat", tiny_data, epochs=20, seed=0, runs=1, progress=False)
    assert time.perf_counter() - start < 60
    assert doc["summary"]["1.2_test.csv"]["mean"] > 10 * CHANCE  # k=2 needs composing two facts
    assert doc["summary"]["1.1_test.csv"]["mean"] > 10 * CHANCE


def test_bilstm_attention_reads_relations_well_above_chance(tiny_data):
    config = merge(load_config("bilstm-attn"), {"training": {"batch_size": 20}})
    start = time.perf_counter()
    doc = train_and_evaluate("bilstm-attn", tiny_data, epochs=8, seed=0, runs=1, config=config, progress=False)
    assert time.perf_counter() - start < 60
    assert doc["summary"]["1.1_test.csv"]["mean"] > 6 * CHANCE
    assert doc["per_run"][0]["train_accuracy"] > 0.5


def test_placeholder_embeddings_stay_frozen():
    model = BiLSTMClassifier(num_labels=22, vocab_size=10, entity_pool=5)
    assert not model.entity_emb.weight.requires_grad
    assert all(p.requires_grad for n, p in model.named_parameters() if not n.startswith("entity_emb"))


def test_cli_writes_json_and_png(tiny_data, tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["--model", "bilstm-mean", "--data", str(tiny_data), "--epochs", "1", "--runs", "2",
                 "--max-train", "100", "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "1.1 " in printed and "1.2 " in printed and "±" in printed
    doc = json.loads((out / "bilstm-mean.json").read_text())
    assert doc["runs"] == 2 and [r["seed"] for r in doc["per_run"]] == [0, 1]
    assert doc["train_rows"] == 100 and doc["threads"] == torch.get_num_threads()
    assert (out / "bilstm-mean.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_bad_input_exits_2(tmp_path, capsys):
    assert main(["--model", "gat", "--data", str(tmp_path / "missing"), "--quiet"]) == 2
    assert "does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("summary", ["sum", "mean", "max", None])
def test_gat_options_keep_one_logit_row_per_story(summary):
    from torch_geometric.data import Batch, Data

    from clutrr.baselines.gat import GATClassifier

    graphs = [
        Data(x=torch.tensor([0, 1, 2]), edge_index=torch.tensor([[0, 1], [1, 2]]), edge_type=torch.tensor([3, 22]),
             query_index=torch.tensor([[0], [2]]), num_nodes=3),
        Data(x=torch.tensor([4, 5]), edge_index=torch.tensor([[0], [1]]), edge_type=torch.tensor([0]),
             query_index=torch.tensor([[0], [1]]), num_nodes=2),
    ]
    separate = GATClassifier(22, 23, entity_pool=6, graph_summary=summary)
    shared = GATClassifier(22, 23, entity_pool=6, graph_summary=summary, shared_rounds=True)
    assert separate(Batch.from_data_list(graphs)).shape == (2, 22)
    assert shared(Batch.from_data_list(graphs)).shape == (2, 22)
    n_params = [sum(p.numel() for p in m.parameters()) for m in (separate, shared)]
    conv = sum(p.numel() for p in separate.convs[0].parameters())
    assert n_params[0] - n_params[1] == 2 * conv
