"""Locate the data folders (``kb_rules/``, ``paraphrases/``) in a checkout or an installed wheel,
and the user cache folder (``$CLUTRR_CACHE_DIR``, else ``$XDG_CACHE_HOME/clutrr``, else
``~/.cache/clutrr``), whose files are read only when :func:`trusted`."""
from __future__ import annotations

import os
import stat
import warnings
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``name``: inside the package when installed from a wheel, else beside it."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"data folder {name!r} is missing from the installation")


def cache_dir() -> Path:
    """The folder of cached flags and banks (it may not exist yet)."""
    if os.environ.get("CLUTRR_CACHE_DIR"):
        return Path(os.environ["CLUTRR_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "clutrr"


def trusted(path: Path) -> bool:
    """Whether cache file ``path`` exists, is a regular file owned by this user, and is not
    writable by group or others; a file that exists but fails is reported once (a warning)."""
    try:
        st = path.stat()
    except OSError:
        return False
    getuid = getattr(os, "getuid", None)
    mine = getuid is None or st.st_uid == getuid()
    if stat.S_ISREG(st.st_mode) and mine and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return True
    warnings.warn(f"ignoring cache file {path}: it is not a private file of this user", stacklevel=2)
    return False
