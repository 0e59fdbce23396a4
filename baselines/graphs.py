"""Graph samples for PyTorch Geometric: people are nodes, story facts are typed directed edges.

An edge ``(i, j)`` of type ``r`` says "person j is person i's r"; messages flow from i to j.
Each node carries an entity id drawn at random per story from a fixed pool (as the text
model's placeholders are), so no node identity carries over between stories.
"""
from __future__ import annotations

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402
from torch_geometric.data import Batch, Data

from clutrr.baselines.data import Story, story_rng
from clutrr.errors import UsageError


def draw_entities(n: int, pool: int, rng: np.random.Generator) -> list[int]:
    """``n`` distinct entity ids drawn from ``range(pool)``."""
    if n > pool:
        raise UsageError(f"a story has {n} people but the entity pool holds only {pool}")
    return rng.choice(pool, size=n, replace=False).tolist()


def graph_sample(story: Story, entities: list[int]) -> Data:
    """A PyG ``Data``: ``x`` entity ids, ``edge_index``/``edge_type`` facts, ``query_index`` (2 x 1), ``y``."""
    n = len(story.people)
    edges = story.edges
    edge_index = torch.tensor(edges, dtype=torch.long).t().reshape(2, -1)
    return Data(
        x=torch.tensor(entities[:n], dtype=torch.long),
        edge_index=edge_index,
        edge_type=torch.tensor(story.edge_types, dtype=torch.long),
        query_index=torch.tensor(story.query, dtype=torch.long).reshape(2, 1),
        y=torch.tensor([story.label], dtype=torch.long),
        num_nodes=n,
    )


def graph_samples(stories: list[Story], pool: int, seed: int) -> list[Data]:
    """One graph sample per story, entity ids drawn from ``seed`` and the story's id."""
    return [graph_sample(s, draw_entities(len(s.people), pool, story_rng(seed, s))) for s in stories]


def redraw_entities(batch: Batch, pool: int, generator: torch.Generator) -> None:
    """Replace a batch's entity ids in place with a fresh distinct draw per graph."""
    sizes = torch.bincount(batch.batch, minlength=batch.num_graphs)
    keys = torch.rand(batch.num_graphs, pool, generator=generator)
    perms = keys.argsort(dim=1)
    local = torch.arange(batch.num_nodes) - torch.repeat_interleave(torch.cumsum(sizes, 0) - sizes, sizes)
    batch.x = perms[batch.batch, local]
