"""Train your own GNN on a dataset folder through the PyG dataset, then score every test file.

    python docs/examples/pyg_gnn.py DATA --epochs 30

The model: an embedding per entity id, three rounds of GINE convolution whose messages add an
embedding of the fact's relation type (facts are used in both directions, the reverse with
its own types), and a linear readout of the two query people and the sum of all people.
Entity ids are redrawn for every training batch, as the GAT baseline does.
"""
from __future__ import annotations

import argparse

import torch
from torch import nn
from torch_geometric.loader import DataLoader
from torch_geometric.nn import GINEConv, global_add_pool

from clutrr.baselines.graphs import redraw_entities
from clutrr.baselines.pyg_dataset import ClutrrGraphs, file_stems

POOL = 100  # entity ids are drawn from range(POOL)


class Net(nn.Module):
    """Entity embeddings -> GINE rounds with relation-type edge embeddings -> [head; tail; sum] -> labels."""

    def __init__(self, num_edge_types: int, num_classes: int, dim: int = 64, rounds: int = 3) -> None:
        super().__init__()
        self.types = num_edge_types
        self.node = nn.Embedding(POOL, dim)
        self.edge = nn.Embedding(2 * num_edge_types, dim)
        self.convs = nn.ModuleList(
            GINEConv(nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))) for _ in range(rounds))
        self.out = nn.Linear(3 * dim, num_classes)

    def forward(self, batch) -> torch.Tensor:
        edge_index = torch.cat([batch.edge_index, batch.edge_index.flip(0)], dim=1)
        edge_attr = self.edge(torch.cat([batch.edge_type, batch.edge_type + self.types]))
        h = self.node(batch.x)
        for conv in self.convs:
            h = h + conv(h, edge_index, edge_attr).relu()
        head, tail = batch.query_index
        return self.out(torch.cat([h[head], h[tail], global_add_pool(h, batch.batch)], dim=1))


def train(root: str, epochs: int, seed: int = 0) -> Net:
    """A Net trained on the folder's training file."""
    torch.manual_seed(seed)
    data = ClutrrGraphs(root, "train")
    net = Net(data.num_edge_types, data.num_classes)
    opt = torch.optim.Adam(net.parameters(), lr=0.003)
    gen = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for batch in DataLoader(data, batch_size=100, shuffle=True):
            redraw_entities(batch, POOL, gen)
            opt.zero_grad()
            nn.functional.cross_entropy(net(batch), batch.y).backward()
            opt.step()
    return net


@torch.no_grad()
def accuracy(net: Net, root: str, stem: str) -> float:
    """The share of a file's stories the net answers right."""
    data = ClutrrGraphs(root, stem)
    batch = next(iter(DataLoader(data, batch_size=len(data))))
    return (net(batch).argmax(dim=1) == batch.y).float().mean().item()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", help="dataset folder with one *_train.csv and test files")
    p.add_argument("--epochs", type=int, default=30)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    net = train(args.data, args.epochs).eval()
    for stem in file_stems(args.data):
        if stem.endswith("_test"):
            print(f"{stem:12s} {accuracy(net, args.data, stem):.3f}")


if __name__ == "__main__":
    main()
