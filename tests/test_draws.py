"""The generator's own sampler makes the standard library's draws and picks."""
from __future__ import annotations

import random

import pytest

from clutrr.core.draws import below, random_bit, sample_indices, seeded, shuffle


def test_sample_matches_the_standard_library():
    for seed in range(300):
        for n in (1, 2, 5, 20, 21, 22, 40, 300):
            for k in sorted({min(n, j) for j in (0, 1, 2, 4, 5, 6, 9, 12, 13, 20)}):
                ours, theirs = random.Random(seed), random.Random(seed)
                population = [f"p{i}" for i in range(n)]
                picked = [population[j] for j in sample_indices(ours, n, k)]
                assert picked == theirs.sample(population, k), (seed, n, k)
                assert ours.getstate() == theirs.getstate()


def test_sample_indices_refuses_what_the_standard_library_refuses():
    with pytest.raises(ValueError):
        sample_indices(random.Random(0), 3, 4)


def test_below_matches_randrange():
    for seed in range(200):
        for n in (1, 2, 3, 7, 8, 9, 100, 1 << 20, (1 << 40) + 3):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert below(ours.getrandbits, n) == theirs.randrange(n), (seed, n)
            assert ours.getstate() == theirs.getstate()


def test_seeded_has_the_state_of_random_random():
    for n in (0, 1, 7, 2**32, 2**64 - 1, 2**127 + 5, 2**200):
        ours = seeded(n)
        assert ours.getstate() == random.Random(n).getstate(), n
        assert ours.random() == random.Random(n).random()


def test_shuffle_matches_the_standard_library():
    for seed in range(200):
        for n in (0, 1, 2, 3, 9, 40):
            ours, theirs = random.Random(seed), random.Random(seed)
            mine, yours = list(range(n)), list(range(n))
            shuffle(ours, mine)
            theirs.shuffle(yours)
            assert mine == yours and ours.getstate() == theirs.getstate(), (seed, n)


def test_random_bit_picks_the_drawn_set_bit_with_one_draw():
    for seed in range(100):
        for mask in (1, 2, 1 << 40, 5, 0b1011000, (1 << 70) | 6, (1 << 64) - 1):
            ours, theirs = random.Random(seed), random.Random(seed)
            bits = [i for i in range(mask.bit_length()) if mask >> i & 1]
            assert random_bit(mask, ours.random) == bits[int(theirs.random() * len(bits))], (seed, mask)
            assert ours.getstate() == theirs.getstate()



def test_sample_matches_the_standard_library_for_many_picks():
    """Around the set sizes of many picks (the pool or the rejection branch), kept by k up to 63 and computed above."""
    for seed in range(20):
        for k in (30, 62, 63, 64, 70):
            for n in (k, 120, 276, 277, 278, 1100):
                if k <= n:
                    ours, theirs = random.Random(seed), random.Random(seed)
                    assert sample_indices(ours, n, k) == theirs.sample(range(n), k), (seed, n, k)
                    assert ours.getstate() == theirs.getstate()
