"""Worlds of the kinship world model, for checking a KB and for asking what it allows.

:func:`random_world` builds adversarial worlds (the family shapes a sampler of tidy trees
never produces); :func:`kb_worlds` mixes them with sampled family trees and evaluates a
KB's definitions on each; :func:`world_facts` records, across those worlds, which gender
combinations each relation takes and which relations one pair of people can hold at once.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import relation_masks
from clutrr.core.kb import KB

WORLDS = 120
SEED = 2024


def random_world(rng: random.Random, rounds: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (parent, spouse, gender) for a random world obeying the kinship world model.

    Founders of several lineages marry across lineages and generations, siblings marry
    siblings, some people stay single or childless: the shapes a sampler of tidy family
    trees never produces.
    """
    gender: list[int] = []
    parents: list[tuple[int, int] | None] = []
    spouse: list[int] = []
    ancestors: list[set[int]] = []

    def add(g: int, pa: tuple[int, int] | None) -> int:
        i = len(gender)
        gender.append(g)
        parents.append(pa)
        spouse.append(-1)
        anc: set[int] = set()
        if pa:
            for p in pa:
                anc |= ancestors[p] | {p}
        ancestors.append(anc)
        return i

    for _ in range(rng.randint(2, 5)):
        add(rng.randint(0, 1), None)
    for _ in range(rounds):
        singles = [i for i in range(len(gender)) if spouse[i] < 0]
        rng.shuffle(singles)
        for i in singles:
            if spouse[i] >= 0 or rng.random() < 0.3:
                continue
            options = [
                j for j in singles
                if j != i and spouse[j] < 0 and gender[j] != gender[i]
                and not (ancestors[i] | {i}) & (ancestors[j] | {j})
            ]
            if rng.random() < 0.25 or not options:
                j = add(1 - gender[i], None)
            else:
                j = rng.choice(options)
            spouse[i], spouse[j] = j, i
        couples = {(min(i, spouse[i]), max(i, spouse[i])) for i in range(len(gender)) if spouse[i] >= 0}
        for couple in sorted(couples):
            if rng.random() < 0.6:
                for _ in range(rng.randint(0, 3)):
                    add(rng.randint(0, 1), couple)
        if rng.random() < 0.5:
            add(rng.randint(0, 1), None)
    n = len(gender)
    P = np.zeros((n, n), dtype=bool)
    S = np.zeros((n, n), dtype=bool)
    for i, pa in enumerate(parents):
        if pa:
            P[i, pa[0]] = P[i, pa[1]] = True
        if spouse[i] >= 0:
            S[i, spouse[i]] = True
    return P, S, np.array(gender)


def kb_worlds(kb: KB, n: int = WORLDS, seed: int = SEED) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``(masks, gender)`` of ``n`` worlds under ``kb``'s definitions: every third a sampled
    family tree, the others adversarial random worlds. ``masks[p, x, y]``: y is x's p."""
    rng = random.Random(seed)
    for i in range(n):
        if i % 3 == 0:
            fam = sample_family(FamilyConfig(generations=4, p_marry=0.9), kb, rng)
            yield fam.masks, fam.gender
        else:
            parent, spouse, gender = random_world(rng)
            yield relation_masks(kb, parent, spouse), gender


@dataclass(frozen=True)
class WorldFacts:
    """What a KB's world model allows, as observed across many worlds.

    ``genders`` holds each ``(predicate, head gender, tail gender)`` seen: y is x's
    predicate with x of the head gender and y of the tail gender. ``together[p, q]`` is
    true when some pair of people holds both p and q (the diagonal: p occurs at all).
    """

    genders: frozenset[tuple[int, int, int]]
    together: np.ndarray

    def possible(self, pred: int, head_gender: int, tail_gender: int) -> bool:
        """Whether "tail is head's pred" occurs with these genders."""
        return (pred, head_gender, tail_gender) in self.genders

    def excludes(self, pred: int, other: int) -> bool:
        """Whether no pair of people is seen holding both ``pred`` and ``other``."""
        return not self.together[pred, other]


_FACTS: dict[tuple[str, str, int, int], WorldFacts] = {}


def world_facts(kb: KB, n: int = WORLDS, seed: int = SEED) -> WorldFacts:
    """The :class:`WorldFacts` of ``kb`` over ``n`` worlds (computed once per KB file)."""
    key = (kb.name, kb.path, n, seed)
    if key not in _FACTS:
        m = len(kb.predicates)
        genders: set[tuple[int, int, int]] = set()
        together = np.zeros((m, m), dtype=bool)
        for masks, gender in kb_worlds(kb, n, seed):
            flat = masks.reshape(m, -1).astype(np.int32)
            together |= (flat @ flat.T) > 0
            for p in range(m):
                xs, ys = np.nonzero(masks[p])
                genders.update((p, int(a), int(b)) for a, b in set(zip(gender[xs].tolist(), gender[ys].tolist())))
        _FACTS[key] = WorldFacts(frozenset(genders), together)
    return _FACTS[key]
