"""A difficulty curriculum over chain length k and noise type.

``Curriculum`` raises or lowers the difficulty along k and noise from the accuracy a
learner reports, and hands out procedural datasets (:mod:`clutrr.rl.dataset`) at the
current level.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from clutrr.core.noise import PATH_NOISE_KINDS
from clutrr.rl.dataset import DatasetConfig, ProceduralDataset, make_dataset


class Curriculum:
    """Difficulty levels along k and noise, moved up or down by the learner's accuracy.

    ``k_levels`` and ``noise_levels`` are ordered easiest first. With ``cumulative`` the
    dataset at a k level also holds every easier k (rehearsal); otherwise only the current k.
    """

    def __init__(self, base: DatasetConfig | None = None, k_levels: Sequence[int] = tuple(range(2, 11)),
                 noise_levels: Sequence[str] = PATH_NOISE_KINDS, cumulative: bool = False) -> None:
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
