"""Backward chaining: from a target fact to a simple path of exactly k facts that entails it."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from clutrr.core.family import Family
from clutrr.core.kb import KB, random_bit
from clutrr.core.vocabulary import WordMask


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


def present_targets(family: Family) -> list[tuple[int, int]]:
    """(predicate, gender) word types held by at least one pair with a single relation."""
    hit = family.cache.get("targets")
    if hit is None:
        tails = (family.masks & family.single_mask).any(axis=1)  # [p, y]: y is someone's only p
        hit = [(p, g) for g in (0, 1) for p in np.flatnonzero((tails & (family.gender == g)).any(axis=1)).tolist()]
        hit.sort()
        family.cache["targets"] = hit
    return hit


def target_pairs(family: Family, pred: int, gender: int) -> list[tuple[int, int]]:
    """Every pair (x, z) where z is x's ``pred`` and nothing else, and z has ``gender``."""
    key = ("pairs", pred, gender)
    pairs = family.cache.get(key)
    if pairs is None:  # row-major: x ascending, then y ascending
        xs, ys = np.nonzero(family.masks[pred] & family.single_mask & (family.gender == gender))
        pairs = family.cache[key] = list(zip(xs.tolist(), ys.tolist()))
    return pairs


def in_random_order(groups: tuple, rand) -> Iterator:
    """The items of each group in uniformly random order, group after group (drawn lazily)."""
    for group in groups:
        items = list(group)
        n = len(items)
        while n:
            i = int(rand() * n)
            yield items[i]
            n -= 1
            items[i] = items[n]


_RULE_GROUPS: dict[tuple[int, WordMask | None], tuple[KB, list[tuple]]] = {}


def _rule_groups(kb: KB, allowed: WordMask | None) -> list[tuple]:
    """Per head predicate, its rules in groups tried in turn: with ``allowed``, rules whose
    two facts can both be stated by allowed words come first, then those with one."""
    key = (id(kb), allowed)
    hit = _RULE_GROUPS.get(key)
    if hit is None:  # the entry keeps kb alive, so its id is never reused by another KB
        if allowed is None:
            groups = [(rules,) for rules in kb.by_head]
        else:
            def sayable(pair: tuple[int, int]) -> int:
                return sum(any(allowed[p]) for p in pair)
            groups = [tuple(tuple(r for r in rules if sayable(r) == n) for n in (2, 1, 0)) for rules in kb.by_head]
        hit = _RULE_GROUPS[key] = (kb, groups)
    return hit[1]


def backward_chain(family: Family, kb: KB, k: int, x: int, z: int, rng: random.Random,
                   allowed: WordMask | None = None) -> Chain | None:
    """Expand the fact "z is x's R" exactly k-1 times into a simple path, or return None.

    Each step picks, uniformly at random, a subgoal fact (a, r, b) of the current path among
    those that some rule can expand, a rule ``r1 . r2 -> r`` among those that can be
    grounded, a gender, and a person c not yet on the path with "c is a's r1" and "b is c's
    r2" true in the family. (Subgoals and rules are drawn without replacement until one
    works, which gives these uniform choices without listing every option.)

    With ``allowed``, every fact of the final path must state an allowed relation word:
    facts stating other words are expanded first, rules whose facts can be stated are
    preferred, and the path fails as soon as more unstated facts remain than steps.
    """
    target = family.relation(x, z)
    if target < 0:
        return None
    chain = Chain([x, z], [target], target)
    people, preds = chain.people, chain.preds
    rows, cols, genders, gender_bits = family.rows, family.cols(), family.genders, family.gender_bits
    rule_groups = _rule_groups(kb, allowed)
    rand = rng.random
    used = (1 << x) | (1 << z)

    def banned(i: int) -> bool:
        return not allowed[preds[i]][genders[people[i + 1]]]

    for left in range(k - 1, 0, -1):
        if allowed is None:
            edge_groups: tuple = (range(len(preds)),)
        else:
            bad = [i for i in range(len(preds)) if banned(i)]
            if len(bad) > left:
                return None  # an expansion replaces at most one banned fact
            edge_groups = (bad, [i for i in range(len(preds)) if not banned(i)])
        found = False
        for e in in_random_order(edge_groups, rand):
            a, b, r = people[e], people[e + 1], preds[e]
            for r1, r2 in in_random_order(rule_groups[r], rand):
                cand = rows[r1][a] & cols[r2][b] & ~used
                if not cand:
                    continue
                by_gender = [cand & gb for gb in gender_bits if cand & gb]
                c = random_bit(by_gender[int(rand() * len(by_gender))], rand)
                used |= 1 << c
                people.insert(e + 1, c)
                preds[e:e + 1] = [r1, r2]
                chain.proof.append(((a, r, b), (a, r1, c), (c, r2, b)))
                found = True
                break
            if found:
                break
        if not found:
            return None
    if allowed is not None and any(banned(i) for i in range(k)):
        return None
    return chain
