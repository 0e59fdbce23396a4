"""The family and relation modules load numpy only in the functions that use it: building a
family, its relations and their closure check never imports it (the numpy arrays are a view
asked for by name: ``Family.masks``, ``relation_masks``, ``window_family``)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

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


LATE_NUMPY = """
import os, random, sys
from clutrr.cli import numpy_on_one_blas_thread
numpy_on_one_blas_thread()
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.kb import load_kb
family = sample_family(FamilyConfig(), load_kb("kinship"), random.Random(1))
print("numpy" in sys.modules)
family.masks  # numpy loads here, deep in a library call
import numpy
print("numpy" in sys.modules, len(os.listdir("/proc/self/task")), "OPENBLAS_NUM_THREADS" in os.environ,
      type(numpy.__loader__).__name__, numpy.__spec__.loader is numpy.__loader__)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or len(os.sched_getaffinity(0)) < 2,
                    reason="counts OpenBLAS threads in /proc; needs two CPUs for OpenBLAS to start any")
def test_numpy_loaded_late_still_runs_on_one_blas_thread():
    """After ``numpy_on_one_blas_thread`` (generate's start-up), whichever call first imports numpy
    loads it with OpenBLAS on this one thread; the environment is as it was, and numpy keeps its
    own loader."""
    import numpy

    if "openblas" not in str(numpy.show_config(mode="dicts")).lower():
        pytest.skip("numpy is not built with OpenBLAS")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                                            "OMP_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", LATE_NUMPY], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(REPO)}, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["False", "True 1 False SourceFileLoader True"]
