"""Accuracy with a 95% Wilson score interval."""
from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054
CI_METHOD = "Wilson score interval, 95% (z = 1.96)"


def wilson(correct: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``correct / n``; (0, 1) when n = 0."""
    if n == 0:
        return 0.0, 1.0
    p = correct / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    high = 1.0 if correct == n else min(1.0, centre + half)
    return low, high


@dataclass
class Tally:
    """Right answers out of n."""

    n: int = 0
    correct: int = 0

    def add(self, n: int, correct: int) -> None:
        """Count ``n`` more items of which ``correct`` were right."""
        self.n += n
        self.correct += correct

    @property
    def accuracy(self) -> float | None:
        """correct / n, or None for no items."""
        return self.correct / self.n if self.n else None

    def to_dict(self) -> dict:
        """n, correct, accuracy and the Wilson interval as ``ci`` [low, high]."""
        lo, hi = wilson(self.correct, self.n)
        return {"n": self.n, "correct": self.correct, "accuracy": self.accuracy, "ci": [lo, hi]}

    @classmethod
    def from_dict(cls, d: dict) -> "Tally":
        """The inverse of :meth:`to_dict`."""
        return cls(int(d["n"]), int(d["correct"]))
