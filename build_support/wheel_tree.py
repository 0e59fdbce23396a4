"""Build this checkout's wheel, compiled or pure, and unpack it into a folder to run it from.

``PYTHONPATH=FOLDER python -P -m clutrr.cli ...`` then runs that build with the calling
environment's dependencies (tests/test_compiled.py, benchmarks/bench_generate.py). ``-P``
matters: ``python -m`` otherwise puts the working directory first on ``sys.path``, so a run
started in the checkout imports the checkout's sources, not the wheel's compiled modules.
"""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class WheelBuildError(RuntimeError):
    """pip could not build the wheel; ``output`` is what it printed."""

    def __init__(self, output: str) -> None:
        super().__init__(output.strip()[-2000:])
        self.output = output


def unpacked_wheel(dest: Path, pure: bool, timeout: float = 1200) -> tuple[Path, list[str]]:
    """Build the wheel (``pure``: with CLUTRR_PURE=1) into ``dest`` and unpack it into
    ``dest/tree``, byte-compiled as pip installs it (:func:`byte_compile`); returns that
    folder and the backend's own lines ("clutrr build: ...")."""
    env = {k: v for k, v in os.environ.items() if k not in ("CLUTRR_PURE", "PYTHONPATH")}
    if pure:
        env["CLUTRR_PURE"] = "1"
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-v", "-w", str(dest)],
                          capture_output=True, text=True, timeout=timeout, env=env)
    output = done.stdout + done.stderr
    if done.returncode != 0:
        raise WheelBuildError(output)
    said = [line.strip() for line in output.splitlines() if "clutrr build:" in line or ": error:" in line]
    wheel = next(dest.glob("clutrr-*.whl"))
    tree = dest / "tree"
    zipfile.ZipFile(wheel).extractall(tree)
    byte_compile(tree, timeout)
    return tree, said


def byte_compile(tree: Path, timeout: float = 600) -> None:
    """Write the ``__pycache__`` files of every module under ``tree``, as pip does at install
    time: a run from the folder then starts as an installed package does, not compiling each
    module's source first (which it would on every run where PYTHONDONTWRITEBYTECODE is set)."""
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", str(tree)], capture_output=True, text=True,
                          timeout=timeout)
    if done.returncode != 0:
        raise WheelBuildError(done.stdout + done.stderr)


def is_compiled(tree: Path) -> bool:
    """Whether the unpacked wheel holds compiled extension modules."""
    return any((tree / "clutrr").rglob("*.so")) or any((tree / "clutrr").rglob("*.pyd"))


def tree_python(tree: Path | str) -> list[str]:
    """The command that runs this Python with the unpacked wheel ``tree`` first on ``sys.path``
    (and not the working directory: ``-P``), whatever folder it is started in."""
    return ["env", f"PYTHONPATH={tree}", sys.executable, "-P"]


def running_build(tree: Path | str) -> str:
    """What ``clutrr --version`` run from ``tree`` says it is: "compiled" or "pure Python"."""
    done = subprocess.run([*tree_python(tree), "-m", "clutrr.cli", "--version"], capture_output=True, text=True,
                          timeout=120)
    return done.stdout.strip().rpartition("(")[2].rstrip(")")
