"""Atomic output folders: write into a hidden staging folder beside the target, then move.

Both the dataset writer (which replaces the whole target) and the diagnostics (which add
their files to it) stage here, so a failure leaves nothing behind.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

from clutrr.errors import UsageError

PARTIAL_STAMP = "fingerprint.json"


def _cannot_write(parent: Path, exc: OSError) -> UsageError:
    """The error for a folder we cannot write into, with the real reason."""
    reason = exc.strerror
    if exc.errno == errno.ENOENT and parent.is_dir():  # e.g. /proc: it exists but takes no new entries
        reason = "the folder exists but its file system does not accept new files"
    return UsageError(f"cannot write to {parent}: {reason}")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def staging_dir(target: Path, force: bool) -> Path:
    """Check that ``target`` may be written and create a staging folder beside it.

    The folder gets the mode a plain ``mkdir`` would give (the user's umask), not the
    private 0700 of a temporary folder, since it becomes the output. Raises UsageError when
    the target is a file, is a non-empty folder without ``force``, or its parent cannot be
    written.
    """
    parent = _check_target(target, force)
    try:
        path = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=parent))
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    path.chmod(0o777 & ~_umask())
    return path


def partial_dir(target: Path, force: bool, fingerprint: dict) -> Path:
    """The persistent work folder ``.NAME.partial`` beside ``target`` (for ``--resume`` and ``--shard``).

    It records ``fingerprint`` (what shapes the data); a folder left by a run with other
    arguments is refused with UsageError, as for :func:`staging_dir`'s checks.
    """
    parent = _check_target(target, force)
    path = parent / f".{target.name}.partial"
    stamp = path / PARTIAL_STAMP
    text = json.dumps(fingerprint, sort_keys=True) + "\n"
    try:
        path.mkdir(exist_ok=True)
        if not stamp.exists():
            stamp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    if stamp.read_text(encoding="utf-8") != text:
        raise UsageError(f"{path} holds shards of a run with other arguments; remove it or use the same arguments")
    return path


def check_output(target: Path, force: bool) -> None:
    """UsageError unless ``target`` may become an output folder: absent, an empty folder, or ``force``."""
    if target.exists() and not target.is_dir():
        raise UsageError(f"output path {target} exists and is not a directory")
    if target.is_dir() and any(target.iterdir()) and not force:
        raise UsageError(f"output directory {target} exists and is not empty (use --force)")


def _check_target(target: Path, force: bool) -> Path:
    """The parent folder of ``target`` (created), after checking the target may be written."""
    check_output(target, force)
    parent = target.parent if str(target.parent) else Path(".")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    return parent


def replace_dir(staged: Path, target: Path) -> None:
    """Put ``staged`` in the place of ``target``, removing whatever ``target`` held."""
    backup = None
    if target.exists():
        backup = target.with_name(f".{target.name}.old-{os.getpid()}")
        target.rename(backup)
    staged.rename(target)
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)


class StagedDir:
    """Stage output files, then move them into ``target`` (kept files of other names stay).

    Use as a context manager: on an exception the staging folder is removed and ``target``
    is left untouched.
    """

    def __init__(self, target: str | Path, force: bool = False) -> None:
        self.target = Path(target)
        self.path = staging_dir(self.target, force)

    def __enter__(self) -> "StagedDir":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        shutil.rmtree(self.path, ignore_errors=True)

    def file(self, name: str) -> Path:
        """The staging path of output file ``name``."""
        return self.path / name

    def commit(self) -> None:
        """Move the staged files into the target folder (each move is atomic)."""
        if not self.target.exists():
            os.replace(self.path, self.target)
            return
        for item in sorted(self.path.iterdir()):
            os.replace(item, self.target / item.name)
