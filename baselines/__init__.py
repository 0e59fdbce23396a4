"""Reference baselines for CLUTRR-style data: a GAT over the story graph and BiLSTMs over the text.

Python API::

    from clutrr.baselines import train_and_evaluate
    results = train_and_evaluate("gat", "path/to/data", epochs=20, seed=0, runs=3, out="results/")

Import of torch and torch_geometric is deferred until a function needs them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clutrr.baselines.config import MODEL_NAMES as MODELS

__all__ = ["train_and_evaluate", "load_dataset", "MODELS"]

if TYPE_CHECKING:  # pragma: no cover
    from clutrr.baselines.data import load_dataset
    from clutrr.baselines.train import train_and_evaluate


def __getattr__(name: str) -> Any:
    if name == "train_and_evaluate":
        from clutrr.baselines.train import train_and_evaluate

        return train_and_evaluate
    if name == "load_dataset":
        from clutrr.baselines.data import load_dataset

        return load_dataset
    raise AttributeError(name)
