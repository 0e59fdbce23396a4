"""A quick check that a rules file marked ``sound: true`` deserves it, before generating.

The built-in KBs are proved sound against every world of the test suite
(``tests/test_kb_soundness.py``). A user's rules file is checked here, once per process, on
a few seeded families of five generations (on the default KB they expose every unsound
composition the suite's worlds do; a KB whose rules hold only in families of at most N generations,
as its ``generations`` key says, on families of N generations): every rule ``r1 . r2 -> r`` must hold for every x, y, z
of each, and every definition must compile. A rule that fails is named with a
counterexample, as one line, instead of a failed guarantee in the middle of a run.
"""
from __future__ import annotations

import random
from pathlib import Path

from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import compose
from clutrr.core.kb import BUILTIN, KB, KBError, resolve_kb_path

CHECK_FAMILIES = 12
CHECK_SHAPE = FamilyConfig(generations=5, min_children=1, max_children=3, p_marry=0.9)  # about 65 people each


_CHECKED: dict[int, KB] = {}  # id -> KB (kept, so the id is not reused)


def check_sound(kb: KB) -> None:
    """KBError naming the first rule of a KB marked sound that a sampled family contradicts
    (or a definition that does not compile); built-in KBs are not checked again."""
    if not kb.sound or id(kb) in _CHECKED:
        return
    if Path(kb.path) not in {resolve_kb_path(name) for name in BUILTIN}:
        _check(kb)
    _CHECKED[id(kb)] = kb  # a built-in one too: the next call for it is a lookup


def _check(kb: KB) -> None:
    import numpy as np

    names = [p.name for p in kb.predicates]
    try:
        shape = CHECK_SHAPE
        if kb.generations:  # rules proved only for families of that many generations are checked on those
            shape = FamilyConfig(generations=min(kb.generations, shape.generations), min_children=1, max_children=4,
                                 p_marry=0.9)
        families = [sample_family(shape, kb, random.Random(seed)) for seed in range(CHECK_FAMILIES)]
    except KBError as exc:
        raise KBError(f"{kb.path}: {exc}") from None
    for (a, b), c in sorted(kb.rules.items()):
        for family in families:
            masks = family.masks
            derived = compose(masks[a], masks[b])
            np.fill_diagonal(derived, False)
            wrong = np.argwhere(derived & ~masks[c])
            if len(wrong):
                x, z = (int(v) for v in wrong[0])
                y = int(np.flatnonzero(masks[a][x] & masks[b][:, z])[0])
                held = [names[p] for p in range(len(names)) if masks[p][x, z]] or ["no relation"]
                raise KBError(f"{kb.path}: marked sound, but rule '{names[a]} . {names[b]} -> {names[c]}' does not "
                              f"hold: in a sampled family y is x's {names[a]} and z is y's {names[b]}, yet z is x's "
                              f"{' and '.join(held)}; fix the rule, or mark the KB sound: false")
