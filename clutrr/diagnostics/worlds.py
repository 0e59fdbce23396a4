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
from clutrr.core.worlds import random_world

WORLDS = 120
SEED = 2024


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
            yield relation_masks(kb, parent, spouse, gender), gender


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
