"""How stories of a kinship system are sampled: which pairs a chain starts from, and how many
stories share a family.

A terminology's terms are wide: a Dravidian *brother-in-law* is a cross cousin or an affine,
and many pairs of such a word have no person between them that two facts could go through
(a wife's brother is a *brother-in-law*, but no rule composes *wife* with *brother*). The
chainer's first step (:func:`clutrr.core.chainer.backward_chain`) fails on every such pair,
so sampling them only throws families away; a story of a kinship system samples among the
pairs the first step can expand instead (:func:`expandable_pairs`).

A system also has rarer words than the default KB (a Sudanese *ibn-khala*, the mother's
sister's son, needs a mother with a sister who has a son), so the indices of a block of
``stories_per_family`` walk through several families before each finds its word. The
indices of :data:`BLOCKS_SHARED` blocks therefore share their families (and
:data:`FAMILIES_KEPT` of them are kept), which brings the stories per sampled family back to
about the default KB's.
"""
from __future__ import annotations

from clutrr.core.chainer import word_pairs
from clutrr.core.family import Family
from clutrr.core.kb import KB

BLOCKS_SHARED = 4  # a kinship system's stories share a family over this many blocks of stories_per_family
FAMILIES_KEPT = 32  # per context: the families of the last blocks (a block needs more of them than the default's)


def expandable_pairs(family: Family, kb: KB, word: tuple[int, int]) -> tuple[list[int], list[int]]:
    """``(xs, ys)``: the family's pairs of ``word`` (as :func:`~clutrr.core.chainer.word_pairs`
    lists them, in its order) for which some rule ``r1 . r2 -> p`` has a person c, neither x
    nor z, with c x's r1 and z c's r2. Kept per family."""
    found = family.cache.get("expandable")
    if found is None:
        found = family.cache["expandable"] = {}
    hit = found.get(word)
    if hit is None:
        table = word_pairs(family)
        start, count = table.spans.get(word, (0, 0))
        rules = kb.by_head[word[0]]
        rows, cols = family.rows, family.cols()
        xs: list[int] = []
        ys: list[int] = []
        for x, z in zip(table.xs[start:start + count], table.ys[start:start + count]):
            outside = ~((1 << x) | (1 << z))
            if any(rows[r1][x] & cols[r2][z] & outside for r1, r2 in rules):
                xs.append(x)
                ys.append(z)
        hit = found[word] = (xs, ys)
    return hit
