"""The family sampler: knobs, world-model invariants, and extreme settings that broke the original."""
from __future__ import annotations

import random

import numpy as np
import pytest

from clutrr.core.family import Family, FamilyConfig, sample_family, sample_genealogy
from clutrr.core.genealogy import bit_masks, bit_rows, relation_masks
from clutrr.kinship.derive import kinship_kb
from clutrr.story.generator import GeneratorConfig, make_example


def _invariants(fam) -> None:
    for x in range(fam.size):
        dad, mum, partner = fam.father[x], fam.mother[x], fam.spouse[x]
        assert (dad < 0) == (mum < 0)
        if dad >= 0:
            assert fam.genders[dad] == 0 and fam.genders[mum] == 1 and fam.spouse[dad] == mum
        if partner >= 0:
            assert fam.spouse[partner] == x and fam.genders[partner] != fam.genders[x]


@pytest.mark.parametrize("cfg", [
    FamilyConfig(),
    FamilyConfig(p_marry=0.3),
    FamilyConfig(min_children=1, max_children=1, p_female=1.0),
    FamilyConfig(min_children=1, max_children=1, p_female=0.0),
    FamilyConfig(generations=4, min_children=2, max_children=3, p_inlaw_family=1.0),
])
def test_families_obey_the_world_model(kb, cfg):
    rng = random.Random(1)
    for _ in range(30):
        _invariants(sample_family(cfg, kb, rng))


def test_gender_ratio_knob_is_respected(kb):
    rng = random.Random(3)
    only_girls = sample_family(FamilyConfig(generations=3, min_children=2, max_children=2, p_female=1.0,
                                            p_marry=0.0), kb, rng)
    born = [x for x in range(only_girls.size) if only_girls.father[x] >= 0]
    assert born and all(only_girls.genders[x] == 1 for x in born)


@pytest.mark.parametrize("fam", [
    FamilyConfig(p_marry=0.5),
    FamilyConfig(min_children=1, max_children=1, p_female=1.0, p_marry=0.9, generations=4),
    FamilyConfig(min_children=1, max_children=1, p_female=0.0, p_marry=0.9, generations=4),
])
def test_generation_works_with_sparse_or_single_gender_families(fam):
    config = GeneratorConfig(family=fam)
    targets = {make_example(config, k, "none", 0, i, "train").row.target for k in (2, 3) for i in range(40)}
    assert len(targets) >= 8


def test_ground_truth_is_complete_and_single_for_targets(kb):
    fam = sample_family(FamilyConfig(generations=4), kb, random.Random(5))
    n = fam.size
    assert fam.masks.shape == (len(kb.predicates), n, n)
    assert not fam.masks[:, np.arange(n), np.arange(n)].any()
    single = fam.masks.sum(axis=0) == 1
    for x, z in np.argwhere(fam.masks.any(axis=0)).tolist():
        assert (fam.single[x] >> z & 1) == single[x, z]
        assert fam.relation(x, z) == (int(fam.masks[:, x, z].argmax()) if single[x, z] else -1)
        for p in range(len(kb.predicates)):
            assert fam.holds(x, p, z) == fam.masks[p, x, z] == bool(fam.row_bits(p, x) >> z & 1) \
                == bool(fam.col_bits(p, z) >> x & 1)


@pytest.mark.parametrize("system", ["", "dravidian"])
def test_relations_by_bit_rows_match_the_matrix_program(kb, system):
    """A family's relations are worked out over int bitsets; the boolean-matrix program of the
    same definitions (which windows of large families and the KB checks use) gives the same."""
    kb = kinship_kb(system) if system else kb
    rng = random.Random(11)
    for i in range(40):
        genders, father, mother, spouse = sample_genealogy(FamilyConfig(generations=3 + i % 2), rng)
        n = len(genders)
        parent, married = np.zeros((n, n), dtype=bool), np.zeros((n, n), dtype=bool)
        for x in range(n):
            if father[x] >= 0:
                parent[x, [father[x], mother[x]]] = True
            if spouse[x] >= 0:
                married[x, spouse[x]] = True
        expected = relation_masks(kb, parent, married, np.array(genders))
        fam = Family(genders, father, mother, spouse, kb)
        assert fam.rows == bit_rows(expected)
        assert np.array_equal(fam.masks, expected) and np.array_equal(bit_masks(fam.rows, n), expected)
        assert fam.cols() == bit_rows(expected.transpose(0, 2, 1))


def _reference_genealogy(config, rng):
    """sample_genealogy's algorithm as its docstring states it, with the standard library's draws."""
    genders, father, mother, spouse = [], [], [], []

    def person(gender, dad=-1, mum=-1):
        genders.append(gender)
        father.append(dad)
        mother.append(mum)
        spouse.append(-1)
        return len(genders) - 1

    def marry(a, b):
        spouse[a], spouse[b] = b, a

    def new_gender():
        return 1 if rng.random() < config.p_female else 0

    couples = [(person(0), person(1))]
    marry(*couples[0])
    for _ in range(config.generations - 1):
        next_couples = []
        for dad, mum in couples:
            for _ in range(rng.randint(config.min_children, config.max_children)):
                c = person(new_gender(), dad, mum)
                if rng.random() >= config.p_marry:
                    continue
                gender = 1 - genders[c]
                if rng.random() < config.p_inlaw_family:
                    pf, pm = person(0), person(1)
                    marry(pf, pm)
                    partner = person(gender, pf, pm)
                    for _ in range(rng.randint(0, max(0, config.max_children - 1))):
                        person(new_gender(), pf, pm)
                else:
                    partner = person(gender)
                marry(c, partner)
                next_couples.append((c, partner) if genders[c] == 0 else (partner, c))
        couples = next_couples
    return genders, father, mother, spouse


@pytest.mark.parametrize("config", [FamilyConfig(), FamilyConfig(generations=5), FamilyConfig(min_children=0),
                                    FamilyConfig(min_children=0, max_children=1, p_marry=1.0),
                                    FamilyConfig(generations=4, max_children=6, p_inlaw_family=1.0, p_female=0.3)])
def test_genealogy_draws_match_the_standard_library(config):
    for seed in range(30):
        ours, theirs = random.Random(seed), random.Random(seed)
        assert sample_genealogy(config, ours) == _reference_genealogy(config, theirs), seed
        assert ours.getstate() == theirs.getstate(), seed
