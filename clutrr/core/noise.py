"""Noise facts: true facts of the family that the answer does not need.

- supporting: a second path between two chain people (never both query ends) through new people;
- irrelevant: a dangling path that starts at one chain person and continues through new people;
- disconnected: a path among people who are not on the chain.
Each kind adds ``n_facts`` facts as one path; ``all`` adds one path of each kind.
- connected: ``n_facts`` facts joined to the story's people, a graph rather than a path
  (:mod:`clutrr.core.distractors`, which the generator calls for it).
Sets of people are int bitsets (bit i: person i).
"""
from __future__ import annotations

import random
from typing import Final


from clutrr.core.chainer import Chain
from clutrr.core.family import Family
from clutrr.core.genealogy import transpose_rows
from clutrr.core.draws import random_bit
from clutrr.core.vocabulary import WordMask

PATH_NOISE_KINDS = ("none", "supporting", "irrelevant", "disconnected", "all")  # the original tasks 1-5
NOISE_KINDS = (*PATH_NOISE_KINDS, "connected")
TASK_OF_NOISE = {"none": 1, "supporting": 2, "irrelevant": 3, "disconnected": 4, "all": 5, "connected": 8}

Fact = tuple[int, int, int]


def speakable(family: Family, allowed: WordMask | None) -> tuple[list[int], list[int]]:
    """Who may be stated as whose relation: ``(out, into)`` where bit y of ``out[x]`` (and bit
    x of ``into[y]``) says y is exactly one relation of x, and its word is allowed."""
    key = ("speakable", allowed)
    hit = family.cache.get(key)
    if hit is None:
        out = family.single
        if allowed is not None:
            men, women = family.gender_bits
            tails = [(men if said[0] else 0) | (women if said[1] else 0) for said in allowed]  # allowed tails per p
            out = [row & _relatives_among(family.rows, x, tails) for x, row in enumerate(out)]
        hit = family.cache[key] = (out, transpose_rows(out, family.size))
    return hit


def _relatives_among(rows: list[list[int]], x: int, tails: list[int]) -> int:
    """The people y who are some relation p of x and in ``tails[p]`` (a bitset)."""
    found = 0
    for p in range(len(rows)):
        found |= rows[p][x] & tails[p]
    return found


class _Walker:
    """Random walks over single relations through people not yet used."""

    def __init__(self, family: Family, used: int, allowed: WordMask | None, rng: random.Random) -> None:
        self.family = family
        self.out, self.into = speakable(family, allowed)
        self.used = used
        self.rand = rng.random

    def walk(self, start: int, steps: int, used: int) -> tuple[list[Fact], int] | None:
        """A path of ``steps`` facts from ``start`` avoiding ``used``, and the people it used."""
        facts: list[Fact] = []
        a = start
        family, out, rand = self.family, self.out, self.rand
        for step in range(steps):  # named loop variables: compiled, ``_`` is boxed each pass
            options = out[a] & ~used
            if not options:
                return None
            for skip in range(int(rand() * options.bit_count())):  # random_bit(options, rand)
                options &= options - 1
            b = (options & -options).bit_length() - 1
            facts.append((a, family.relation(a, b), b))
            used |= 1 << b
            a = b
        return facts, used

    def path(self, kind: str, chain: Chain, n: int) -> list[Fact] | None:
        """A noise path of ``kind`` (supporting, irrelevant or disconnected), or None."""
        if kind == "supporting":  # direct calls: compiled, a method looked up by name is a generic call
            return self.supporting(chain, n)
        if kind == "irrelevant":
            return self.irrelevant(chain, n)
        if kind == "disconnected":
            return self.disconnected(chain, n)
        raise ValueError(f"unknown noise kind {kind!r}")

    def supporting(self, chain: Chain, n: int) -> list[Fact] | None:
        k = chain.k
        family = self.family
        span = k + 1
        pairs = list(_chain_pairs(k, n > 1))
        rand, left = self.rand, len(pairs)
        for tried in range(min(12, left)):  # up to 12 pairs in uniformly random order (in_random_order's draws)
            pick = int(rand() * left)
            i = pairs[pick] // span
            j = pairs[pick] - i * span
            left -= 1
            pairs[pick] = pairs[left]
            u, v = chain.people[i], chain.people[j]
            if n == 1:
                if self.out[u] >> v & 1:
                    return [(u, family.relation(u, v), v)]
                continue
            for walks in range(4):
                # walk n - 2 steps, then step to someone who is linked to v
                found = self.walk(u, n - 2, self.used)
                if found is None:
                    continue
                head, used = found
                a = head[-1][2] if head else u
                options = self.out[a] & self.into[v] & ~used
                if not options:
                    if n == 2:  # no walk to vary: the next tries would draw nothing and fail the same way
                        break
                    continue
                last = random_bit(options, self.rand)
                self.used = used | 1 << last
                return head + [(a, family.relation(a, last), last), (last, family.relation(last, v), v)]
        return None

    def irrelevant(self, chain: Chain, n: int) -> list[Fact] | None:
        people, rand = list(chain.people), self.rand
        left = len(people)
        for tried in range(min(8, left)):  # up to 8 chain people in uniformly random order (in_random_order's draws)
            pick = int(rand() * left)
            u = people[pick]
            left -= 1
            people[pick] = people[left]
            found = self.walk(u, n, self.used)
            if found is not None:
                facts, self.used = found
                return facts
        return None

    def disconnected(self, chain: Chain, n: int) -> list[Fact] | None:
        free = ((1 << self.family.size) - 1) & ~self.used
        for tried in range(8):
            if not free:
                return None
            u = random_bit(free, self.rand)
            found = self.walk(u, n, self.used | 1 << u)
            if found is not None:
                facts, self.used = found
                return facts
        return None


_CHAIN_PAIRS: Final[list[list[int]]] = []  # [2 * k + adjacent]: _chain_pairs(k, adjacent), once made (else empty)


def _chain_pairs(k: int, adjacent: bool) -> list[int]:
    """The pairs (i, j), i < j, of positions on a chain of k facts that a supporting path may
    join (never (0, k); with ``adjacent``, also neighbours), each as ``i * (k + 1) + j``; kept per k
    (in a list by ``2 * k + adjacent``: no dict lookup per story)."""
    key = 2 * k + adjacent
    kept = _CHAIN_PAIRS
    while len(kept) <= key:
        kept.append([])
    hit = kept[key]
    if not hit:
        span = k + 1
        hit = kept[key] = [i * span + j for i in range(span) for j in range(i + 1 if adjacent else i + 2, span)
                           if i or j != k]
    return hit


def add_noise(family: Family, chain: Chain, kind: str, n_facts: int, rng: random.Random,
              allowed: WordMask | None = None) -> list[tuple[str, list[Fact]]] | None:
    """Noise paths of the given kind as ``[(kind, facts)]``, or None if the family has no room.

    Every fact is a single, true relation of the family (stated by an ``allowed`` word when
    given); new people are never on the chain.
    """
    if kind == "none":
        return []
    used = 0
    for p in chain.people:
        used |= 1 << p
    walker = _Walker(family, used, allowed, rng)
    kinds = ("supporting", "irrelevant", "disconnected") if kind == "all" else (kind,)
    out = []
    for kd in kinds:
        facts = walker.path(kd, chain, n_facts)
        if facts is None:
            return None
        out.append((kd, facts))
    return out


def random_path(family: Family, start: int, steps: int, rng: random.Random,
                allowed: WordMask | None = None) -> list[Fact] | None:
    """A walk of ``steps`` single, true relations (stated by ``allowed`` words when given) from
    ``start`` through distinct people, or None when it gets stuck."""
    found = _Walker(family, 0, allowed, rng).walk(start, steps, 1 << start)
    return None if found is None else found[0]
