"""Backward chaining: from a target fact to a simple path of exactly k facts that entails it."""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, Final


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
            start = len(xs)
            later = 0  # the people x with a woman among their pairs (listed after the men's pairs)
            for x in range(n):
                found = rows[x] & single[x]
                if found:
                    if found & women:
                        later |= 1 << x
                    _add_pairs(xs, ys, x, found & men)
            if len(xs) > start:
                spans[p, 0] = (start, len(xs) - start)
            start = len(xs)
            while later:
                low = later & -later
                x = low.bit_length() - 1
                _add_pairs(xs, ys, x, rows[x] & single[x] & women)
                later ^= low
            if len(xs) > start:
                spans[p, 1] = (start, len(xs) - start)
        self.spans, self.xs, self.ys = spans, xs, ys

    def pairs(self, word: tuple[int, int]) -> list[tuple[int, int]]:
        """Every pair of the word."""
        start, count = self.spans.get(word, (0, 0))
        return list(zip(self.xs[start:start + count], self.ys[start:start + count]))


def _add_pairs(xs: list[int], ys: list[int], x: int, found: int) -> None:
    """Append the pairs (x, y) for each person y of ``found`` (a bitset), y ascending."""
    while found:
        low = found & -found
        xs.append(x)
        ys.append(low.bit_length() - 1)
        found ^= low


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


class _RulePlan:
    """A KB's rules by head predicate, in the groups the chainer tries in turn (for one
    ``allowed``): rule i is ``first[i] . second[i] -> r``; ``spans[r]`` lists each non-empty
    group of head r as ``start, count`` (its rules are i in ``range(start, start + count)``);
    ``total[r]`` counts the rules of all of them; ``widest`` is the largest count.

    A group's rules not yet drawn are held in one int of ``width``-bit fields (field f holds the
    rule offset at place f, as a list would); ``ident[m]`` holds offsets 0 .. m-1 in order."""

    def __init__(self, kb: KB, allowed: WordMask | None) -> None:
        self.kb, self.allowed = kb, allowed
        self.first: list[int] = []
        self.second: list[int] = []
        self.spans: list[list[int]] = []
        self.total: list[int] = []
        self.widest = 0
        for rules in kb.by_head:
            spans: list[int] = []
            for group in _grouped(rules, allowed):
                if group:
                    spans += [len(self.first), len(group)]
                    self.first += [r1 for r1, _ in group]
                    self.second += [r2 for _, r2 in group]
                    self.widest = max(self.widest, len(group))
            self.spans.append(spans)
            self.total.append(sum(spans[1::2]))
        self.width = max(1, (self.widest - 1).bit_length())
        self.field = (1 << self.width) - 1
        self.ident = [sum(i << (self.width * i) for i in range(m)) for m in range(self.widest + 1)]


def _grouped(rules: tuple[tuple[int, int], ...], allowed: WordMask | None) -> list[list[tuple[int, int]]]:
    """One head's rules in the groups tried in turn: all of them; or with ``allowed``, those
    whose two facts can both be stated by allowed words, then those with one, then none."""
    if allowed is None:
        return [list(rules)]
    said = [sum(any(allowed[p]) for p in pair) for pair in rules]
    return [[pair for pair, n in zip(rules, said) if n == want] for want in (2, 1, 0)]


_RULE_PLANS: Final[dict[tuple[int, WordMask | None], tuple[KB, _RulePlan]]] = {}
_LAST_PLAN: Final[list[_RulePlan | None]] = [None]


def _rule_plan(kb: KB, allowed: WordMask | None) -> _RulePlan:
    """The :class:`_RulePlan` of (kb, allowed), made once (the last one is checked first, by identity)."""
    last = _LAST_PLAN[0]
    if last is not None and last.kb is kb and last.allowed is allowed:
        return last
    key = (id(kb), allowed)
    hit = _RULE_PLANS.get(key)
    if hit is None:  # the entry keeps kb alive, so its id is never reused by another KB
        hit = _RULE_PLANS[key] = (kb, _RulePlan(kb, allowed))
    _LAST_PLAN[0] = hit[1]
    return hit[1]


def _expansion(edges: list[int], count: int, plan: _RulePlan, people: list[int], preds: list[int], dead: int,
               rows: list[list[int]], cols: list[list[int]], free: int,
               rand: Callable[[], float]) -> tuple[int, int, int, int, int]:
    """The first (fact, rule) that can be grounded, facts (the first ``count`` of ``edges``) and
    then each fact's rules drawn in uniformly random order, lazily (one ``rand()`` per item
    drawn; the drawn item's place takes the last one's): (fact index, r1, r2, the people who
    could be c, ``dead``), or fact index -1 when none can.

    A fact found dead (bit e of ``dead``: none of its rules grounded) stays so while the path grows
    (``free`` only shrinks): drawn again, it makes the ``rand()`` calls of its rules and nothing else.
    A group's rules not drawn yet are the fields of one int (:class:`_RulePlan`), not a list."""
    first, second, spans, width, field = plan.first, plan.second, plan.spans, plan.width, plan.field
    while count:
        j = int(rand() * count)
        count -= 1
        e = edges[j]
        edges[j] = edges[count]
        if dead >> e & 1:
            for rule in range(plan.total[preds[e]]):
                rand()
            continue
        a, b = people[e], people[e + 1]
        groups = spans[preds[e]]
        for g in range(0, len(groups), 2):
            start, m = groups[g], groups[g + 1]
            order = plan.ident[m]
            while m:
                j = int(rand() * m)
                m -= 1
                shift = j * width
                pick = order >> shift & field
                order ^= (pick ^ (order >> (m * width) & field)) << shift  # place j takes the last place's rule
                i = start + pick
                r1, r2 = first[i], second[i]
                cand = rows[r1][a] & cols[r2][b] & free
                if cand:
                    return e, r1, r2, cand, dead
        dead |= 1 << e
    return -1, 0, 0, 0, dead


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
    people, preds = [x, z], [target]
    dead = 0  # bit i: none of fact i's rules can be grounded any more
    steps: list[int] = []  # per step, the index and the predicate of the fact it expanded (for the proof)
    rows, cols = family.rows, family.cols()
    genders = family.genders
    plan = _rule_plan(kb, allowed)
    edges = [0] * k
    rand = rng.random
    used = (1 << x) | (1 << z)
    men, women = family.gender_bits
    for left in range(k - 1, 0, -1):
        n = len(preds)
        if allowed is None:
            for i in range(n):
                edges[i] = i
            found = _expansion(edges, n, plan, people, preds, dead, rows, cols, ~used, rand)
        else:  # facts stating other words first
            count = _fill(edges, allowed, preds, people, genders, False)
            if count > left:
                return None  # an expansion replaces at most one banned fact
            found = _expansion(edges, count, plan, people, preds, dead, rows, cols, ~used, rand)
            if found[0] < 0:
                count = _fill(edges, allowed, preds, people, genders, True)
                found = _expansion(edges, count, plan, people, preds, found[4], rows, cols, ~used, rand)
        e, r1, r2, cand, dead = found
        if e < 0:
            return None
        # a gender among those c can have, then c among those of it
        male, female = cand & men, cand & women
        if int(rand() * ((male != 0) + (female != 0))):
            male = 0
        c = random_bit(male if male else female, rand)
        used |= 1 << c
        steps.append(e)
        steps.append(preds[e])
        people.insert(e + 1, c)
        preds[e] = r1
        preds.insert(e + 1, r2)
        high = dead >> (e + 1)  # the new fact e + 1 is not dead; those after it move up one
        dead ^= high << (e + 1) ^ high << (e + 2)
    if allowed is not None and not all(_stated(allowed, preds, people, genders, i) for i in range(k)):
        return None
    return Chain(people, preds, target, _proof(people, preds, steps))


def _fill(edges: list[int], allowed: WordMask, preds: list[int], people: list[int], genders: list[int],
          stated: bool) -> int:
    """Put the indices of the path's facts that have (``stated``) or lack an allowed word first
    in ``edges``, ascending; return how many."""
    count = 0
    for i in range(len(preds)):
        if _stated(allowed, preds, people, genders, i) == stated:
            edges[count] = i
            count += 1
    return count


def _proof(people: list[int], preds: list[int], steps: list[int]
           ) -> list[tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]]:
    """A finished chain's :attr:`Chain.proof`, from each step's fact index e and predicate r:
    undone from the last step, the person c it put at e + 1 leaves, and the two facts
    (a, r1, c), (c, r2, b) join back into (a, r, b)."""
    people, preds = list(people), list(preds)
    proof = []
    for s in range(len(steps) - 2, -1, -2):
        e, r = steps[s], steps[s + 1]
        c = people.pop(e + 1)
        a, b = people[e], people[e + 1]
        r1, r2 = preds[e], preds.pop(e + 1)
        preds[e] = r
        proof.append(((a, r, b), (a, r1, c), (c, r2, b)))
    proof.reverse()
    return proof


def _stated(allowed: WordMask, preds: list[int], people: list[int], genders: list[int], i: int) -> bool:
    """Whether fact i of the path (people[i + 1] is people[i]'s preds[i]) has an allowed word."""
    return allowed[preds[i]][genders[people[i + 1]]]
