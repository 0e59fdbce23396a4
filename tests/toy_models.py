"""A user's model for the registry tests, plugged in by import path (``toy_models:FirstFact``)."""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from clutrr.baselines.data import LabelVocab, Story
from clutrr.baselines.registry import Model


@dataclass
class FirstFactConfig:
    """Add-``smoothing`` counts of label given the type of the story's first fact."""

    smoothing: float = 1.0


class FirstFact(Model):
    """P(label | relation word of the first fact): exact on k=1 stories, weak beyond."""

    name = "first-fact"
    Config = FirstFactConfig

    def fit(self, train: list[Story], valid: list[Story], *, seed: int = 0, progress: bool = True) -> dict:
        counts = np.full((self.labels.num_edge_types, len(self.labels.words)), self.config.smoothing)
        for s in train:
            counts[s.edge_types[0], s.label] += 1
        self.table = counts / counts.sum(axis=1, keepdims=True)
        right = sum(p == self.labels.words[s.label] for p, s in zip(self.predict(valid), valid))
        return {"valid_accuracy": right / max(len(valid), 1), "valid_stories": len(valid)}

    def predict_proba(self, stories: list[Story]) -> np.ndarray:
        return self.table[[s.edge_types[0] for s in stories]]

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"config": asdict(self.config), "words": list(self.labels.words),
                                    "table": self.table.tolist()}))

    @classmethod
    def load(cls, path: Path) -> "FirstFact":
        blob = json.loads(path.read_text())
        model = cls(FirstFactConfig(**blob["config"]), LabelVocab(tuple(blob["words"])))
        model.table = np.array(blob["table"])
        return model
