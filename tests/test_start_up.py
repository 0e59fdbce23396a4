"""What ``clutrr generate`` pays once per run before its first story: only the modules it needs,
numpy on one OpenBLAS thread, and the collector kept off what start-up loads (docs/speed.md)."""
from __future__ import annotations

import gc
import os
import subprocess
import sys

import pytest

from clutrr.cli import main
from clutrr.frozen import freezes_kept
from helpers import REPO

NOT_NEEDED = ("numpy.ma", "concurrent.futures", "multiprocessing", "clutrr.render.bank_check", "clutrr.kinship.terminology",
              "ray")

RUN_GENERATE = """
import gc, os, runpy, sys
entry, out = sys.argv[1:]
args = ["--quiet", "--k", "2", "--train-rows", "4", "--test-k", "none", "--format", "jsonl", "--out", out]
sys.argv = ["clutrr", "generate", *args] if entry == "clutrr" else [entry, *args]
try:
    if entry == "clutrr":
        runpy.run_module("clutrr.cli", run_name="__main__")
    else:
        runpy.run_path(entry, run_name="__main__")
except SystemExit as exc:
    assert exc.code == 0, exc.code
print(sorted(m for m in {not_needed!r} if m in sys.modules))
print(gc.isenabled(), gc.get_freeze_count() > 20_000, len(os.listdir("/proc/self/task")), "OPENBLAS_NUM_THREADS" in os.environ)
"""


def _python(code: str, *args: str, **env: str) -> list[str]:
    """Run ``code`` in a fresh Python (this checkout first on sys.path); its output lines."""
    environ = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS",
                                                                "OMP_NUM_THREADS")}
    environ.update(PYTHONPATH=str(REPO), **env)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=environ,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
@pytest.mark.parametrize("entry", ["clutrr", str(REPO / "generate.py")], ids=["clutrr generate", "generate.py"])
def test_a_generate_run_loads_only_what_it_needs_and_freezes_it(tmp_path, entry):
    """``clutrr generate`` and ``python generate.py`` (what ``clutrr-generate`` runs) start alike."""
    modules, state = _python(RUN_GENERATE.format(not_needed=NOT_NEEDED), entry, str(tmp_path / "d"))
    assert modules == "[]"
    # the collector is back on, start-up's objects are frozen, numpy ran on this one thread, and
    # the environment is as it was (processes started later choose their own thread count)
    assert state == "True True 1 False"
    assert (tmp_path / "d" / "config.json").is_file()


COUNT_THREADS = """
import os, sys
from clutrr.cli import load_numpy_on_one_blas_thread
if sys.argv[1] == "one":
    load_numpy_on_one_blas_thread()
import numpy
print(len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/task") or len(os.sched_getaffinity(0)) < 2,
                    reason="counts OpenBLAS threads in /proc; needs two CPUs for OpenBLAS to start any")
def test_numpy_loads_on_one_blas_thread_unless_the_user_chose_a_count():
    import numpy

    if "openblas" not in str(numpy.show_config(mode="dicts")).lower():
        pytest.skip("numpy is not built with OpenBLAS")
    assert _python(COUNT_THREADS, "one") == ["1"]
    assert int(_python(COUNT_THREADS, "default")[0]) > 1  # what it saves: OpenBLAS's own pool
    assert _python(COUNT_THREADS, "one", OPENBLAS_NUM_THREADS="2") == ["2"]  # the user's choice stands


def test_import_clutrr_loads_neither_the_generator_nor_numpy():
    code = "import sys, clutrr; print(clutrr.BUILD, 'numpy' in sys.modules, clutrr.GeneratorConfig().kb)"
    assert _python(code) == ["pure Python False kinship"]


def test_main_called_with_arguments_leaves_the_collector_as_it_was(capsys):
    """A library call (tests, notebooks) is not a process start-up: nothing is frozen or paused."""
    frozen, marked = gc.get_freeze_count(), freezes_kept()
    with pytest.raises(SystemExit):
        main(["generate", "--k", "2", "--no-such-option"])
    # nothing frozen (objects frozen earlier in this process may have been freed meanwhile), no mark set
    assert gc.get_freeze_count() <= frozen and freezes_kept() == marked and gc.isenabled()
