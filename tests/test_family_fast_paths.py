"""A family's relations by the row plan, and its columns shared with converse predicates, equal
their definitions: the boolean-matrix program and the transposed rows, on random families of
the built-in KB and every kinship system."""
from __future__ import annotations

import random

import numpy as np
import pytest

from clutrr.core.closed_among import rows_closed
from clutrr.core.converse import implied_rules
from clutrr.core.family import Family, FamilyConfig, married_both_ways, sample_genealogy
from clutrr.core.genealogy import (_NOSELF, _program, bit_rows, compose, converse_predicates, definition_steps,
                                   relation_masks, transpose_rows)
from clutrr.core.kb import load_kb
from clutrr.kinship.derive import kinship_kb
from clutrr.kinship.terminology import builtin_terminologies

CONFIGS = [FamilyConfig(), FamilyConfig(generations=4, p_marry=0.5), FamilyConfig(p_female=1.0, p_marry=0.9),
           FamilyConfig(min_children=0, max_children=2, p_inlaw_family=1.0)]


def _matrices(genders: list[int], father: list[int], mother: list[int], spouse: list[int]):
    """The parent and spouse matrices of a genealogy (``parent[x, y]``: y is a parent of x)."""
    n = len(genders)
    parent, married = np.zeros((n, n), dtype=bool), np.zeros((n, n), dtype=bool)
    dads, mums, partners = np.array(father, dtype=int), np.array(mother, dtype=int), np.array(spouse, dtype=int)
    born, wed = np.flatnonzero(dads >= 0), np.flatnonzero(partners >= 0)
    parent[born, dads[born]] = parent[born, mums[born]] = True
    married[wed, partners[wed]] = True
    return parent, married


@pytest.mark.parametrize("name", ["kinship", "kinship-blood", *builtin_terminologies()])
def test_rows_and_columns_equal_the_definitions(name):
    kb = load_kb(name) if name.startswith("kinship") else kinship_kb(name)
    rng = random.Random(name)
    for i in range(12):
        genealogy = sample_genealogy(CONFIGS[i % len(CONFIGS)], rng)
        family = Family(*genealogy, kb)
        n = family.size
        expected = relation_masks(kb, *_matrices(*genealogy), np.array(genealogy[0]))
        assert family.rows == bit_rows(expected)
        assert family.cols() == [transpose_rows(rows, n) for rows in family.rows]


def test_the_default_kb_s_columns_are_its_converses_rows():
    """What the sharing saves on the default KB: every predicate's columns are rows already made."""
    kb = load_kb("kinship")
    assert converse_predicates(kb) == [p.inverse for p in kb.predicates]
    family = Family(*sample_genealogy(FamilyConfig(), random.Random(2)), kb)
    assert all(any(col is rows for rows in family.rows) for col in family.cols())


def test_one_sided_marriages_and_given_relations_are_transposed():
    """Spouse is its own converse only when marriages go both ways; relations given as masks
    (windows, tests) are transposed whatever they hold (and checked against every rule)."""
    kb = load_kb("kinship")
    genders, father, mother, spouse = sample_genealogy(FamilyConfig(p_marry=1.0), random.Random(4))
    lone = spouse.index(next(s for s in spouse if s >= 0))
    spouse = list(spouse)
    spouse[spouse[lone]] = -1  # lone's marriage recorded on lone's side only
    assert not married_both_ways(spouse) and married_both_ways([1, 0, -1])
    family = Family(genders, father, mother, spouse, kb)
    assert not family.defined
    assert family.rows == bit_rows(relation_masks(kb, *_matrices(genders, father, mother, spouse), np.array(genders)))
    assert family.cols() == [transpose_rows(rows, family.size) for rows in family.rows]
    flipped = family.masks.copy()
    flipped[0, 0, 1] = not flipped[0, 0, 1]
    given = Family(genders, father, mother, spouse, kb, flipped)
    assert not given.defined
    assert given.cols() == bit_rows(flipped.transpose(0, 2, 1))


def test_the_row_plan_skips_copies_and_fuses_noself():
    """The default KB's steps: every ``noself`` is a plain copy of nothing (same rows, in place, or
    done by the step before it)."""
    plan = _program(load_kb("kinship")).plan
    assert not [step for step in plan if step[0] == _NOSELF]


@pytest.mark.parametrize("generations", [3, 5])
def test_relation_reads_the_one_relation_of_a_pair(generations):
    """A pair's relation is the one predicate holding between them, or -1 when none or several do
    (in small and large families)."""
    kb = load_kb("kinship")
    config = FamilyConfig(generations=generations, min_children=2, max_children=4)
    family = Family(*sample_genealogy(config, random.Random(generations)), kb)
    held = family.masks.sum(axis=0)
    rng = random.Random(1)
    for _ in range(3000):
        x, y = rng.randrange(family.size), rng.randrange(family.size)
        expected = int(family.masks[:, x, y].argmax()) if held[x, y] == 1 else -1
        assert family.relation(x, y) == expected


@pytest.mark.parametrize("name", ["kinship", *builtin_terminologies()])
def test_rules_the_definitions_imply_hold_in_every_sampled_family(name):
    """Each rule ``implied_rules`` marks holds (checked by matrix products on families of every
    shape), and a family's closure check gives the same answer with them left out."""
    kb = load_kb(name) if name == "kinship" else kinship_kb(name)
    rules = [(a, b, c) for (a, b), c in sorted(kb.rules.items())]
    implied = implied_rules(*definition_steps(kb), rules)
    rng = random.Random(name)
    for i in range(8):
        family = Family(*sample_genealogy(CONFIGS[i % len(CONFIGS)], rng), kb)
        masks, n = family.masks, family.size
        for (a, b, c), known in zip(rules, implied):
            if known:
                derived = compose(masks[a], masks[b]) & ~np.eye(n, dtype=bool)
                assert not (derived & ~masks[c]).any(), (name, a, b, c)
        everyone = list(range(n))
        assert family.defined
        assert rows_closed(kb, family.rows, family.cols(), everyone, True) == \
            rows_closed(kb, family.rows, family.cols(), everyone)
    if name == "kinship":
        assert sum(implied) == 9  # child . child -> grandchild, parent . parent -> grandparent, ...


@pytest.mark.parametrize("n", [0, 1, 7, 62, 63, 150])
def test_transposed_rows_hold_each_bit_the_other_way(n):
    """Bit x of column y is bit y of row x (machine-word and larger bitsets)."""
    rng = random.Random(n)
    for density in (1, 3):
        rows = [rng.getrandbits(n) if density == 1 else rng.getrandbits(n) & rng.getrandbits(n) & rng.getrandbits(n)
                for _ in range(n)]
        assert transpose_rows(rows, n) == [sum((rows[x] >> y & 1) << x for x in range(n)) for y in range(n)]
