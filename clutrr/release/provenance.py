"""Which code built a release: the git commit of the checkout the package runs from, whether its
tracked files were unchanged, and the version tag at that commit (all None outside a checkout,
e.g. a package installed from a wheel, whose version alone then names the code)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import clutrr

GIT_SECONDS = 20


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              timeout=GIT_SECONDS)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def source_state(root: Path | None = None) -> dict:
    """``{"commit", "tree_clean", "tag"}`` of the checkout holding the package (or ``root``)."""
    root = root or Path(clutrr.__file__).resolve().parent.parent
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root.resolve():
        return {"commit": None, "tree_clean": None, "tag": None}
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": _git(root, "rev-parse", "HEAD"), "tree_clean": None if status is None else status == "",
            "tag": _git(root, "describe", "--tags", "--exact-match", "HEAD")}
