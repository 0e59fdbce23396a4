"""What a set of facts entails under a KB.

Sets of predicates are bitmasks. A chain of facts entails, for its two ends, the union over
every bracketing of its composition (a CYK table); a story (any graph of facts) entails the
closure of its facts under the composition, inverse and symmetry rules.
"""
from __future__ import annotations

from collections import defaultdict

from clutrr.core.kb import KB, bits


def chain_entailment(kb: KB, preds: list[int]) -> int:
    """Predicates derivable between the ends of a chain, over all bracketings (bitmask).

    ``preds[i]`` is the relation of person i+1 to person i. A result with exactly one bit
    set means every bracketing that derives anything derives the same relation.
    """
    n = len(preds)
    table = [[0] * (n + 1) for _ in range(n + 1)]
    for i, p in enumerate(preds):
        table[i][i + 1] = 1 << p
    for length in range(2, n + 1):
        for i in range(0, n - length + 1):
            j = i + length
            acc = 0
            for m in range(i + 1, j):
                left, right = table[i][m], table[m][j]
                if left and right:
                    acc |= kb.compose_sets(left, right)
            table[i][j] = acc
    return table[0][n]


def story_closure(kb: KB, facts: list[tuple[int, int, int]]) -> dict[tuple[int, int], int]:
    """All (a, b) -> predicates derivable from facts ``(a, pred, b)`` ("b is a's pred").

    Inverse facts are added for predicates with a declared inverse; rules apply to three
    distinct people only.
    """
    known: dict[tuple[int, int], int] = defaultdict(int)
    out_edges: dict[int, set[int]] = defaultdict(set)
    in_edges: dict[int, set[int]] = defaultdict(set)
    work: list[tuple[int, int, int]] = []

    def add(a: int, p_bits: int, b: int) -> None:
        if not p_bits or a == b:
            return
        new = p_bits & ~known[(a, b)]
        if new:
            known[(a, b)] |= new
            out_edges[a].add(b)
            in_edges[b].add(a)
            work.append((a, new, b))

    inverse = [p.inverse for p in kb.predicates]
    inverse_of: dict[int, int] = {}
    compose = kb.compose_sets
    cache = kb.set_cache  # read directly: this loop is the generator's hot path
    for a, p, b in facts:
        add(a, 1 << p, b)
    while work:
        a, new, b = work.pop()
        inv_bits = inverse_of.get(new)
        if inv_bits is None:
            inv_bits = 0
            for p in bits(new):
                if inverse[p] >= 0:
                    inv_bits |= 1 << inverse[p]
            inverse_of[new] = inv_bits
        add(b, inv_bits, a)
        for c in list(out_edges[b]):
            if c != a:
                key = (new, known[(b, c)])
                r = cache.get(key)
                if r is None:
                    r = compose(*key)
                if r:
                    add(a, r, c)
        for z in list(in_edges[a]):
            if z != b:
                key = (known[(z, a)], new)
                r = cache.get(key)
                if r is None:
                    r = compose(*key)
                if r:
                    add(z, r, b)
    return {key: v for key, v in known.items() if v}

