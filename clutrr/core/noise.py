"""Noise facts: true facts of the family that the answer does not need.

- supporting: a second path between two chain people (never both query ends) through new people;
- irrelevant: a dangling path that starts at one chain person and continues through new people;
- disconnected: a path among people who are not on the chain.
Each kind adds ``n_facts`` facts as one path; ``all`` adds one path of each kind.
"""
from __future__ import annotations

import random

import numpy as np

from clutrr.core.chainer import Chain
from clutrr.core.family import Family

NOISE_KINDS = ("none", "supporting", "irrelevant", "disconnected", "all")
TASK_OF_NOISE = {"none": 1, "supporting": 2, "irrelevant": 3, "disconnected": 4, "all": 5}

Fact = tuple[int, int, int]


def _named_neighbours(family: Family, a: int, used: np.ndarray) -> np.ndarray:
    return np.flatnonzero(family.single[a] & ~used)


def _walk(family: Family, start: int, steps: int, used: np.ndarray, rng: random.Random) -> list[Fact] | None:
    """A path of ``steps`` facts from ``start`` through people not yet used."""
    facts: list[Fact] = []
    a = start
    for _ in range(steps):
        options = _named_neighbours(family, a, used)
        if len(options) == 0:
            return None
        b = int(options[rng.randrange(len(options))])
        facts.append((a, family.relation(a, b), b))
        used[b] = True
        a = b
    return facts


def _supporting(family: Family, chain: Chain, n: int, used: np.ndarray, rng: random.Random) -> list[Fact] | None:
    k = chain.k
    pairs = [(i, j) for i in range(k + 1) for j in range(i + 1, k + 1) if (i, j) != (0, k)]
    rng.shuffle(pairs)
    if n == 1:
        pairs = [(i, j) for i, j in pairs if j > i + 1]
    for i, j in pairs[:12]:
        u, v = chain.people[i], chain.people[j]
        for _ in range(4):
            trial = used.copy()
            head = _walk(family, u, n - 1, trial, rng)
            if head is None:
                continue
            last = head[-1][2] if head else u
            if last == v or not family.single[last, v]:
                continue
            used[:] = trial
            return head + [(last, family.relation(last, v), v)]
    return None


def _irrelevant(family: Family, chain: Chain, n: int, used: np.ndarray, rng: random.Random) -> list[Fact] | None:
    starts = list(chain.people)
    rng.shuffle(starts)
    for u in starts[:8]:
        trial = used.copy()
        facts = _walk(family, u, n, trial, rng)
        if facts is not None:
            used[:] = trial
            return facts
    return None


def _disconnected(family: Family, chain: Chain, n: int, used: np.ndarray, rng: random.Random) -> list[Fact] | None:
    free = np.flatnonzero(~used)
    for _ in range(8):
        if len(free) == 0:
            return None
        u = int(free[rng.randrange(len(free))])
        trial = used.copy()
        trial[u] = True
        facts = _walk(family, u, n, trial, rng)
        if facts is not None:
            used[:] = trial
            return facts
    return None


_MAKERS = {"supporting": _supporting, "irrelevant": _irrelevant, "disconnected": _disconnected}


def add_noise(family: Family, chain: Chain, kind: str, n_facts: int, rng: random.Random) -> list[tuple[str, list[Fact]]] | None:
    """Noise paths of the given kind as ``[(kind, facts)]``, or None if the family has no room.

    Every fact is a single, true relation of the family; new people are never on the chain.
    """
    if kind == "none":
        return []
    used = np.zeros(family.size, dtype=bool)
    used[chain.people] = True
    kinds = ("supporting", "irrelevant", "disconnected") if kind == "all" else (kind,)
    out = []
    for kd in kinds:
        facts = _MAKERS[kd](family, chain, n_facts, used, rng)
        if facts is None:
            return None
        out.append((kd, facts))
    return out
