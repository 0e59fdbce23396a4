"""Backward chaining: from a target fact to a simple path of exactly k facts that entails it."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from clutrr.core.family import Family
from clutrr.core.kb import KB, bits


@dataclass
class Chain:
    """A path ``people[0] -> ... -> people[k]`` whose facts are "people[i+1] is people[i]'s preds[i]".

    ``proof`` lists, in expansion order, each resolved subgoal ``(a, r, b)`` with the two
    facts ``(a, r1, c)`` and ``(c, r2, b)`` of the rule ``r1 . r2 -> r`` that replaced it.
    People are family node ids.
    """

    people: list[int]
    preds: list[int]
    target: int
    proof: list[tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] = field(default_factory=list)

    @property
    def k(self) -> int:
        """Number of facts."""
        return len(self.preds)

    def facts(self) -> list[tuple[int, int, int]]:
        """The chain's facts as (head, predicate, tail)."""
        return [(self.people[i], p, self.people[i + 1]) for i, p in enumerate(self.preds)]


def present_targets(family: Family, kb: KB) -> list[tuple[int, int]]:
    """(predicate, gender) word types held by at least one pair with a single relation."""
    if family.targets is not None:
        return family.targets
    out = []
    for p in range(len(kb.predicates)):
        m = family.masks[p] & family.single
        if not m.any():
            continue
        tails = m.any(axis=0)
        for g in (0, 1):
            if (tails & (family.gender == g)).any():
                out.append((p, g))
    family.targets = out
    return out


def pick_pair(family: Family, pred: int, gender: int, rng: random.Random) -> tuple[int, int] | None:
    """A random pair (x, z) where z is x's ``pred`` and nothing else, and z has ``gender``."""
    m = family.masks[pred] & family.single & (family.gender == gender)[None, :]
    xs, zs = np.nonzero(m)
    if len(xs) == 0:
        return None
    i = rng.randrange(len(xs))
    return int(xs[i]), int(zs[i])


def backward_chain(family: Family, kb: KB, k: int, x: int, z: int, rng: random.Random) -> Chain | None:
    """Expand the fact "z is x's R" exactly k-1 times into a simple path, or return None.

    Each step picks a subgoal fact (a, r, b) of the current path at random, a rule
    ``r1 . r2 -> r`` at random among those that can be grounded, a gender and then a person
    c not yet on the path with "c is a's r1" and "b is c's r2" true in the family.
    """
    target = family.relation(x, z)
    if target < 0:
        return None
    chain = Chain([x, z], [target], target)
    used = (1 << x) | (1 << z)
    for _ in range(k - 1):
        edges = list(range(len(chain.preds)))
        rng.shuffle(edges)
        done = False
        for e in edges:
            a, b, r = chain.people[e], chain.people[e + 1], chain.preds[e]
            rules = kb.rules_for(r)
            rng.shuffle(rules)
            for r1, r2 in rules:
                cand = family.row_bits(r1, a) & family.col_bits(r2, b) & ~used
                if not cand:
                    continue
                by_gender = [cand & gb for gb in family.gender_bits if cand & gb]
                options = bits(rng.choice(by_gender))
                c = options[rng.randrange(len(options))]
                used |= 1 << c
                chain.people.insert(e + 1, c)
                chain.preds[e:e + 1] = [r1, r2]
                chain.proof.append(((a, r, b), (a, r1, c), (c, r2, b)))
                done = True
                break
            if done:
                break
        if not done:
            return None
    return chain
