"""Procedural datasets and a difficulty curriculum over chain length k and noise.

``make_dataset(config, seed)`` is a lazy sequence: item ``i`` is generated on access by
``clutrr.core.generator.make_example`` and is the same on every call, in any order, in any
process. ``score_answer`` grades a free-text answer. ``Curriculum`` raises or lowers the
difficulty along k and noise from the accuracy a learner reports.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import product

from clutrr.core.generator import GeneratorConfig, make_example
from clutrr.core.kb import load_kb
from clutrr.core.noise import NOISE_KINDS


@dataclass(frozen=True)
class DatasetConfig:
    """What a procedural dataset holds: its size, chain lengths, noise types and split.

    Items cycle through every (k, noise) combination, so each is equally represented.
    """

    size: int = 1000
    k: tuple[int, ...] = (2, 3)
    noise: tuple[str, ...] = ("none",)
    split: str = "train"
    generator: GeneratorConfig = field(default_factory=GeneratorConfig)

    def validate(self) -> None:
        """Raise ValueError for an empty or malformed configuration."""
        if self.size < 0:
            raise ValueError("size must be non-negative")
        if not self.k or not self.noise:
            raise ValueError("k and noise must each list at least one value")
        unknown = [n for n in self.noise if n not in NOISE_KINDS]
        if unknown:
            raise ValueError(f"unknown noise types {unknown} (choose from {', '.join(NOISE_KINDS)})")


class ProceduralDataset(Sequence):
    """A fixed-size, lazily generated sequence of question/answer items."""

    def __init__(self, config: DatasetConfig, seed: int) -> None:
        config.validate()
        self.config = config
        self.seed = seed
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
        sub_index = index // len(self._combos)
        ex = make_example(self.config.generator, k, noise, self.seed, sub_index, self.config.split)
        head, tail = ex.row.query
        return {
            "question": f"{ex.row.story}\nHow is {tail} related to {head}?",
            "answer": ex.row.target,
            "story": ex.row.story,
            "query": (head, tail),
            "metadata": {"k": k, "noise": noise, "index": index, "seed": self.seed,
                         "split": self.config.split, "id": ex.row.id},
            "row": ex.row,
        }


def make_dataset(config: DatasetConfig, seed: int) -> ProceduralDataset:
    """The procedural dataset of ``config`` and ``seed``; ``ds[i]`` is deterministic per index."""
    return ProceduralDataset(config, seed)


def _normalize(text: str) -> str:
    return "-".join(t for t in re.split(r"[\s\-]+", text.strip().strip(".!?").lower()) if t)


def score_answer(answer: str | None, item: dict, kb: str = "kinship") -> float:
    """1.0 if ``answer`` names the item's relation (any case, spacing or hyphenation;
    KB aliases accepted), else 0.0."""
    if not answer:
        return 0.0
    words = load_kb(kb).word_index
    given, gold = _normalize(answer), _normalize(item["answer"])
    if given in words and gold in words:
        return 1.0 if words[given] == words[gold] else 0.0
    return 1.0 if given == gold else 0.0


class Curriculum:
    """Difficulty levels along k and noise, moved up or down by the learner's accuracy.

    ``k_levels`` and ``noise_levels`` are ordered easiest first. With ``cumulative`` the
    dataset at a k level also holds every easier k (rehearsal); otherwise only the current k.
    """

    def __init__(self, base: DatasetConfig | None = None, k_levels: Sequence[int] = tuple(range(2, 11)),
                 noise_levels: Sequence[str] = NOISE_KINDS, cumulative: bool = False) -> None:
        if not k_levels or not noise_levels:
            raise ValueError("k_levels and noise_levels must be non-empty")
        self.base = base or DatasetConfig()
        self.k_levels = tuple(k_levels)
        self.noise_levels = tuple(noise_levels)
        self.cumulative = cumulative
        self.level = {"k": 0, "noise": 0}

    @property
    def k(self) -> int:
        """The current (hardest) chain length."""
        return self.k_levels[self.level["k"]]

    @property
    def noise(self) -> str:
        """The current noise type."""
        return self.noise_levels[self.level["noise"]]

    def config(self) -> DatasetConfig:
        """The dataset configuration at the current difficulty."""
        ks = self.k_levels[: self.level["k"] + 1] if self.cumulative else (self.k,)
        return replace(self.base, k=tuple(ks), noise=(self.noise,))

    def dataset(self, seed: int) -> ProceduralDataset:
        """A procedural dataset at the current difficulty."""
        return make_dataset(self.config(), seed)

    def _move(self, axis: str, step: int) -> bool:
        if axis not in self.level:
            raise ValueError(f"axis must be 'k' or 'noise', got {axis!r}")
        top = len(self.k_levels if axis == "k" else self.noise_levels) - 1
        new = min(max(self.level[axis] + step, 0), top)
        moved = new != self.level[axis]
        self.level[axis] = new
        return moved

    def increase(self, axis: str = "k") -> bool:
        """Make ``axis`` one level harder; False if it already is at the hardest level."""
        return self._move(axis, +1)

    def decrease(self, axis: str = "k") -> bool:
        """Make ``axis`` one level easier; False if it already is at the easiest level."""
        return self._move(axis, -1)

    def update(self, accuracy: float, raise_at: float = 0.9, lower_at: float = 0.5, axis: str = "k") -> int:
        """Raise ``axis`` when ``accuracy >= raise_at``, lower it when ``accuracy < lower_at``.

        Returns +1, -1 or 0: the level change actually made.
        """
        if lower_at > raise_at:
            raise ValueError("lower_at must not exceed raise_at")
        if accuracy >= raise_at:
            return 1 if self.increase(axis) else 0
        if accuracy < lower_at:
            return -1 if self.decrease(axis) else 0
        return 0
