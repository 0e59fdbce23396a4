"""Reference baselines for CLUTRR-style data, as plug-ins of one registry.

Built in: a GAT over the story graph (``gat``) and BiLSTMs over the text (``bilstm-attn``,
``bilstm-mean``). A model is a :class:`clutrr.baselines.registry.Model`; a user's model plugs in
by import path (``package.module:Class``). Python API::

    from clutrr.baselines import train_and_evaluate
    doc = train_and_evaluate("gat", "path/to/data", runs=3, out="results/gat")

Import of torch and torch_geometric is deferred until a function needs them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clutrr.baselines.optional import require_torch

__all__ = ["train_and_evaluate", "load_dataset", "require_torch"]

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
