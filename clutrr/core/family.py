"""Stochastic family graphs and their complete ground-truth relations.

A family is a networkx DiGraph: nodes are people (attribute ``gender``: 0 male, 1 female),
an edge ``x -> y`` with ``kind="parent"`` says y is x's parent, and a pair of edges with
``kind="spouse"`` links a married couple. Every named relation between every ordered pair
is then computed from these primitives by the KB's definitions.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import networkx as nx
import numpy as np

from clutrr.core.genealogy import relation_bits, relation_masks
from clutrr.core.kb import KB


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
        """Raise ValueError naming the first knob out of range."""
        if self.generations < 2:
            raise ValueError("generations must be at least 2")
        if not 0 <= self.min_children <= self.max_children or self.max_children < 1:
            raise ValueError("need 0 <= min_children <= max_children and max_children >= 1")
        for name in ("p_marry", "p_female", "p_inlaw_family"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")


class Family:
    """A sampled family: the genealogy graph plus the relation matrices derived from it."""

    def __init__(self, graph: nx.DiGraph, kb: KB) -> None:
        self.graph = graph
        n = graph.number_of_nodes()
        self.gender = np.array([graph.nodes[i]["gender"] for i in range(n)], dtype=np.int8)
        parent = np.zeros((n, n), dtype=bool)
        spouse = np.zeros((n, n), dtype=bool)
        for x, y, kind in graph.edges(data="kind"):
            (parent if kind == "parent" else spouse)[x, y] = True
        self.masks = relation_masks(kb, parent, spouse)
        self.bits = relation_bits(self.masks)
        single = (self.bits != 0) & ((self.bits & (self.bits - np.uint32(1))) == 0)
        self.single = single
        self.targets: list[tuple[int, int]] | None = None
        self.gender_bits = tuple(_as_bits(self.gender == g) for g in (0, 1))
        self._rows: dict[tuple[int, int], int] = {}
        self._cols: dict[tuple[int, int], int] = {}

    @property
    def size(self) -> int:
        """Number of people."""
        return int(self.gender.shape[0])

    def relation(self, x: int, y: int) -> int:
        """The predicate index of y to x when exactly one holds, else -1."""
        b = int(self.bits[x, y])
        if b == 0 or b & (b - 1):
            return -1
        return b.bit_length() - 1

    def row_bits(self, pred: int, x: int) -> int:
        """The people y with "y is x's pred", as an int bitset (bit y)."""
        key = (pred, x)
        hit = self._rows.get(key)
        if hit is None:
            hit = self._rows[key] = _as_bits(self.masks[pred, x])
        return hit

    def col_bits(self, pred: int, y: int) -> int:
        """The people x with "y is x's pred", as an int bitset (bit x)."""
        key = (pred, y)
        hit = self._cols.get(key)
        if hit is None:
            hit = self._cols[key] = _as_bits(self.masks[pred, :, y])
        return hit

    def holds(self, x: int, pred: int, y: int) -> bool:
        """Whether y is x's ``pred``."""
        return bool(self.masks[pred, x, y])


def _as_bits(row: np.ndarray) -> int:
    return int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")


def sample_family(config: FamilyConfig, kb: KB, rng: random.Random) -> Family:
    """Sample a family tree of ``config.generations`` generations from one founding couple.

    Each couple has between min_children and max_children children; each child marries an
    outsider of the other gender with probability p_marry, and an outsider brings their
    own parents and up to max_children - 1 siblings with probability p_inlaw_family.
    """
    g = nx.DiGraph()

    def person(gender: int) -> int:
        i = g.number_of_nodes()
        g.add_node(i, gender=gender)
        return i

    def marry(a: int, b: int) -> None:
        g.add_edge(a, b, kind="spouse")
        g.add_edge(b, a, kind="spouse")

    def child_of(father: int, mother: int, gender: int) -> int:
        c = person(gender)
        g.add_edge(c, father, kind="parent")
        g.add_edge(c, mother, kind="parent")
        return c

    def new_gender() -> int:
        return 1 if rng.random() < config.p_female else 0

    founder_m, founder_f = person(0), person(1)
    marry(founder_m, founder_f)
    couples = [(founder_m, founder_f)]
    for _ in range(config.generations - 1):
        next_couples = []
        for father, mother in couples:
            for _ in range(rng.randint(config.min_children, config.max_children)):
                c = child_of(father, mother, new_gender())
                if rng.random() >= config.p_marry:
                    continue
                partner_gender = 1 - int(g.nodes[c]["gender"])
                if rng.random() < config.p_inlaw_family:
                    pf, pm = person(0), person(1)
                    marry(pf, pm)
                    partner = child_of(pf, pm, partner_gender)
                    for _ in range(rng.randint(0, max(0, config.max_children - 1))):
                        child_of(pf, pm, new_gender())
                else:
                    partner = person(partner_gender)
                marry(c, partner)
                pair = (c, partner) if g.nodes[c]["gender"] == 0 else (partner, c)
                next_couples.append(pair)
        couples = next_couples
    return Family(g, kb)
