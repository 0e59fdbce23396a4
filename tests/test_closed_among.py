"""closed_among's bitset test agrees with the rule it states, checked person by person."""
from __future__ import annotations

import random

from clutrr.core.closed_among import rows_closed
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import transpose_rows
from clutrr.core.kb import load_kb


def plainly_closed(kb, rows, people) -> bool:
    """Every rule r1 . r2 -> r over distinct i, j, l of people, and every fact's inverse."""
    def holds(x, p, y):
        return bool(rows[p][x] >> y & 1)

    for (r1, r2), r in kb.rules.items():
        for i in people:
            for j in people:
                for l in people:
                    if len({i, j, l}) == 3 and holds(i, r1, j) and holds(j, r2, l) and not holds(i, r, l):
                        return False
    for p in kb.predicates:
        if p.inverse >= 0:
            for i in people:
                for j in people:
                    if holds(i, p.index, j) and not holds(j, p.inverse, i):
                        return False
    return True


def test_rows_closed_agrees_with_the_rule_on_true_and_broken_relations():
    kb = load_kb()
    seen = {True: 0, False: 0}
    for seed in range(30):
        rng = random.Random(seed)
        family = sample_family(FamilyConfig(), kb, rng)
        rows = [list(table) for table in family.rows]
        if seed % 3:  # break one true fact, or add a false one
            p, x, y = rng.randrange(len(rows)), rng.randrange(family.size), rng.randrange(family.size)
            rows[p][x] ^= 1 << y
        people = rng.sample(range(family.size), min(family.size, 8))
        cols = [transpose_rows(table, family.size) for table in rows]
        got = rows_closed(kb, rows, cols, people)
        assert got == plainly_closed(kb, rows, people), seed
        seen[got] += 1
    assert seen[True] and seen[False]
