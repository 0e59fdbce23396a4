"""benchmarks/bench_generate.py refuses a count below 1 in one line, before any work starts."""
from __future__ import annotations

import subprocess
import sys

import pytest

from helpers import REPO

SCRIPT = REPO / "benchmarks" / "bench_generate.py"


@pytest.mark.parametrize("flag, value, problem", [
    ("--parallel-rounds", "0", "argument --parallel-rounds: must be at least 1, got 0"),
    ("--builds-repeats", "-2", "argument --builds-repeats: must be at least 1, got -2"),
    ("--rows", "ten", "argument --rows: expected a whole number, got 'ten'"),
    ("--big", "0", "argument --big: must be at least 1, got 0"),
])
def test_a_count_below_one_is_one_line_and_exit_2(flag, value, problem):
    done = subprocess.run([sys.executable, str(SCRIPT), flag, value], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == f"bench_generate.py: error: {problem}\n"
    assert done.stdout == ""
