"""The model registry: every baseline is a :class:`Model` registered under a name.

A model is a class with a config dataclass, ``fit(train, valid)`` and ``predict_proba(stories)``;
``save``/``load`` keep a checkpoint. Built-in models register themselves with
:func:`register`; a user's model is found by import path (``package.module:ClassName``).

A checkpoint folder (:func:`save_checkpoint`) holds ``model.json`` (which class wrote it) and the
model's own ``checkpoint`` file, so :func:`load_checkpoint` can rebuild any model from the folder.
"""
from __future__ import annotations

import dataclasses
import importlib
import json
import sys
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import yaml

from clutrr.baselines.data import LabelVocab, Story
from clutrr.diagnostics.progress import bar
from clutrr.errors import UsageError

MODELS: dict[str, type["Model"]] = {}
BUILTIN = ("clutrr.baselines.gat", "clutrr.baselines.bilstm", "clutrr.baselines.composer")
CHECKPOINT_FILE = "checkpoint"
CHECKPOINT_META = "model.json"
CHUNK = 1000  # stories per predict_proba call in predict_chunked


class Model(ABC):
    """A baseline: built from a config and the label vocabulary, trained on stories."""

    name: ClassVar[str]
    Config: ClassVar[type]  # a dataclass; its defaults are the model's defaults
    reads_text: ClassVar[bool] = False  # True when the model reads the story's words (word-permute probes apply)

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

    def predict(self, stories: list[Story]) -> list[str]:
        """The most probable relation word of each story."""
        if not stories:
            return []
        return [self.labels.words[i] for i in self.predict_proba(stories).argmax(axis=1)]


def predict_chunked(model: Model, stories: list[Story], desc: str = "predict", progress: bool = False) -> np.ndarray:
    """``model.predict_proba(stories)`` in chunks of :data:`CHUNK`, with a progress bar on a terminal
    (none when ``progress`` is False)."""
    out = np.zeros((len(stories), len(model.labels.words)))
    with bar(len(stories), desc, unit="story", enabled=None if progress else False) as b:
        for i in range(0, len(stories), CHUNK):
            out[i:i + CHUNK] = model.predict_proba(stories[i:i + CHUNK])
            b.update(min(CHUNK, len(stories) - i))
    return out


def register(cls: type[Model]) -> type[Model]:
    """Class decorator: make ``cls`` available as ``cls.name``."""
    if cls.name in MODELS and MODELS[cls.name] is not cls:
        raise ValueError(f"two models registered as {cls.name!r}")
    MODELS[cls.name] = cls
    return cls


def registered() -> dict[str, type[Model]]:
    """Every built-in model by name (importing their modules registers them)."""
    for module in BUILTIN:
        importlib.import_module(module)
    return dict(sorted(MODELS.items()))


def get_model(name: str) -> type[Model]:
    """A registered model by name, or a user's model by import path ``package.module:ClassName``."""
    if ":" in name:
        module, _, attr = name.partition(":")
        if "" not in sys.path:
            sys.path.insert(0, "")  # the current folder is importable, as for `clutrr eval --model`
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise UsageError(f"cannot import model {name!r}: {exc}") from None
        if not (isinstance(cls, type) and issubclass(cls, Model)):
            raise UsageError(f"{name!r} is not a subclass of clutrr.baselines.registry.Model")
        return cls
    models = registered()
    if name not in models:
        raise UsageError(f"unknown model {name!r}; registered: {', '.join(models)} (or give package.module:Class)")
    return models[name]


def model_spec(cls: type[Model]) -> str:
    """The name :func:`get_model` finds ``cls`` by: its registered name, else its import path."""
    if MODELS.get(getattr(cls, "name", "")) is cls:
        return cls.name
    return f"{cls.__module__}:{cls.__qualname__}"


def make_config(cls: type[Model], path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """``cls.Config`` from its defaults, a YAML mapping of field values at ``path``, then ``overrides``.

    A value of the wrong kind or a field the config does not have is a UsageError naming it.
    """
    values: dict[str, Any] = {}
    if path is not None:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"cannot read config {path}: {str(exc).splitlines()[0]}") from None
        if loaded is not None and not isinstance(loaded, dict):
            raise UsageError(f"config {path} must be a mapping of field: value")
        values.update(loaded or {})
    values.update(overrides or {})
    fields = {f.name: f for f in dataclasses.fields(cls.Config)}
    unknown = sorted(set(values) - set(fields))
    if unknown:
        raise UsageError(f"{model_spec(cls)} has no setting {unknown[0]!r}; settings: {', '.join(fields)}")
    defaults = cls.Config()
    for key, value in values.items():
        default = getattr(defaults, key)
        if default is not None and value is not None and not _same_kind(default, value):
            raise UsageError(f"setting {key!r} of {model_spec(cls)} takes a {type(default).__name__}, got {value!r}")
        if isinstance(default, float) and isinstance(value, int):
            values[key] = float(value)
    return dataclasses.replace(defaults, **values)


def _same_kind(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


def save_checkpoint(model: Model, folder: str | Path) -> Path:
    """Write ``model`` into ``folder`` (``model.json`` + ``checkpoint``); returns the folder."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / CHECKPOINT_FILE)
    meta = {"model": model_spec(type(model)), "config": dataclasses.asdict(model.config),
            "labels": list(model.labels.words), "kb": model.labels.kb_name}
    (folder / CHECKPOINT_META).write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return folder


def load_checkpoint(folder: str | Path) -> Model:
    """The model saved in ``folder`` by :func:`save_checkpoint`; UsageError if it holds none."""
    folder = Path(folder)
    try:
        meta = json.loads((folder / CHECKPOINT_META).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        raise UsageError(f"{folder} is not a checkpoint folder (no readable {CHECKPOINT_META})") from None
    return get_model(meta["model"]).load(folder / CHECKPOINT_FILE)
