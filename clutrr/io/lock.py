"""One run at a time per output folder: a lock file ``.NAME.lock`` beside the folder.

A run takes the lock (``flock``, held by the kernel for the open file) before it checks the
output folder and keeps it until the folder is in place; a second run into the same folder
stops at once, naming the first one's process. The lock dies with its process whatever
ends it (SIGKILL too), so a lock file left by a killed run is simply taken by the next.
"""
from __future__ import annotations

import atexit
import fcntl
import os
from pathlib import Path

from clutrr.errors import UsageError

_HELD: dict[Path, int] = {}  # lock file -> open descriptor, for the folders this process writes


def lock_path(real: Path) -> Path:
    """The lock file of output folder ``real``."""
    return real.with_name(f".{real.name}.lock")


def lock_output(real: Path, shown: str | Path | None = None) -> None:
    """Take the lock of output folder ``real`` (a no-op when this process holds it already);
    UsageError naming the process that holds it. The parent folder must exist."""
    path = lock_path(real)
    if path in _HELD:
        return
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            return  # a folder we cannot write into: the staging folder's creation says why
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "?"
            os.close(fd)
            raise UsageError(f"{shown or real} is being written by another run (process {holder}); wait for it to "
                             "end or choose another output folder") from None
        except OSError:  # a file system without locks
            os.close(fd)
            return
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:  # the holder removed it just before we locked it: take the new one
            same = False
        if same:
            break
        os.close(fd)
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _HELD[path] = fd


def unlock_output(real: Path) -> None:
    """Remove and release the lock of ``real`` if this process holds it."""
    fd = _HELD.pop(lock_path(real), None)
    if fd is not None:
        lock_path(real).unlink(missing_ok=True)
        os.close(fd)


def unlock_all() -> None:
    """Release every lock this process holds (at the end of a command, and at exit)."""
    for path in list(_HELD):
        unlock_output(path.with_name(path.name[1:-len(".lock")]))


atexit.register(unlock_all)
