"""The GAT baseline: edge-typed graph attention over the story graph, read out at the query pair.

Not the paper's exact GAT: messages also flow against each fact (with their own reverse-type
embeddings), edge types enter both the attention scores and the messages, and the readout adds
a pool of all node states to the two query nodes.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402
import torch.nn.functional as F
from torch import nn
from torch_geometric.data import Batch, Data
from torch_geometric.nn import MessagePassing, global_add_pool, global_max_pool, global_mean_pool
from torch_geometric.utils import softmax

from clutrr.baselines.data import Story
from clutrr.baselines.graphs import graph_samples, redraw_entities
from clutrr.baselines.neural import TorchModel, TrainingConfig
from clutrr.baselines.registry import register


POOLS = {"mean": global_mean_pool, "sum": global_add_pool, "max": global_max_pool}


class EdgeTypedGATConv(MessagePassing):
    """Multi-head graph attention whose messages and attention scores both see the edge type.

    The message from j to i is ``W x_j + U e_ij`` per head; its score is
    ``LeakyReLU(a_dst . W x_i + a_msg . (W x_j + U e_ij))``, normalised over i's incoming edges.
    Heads are averaged.
    """

    def __init__(self, dim: int, edge_dim: int, heads: int = 3, dropout: float = 0.0) -> None:
        super().__init__(aggr="add", node_dim=0)
        self.heads, self.dim, self.dropout = heads, dim, dropout
        self.lin_node = nn.Linear(dim, heads * dim, bias=False)
        self.lin_edge = nn.Linear(edge_dim, heads * dim, bias=False)
        self.att_dst = nn.Parameter(torch.empty(1, heads, dim))
        self.att_msg = nn.Parameter(torch.empty(1, heads, dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        nn.init.xavier_uniform_(self.att_dst)
        nn.init.xavier_uniform_(self.att_msg)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor, edge_attr: torch.Tensor) -> torch.Tensor:
        """New node states (N x dim) from states ``x``, edges and edge-type embeddings."""
        h = self.lin_node(x).view(-1, self.heads, self.dim)
        e = self.lin_edge(edge_attr).view(-1, self.heads, self.dim)
        out = self.propagate(edge_index, h=h, e=e)
        return out.mean(dim=1) + self.bias

    def message(self, h_i: torch.Tensor, h_j: torch.Tensor, e: torch.Tensor, index: torch.Tensor,
                ptr: torch.Tensor | None, size_i: int | None) -> torch.Tensor:
        msg = h_j + e
        score = (h_i * self.att_dst).sum(-1) + (msg * self.att_msg).sum(-1)
        alpha = softmax(F.leaky_relu(score, 0.2), index, ptr, size_i)
        alpha = F.dropout(alpha, self.dropout, self.training)
        return msg * alpha.unsqueeze(-1)


class GATClassifier(nn.Module):
    """Node embeddings -> rounds of :class:`EdgeTypedGATConv` -> [head; tail; graph pool] -> 2-layer MLP.

    ``shared_rounds`` applies one layer ``rounds`` times; ``graph_summary`` (mean, sum, max or
    None) pools all node states into the readout.
    """

    def __init__(self, num_labels: int, num_edge_types: int, entity_pool: int = 100, node_dim: int = 100,
                 edge_dim: int = 20, rounds: int = 3, heads: int = 3, mlp_hidden: int = 200,
                 dropout: float = 0.1, reverse_edges: bool = True, graph_summary: str | None = "sum",
                 shared_rounds: bool = False) -> None:
        super().__init__()
        self.num_edge_types = num_edge_types
        self.reverse_edges = reverse_edges
        # types: relations, their reverses (when used), then the self loop
        self.self_type = num_edge_types * (2 if reverse_edges else 1)
        self.node_emb = nn.Embedding(entity_pool, node_dim, max_norm=1.0)
        self.edge_emb = nn.Embedding(self.self_type + 1, edge_dim)
        if graph_summary not in POOLS and graph_summary is not None:
            raise ValueError(f"graph_summary must be one of {sorted(POOLS)} or null, not {graph_summary!r}")
        self.pool = POOLS.get(graph_summary)
        layers = 1 if shared_rounds else rounds
        convs = [EdgeTypedGATConv(node_dim, edge_dim, heads, dropout) for _ in range(layers)]
        self.convs = nn.ModuleList(convs * (rounds if shared_rounds else 1))
        readout = (3 if graph_summary else 2) * node_dim
        self.mlp = nn.Sequential(
            nn.Linear(readout, mlp_hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(mlp_hidden, num_labels)
        )

    def _edges(self, batch: Batch) -> tuple[torch.Tensor, torch.Tensor]:
        src, dst = batch.edge_index
        types = batch.edge_type
        if self.reverse_edges:
            src, dst = torch.cat([src, dst]), torch.cat([dst, src])
            types = torch.cat([types, types + self.num_edge_types])
        loops = torch.arange(batch.num_nodes, device=src.device)
        edge_index = torch.stack([torch.cat([src, loops]), torch.cat([dst, loops])])
        types = torch.cat([types, torch.full_like(loops, self.self_type)])
        return edge_index, types

    def forward(self, batch: Batch) -> torch.Tensor:
        """Logits (B x labels) for a PyG batch of graph samples."""
        edge_index, types = self._edges(batch)
        edge_attr = self.edge_emb(types)
        h = self.node_emb(batch.x)
        for conv in self.convs:
            h = h + F.elu(conv(h, edge_index, edge_attr))
        head, tail = batch.query_index
        parts = [h[head], h[tail]]
        if self.pool is not None:
            parts.append(self.pool(h, batch.batch, batch.num_graphs))
        return self.mlp(torch.cat(parts, dim=-1))


@dataclass
class GATConfig(TrainingConfig):
    """The GAT's settings (Sinha et al. 2019 and Minervini et al. 2020 sizes where they give them)."""

    node_dim: int = 100  # node embeddings
    edge_dim: int = 20  # edge-type embeddings, in attention scores and messages
    rounds: int = 3  # rounds of message passing
    heads: int = 3
    mlp_hidden: int = 200  # 2-layer MLP classifier
    dropout: float = 0.1  # on attention coefficients and in the MLP
    reverse_edges: bool = True  # also pass messages against each fact, with a reverse-type embedding
    graph_summary: str | None = "sum"  # readout adds a pool of all node states: mean, sum, max or None
    shared_rounds: bool = False  # one layer applied every round


@register
class GAT(TorchModel):
    """:class:`GATClassifier` over the story graph (people are nodes, facts typed edges)."""

    name = "gat"
    Config = GATConfig

    def build_network(self) -> nn.Module:
        """A fresh :class:`GATClassifier` from the config."""
        c = self.config
        return GATClassifier(len(self.labels.words), self.labels.num_edge_types, c.entity_pool, c.node_dim,
                             c.edge_dim, c.rounds, c.heads, c.mlp_hidden, c.dropout, c.reverse_edges,
                             c.graph_summary, c.shared_rounds)

    def samples(self, stories: list[Story], seed: int) -> list[Data]:
        """Graph samples (see :mod:`clutrr.baselines.graphs`)."""
        return graph_samples(stories, self.config.entity_pool, seed)

    def train_batches(self, samples: list[Data], rng: np.random.Generator, gen: torch.Generator) -> Iterator[Batch]:
        """Shuffled batches, entity ids redrawn per batch when ``resample_entities``."""
        order = rng.permutation(len(samples))
        size = self.config.batch_size
        for i in range(0, len(order), size):
            batch = Batch.from_data_list([samples[j] for j in order[i:i + size]])
            if self.config.resample_entities:
                redraw_entities(batch, self.config.entity_pool, gen)
            yield batch

    def eval_batches(self, samples: list[Data]) -> Iterator[tuple[list[int], Batch]]:
        """Batches of 500 in order."""
        for i in range(0, len(samples), 500):
            yield list(range(i, min(i + 500, len(samples)))), Batch.from_data_list(samples[i:i + 500])

    @staticmethod
    def gold(batch: Any) -> torch.Tensor:
        """Label ids of a batch."""
        return batch.y
