"""Stochastic family graphs and their complete ground-truth relations.

A family is held in plain lists: person i has ``genders[i]`` (0 male, 1 female), parents
``father[i]`` and ``mother[i]`` (-1 when unrecorded) and ``spouse[i]`` (-1 when single).
Every named relation between every ordered pair is computed from these primitives by the
KB's definitions, as rows of int bitsets for fast set algebra: bit y of ``rows[p][x]`` when y
is x's p (the same as a boolean array ``masks[p, x, y]``, which is built on first use).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from clutrr.core.draws import below
from clutrr.core.genealogy import bit_masks, bit_rows, converse_predicates, relation_rows, transpose_rows
from clutrr.core.kb import KB
from clutrr.core.native import mypyc_attr

if TYPE_CHECKING:
    import numpy as np

MAX_EXPECTED_PEOPLE = 10_000  # the default settings give 26 (58 for long chains); --generations 8 gives about 1,000
DENSE_MAX_PEOPLE = 600  # up to this expected size a family's relation tables are built whole (clutrr.core.large_family)


@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class FamilyConfig:
    """Knobs of the family sampler."""

    generations: int = 3
    min_children: int = 1
    max_children: int = 4
    p_marry: float = 0.8
    p_female: float = 0.5
    p_inlaw_family: float = 0.5

    def validate(self) -> None:
        """Raise ValueError naming the first knob out of range, or for families expected to
        be too large to build (see :data:`MAX_EXPECTED_PEOPLE`), with the knobs to lower."""
        if self.generations < 2:
            raise ValueError("generations must be at least 2")
        if not 0 <= self.min_children <= self.max_children or self.max_children < 1:
            raise ValueError("need 0 <= min_children <= max_children and max_children >= 1")
        for name in ("p_marry", "p_female", "p_inlaw_family"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        size = self.expected_size()
        if size > MAX_EXPECTED_PEOPLE:
            raise ValueError(
                f"families of --generations {self.generations} --min-children {self.min_children} --max-children "
                f"{self.max_children} --p-marry {self.p_marry:g} would hold about {size:,.0f} people on average "
                f"(at most {MAX_EXPECTED_PEOPLE:,} are supported); lower --generations, --max-children or --p-marry")

    def expected_size(self) -> float:
        """The mean number of people of a sampled family (``inf`` when too large for a float).

        A couple has c = (min + max) / 2 children on average; each marries with p_marry,
        bringing a partner and, with p_inlaw_family, the partner's parents and (max - 1) / 2
        siblings; married children are the couples of the next generation.
        """
        c = (self.min_children + self.max_children) / 2
        per_couple = c * (1 + self.p_marry * (1 + self.p_inlaw_family * (2 + max(0, self.max_children - 1) / 2)))
        growth = c * self.p_marry
        steps = self.generations - 1
        try:
            couples = steps if growth == 1 else (growth ** steps - 1) / (growth - 1)
        except OverflowError:
            return float("inf")
        return 2 + per_couple * couples


class Family:
    """A sampled family: people, their parents and spouses, and every relation between them.

    Work that several stories drawn from one family share (target words, candidate pairs,
    inverse rows) is computed on first use and kept.
    """

    def __init__(self, genders: list[int], father: list[int], mother: list[int], spouse: list[int], kb: KB,
                 masks: np.ndarray | None = None) -> None:
        """``masks`` (``[predicate, x, y]``), when given, are the people's relations worked out
        elsewhere (a window of a larger family: :mod:`clutrr.core.large_family`)."""
        n = len(genders)
        self.genders = genders
        self.father, self.mother, self.spouse = father, mother, spouse
        self.kb = kb
        female = 0
        for i, g in enumerate(genders):
            if g:
                female |= 1 << i
        self.gender_bits = (((1 << n) - 1) & ~female, female)
        self.rows = relation_rows(kb, father, mother, spouse, female) if masks is None else bit_rows(masks)
        self.single = _single(self.rows, n)  # single[x]: the people who are exactly one relation of x
        self.cache: dict = {}  # per-family work shared by the stories of a block
        self._masks = masks
        # the relations are the definitions' over parents and marriages recorded on both sides: what
        # the definitions imply holds in them (clutrr.core.converse)
        self.defined = masks is None and married_both_ways(spouse)
        self._cols: list[list[int]] | None = None

    def __reduce__(self) -> tuple:
        """Pickled as its people and relations (the rest is rebuilt on first use)."""
        return Family, (self.genders, self.father, self.mother, self.spouse, self.kb, self.masks)

    @property
    def size(self) -> int:
        """Number of people."""
        return len(self.genders)

    @property
    def masks(self) -> np.ndarray:
        """``masks[p, x, y]``: whether y is x's predicate p (built from the rows on first use)."""
        if self._masks is None:
            self._masks = bit_masks(self.rows, len(self.genders))
        return self._masks

    @property
    def gender(self) -> np.ndarray:
        """The people's genders as an array (0 male, 1 female)."""
        import numpy as np

        return np.array(self.genders, dtype=np.int8)

    def relation(self, x: int, y: int) -> int:
        """The predicate index of y to x when exactly one holds, else -1."""
        if not self.single[x] >> y & 1:
            return -1
        rows = self.rows
        for p in range(len(rows)):
            if rows[p][x] >> y & 1:
                return p
        return -1

    def row_bits(self, pred: int, x: int) -> int:
        """The people y with "y is x's pred", as an int bitset (bit y)."""
        return self.rows[pred][x]

    def col_bits(self, pred: int, y: int) -> int:
        """The people x with "y is x's pred", as an int bitset (bit x)."""
        return self.cols()[pred][y]

    def cols(self) -> list[list[int]]:
        """``cols()[p][y]``: the people x with "y is x's p", as int bitsets (built on first use).

        When the relations were worked out here and marriages go both ways, a predicate whose
        definition makes it another's converse (:func:`~clutrr.core.genealogy.converse_predicates`)
        has that one's rows as its columns (the same lists); the others are transposed."""
        if self._cols is None:
            n = len(self.genders)
            rows = self.rows
            converse = converse_predicates(self.kb) if self.defined else [-1] * len(rows)
            self._cols = [rows[converse[p]] if converse[p] >= 0 else transpose_rows(rows[p], n)
                          for p in range(len(rows))]
        return self._cols

    def holds(self, x: int, pred: int, y: int) -> bool:
        """Whether y is x's ``pred``."""
        return bool(self.rows[pred][x] >> y & 1)


def married_both_ways(spouse: list[int]) -> bool:
    """Whether every recorded marriage is recorded on both sides (``spouse[spouse[x]] == x``)."""
    for x in range(len(spouse)):
        s = spouse[x]
        if s >= 0 and spouse[s] != x:
            return False
    return True


def _single(rows: list[list[int]], n: int) -> list[int]:
    """Per person x, the people who are exactly one relation of x (bitsets)."""
    out = [0] * n
    for x in range(n):
        once = twice = 0
        for table in rows:
            row = table[x]
            twice |= once & row
            once |= row
        out[x] = once & ~twice
    return out


Genealogy = tuple[list[int], list[int], list[int], list[int]]  # genders, father, mother, spouse


def sample_family(config: FamilyConfig, kb: KB, rng: random.Random) -> Family:
    """Sample a family tree of ``config.generations`` generations from one founding couple
    (:func:`sample_genealogy`) and every relation between its people."""
    return Family(*sample_genealogy(config, rng), kb)


def sample_genealogy(config: FamilyConfig, rng: random.Random) -> Genealogy:
    """A family tree of ``config.generations`` generations from one founding couple, as
    ``(genders, father, mother, spouse)`` lists (-1: none).

    Each couple has between min_children and max_children children; each child marries an
    outsider of the other gender with probability p_marry, and an outsider brings their
    own parents and up to max_children - 1 siblings with probability p_inlaw_family.
    (Counts are drawn as ``rng.randint`` draws them, by :func:`~clutrr.core.draws.below`.)
    """
    tree = _Tree()
    rand, getrandbits = rng.random, rng.getrandbits
    p_female, p_marry, p_inlaw = config.p_female, config.p_marry, config.p_inlaw_family
    fewest, most = config.min_children, config.max_children
    siblings = max(0, most - 1)
    genders = tree.genders
    founder_m, founder_f = tree.person(0), tree.person(1)
    tree.marry(founder_m, founder_f)
    couples = [(founder_m, founder_f)]
    for generation in range(config.generations - 1):  # named: compiled, ``_`` is boxed each pass
        if not couples:  # the family died out: later generations would draw nothing
            break
        next_couples = []
        for dad, mum in couples:
            for child in range(fewest + below(getrandbits, most - fewest + 1)):
                c = tree.person(1 if rand() < p_female else 0, dad, mum)
                if rand() >= p_marry:
                    continue
                partner_gender = 1 - genders[c]
                if rand() < p_inlaw:
                    pf, pm = tree.person(0), tree.person(1)
                    tree.marry(pf, pm)
                    partner = tree.person(partner_gender, pf, pm)
                    for sibling in range(below(getrandbits, siblings + 1)):
                        tree.person(1 if rand() < p_female else 0, pf, pm)
                else:
                    partner = tree.person(partner_gender)
                tree.marry(c, partner)
                next_couples.append((c, partner) if genders[c] == 0 else (partner, c))
        couples = next_couples
    return tree.genders, tree.father, tree.mother, tree.spouse


class _Tree:
    """The people of a genealogy being drawn: each one's gender, parents and spouse (-1: none)."""

    def __init__(self) -> None:
        self.genders: list[int] = []
        self.father: list[int] = []
        self.mother: list[int] = []
        self.spouse: list[int] = []

    def person(self, gender: int, dad: int = -1, mum: int = -1) -> int:
        """A new single person (their index)."""
        self.genders.append(gender)
        self.father.append(dad)
        self.mother.append(mum)
        self.spouse.append(-1)
        return len(self.genders) - 1

    def marry(self, a: int, b: int) -> None:
        self.spouse[a] = b
        self.spouse[b] = a
