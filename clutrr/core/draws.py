"""Random draws with the standard library's results and less overhead, for the generator's hot paths.

:func:`seeded`, :func:`shuffle` and :func:`below` give the state, order and result of
``random.Random(n)``, ``rng.shuffle`` and ``rng.randrange``.
:func:`sample_indices` makes exactly the ``getrandbits`` calls of ``random.Random.sample``
(CPython 3.10 and later) and returns the positions it would pick, so callers can sample a
population they never build as a list. ``tests/test_draws.py`` compares the two.
"""
from __future__ import annotations

import random
from math import ceil, log
from typing import Callable, Final

import _random

from clutrr.core.native import mypyc_attr


@mypyc_attr(native_class=False)  # a Python subclass of random.Random
class SeededRandom(random.Random):
    """``random.Random`` whose ``gauss_next`` is None until ``gauss`` or ``setstate`` sets it on the
    instance: read from the class till then, so a new generator sets no attribute (and makes no
    instance dict)."""

    gauss_next = None


_RANDOM: Final = SeededRandom  # read as statics (compiled: no module or attribute lookup per seed)
_new: Final = random.Random.__new__
_seed: Final = _random.Random.seed


def below(getrandbits: Callable[[int], int], n: int) -> int:
    """``rng.randrange(n)`` for ``n`` >= 1, given ``rng.getrandbits``: the same draws and result."""
    bits = n.bit_length()
    j = getrandbits(bits)
    while j >= n:
        j = getrandbits(bits)
    return j


_GETRANDBITS: Final = _random.Random.getrandbits  # called with the rng: no bound method made per draw


def below_rng(rng: random.Random, n: int) -> int:
    """:func:`below` given the rng itself, for callers that draw once or twice (no bound
    ``rng.getrandbits`` made per call)."""
    bits = n.bit_length()
    j: int = _GETRANDBITS(rng, bits)
    while j >= n:
        j = _GETRANDBITS(rng, bits)
    return j


def random_bit(mask: int, rand: Callable[[], float]) -> int:
    """A uniformly random set bit of a non-zero ``mask`` (its index), using ``rand()`` in [0, 1)."""
    if not mask & (mask - 1):  # one bit (the chainer's usual case): its draw can only pick it
        rand()
        return mask.bit_length() - 1
    for skip in range(int(rand() * mask.bit_count())):  # named: compiled, ``_`` is boxed each pass
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


GUARD_SEEDS: Final = (0, 1, 2**32 - 1, 2**32, 2**64 + 5, -7, 3**126)  # the last has 200 bits


def c_seeder() -> Callable[[type, int], random.Random] | None:
    """``clutrr.core._mtseed.new_seeded`` (``new_seeded(cls, n)``: a new ``cls`` with the state of
    ``random.Random(n)``, seeded from a copy of the state every seed starts from) if the extension
    was built, loads (it checks ``_random.Random``'s size) and gives ``random.Random(n)``'s state
    for each of :data:`GUARD_SEEDS` without raising; else None (a pure wheel, an editable install)."""
    try:
        from clutrr.core._mtseed import new_seeded
    except ImportError:
        return None
    try:
        for n in GUARD_SEEDS:
            rng = new_seeded(SeededRandom, n)
            if type(rng) is not SeededRandom or rng.getstate() != random.Random(n).getstate():
                return None
    except Exception:  # noqa: BLE001  (whatever a broken build raises: the Python seed is always right)
        return None
    return new_seeded


_C_SEEDED: Final = c_seeder()


def seeded(n: int) -> random.Random:
    """``random.Random(n)`` for an int ``n``: the same state and draws, as a :class:`SeededRandom`
    (``Random.seed`` also sets ``gauss_next`` to None: the class's value), made without the Python
    code ``Random.__init__`` and ``Random.seed`` run around the C seed. By :func:`c_seeder`'s
    extension when it passed its check, else by ``_random.Random.seed``."""
    if _C_SEEDED is not None:
        return _C_SEEDED(_RANDOM, n)
    rng: random.Random = _new(_RANDOM)
    _seed(rng, n)
    return rng


def shuffle(rng: random.Random, items: list) -> None:
    """``rng.shuffle(items)``: the same draws and order."""
    for i in range(len(items) - 1, 0, -1):
        j = below_rng(rng, i + 1)
        items[i], items[j] = items[j], items[i]


def _among(items: list[int], count: int, item: int) -> bool:
    """Whether ``item`` is one of the first ``count`` items (compiled: a loop of int compares;
    ``in`` on the list compares objects)."""
    for i in range(count):
        if items[i] == item:
            return True
    return False


_FEW_PICKS: Final = 12  # up to this many picks, sample_indices checks a repeat in its result list, not in a set


def _set_size_of(k: int) -> int:
    """``random.Random.sample``'s set size for ``k`` picks: a population up to it is sampled from a pool list."""
    setsize = 21
    if k > 5:
        setsize += 4 ** ceil(log(k * 3, 4))
    return setsize


_SET_SIZES: Final = [_set_size_of(k) for k in range(64)]  # by k (no float log and power per sample)


def sample_indices(rng: random.Random, n: int, k: int) -> list[int]:
    """The positions ``rng.sample(population, k)`` picks from a population of ``n``, in order,
    leaving ``rng`` in the same state."""
    if not 0 <= k <= n:
        raise ValueError("Sample larger than population or is negative")
    result = [0] * k
    if n <= (_SET_SIZES[k] if k < 64 else _set_size_of(k)):  # the pool branch: a list of the positions not yet picked
        pool = list(range(n))
        for i in range(k):
            m = n - i
            j = below_rng(rng, m)
            result[i] = pool[j]
            pool[j] = pool[m - 1]
        return result
    bits = n.bit_length()
    if k <= _FEW_PICKS:  # the picks so far are looked up in the result (building a set costs more)
        for i in range(k):
            j = _GETRANDBITS(rng, bits)
            while j >= n or _among(result, i, j):
                j = _GETRANDBITS(rng, bits)
            result[i] = j
        return result
    selected: set[int] = set()
    for i in range(k):
        j = _GETRANDBITS(rng, bits)
        while j >= n or j in selected:
            j = _GETRANDBITS(rng, bits)
        selected.add(j)
        result[i] = j
    return result

