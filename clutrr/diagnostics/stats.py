"""Exact tests used by the artifact audit, in pure Python."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

TWO_SIDED, GREATER = "two-sided", "greater"


def binomial_upper_tail(successes: int, trials: int) -> float:
    """P(X >= successes) for X ~ Binomial(trials, 1/2), computed exactly with integers."""
    if trials < 0 or successes < 0:
        raise ValueError("successes and trials must be non-negative")
    if successes > trials:
        return 0.0
    return sum(math.comb(trials, i) for i in range(successes, trials + 1)) / (1 << trials)


def binomial_two_sided(successes: int, trials: int) -> float:
    """The two-sided exact p-value of ``successes`` in ``trials`` fair coin flips: twice the
    smaller tail, at most 1 (the binomial with p = 1/2 is symmetric)."""
    if not 0 <= successes <= trials:
        raise ValueError("need 0 <= successes <= trials")
    smaller = min(successes, trials - successes)
    return min(1.0, 2 * binomial_upper_tail(trials - smaller, trials))


@dataclass(frozen=True)
class SignTest:
    """An exact sign test of model A against model B on paired items."""

    wins: int  # items A gets right and B gets wrong
    losses: int  # items B gets right and A gets wrong
    p_value: float
    alternative: str = TWO_SIDED  # two-sided: A and B differ; greater: A is better than B

    @property
    def discordant(self) -> int:
        """The number of items where exactly one of the two models is right."""
        return self.wins + self.losses


def sign_test(a_correct: Sequence[bool], b_correct: Sequence[bool], alternative: str = TWO_SIDED) -> SignTest:
    """The sign test on the items where exactly one of the two models is right.

    ``two-sided`` tests H1 "A and B differ" (Tsuchiya's "significant difference"); ``greater``
    tests H1 "A is better than B" (the one-sided test the audit used before).
    """
    if len(a_correct) != len(b_correct):
        raise ValueError("the two models must be scored on the same items")
    if alternative not in (TWO_SIDED, GREATER):
        raise ValueError(f"alternative must be {TWO_SIDED!r} or {GREATER!r}, not {alternative!r}")
    wins = sum(1 for a, b in zip(a_correct, b_correct) if a and not b)
    losses = sum(1 for a, b in zip(a_correct, b_correct) if b and not a)
    p = binomial_upper_tail(wins, wins + losses) if alternative == GREATER else binomial_two_sided(wins, wins + losses)
    return SignTest(wins, losses, p, alternative)


def entropy_bits(counts: Sequence[int]) -> float:
    """Shannon entropy, in bits, of the distribution given by ``counts``."""
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c) if total else 0.0
