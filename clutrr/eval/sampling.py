"""Repeated sampling: pass@k by the unbiased estimator, majority vote, and their tallies.

With n answers to a story of which c are right, pass@k is the chance that at least one of
k answers drawn without replacement is right: ``1 - C(n-c, k) / C(n, k)`` (Chen et al.
2021, "Evaluating Large Language Models Trained on Code", eq. 1), averaged over stories.
pass@1 is the mean share of right answers. Majority vote takes the answer given most often
(unparsable and missing answers do not vote; a tie goes to the answer given first).
Intervals are Wilson score intervals with the stories as trials and the mean as the
proportion.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from clutrr.eval.metrics import Tally, wilson


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one story with ``c`` right answers out of ``n`` (k <= n)."""
    if not 0 < k <= n or not 0 <= c <= n:
        raise ValueError(f"need 0 < k <= n and 0 <= c <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    miss = 1.0
    for i in range(n - c + 1, n + 1):
        miss *= 1.0 - k / i
    return 1.0 - miss


def ks_for(samples: int) -> list[int]:
    """The k reported for ``samples`` answers per story: 1, 2, 4, ... and ``samples`` itself."""
    ks, k = [], 1
    while k < samples:
        ks.append(k)
        k *= 2
    return ks + [samples]


def majority(labels: Sequence[str], ignore: frozenset[str] = frozenset()) -> str | None:
    """The label given most often (ties: the one given first), not counting ``ignore``."""
    votes = Counter(label for label in labels if label not in ignore)
    if not votes:
        return None
    top = max(votes.values())
    return next(label for label in labels if votes.get(label) == top)


@dataclass
class SampleTally:
    """pass@k sums and majority-vote counts over stories with ``samples`` answers each."""

    samples: int
    n: int = 0
    sums: dict[int, float] = field(default_factory=dict)
    majority: Tally = field(default_factory=Tally)

    def add(self, correct: int, majority_right: bool) -> None:
        """Count one story with ``correct`` right answers out of ``samples``."""
        self.n += 1
        for k in ks_for(self.samples):
            self.sums[k] = self.sums.get(k, 0.0) + pass_at_k(self.samples, correct, k)
        self.majority.add(1, int(majority_right))

    def value(self, k: int) -> float | None:
        """Mean pass@k over the stories, or None for none."""
        return self.sums.get(k, 0.0) / self.n if self.n else None

    def to_dict(self) -> dict:
        """n, samples, ``pass@k`` {value, ci} per k and ``majority`` as a Tally dict."""
        out: dict = {"n": self.n, "samples": self.samples}
        for k in ks_for(self.samples):
            value = self.value(k)
            out[f"pass@{k}"] = {"value": value, "ci": list(wilson((value or 0.0) * self.n, self.n))
                                if value is not None else [0.0, 1.0], "sum": self.sums.get(k, 0.0)}
        out["majority"] = self.majority.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict) -> "SampleTally":
        """The inverse of :meth:`to_dict`."""
        samples = int(d["samples"])
        return cls(samples, int(d["n"]), {k: float(d[f"pass@{k}"]["sum"]) for k in ks_for(samples)},
                   Tally.from_dict(d["majority"]))
