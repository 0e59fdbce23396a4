"""Adversarial worlds of the kinship world model (see ``kb_rules/kinship.yaml``): the family
shapes a sampler of tidy trees never produces, for proving composition rules sound."""
from __future__ import annotations

import random

import numpy as np


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
