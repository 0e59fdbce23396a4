"""``draws.seeded``'s choice between the C seeder (``clutrr/core/_mtseed.c``, compiled wheels only)
and ``_random.Random.seed``: the C one is used only if it gives ``random.Random(n)``'s state for
every guard seed. The C seeder itself is checked on the compiled wheel (tests/test_compiled.py)."""
from __future__ import annotations

import gc
import pickle
import random
import sys
import types

import _random

from clutrr.core.draws import GUARD_SEEDS, SeededRandom, c_seeder, seeded


def _fake_extension(monkeypatch, new_seeded) -> None:
    """Make ``clutrr.core._mtseed`` import as a module holding ``new_seeded``."""
    module = types.ModuleType("clutrr.core._mtseed")
    module.new_seeded = new_seeded
    monkeypatch.setitem(sys.modules, "clutrr.core._mtseed", module)


def _python_seeded(cls: type, n: int) -> random.Random:
    """What draws.seeded does without the extension."""
    rng = random.Random.__new__(cls)
    _random.Random.seed(rng, n)
    return rng


def test_no_extension_in_the_sources_means_the_python_seed(monkeypatch):
    monkeypatch.setitem(sys.modules, "clutrr.core._mtseed", None)  # import fails
    assert c_seeder() is None


def test_the_guard_takes_a_right_seeder_and_refuses_wrong_ones(monkeypatch):
    _fake_extension(monkeypatch, _python_seeded)
    assert c_seeder() is _python_seeded
    _fake_extension(monkeypatch, lambda cls, n: _python_seeded(cls, n + 1 if n == 3**126 else n))
    assert c_seeder() is None  # wrong for one seed only
    _fake_extension(monkeypatch, lambda cls, n: _python_seeded(random.Random, n))
    assert c_seeder() is None  # not a SeededRandom

    def broken(cls: type, n: int) -> random.Random:
        raise SystemError("a broken build")
    _fake_extension(monkeypatch, broken)
    assert c_seeder() is None  # raises: refused, not an import error of draws


def test_seeded_is_random_random_whichever_path():
    for n in (*GUARD_SEEDS, 2**63, 2**64 - 1, -(2**70) + 3):
        rng = seeded(n)
        assert type(rng) is SeededRandom and rng.getstate() == random.Random(n).getstate(), n
        assert gc.get_referents(rng) == [SeededRandom]  # no instance dict or values: gauss_next is the class's
        back = pickle.loads(pickle.dumps(rng))
        assert back.getstate() == rng.getstate() and back.random() == rng.random() == random.Random(n).random()
