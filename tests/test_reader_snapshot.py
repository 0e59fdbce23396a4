"""The checker's flags on every template of every bank are those of the stored snapshot, byte
for byte (tests/reader_snapshot.py wrote it; rerun that script only after a deliberate change)."""
from __future__ import annotations

import pytest

from reader_snapshot import BANKS, SNAPSHOTS, bank, snapshot


def test_every_bank_has_a_snapshot():
    assert sorted(p.stem for p in SNAPSHOTS.glob("*.txt")) == sorted(BANKS)


@pytest.mark.parametrize("name", BANKS)
def test_flags_are_those_of_the_snapshot(name):
    stored = (SNAPSHOTS / f"{name}.txt").read_text(encoding="utf-8")
    now = snapshot(*bank(name))
    assert now.splitlines()[0] == stored.splitlines()[0], "the bank's templates changed: rerun tests/reader_snapshot.py"
    assert now == stored
