"""Per-model glue: turn a dataset into batches and build the model (graph or text)."""
from __future__ import annotations

from typing import Any, ClassVar, Iterator

import numpy as np
import torch
from torch import nn
from torch_geometric.data import Batch

from clutrr.baselines.data import Dataset
from clutrr.baselines.graphs import graph_samples, redraw_entities
from clutrr.baselines.text import ENTITY, UNK, WordVocab, bucket_batches, collate, text_samples


class GraphTask:
    """Batches of PyG graph samples for :class:`baselines.gat.GATClassifier`."""

    reads_text: ClassVar[bool] = False  # the model sees the story's facts, not its words

    def __init__(self, dataset: Dataset, config: dict[str, Any], seed: int) -> None:
        self.config = config
        self.pool = int(config["entity_pool"])
        self.labels = dataset.labels
        self.train = graph_samples(dataset.train, self.pool, seed)
        self.tests = {t.file: graph_samples(t.stories, self.pool, seed + 1) for t in dataset.tests}

    def model(self) -> nn.Module:
        """A fresh GAT built from the config."""
        from clutrr.baselines.gat import GATClassifier

        return GATClassifier(len(self.labels.words), self.labels.num_edge_types, self.pool, **self.config["model_args"])

    def train_batches(self, batch_size: int, rng: np.random.Generator, gen: torch.Generator) -> Iterator[Batch]:
        """Shuffled training batches, entity ids redrawn when the config says so."""
        order = rng.permutation(len(self.train))
        for i in range(0, len(order), batch_size):
            batch = Batch.from_data_list([self.train[j] for j in order[i:i + batch_size]])
            if self.config["training"].get("resample_entities", True):
                redraw_entities(batch, self.pool, gen)
            yield batch

    def eval_batches(self, file: str | None, batch_size: int) -> Iterator[Batch]:
        """Batches of a test file (or of the training set when ``file`` is None), in order."""
        for _, batch in self.indexed_batches(self.train if file is None else self.tests[file], batch_size):
            yield batch

    def samples(self, stories: list, seed: int) -> list:
        """Graph samples for stories outside the dataset (probe files)."""
        return graph_samples(stories, self.pool, seed)

    @staticmethod
    def indexed_batches(samples: list, batch_size: int) -> Iterator[tuple[list[int], Batch]]:
        """(sample indices, batch) pairs covering ``samples``."""
        for i in range(0, len(samples), batch_size):
            yield list(range(i, min(i + batch_size, len(samples)))), Batch.from_data_list(samples[i:i + batch_size])

    @staticmethod
    def labels_of(batch: Batch) -> torch.Tensor:
        """Gold label ids of a batch."""
        return batch.y


class TextTask:
    """Padded, length-bucketed batches of text samples for :class:`baselines.bilstm.BiLSTMClassifier`."""

    reads_text: ClassVar[bool] = True

    def __init__(self, dataset: Dataset, config: dict[str, Any], seed: int) -> None:
        self.config = config
        self.pool = int(config["entity_pool"])
        self.labels = dataset.labels
        self.vocab = WordVocab.build(dataset.train)
        self.train = text_samples(dataset.train, self.vocab, self.pool, seed)
        self.tests = {t.file: text_samples(t.stories, self.vocab, self.pool, seed + 1) for t in dataset.tests}

    def model(self) -> nn.Module:
        """A fresh BiLSTM built from the config."""
        from clutrr.baselines.bilstm import BiLSTMClassifier

        return BiLSTMClassifier(len(self.labels.words), len(self.vocab), self.pool, **self.config["model_args"])

    def train_batches(self, batch_size: int, rng: np.random.Generator, gen: torch.Generator) -> Iterator[Any]:
        """Length-bucketed shuffled batches, placeholders redrawn when the config says so."""
        resample = self.config["training"].get("resample_entities", True)
        word_dropout = float(self.config["training"].get("word_dropout", 0.0))
        for idx in bucket_batches([len(s.words) for s in self.train], batch_size, rng):
            batch = collate([self.train[i] for i in idx], self.pool if resample else None, gen if resample else None)
            if word_dropout > 0:
                hide = (torch.rand(batch.words.shape, generator=gen) < word_dropout) & (batch.words > ENTITY)
                batch.words = batch.words.masked_fill(hide, UNK)
            yield batch

    def eval_batches(self, file: str | None, batch_size: int) -> Iterator[Any]:
        """Batches of a test file (or of the training set when ``file`` is None), bucketed by length."""
        for _, batch in self.indexed_batches(self.train if file is None else self.tests[file], batch_size):
            yield batch

    def samples(self, stories: list, seed: int) -> list:
        """Text samples for stories outside the dataset (probe files), with the training vocabulary."""
        return text_samples(stories, self.vocab, self.pool, seed)

    @staticmethod
    def indexed_batches(samples: list, batch_size: int) -> Iterator[tuple[list[int], Any]]:
        """(sample indices, batch) pairs covering ``samples``, bucketed by length."""
        for idx in bucket_batches([len(s.words) for s in samples], batch_size, None):
            yield list(idx), collate([samples[i] for i in idx])

    @staticmethod
    def labels_of(batch: Any) -> torch.Tensor:
        """Gold label ids of a batch."""
        return batch.labels


def task_class(config: dict[str, Any]) -> type[GraphTask] | type[TextTask]:
    """The task class of the config's model family."""
    return GraphTask if config["model"] == "gat" else TextTask


def make_task(dataset: Dataset, config: dict[str, Any], seed: int) -> GraphTask | TextTask:
    """The task object for the config's model family."""
    return task_class(config)(dataset, config, seed)
