"""Whether a family's relations, held as int bit rows, are closed under a KB's rules.

The generator checks this once per small family (the certificate that every story drawn from
it entails exactly its target). Bit rows make it a few integer operations per person and rule,
with no array built; the module is compiled in wheels (build_support/clutrr_build.py).
"""
from __future__ import annotations


def closure_tables(rules: dict[tuple[int, int], int], inverses: list[int]) -> tuple[list[tuple[int, int, int]],
                                                                                    list[tuple[int, int]]]:
    """A KB's rules as ``(first, then, head)`` triples and its inverses as ``(predicate, inverse)``
    pairs (``inverses[p]`` is p's inverse or -1), in the order :func:`rows_closed` reads them."""
    return [(a, b, h) for (a, b), h in sorted(rules.items())], [(p, q) for p, q in enumerate(inverses) if q >= 0]


def rows_closed(rules: list[tuple[int, int, int]], inverses: list[tuple[int, int]], rows: list[list[int]],
                n: int) -> bool:
    """Whether relations ``rows[p][x]`` (bit y set when y is x's p) among people ``0..n-1`` are closed.

    Closed means: for every rule ``(a, b, h)`` and people x, y, l with x != l, y in ``rows[a][x]``
    and l in ``rows[b][y]`` give l in ``rows[h][x]``; and for every ``(p, q)``, y in ``rows[p][x]``
    gives x in ``rows[q][y]``. Nobody may be their own relative (no row holds its own person's bit),
    which keeps y apart from x and l: the same test as :func:`clutrr.core.entailment.relations_closed`.
    """
    for a, b, h in rules:
        first, then, head = rows[a], rows[b], rows[h]
        for x in range(n):
            ys = first[x]
            derived = 0
            while ys:
                low = ys & -ys
                derived |= then[low.bit_length() - 1]
                ys ^= low
            if derived & ~head[x] & ~(1 << x):
                return False
    for p, q in inverses:
        forward, back = rows[p], rows[q]
        for x in range(n):
            ys = forward[x]
            bit = 1 << x
            while ys:
                low = ys & -ys
                if not back[low.bit_length() - 1] & bit:
                    return False
                ys ^= low
    return True
