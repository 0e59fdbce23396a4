"""Exact tests used by the artifact audit, in pure Python."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


def binomial_upper_tail(successes: int, trials: int) -> float:
    """P(X >= successes) for X ~ Binomial(trials, 1/2), computed exactly with integers."""
    if trials < 0 or successes < 0:
        raise ValueError("successes and trials must be non-negative")
    if successes > trials:
        return 0.0
    return sum(math.comb(trials, i) for i in range(successes, trials + 1)) / (1 << trials)


@dataclass(frozen=True)
class SignTest:
    """A one-sided exact sign test of model A against model B on paired items."""

    wins: int  # items A gets right and B gets wrong
    losses: int  # items B gets right and A gets wrong
    p_value: float  # P(wins >= observed) if A and B were equally good on the discordant items

    @property
    def discordant(self) -> int:
        """The number of items where exactly one of the two models is right."""
        return self.wins + self.losses


def sign_test(a_correct: Sequence[bool], b_correct: Sequence[bool]) -> SignTest:
    """Test H1 "A is better than B" on the items where exactly one of the two is right."""
    if len(a_correct) != len(b_correct):
        raise ValueError("the two models must be scored on the same items")
    wins = sum(1 for a, b in zip(a_correct, b_correct) if a and not b)
    losses = sum(1 for a, b in zip(a_correct, b_correct) if b and not a)
    return SignTest(wins, losses, binomial_upper_tail(wins, wins + losses))


def entropy_bits(counts: Sequence[int]) -> float:
    """Shannon entropy, in bits, of the distribution given by ``counts``."""
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c) if total else 0.0
