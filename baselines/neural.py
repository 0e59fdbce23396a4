"""The shared training loop of the PyTorch baselines: Adam, early stopping on validation loss.

A :class:`TorchModel` subclass says how stories become samples and batches and which network
reads them; this module trains it. Every epoch is scored on the validation stories; the state
with the lowest validation loss (cross-entropy) is kept, and training stops after ``patience``
epochs without a lower one. The loss, not the accuracy, decides: validation stories are as short
as the training ones, so their accuracy saturates within a few epochs while the loss still tells
epochs apart. Without validation stories every epoch runs and the last state is kept.
"""
from __future__ import annotations

import copy
import dataclasses
import time
from abc import abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402
import torch.nn.functional as F
from torch import nn

from clutrr.baselines.data import LabelVocab, Story
from clutrr.baselines.registry import Model
from clutrr.diagnostics.progress import bar

EVAL_SEED = 1  # entity ids of evaluated stories are drawn from (EVAL_SEED, story id)


@dataclass
class TrainingConfig:
    """Settings every PyTorch baseline shares."""

    entity_pool: int = 100  # entity ids (graph nodes, text placeholders) are drawn from range(entity_pool)
    lr: float = 0.001  # Adam
    weight_decay: float = 0.0
    batch_size: int = 100
    epochs: int = 20  # at most
    patience: int = 5  # epochs without a lower validation loss before stopping
    resample_entities: bool = True  # fresh entity ids for every training batch
    device: str = "auto"  # cpu, cuda, or auto (cuda when present)


class TorchModel(Model):
    """A PyTorch classifier over stories; subclasses give the samples, batches and network."""

    def __init__(self, config: Any, labels: LabelVocab) -> None:
        super().__init__(config, labels)
        self.net: nn.Module | None = None

    # -- what a subclass provides -------------------------------------------------------------
    def prepare(self, train: list[Story]) -> None:
        """Build what depends on the training stories (e.g. a vocabulary); nothing by default."""

    def extra_state(self) -> dict[str, Any]:
        """Plain data besides the weights that a checkpoint must keep (e.g. the vocabulary)."""
        return {}

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restore what :meth:`extra_state` returned."""

    @abstractmethod
    def build_network(self) -> nn.Module:
        """A fresh network (called after :meth:`prepare` or :meth:`load_extra_state`)."""

    @abstractmethod
    def samples(self, stories: list[Story], seed: int) -> list[Any]:
        """One sample per story; entity ids drawn with :func:`~clutrr.baselines.data.story_rng` from ``seed``."""

    @abstractmethod
    def train_batches(self, samples: list[Any], rng: np.random.Generator, gen: torch.Generator) -> Iterator[Any]:
        """Shuffled training batches (entity ids redrawn when the config says so)."""

    @abstractmethod
    def eval_batches(self, samples: list[Any]) -> Iterator[tuple[list[int], Any]]:
        """(sample indices, batch) pairs covering ``samples``."""

    @staticmethod
    @abstractmethod
    def gold(batch: Any) -> torch.Tensor:
        """The label ids of a batch."""

    # -- training and prediction --------------------------------------------------------------
    @property
    def device(self) -> torch.device:
        """The configured device; ``auto`` is CUDA when present, else CPU."""
        if self.config.device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        return torch.device(self.config.device)

    def fit(self, train: list[Story], valid: list[Story], *, seed: int = 0, progress: bool = True) -> dict[str, Any]:
        """Train from scratch with ``seed``; keep the epoch with the lowest loss on ``valid``.

        Returns the per-epoch history (loss, validation accuracy and loss), the best epoch,
        and CPU and wall seconds.
        """
        cfg = self.config
        torch.manual_seed(seed)
        rng, gen = np.random.default_rng(seed), torch.Generator().manual_seed(seed)
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        self.prepare(train)
        self.net = self.build_network().to(self.device)
        train_samples = self.samples(train, seed)
        valid_samples = self.samples(valid, EVAL_SEED)
        valid_gold = torch.tensor([s.label for s in valid], dtype=torch.long)
        params = [p for p in self.net.parameters() if p.requires_grad]
        optim = torch.optim.Adam(params, lr=cfg.lr, weight_decay=cfg.weight_decay)
        history: list[dict[str, Any]] = []
        best_key, best_state, best_epoch, stale = None, None, 0, 0
        epochs = bar(cfg.epochs, f"{self.name} seed {seed}", unit="epoch", enabled=None if progress else False)
        for epoch in range(cfg.epochs):
            loss = self._train_epoch(train_samples, optim, rng, gen)
            row: dict[str, Any] = {"epoch": epoch + 1, "train_loss": loss}
            if valid_samples:
                row["valid_accuracy"], row["valid_loss"] = self._score(valid_samples, valid_gold)
                epochs.set_postfix(loss=f"{loss:.3f}", valid=f"{row['valid_accuracy']:.3f}")
            else:
                epochs.set_postfix(loss=f"{loss:.3f}")
            epochs.update()
            row["cpu_seconds"] = round(time.process_time() - start_cpu, 2)
            history.append(row)
            key = -row["valid_loss"] if valid_samples else epoch
            if best_key is None or key > best_key:
                best_key, best_epoch, stale = key, epoch + 1, 0
                best_state = copy.deepcopy(self.net.state_dict())
            else:
                stale += 1
                if stale >= cfg.patience:
                    break
        epochs.close()
        self.net.load_state_dict(best_state)
        return {"history": history, "best_epoch": best_epoch, "epochs_run": len(history),
                "cpu_seconds": round(time.process_time() - start_cpu, 2),
                "wall_seconds": round(time.perf_counter() - start_wall, 2)}

    def _train_epoch(self, samples: list[Any], optim: torch.optim.Optimizer, rng: np.random.Generator,
                     gen: torch.Generator) -> float:
        self.net.train()
        total, count = 0.0, 0
        for batch in self.train_batches(samples, rng, gen):
            batch = batch.to(self.device)
            gold = self.gold(batch)
            loss = F.cross_entropy(self.net(batch), gold)
            optim.zero_grad()
            loss.backward()
            optim.step()
            total += float(loss.detach()) * int(gold.numel())
            count += int(gold.numel())
        return total / max(count, 1)

    def _logits(self, samples: list[Any]) -> torch.Tensor:
        out = torch.zeros(len(samples), len(self.labels.words))
        self.net.eval()
        with torch.no_grad():
            for idx, batch in self.eval_batches(samples):
                out[idx] = self.net(batch.to(self.device)).float().cpu()
        return out

    def _score(self, samples: list[Any], gold: torch.Tensor) -> tuple[float, float]:
        logits = self._logits(samples)
        return float((logits.argmax(-1) == gold).float().mean()), float(F.cross_entropy(logits, gold))

    def predict_proba(self, stories: list[Story]) -> np.ndarray:
        """Softmax of the network's logits; entity ids drawn per story (not per batch)."""
        if self.net is None:
            raise RuntimeError(f"{self.name} has not been fitted or loaded")
        probs = torch.softmax(self._logits(self.samples(stories, EVAL_SEED)).double(), dim=-1).numpy()
        return probs / probs.sum(axis=1, keepdims=True)

    # -- checkpoints --------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """One torch file: config, labels, extra state and weights."""
        torch.save({"config": dataclasses.asdict(self.config), "labels": list(self.labels.words),
                    "kb": self.labels.kb_name, "extra": self.extra_state(), "state": self.net.state_dict()}, path)

    @classmethod
    def load(cls, path: Path) -> "TorchModel":
        """Rebuild the model saved at ``path`` (weights on the configured device)."""
        blob = torch.load(path, map_location="cpu", weights_only=True)
        model = cls(cls.Config(**blob["config"]), LabelVocab(tuple(blob["labels"]), blob["kb"]))
        model.load_extra_state(blob["extra"])
        model.net = model.build_network()
        model.net.load_state_dict(blob["state"])
        model.net.to(model.device)
        return model
