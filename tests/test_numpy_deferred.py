"""The family and relation modules load numpy only in the functions that use it: building a
family, its relations and their closure check never imports it (the numpy arrays are a view
asked for by name: ``Family.masks``, ``relation_masks``, ``window_family``)."""
from __future__ import annotations

import os
import subprocess
import sys

from helpers import REPO

BUILD_WITHOUT_NUMPY = """
import random, sys
from clutrr.core.closed_among import closed_among
from clutrr.core.entailment import chain_entailment
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.kb import load_kb
from clutrr.core.large_family import draw_family
from clutrr.core.soundness import check_sound
kb = load_kb("kinship")
check_sound(kb)
family = draw_family(FamilyConfig(), kb, random.Random(3))
print(closed_among(kb, family, list(range(family.size))), chain_entailment(kb, [0, 0]) > 0, "numpy" in sys.modules)
family.masks
print("numpy" in sys.modules)
"""


def test_families_relations_and_their_check_need_no_numpy():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", BUILD_WITHOUT_NUMPY], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True", "False", "True"]
