"""The model registry: every baseline is a :class:`Model` registered under a name.

A model is a class with a config dataclass, ``fit(train, valid)`` and ``predict_proba(stories)``;
``save``/``load`` keep a checkpoint. Built-in models register themselves with
:func:`register`; a user's model is found by import path (``package.module:ClassName``).
"""
from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from clutrr.baselines.data import LabelVocab, Story
from clutrr.errors import UsageError

MODELS: dict[str, type["Model"]] = {}


class Model(ABC):
    """A baseline: built from a config and the label vocabulary, trained on stories."""

    name: ClassVar[str]
    Config: ClassVar[type]  # a dataclass; its defaults are the model's defaults

    def __init__(self, config: Any, labels: LabelVocab) -> None:
        self.config = config
        self.labels = labels

    @abstractmethod
    def fit(self, train: list[Story], valid: list[Story], *, seed: int = 0, progress: bool = True) -> dict[str, Any]:
        """Train on ``train``; keep the state that scores best on ``valid``. Returns a history."""

    @abstractmethod
    def predict_proba(self, stories: list[Story]) -> np.ndarray:
        """An array ``(len(stories), len(labels.words))`` whose rows sum to 1."""

    @abstractmethod
    def save(self, path: Path) -> None:
        """Write a checkpoint that :meth:`load` reads back."""

    @classmethod
    @abstractmethod
    def load(cls, path: Path) -> "Model":
        """Read a checkpoint written by :meth:`save`."""


def register(cls: type[Model]) -> type[Model]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    if cls.name in MODELS and MODELS[cls.name] is not cls:
        raise ValueError(f"two models registered as {cls.name!r}")
    MODELS[cls.name] = cls
    return cls


def get_model(name: str) -> type[Model]:
    """A registered model by name, or a user's model by import path ``package.module:ClassName``."""
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise UsageError(f"cannot import model {name!r}: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Model)):
            raise UsageError(f"{name!r} is not a subclass of clutrr.baselines.registry.Model")
        return cls
    if name not in MODELS:
        raise UsageError(f"unknown model {name!r}; registered: {', '.join(sorted(MODELS)) or 'none'}")
    return MODELS[name]
