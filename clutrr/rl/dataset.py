"""Datasets of items for training loops: procedural (generated on access) or read from files.

Both follow reasoning-gym's conventions: ``ds[i]`` is an item with ``question``, ``answer``
(typed by the item's ``form``: ``DatasetConfig(generator=GeneratorConfig(question="mixed"))``
asks every form, docs/questions.md) and ``metadata`` (``source_dataset``, ``source_index``, k, noise, ...), plain JSON data
(see :mod:`clutrr.eval.items`), and ``ds.score_answer(answer, entry)`` grades a reply.

A procedural item depends only on (config, seed, index): it is generated from a hash of
(seed, split, k, noise, index), so item i+1 under seed s is a different story from item i
under seed s+1, and any item can be produced alone, in any order or process.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import product
from pathlib import Path

from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.story.systems import kinship_fields
from clutrr.core.noise import NOISE_KINDS
from clutrr.eval.data import load_eval_set
from clutrr.eval.items import make_item
from clutrr.rl.reward import score_answer


@dataclass(frozen=True)
class DatasetConfig:
    """What a procedural dataset holds: its size, chain lengths, noise types and split.

    Items cycle through every (k, noise) combination, so each is equally represented.
    ``generator`` sets everything else (KB, templates, family sampler); note that the
    dataset's seed also fixes the template split and the held-out patterns, so a test
    set for a training set should use the same seed with ``split="test"``. ``kinship``
    (a built-in system's name or a terminology file, as ``clutrr generate --kinship``) tells
    the stories in that system's terms: its KB and sentences replace the generator's.
    """

    size: int = 1000
    k: tuple[int, ...] = (2, 3)
    noise: tuple[str, ...] = ("none",)
    split: str = "train"
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)
    kinship: str | None = None

    def generator_config(self) -> GeneratorConfig:
        """The generator's configuration, in the ``kinship`` system's terms when one is set."""
        if self.kinship is None:
            return self.generator
        return replace(self.generator, **kinship_fields(self.kinship))

    def validate(self) -> None:
        """Raise ValueError for an empty or malformed configuration."""
        if self.size < 0:
            raise ValueError("size must be non-negative")
        if not self.k or not self.noise:
            raise ValueError("k and noise must each list at least one value")
        unknown = [n for n in self.noise if n not in NOISE_KINDS]
        if unknown:
            raise ValueError(f"unknown noise types {unknown} (choose from {', '.join(NOISE_KINDS)})")


class _Items(Sequence):
    """A sequence of items with reasoning-gym's ``score_answer`` method."""

    kb = "kinship"

    def score_answer(self, answer: str | None, entry: dict) -> float:
        """1.0 if ``answer`` gives ``entry``'s answer (free text accepted), else 0.0."""
        return score_answer(answer, entry, self.kb)


class ProceduralDataset(_Items):
    """A fixed-size, lazily generated sequence of items."""

    def __init__(self, config: DatasetConfig, seed: int) -> None:
        config.validate()
        self.config = config
        self.seed = seed
        self._generator = config.generator_config()
        self.kb = self._generator.kb
        self._combos = list(product(config.k, config.noise))

    def __len__(self) -> int:
        return self.config.size

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if not -len(self) <= index < len(self):
            raise IndexError(f"index {index} out of range for a dataset of {len(self)} items")
        index %= len(self)
        k, noise = self._combos[index % len(self._combos)]
        ex = make_example(self._generator, k, noise, self.seed, index // len(self._combos), self.config.split)
        return make_item(ex.row, split=self.config.split, noise=noise, index=index, seed=self.seed,
                         pattern_heldout=ex.record["pattern_heldout"],
                         asked=ex.record if ex.question is not None else None)


def make_dataset(config: DatasetConfig, seed: int) -> ProceduralDataset:
    """The procedural dataset of ``config`` and ``seed``; ``ds[i]`` is deterministic per index."""
    return ProceduralDataset(config, seed)


class FileDataset(_Items):
    """The items of a dataset folder's files (default: the test files), read once; the rows of
    a question-form folder (``clutrr generate --question``) ask their questions."""

    def __init__(self, directory: str | Path, splits: list[str] | None = None, kb: str = "kinship",
                 kinship: str | None = None) -> None:
        """``kinship``: the system the folder's stories were generated in (its KB then replaces ``kb``)."""
        self.kb = kinship_fields(kinship)["kb"] if kinship is not None else kb
        data = load_eval_set(directory, splits, kb)
        data.forms = True
        self._items = data.items()

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, index):  # type: ignore[override]
        return self._items[index]
