"""The PyG dataset over a folder yields the GAT baseline's own graphs, and trains a GNN in a few lines."""
from __future__ import annotations

import importlib.util

import pytest
import torch
from torch_geometric.loader import DataLoader

from clutrr.baselines.data import load_dataset, load_stories
from clutrr.baselines.gat import GAT, GATConfig
from clutrr.baselines.neural import EVAL_SEED
from clutrr.baselines.pyg_dataset import ClutrrGraphs, file_stems
from clutrr.errors import UsageError
from baseline_data import tiny_data  # noqa: F401  (a module fixture)
from helpers import REPO

KEYS = ("x", "edge_index", "edge_type", "query_index", "y")


def assert_same_graphs(dataset, samples):
    assert len(dataset) == len(samples)
    for i, want in enumerate(samples):
        got = dataset[i]
        assert got.num_nodes == want.num_nodes
        for key in KEYS:
            assert torch.equal(got[key], want[key]), (i, key)


def test_the_same_graphs_as_the_gat_loader(tiny_data):  # noqa: F811
    data = load_dataset(tiny_data)
    gat = GAT(GATConfig(), data.labels)
    assert_same_graphs(ClutrrGraphs(tiny_data, "train"), gat.samples(data.train, EVAL_SEED))
    for split in data.tests:
        stem = split.file.removesuffix(".csv")
        assert_same_graphs(ClutrrGraphs(tiny_data, stem, seed=3), gat.samples(split.stories, 3))
    assert file_stems(tiny_data) == ["1.1,1.2_train", "1.1_test", "1.2_test"]


def test_released_noise_edges_have_the_unknown_type(release):
    root = release / "data_7c5b0e70"
    data = ClutrrGraphs(root, "2.3_test")
    stories = load_stories(root / "2.3_test.csv", data.labels)
    assert_same_graphs(data, GAT(GATConfig(), data.labels).samples(stories, EVAL_SEED))
    unknown = data.labels.unknown_relation
    assert data.num_edge_types == unknown + 1 and data.num_classes == unknown
    assert all((g.edge_type[3:] == unknown).all() and (g.edge_type[:3] < unknown).all() for g in data)


def test_batches_offset_each_query_by_its_graph(tiny_data):  # noqa: F811
    train = ClutrrGraphs(tiny_data, "train")
    batch = next(iter(DataLoader(train, batch_size=8)))
    assert batch.num_graphs == 8 and batch.x.numel() == sum(train[i].num_nodes for i in range(8))
    for column, offset in zip(range(8), batch.ptr[:-1]):
        assert torch.equal(batch.query_index[:, column] - offset, train[column].query_index[:, 0])
    assert torch.equal(batch.y, torch.cat([train[i].y for i in range(8)]))


def test_bad_splits_are_usage_errors(tiny_data, tmp_path):  # noqa: F811
    with pytest.raises(UsageError, match="no file 'nope'"):
        ClutrrGraphs(tiny_data, "nope")
    with pytest.raises(UsageError, match="does not exist"):
        ClutrrGraphs(tmp_path / "absent")
    with pytest.raises(UsageError, match="no stories left"):
        ClutrrGraphs(tiny_data, "1.1_test", pre_filter=lambda d: False)


def test_the_documented_gnn_example_trains_and_scores_every_test_file(tiny_data, capsys):  # noqa: F811
    spec = importlib.util.spec_from_file_location("pyg_gnn", REPO / "docs" / "examples" / "pyg_gnn.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    threads = torch.get_num_threads()
    try:
        example.main([str(tiny_data), "--epochs", "1"])
    finally:
        torch.set_num_threads(threads)
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == ["1.1_test", "1.2_test"]
    assert all(0.0 <= float(line.split()[1]) <= 1.0 for line in lines)
