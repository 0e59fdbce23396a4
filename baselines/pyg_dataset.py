"""A PyTorch Geometric dataset over one file of a CLUTRR dataset folder: the GAT's graphs.

    from torch_geometric.loader import DataLoader
    from clutrr.baselines.pyg_dataset import ClutrrGraphs

    train = ClutrrGraphs("data/clutrr", "train")        # the *_train.csv file
    test = ClutrrGraphs("data/clutrr", "1.4_test")      # any file stem, sharded or not
    for batch in DataLoader(train, batch_size=100, shuffle=True): ...

A sample is exactly what the GAT baseline reads (:func:`clutrr.baselines.graphs.graph_sample`):
people are nodes and story facts typed directed edges.

- ``x`` (N): entity ids, distinct within a story, drawn from ``range(entity_pool)`` with
  ``seed`` and the story's id; embed them (``nn.Embedding(entity_pool, d)``). They carry no
  identity across stories; :func:`clutrr.baselines.graphs.redraw_entities` draws fresh ones
  per batch, as the GAT does while training.
- ``edge_index`` (2 x E), ``edge_type`` (E): fact ``(i, j)`` of type ``r`` says "j is i's r";
  ``r`` indexes ``labels.words``, and ``labels.unknown_relation`` types a fact with no word
  (noise in the released files). ``num_edge_types`` counts both.
- ``query_index`` (2 x 1): the query's (head, tail) nodes; ``y`` (1): the label, what tail is to head.

Nothing is written to the folder: the CSV is read and the graphs are built in memory.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from clutrr.baselines.optional import require_torch

require_torch()

from torch_geometric.data import InMemoryDataset  # noqa: E402

from clutrr.baselines.data import LabelVocab, _logical_files, load_stories
from clutrr.baselines.graphs import graph_samples
from clutrr.baselines.neural import EVAL_SEED
from clutrr.errors import UsageError


def file_stems(root: str | Path) -> list[str]:
    """The file stems of a dataset folder (a sharded file once), e.g. ``['1.2,1.3_train', '1.2_test']``."""
    return sorted(_logical_files(Path(root)))


class ClutrrGraphs(InMemoryDataset):
    """The stories of one file of a dataset folder as PyG graphs (see the module docstring).

    ``split`` is a file stem (``1.4_test``) or ``train`` (the folder's one ``*_train`` file);
    ``seed`` fixes the entity ids (default: the one the baselines score with);
    ``transform``, ``pre_transform`` and ``pre_filter`` act as in any PyG dataset.
    """

    def __init__(self, root: str | Path, split: str = "train", *, entity_pool: int = 100, seed: int = EVAL_SEED,
                 labels: LabelVocab | None = None, transform: Callable | None = None,
                 pre_transform: Callable | None = None, pre_filter: Callable | None = None) -> None:
        super().__init__(None, transform)
        self.root_folder = Path(root)
        self.split = self._stem(split)
        self.labels = labels or LabelVocab.from_kb()
        stories = load_stories(self.root_folder / f"{self.split}.csv", self.labels)
        samples = graph_samples(stories, entity_pool, seed)
        kept = [(s, d) for s, d in zip(stories, samples) if pre_filter is None or pre_filter(d)]
        self.ids = [s.id for s, _ in kept]
        self.ks = [s.k for s, _ in kept]
        data = [pre_transform(d) if pre_transform is not None else d for _, d in kept]
        if not data:
            raise UsageError(f"{self.root_folder}/{self.split}.csv: no stories left")
        self._data, self.slices = self.collate(data)

    def _stem(self, split: str) -> str:
        stems = file_stems(self.root_folder)
        if split == "train":
            trains = [s for s in stems if s.endswith("_train")]
            if len(trains) != 1:
                raise UsageError(f"{self.root_folder} must hold exactly one *_train.csv (found {len(trains)})")
            return trains[0]
        if split not in stems:
            raise UsageError(f"{self.root_folder}: no file {split!r} (files: {', '.join(stems)})")
        return split

    @property
    def num_classes(self) -> int:
        """The number of relation labels (all of the KB's words, whichever this file holds)."""
        return len(self.labels.words)

    @property
    def num_edge_types(self) -> int:
        """Edge types: the relation words and the unknown type."""
        return self.labels.num_edge_types

    def __repr__(self) -> str:
        return f"ClutrrGraphs({self.root_folder}, {self.split!r}, {len(self)} graphs)"
