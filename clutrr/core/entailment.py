"""What a set of facts entails under a KB.

Sets of predicates are bitmasks. A chain of facts entails, for its two ends, the union over
every bracketing of its composition (a CYK table); a story (any graph of facts) entails the
closure of its facts under the composition, inverse and symmetry rules.

``relations_closed`` bounds all of these from above without deriving anything: when the
true relations among a story's people are closed under the rules, the closure of any true
facts among them (the least closed set containing them) lies inside those relations.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from clutrr.core.closed_among import rows_closed
from clutrr.core.genealogy import bit_rows
from clutrr.core.kb import KB

if TYPE_CHECKING:
    import numpy as np


def chain_entailment(kb: KB, preds: list[int]) -> int:
    """Predicates derivable between the ends of a chain, over all bracketings (bitmask).

    ``preds[i]`` is the relation of person i+1 to person i. A result with exactly one bit
    set means every bracketing that derives anything derives the same relation.
    """
    n = len(preds)
    shift, cache, compose = kb.shift, kb.set_cache, kb.compose_sets
    # span[i][j]: what people i and j entail, for i < j
    span = [[0] * (n + 1) for _ in range(n + 1)]
    for i, p in enumerate(preds):
        span[i][i + 1] = 1 << p
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            row = span[i]
            acc = 0
            for m in range(i + 1, j):
                left, right = row[m], span[m][j]
                if left and right:
                    r = cache.get(left << shift | right)
                    acc |= compose(left, right) if r is None else r
            row[j] = acc
    return span[0][n]


def _closure(kb: KB, facts: list[tuple[int, int, int]], m: int) -> list[int]:
    """The closure as a flat ``m * m`` list of predicate bitmasks over people ``0..m-1``.

    Semi-naive: each newly derived (a, new, b) is joined with the known facts at b (out of
    it) and at a (into it), and its inverse is added; rules need three distinct people.
    """
    shift, cache, compose, inverse = kb.shift, kb.set_cache, kb.compose_sets, kb.inverse_sets
    known = [0] * (m * m)
    out_adj = [0] * m  # out_adj[a]: people b with known (a, b)
    in_adj = [0] * m
    work: list[tuple[int, int, int]] = []
    for a, p, b in facts:
        if a != b:
            work.append((a, 1 << p, b))
    while work:
        a, new, b = work.pop()
        idx = a * m + b
        new &= ~known[idx]
        if not new:
            continue
        known[idx] |= new
        out_adj[a] |= 1 << b
        in_adj[b] |= 1 << a
        inv = inverse(new)
        if inv:
            work.append((b, inv, a))
        row = out_adj[b] & ~(1 << a)
        base = b * m
        while row:
            low = row & -row
            row ^= low
            c = low.bit_length() - 1
            key = new << shift | known[base + c]
            r = cache.get(key)
            if r is None:
                r = compose(new, known[base + c])
            if r:
                work.append((a, r, c))
        col = in_adj[a] & ~(1 << b)
        while col:
            low = col & -col
            col ^= low
            z = low.bit_length() - 1
            key = known[z * m + a] << shift | new
            r = cache.get(key)
            if r is None:
                r = compose(known[z * m + a], new)
            if r:
                work.append((z, r, b))
    return known


def story_closure(kb: KB, facts: list[tuple[int, int, int]]) -> dict[tuple[int, int], int]:
    """All (a, b) -> predicates derivable from facts ``(a, pred, b)`` ("b is a's pred").

    Inverse facts are added for predicates with a declared inverse; rules apply to three
    distinct people only.
    """
    people = sorted({a for a, _, _ in facts} | {b for _, _, b in facts})
    pos = {p: i for i, p in enumerate(people)}
    m = len(people)
    known = _closure(kb, [(pos[a], p, pos[b]) for a, p, b in facts], m)
    return {(people[i // m], people[i % m]): v for i, v in enumerate(known) if v}


def relations_closed(kb: KB, sub: np.ndarray) -> bool:
    """Whether boolean relations ``sub[p, i, j]`` among some people are closed under the KB.

    Closed means: for every rule ``r1 . r2 -> r`` and distinct people i, j, l, ``sub[r1, i, j]``
    and ``sub[r2, j, l]`` give ``sub[r, i, l]``; and ``sub[p, i, j]`` gives
    ``sub[inverse(p), j, i]``. The diagonal of ``sub`` must be empty (nobody is their own
    relative), which keeps j apart from i and l.
    """
    m = sub.shape[1]
    return rows_closed(kb, bit_rows(sub), bit_rows(sub.transpose(0, 2, 1)), list(range(m)))
