"""Backward chaining: from a target fact to a simple path of exactly k facts that entails it."""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import numpy as np

from clutrr.core.family import Family
from clutrr.core.kb import KB, bits
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


def present_targets(family: Family, kb: KB) -> list[tuple[int, int]]:
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
    if pairs is None:
        gb = family.gender_bits[gender]
        pairs = family.cache[key] = []
        for x, (r, s) in enumerate(zip(family.rows[pred], family.single)):
            m = r & s & gb
            while m:
                low = m & -m
                pairs.append((x, low.bit_length() - 1))
                m ^= low
    return pairs


def backward_chain(family: Family, kb: KB, k: int, x: int, z: int, rng: random.Random,
                   allowed: WordMask | None = None) -> Chain | None:
    """Expand the fact "z is x's R" exactly k-1 times into a simple path, or return None.

    Each step picks, uniformly at random, a subgoal fact (a, r, b) of the current path among
    those that some rule can expand, a rule ``r1 . r2 -> r`` among those that can be
    grounded, a gender, and a person c not yet on the path with "c is a's r1" and "b is c's
    r2" true in the family. (Subgoals and rules are drawn without replacement until one
    works, which gives these uniform choices without listing every option.) With
    ``allowed``, every fact of the final path must state an allowed relation word: facts
    stating other words are expanded first, and the path fails as soon as more of them
    remain than steps.
    """
    target = family.relation(x, z)
    if target < 0:
        return None
    chain = Chain([x, z], [target], target)
    people, preds = chain.people, chain.preds
    rows, genders, gender_bits = family.rows, family.genders, family.gender_bits
    by_head = kb.by_head
    rand = rng.random
    used = (1 << x) | (1 << z)

    def banned(i: int) -> bool:
        return not allowed[preds[i]][genders[people[i + 1]]]

    for left in range(k - 1, 0, -1):
        if allowed is None:
            groups = [list(range(len(preds)))]
        else:
            bad = [i for i in range(len(preds)) if banned(i)]
            if len(bad) > left:
                return None  # an expansion replaces at most one banned fact
            groups = [bad, [i for i in range(len(preds)) if not banned(i)]]
        found = False
        for edges in groups:
            n_edges = len(edges)
            while n_edges and not found:
                i = int(rand() * n_edges)
                e = edges[i]
                n_edges -= 1
                edges[i] = edges[n_edges]
                a, b, r = people[e], people[e + 1], preds[e]
                rules = list(by_head[r])
                n_rules = len(rules)
                while n_rules:
                    j = int(rand() * n_rules)
                    r1, r2 = rules[j]
                    n_rules -= 1
                    rules[j] = rules[n_rules]
                    cand = rows[r1][a] & family.col_bits(r2, b) & ~used
                    if not cand:
                        continue
                    by_gender = [cand & gb for gb in gender_bits if cand & gb]
                    options = bits(by_gender[int(rand() * len(by_gender))])
                    c = options[int(rand() * len(options))]
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
