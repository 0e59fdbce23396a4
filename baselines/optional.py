"""The baselines' optional dependencies: one clear error when PyTorch or torch_geometric is missing."""
from __future__ import annotations

import importlib.util
import sys

from clutrr.errors import UsageError

TORCH_HINT = ("the baselines need PyTorch and torch_geometric: pip install torch==2.13.0 "
              "'clutrr[baselines]' (torch first, for its CPU build)")


def require_torch(main: bool = False) -> None:
    """Raise UsageError naming the install command when torch or torch_geometric is missing.

    With ``main`` (a module run as a script) print that one line and exit with code 2 instead.
    """
    try:
        import torch  # noqa: F401

        found = importlib.util.find_spec("torch_geometric") is not None
    except (ImportError, ValueError):
        found = False
    if found:
        return
    if main:
        sys.stderr.write(f"error: {TORCH_HINT}\n")
        raise SystemExit(2)
    raise UsageError(TORCH_HINT)
