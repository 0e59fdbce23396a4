"""Neutral relations, witnessed: what a story neither entails nor refutes.

A relation p between two people of a story is *neutral* when some world of the world model
holds every fact of the story and p between them, and another such world holds the facts
without p. Both worlds are found, not assumed: the story's people are mapped, one to one and
gender to gender, onto people of the worlds :func:`clutrr.diagnostics.worlds.kb_worlds` builds
(sampled family trees and adversarial random worlds) so that every fact of the story holds
there (an *embedding*). Each embedding is a world in which the story is true, so a relation
held in one embedding and absent in another is neither entailed nor refuted; one that the KB
derives is left out (it is entailed).

The search follows the story's facts from person to person, so each step only tries the few
people a fact allows; it stops after :data:`MAX_EMBEDDINGS` embeddings (at most
:data:`PER_WORLD` per world, so the witnesses come from many worlds). Stories with the same
facts and genders share one search.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterator, Sequence

import numpy as np

from clutrr.core.kb import KB
from clutrr.diagnostics.worlds import kb_worlds

MAX_EMBEDDINGS = 256
PER_WORLD = 8
CACHE_SIZE = 50_000  # searches remembered, by facts and genders (cleared when full)

Fact = tuple[int, int, int]  # (a, predicate, b): b is a's predicate


class WorldIndex:
    """The worlds of a KB with, per world, who holds each relation to whom."""

    def __init__(self, kb: KB) -> None:
        self.worlds = []
        for masks, gender in kb_worlds(kb):
            m, n, _ = masks.shape
            tails = [[np.flatnonzero(masks[p, x]).tolist() for x in range(n)] for p in range(m)]
            heads = [[np.flatnonzero(masks[p, :, y]).tolist() for y in range(n)] for p in range(m)]
            self.worlds.append((masks, gender.tolist(), tails, heads))
        self._cache: dict[tuple, tuple[dict[tuple[int, int], Counter], int]] = {}

    def relations(self, facts: Sequence[Fact], genders: Sequence[int],
                  pairs: Sequence[tuple[int, int]]) -> tuple[dict[tuple[int, int], Counter], int]:
        """For each pair (x, y), how many found embeddings hold each relation "y is x's p", and
        the number of embeddings found."""
        key = (tuple(facts), tuple(genders), tuple(pairs))
        if key not in self._cache:
            if len(self._cache) >= CACHE_SIZE:
                self._cache.clear()
            held = {pair: Counter() for pair in pairs}
            total = 0
            for w, phi in self._embeddings(facts, genders):
                masks = self.worlds[w][0]
                total += 1
                for x, y in pairs:
                    held[(x, y)].update(np.flatnonzero(masks[:, phi[x], phi[y]]).tolist())
            self._cache[key] = (held, total)
        return self._cache[key]

    def _embeddings(self, facts: Sequence[Fact], genders: Sequence[int]) -> Iterator[tuple[int, list[int]]]:
        people = len(genders)
        links: list[list[tuple[int, int, bool]]] = [[] for _ in range(people)]
        for a, p, b in facts:
            links[a].append((p, b, True))  # b is a's p
            links[b].append((p, a, False))
        order: list[int] = []  # people in breadth-first order along the facts
        for start in range(people):
            if start in order:
                continue
            order.append(start)
            i = len(order) - 1
            while i < len(order):
                for _, y, _ in links[order[i]]:
                    if y not in order:
                        order.append(y)
                i += 1
        found = 0
        for w, (masks, gender, tails, heads) in enumerate(self.worlds):
            phi = [-1] * people
            used: set[int] = set()
            in_world = 0
            for mapping in _extend(0, order, links, phi, used, masks, gender, tails, heads, genders):
                yield w, mapping
                found += 1
                in_world += 1
                if found >= MAX_EMBEDDINGS:
                    return
                if in_world >= PER_WORLD:
                    break


def _extend(k: int, order: list[int], links, phi: list[int], used: set[int], masks, gender, tails, heads,
            genders: Sequence[int]) -> Iterator[list[int]]:
    """Every way to map ``order[k:]`` onto the world, given the people mapped so far."""
    if k == len(order):
        yield list(phi)
        return
    i = order[k]
    candidates = None
    for p, y, forward in links[i]:
        if phi[y] >= 0:  # a mapped neighbour narrows the choice to the people the fact allows
            candidates = heads[p][phi[y]] if forward else tails[p][phi[y]]
            break
    for c in range(len(gender)) if candidates is None else candidates:
        if gender[c] != genders[i] or c in used:
            continue
        if any(phi[y] >= 0 and not (masks[p, c, phi[y]] if forward else masks[p, phi[y], c])
               for p, y, forward in links[i]):
            continue
        phi[i] = c
        used.add(c)
        yield from _extend(k + 1, order, links, phi, used, masks, gender, tails, heads, genders)
        phi[i] = -1
        used.discard(c)


_INDEX: dict[tuple[str, str], WorldIndex] = {}


def world_index(kb: KB) -> WorldIndex:
    """The :class:`WorldIndex` of ``kb`` (built once per KB file)."""
    key = (kb.name, kb.path)
    if key not in _INDEX:
        _INDEX[key] = WorldIndex(kb)
    return _INDEX[key]


def neutral_relations(kb: KB, facts: Sequence[Fact], genders: Sequence[int], pairs: Sequence[tuple[int, int]],
                      derived: dict[tuple[int, int], set[int]]) -> dict[tuple[int, int], list[int]]:
    """For each pair (x, y), the predicates p (lowest first) such that "y is x's p" is witnessed
    neutral: held in one embedding of the story, absent in another, and not derived by the KB."""
    held, total = world_index(kb).relations(facts, genders, pairs)
    return {pair: sorted(p for p, n in held[pair].items() if n < total and p not in derived.get(pair, ()))
            for pair in pairs}
