"""Whether the true relations among some people of a family are closed under a KB, by bitsets.

The same test as :func:`clutrr.core.entailment.relations_closed` on the people's sub-array of
``family.masks``, worked out from the family's bit rows: its cost grows with the people and
their relatives, not with the cube of their number, so stories of hundreds of people (long
chains, many distractors) are checked in milliseconds.
"""
from __future__ import annotations

from typing import Final

from clutrr.core.converse import implied_rules
from clutrr.core.family import Family
from clutrr.core.genealogy import definition_steps
from clutrr.core.kb import KB


def closed_among(kb: KB, family: Family, people: list[int]) -> bool:
    """For every rule ``r1 . r2 -> r`` and distinct i, j, l among ``people``: "j is i's r1" and
    "l is j's r2" give "l is i's r"; and every fact among them has its inverse fact. (Rules the
    KB's definitions imply, :func:`~clutrr.core.converse.implied_rules`, hold in a family whose
    relations are those definitions': there they are not checked again.)"""
    return rows_closed(kb, family.rows, family.cols(), people, family.defined)


def rows_closed(kb: KB, rows: list[list[int]], cols: list[list[int]], people: list[int],
                defined: bool = False) -> bool:
    """:func:`closed_among` over relations given as bit rows (``rows[p][x]``: bit y when y is x's
    p) and their columns (``cols[p][y]``: bit x when y is x's p); ``defined`` when they are the
    KB's definitions' (then the rules those imply are left out)."""
    among = 0
    for p in people:
        among |= 1 << p
    checked, unimplied, inverses = _rules(kb)
    by_first = unimplied if defined else checked
    for i in people:
        others = among & ~(1 << i)
        for r1 in range(len(by_first)):
            middle = rows[r1][i] & among  # the people j with "j is i's r1"
            if not middle:
                continue
            then = by_first[r1]
            for t in range(0, len(then), 2):  # each rule r1 . r2 -> r
                rows2 = rows[then[t]]
                reach, left = 0, middle
                while left:
                    low = left & -left
                    left ^= low
                    reach |= rows2[low.bit_length() - 1]
                if reach & others & ~rows[then[t + 1]][i]:
                    return False
    for p, q in inverses:
        rows_p, cols_q = rows[p], cols[q]
        if cols_q is rows_p:  # q's columns are p's rows (Family.cols shares converses' lists)
            continue
        for i in people:
            if rows_p[i] & among & ~cols_q[i]:  # j is i's p, but i is not j's q
                return False
    return True


_RULES: Final[dict[int, tuple[KB, list[list[int]], list[list[int]], list[tuple[int, int]]]]] = {}


def _rules(kb: KB) -> tuple[list[list[int]], list[list[int]], list[tuple[int, int]]]:
    """The KB's rules by first predicate (``by_first[r1]``: ``r2, r`` of each rule ``r1 . r2 -> r``,
    flat, in the order of ``sorted(kb.rules)``), the same without the rules its definitions imply
    (all of them when a predicate has no definition), and its predicates with their inverses
    ``(p, q)``, kept per KB."""
    hit = _RULES.get(id(kb))
    if hit is None:  # the entry keeps kb alive, so its id is never reused by another KB
        rules = [(r1, r2, r) for (r1, r2), r in sorted(kb.rules.items())]
        implied = [False] * len(rules)
        if all(p.definition is not None for p in kb.predicates):
            implied = implied_rules(*definition_steps(kb), rules)
        by_first: list[list[int]] = [[] for _ in kb.predicates]
        unimplied: list[list[int]] = [[] for _ in kb.predicates]
        for (r1, r2, r), known in zip(rules, implied):
            by_first[r1] += [r2, r]
            if not known:
                unimplied[r1] += [r2, r]
        inverses = [(p.index, p.inverse) for p in kb.predicates if p.inverse >= 0]
        hit = _RULES[id(kb)] = (kb, by_first, unimplied, inverses)
    return hit[1], hit[2], hit[3]
