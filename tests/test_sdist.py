"""The source distribution holds what a compiled build from it needs: every module mypyc compiles,
every C module's source, the build backend and the data folders. (A C source missing from it would
not fail an install from it: the build would fall back to a pure-Python wheel, silently slower.)"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from helpers import REPO

sys.path.insert(0, str(REPO / "build_support"))
from clutrr_build import C_MODULES, HOT  # noqa: E402


@pytest.fixture(scope="module")
def sdist_names(tmp_path_factory) -> set[str]:
    """The paths in the sdist built from this checkout's tracked files (a copy: the build writes
    its egg-info beside the sources), relative to the sdist's top folder."""
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, timeout=60)
    copy = tmp_path_factory.mktemp("checkout") / "clutrr"
    for name in tracked.stdout.decode().split("\0"):
        if name and (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, copy / name)
    out = tmp_path_factory.mktemp("sdist")
    done = subprocess.run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--skip-dependency-check", "--outdir", str(out),
                           str(copy)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    archive = next(out.glob("clutrr-*.tar.gz"))
    with tarfile.open(archive) as tar:
        return {name.partition("/")[2] for name in tar.getnames()}


def test_the_sdist_holds_every_compiled_module_and_c_source(sdist_names):
    missing = [path for path in (*HOT, *C_MODULES.values()) if path not in sdist_names]
    assert missing == []


def test_the_sdist_holds_the_backend_and_the_data(sdist_names):
    for path in ("pyproject.toml", "setup.py", "build_support/clutrr_build.py", "kb_rules/kinship.yaml",
                 "paraphrases/synthetic.yaml", "clutrr/core/data/names_male.txt"):
        assert path in sdist_names, path
