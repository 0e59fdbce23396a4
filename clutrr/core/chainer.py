"""Backward chaining: from a target fact to a simple path of exactly k facts that entails it."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Final, cast


from clutrr.core.family import Family
from clutrr.core.draws import random_bit
from clutrr.core.kb import KB
from clutrr.core.native import mypyc_attr
from clutrr.core.vocabulary import WordMask


@mypyc_attr(serializable=True)  # pickled with its example
@dataclass(init=False)  # a compiled __init__ (the one dataclass writes runs as Python)
class Chain:
    """A path ``people[0] -> ... -> people[k]`` whose facts are "people[i+1] is people[i]'s preds[i]".

    ``proof`` lists, in expansion order, each resolved subgoal ``(a, r, b)`` with the two
    facts ``(a, r1, c)`` and ``(c, r2, b)`` of the rule ``r1 . r2 -> r`` that replaced it.
    People are family node ids.
    """

    people: list[int]
    preds: list[int]
    target: int
    proof: list[tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]]

    def __init__(self, people: list[int], preds: list[int], target: int,
                 proof: list[tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] | None = None
                 ) -> None:
        self.people, self.preds, self.target = people, preds, target
        self.proof = [] if proof is None else proof

    @property
    def k(self) -> int:
        """Number of facts."""
        return len(self.preds)

    def facts(self) -> list[tuple[int, int, int]]:
        """The chain's facts as (head, predicate, tail)."""
        return [(self.people[i], p, self.people[i + 1]) for i, p in enumerate(self.preds)]


class WordPairs:
    """A family's pairs (x, y) where y is x's predicate p and nothing else, grouped by the
    word (p, gender of y): the pairs of a word are ``(xs[i], ys[i])`` for i in
    ``range(start, start + count)`` with ``(start, count) = spans[word]``, row-major
    (x ascending, then y ascending)."""

    __slots__ = ("spans", "xs", "ys")

    def __init__(self, family: Family) -> None:
        n = family.size
        single, (men, women) = family.single, family.gender_bits
        spans: dict[tuple[int, int], tuple[int, int]] = {}
        xs: list[int] = []
        ys: list[int] = []
        for p, rows in enumerate(family.rows):
            for gender, sex in ((0, men), (1, women)):
                start = len(xs)
                for x in range(n):
                    found = rows[x] & single[x] & sex
                    while found:
                        low = found & -found
                        xs.append(x)
                        ys.append(low.bit_length() - 1)
                        found ^= low
                if len(xs) > start:
                    spans[p, gender] = (start, len(xs) - start)
        self.spans, self.xs, self.ys = spans, xs, ys

    def pairs(self, word: tuple[int, int]) -> list[tuple[int, int]]:
        """Every pair of the word."""
        start, count = self.spans.get(word, (0, 0))
        return list(zip(self.xs[start:start + count], self.ys[start:start + count]))


def word_pairs(family: Family) -> WordPairs:
    """The family's :class:`WordPairs`, found for every word in one pass, once per family."""
    hit = family.cache.get("pairs")
    if hit is None:
        hit = family.cache["pairs"] = WordPairs(family)
    return hit


def present_targets(family: Family) -> list[tuple[int, int]]:
    """(predicate, gender) word types held by at least one pair with a single relation."""
    hit = family.cache.get("targets")
    if hit is None:
        hit = family.cache["targets"] = sorted(word_pairs(family).spans)
    return hit


def target_pairs(family: Family, pred: int, gender: int) -> list[tuple[int, int]]:
    """Every pair (x, z) where z is x's ``pred`` and nothing else, and z has ``gender``."""
    return word_pairs(family).pairs((pred, gender))


Rules = tuple[int, ...]  # rules r1 . r2 -> r of one head r, each as r1 << _RULE_SHIFT | r2
_RULE_SHIFT: Final = 16
_RULE_GROUPS: dict[tuple[int, WordMask | None], tuple[KB, list[tuple[Rules, ...]]]] = {}


def _rule_groups(kb: KB, allowed: WordMask | None) -> list[tuple[Rules, ...]]:
    """Per head predicate, its rules in groups tried in turn: with ``allowed``, rules whose
    two facts can both be stated by allowed words come first, then those with one."""
    key = (id(kb), allowed)
    hit = _RULE_GROUPS.get(key)
    if hit is None:  # the entry keeps kb alive, so its id is never reused by another KB
        groups: list[tuple[Rules, ...]]
        if allowed is None:
            groups = [(tuple(r1 << _RULE_SHIFT | r2 for r1, r2 in rules),) for rules in kb.by_head]
        else:
            def sayable(pair: tuple[int, int]) -> int:
                return sum(any(allowed[p]) for p in pair)
            groups = [tuple(tuple(r1 << _RULE_SHIFT | r2 for r1, r2 in rules if sayable((r1, r2)) == n)
                            for n in (2, 1, 0)) for rules in kb.by_head]
        hit = _RULE_GROUPS[key] = (kb, groups)
    return hit[1]


def _expansion(edge_groups: list[list[int]], rule_groups: list[tuple[Rules, ...]], people: list[int],
               preds: list[int], rows: list[list[int]], cols: list[list[int]], used: int,
               rand: Callable[[], float]) -> tuple[int, int, int, int] | None:
    """The first (fact, rule) that can be grounded, facts and then each fact's rules drawn in
    uniformly random order, lazily (one ``rand()`` per item drawn): (fact index, r1, r2, the
    people who could be c)."""
    for items in edge_groups:  # shuffled in place
        n = len(items)
        while n:
            i = int(rand() * n)
            e = items[i]
            n -= 1
            items[i] = items[n]
            a, b = people[e], people[e + 1]
            for group_rules in rule_groups[preds[e]]:
                rules: list[object] = list(group_rules)  # objects: moving one is not boxing it again
                m = len(rules)
                while m:
                    j = int(rand() * m)
                    rule = cast(int, rules[j])
                    r1, r2 = rule >> _RULE_SHIFT, rule & ((1 << _RULE_SHIFT) - 1)
                    m -= 1
                    rules[j] = rules[m]
                    cand = rows[r1][a] & cols[r2][b] & ~used
                    if cand:
                        return e, r1, r2, cand
    return None


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
    people, preds, proof = chain.people, chain.preds, chain.proof
    rows, cols, gender_bits = family.rows, family.cols(), family.gender_bits
    genders = family.genders
    rule_groups = _rule_groups(kb, allowed)
    rand = rng.random
    used = (1 << x) | (1 << z)
    men, women = gender_bits
    for left in range(k - 1, 0, -1):
        if allowed is None:
            edge_groups = [[i for i in range(len(preds))]]
        else:
            bad = [i for i in range(len(preds)) if not _stated(allowed, preds, people, genders, i)]
            if len(bad) > left:
                return None  # an expansion replaces at most one banned fact
            edge_groups = [bad, [i for i in range(len(preds)) if _stated(allowed, preds, people, genders, i)]]
        found = _expansion(edge_groups, rule_groups, people, preds, rows, cols, used, rand)
        if found is None:
            return None
        e, r1, r2, cand = found
        # a gender among those c can have, then c among those of it
        male, female = cand & men, cand & women
        if int(rand() * ((male != 0) + (female != 0))):
            male = 0
        c = random_bit(male if male else female, rand)
        used |= 1 << c
        a, b = people[e], people[e + 1]
        proof.append(((a, preds[e], b), (a, r1, c), (c, r2, b)))
        people.insert(e + 1, c)
        preds[e] = r1
        preds.insert(e + 1, r2)
    if allowed is not None and not all(_stated(allowed, preds, people, genders, i) for i in range(k)):
        return None
    return chain


def _stated(allowed: WordMask, preds: list[int], people: list[int], genders: list[int], i: int) -> bool:
    """Whether fact i of the path (people[i + 1] is people[i]'s preds[i]) has an allowed word."""
    return allowed[preds[i]][genders[people[i + 1]]]
