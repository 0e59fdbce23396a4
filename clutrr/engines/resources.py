"""How many workers a run may start, checked before any starts.

A run gets at most one worker per CPU this process may use, unless the user confirms more
(``--oversubscribe``), never more workers than tasks, and never more than the memory
available can hold (:data:`WORKER_MEMORY` each).
"""
from __future__ import annotations

import os

from clutrr.errors import UsageError

# bytes per local worker: a forked worker holds about 20 MiB of its own (default bank), and up to 64 MiB of
# a cut shard's piece while its place in the shard's files is not known (clutrr.pipeline.joins.PIECE_BUFFER)
WORKER_MEMORY = 96 << 20


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def available_memory() -> int | None:
    """Bytes of memory available for new processes (Linux ``MemAvailable``), or None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def capped_workers(asked: int, oversubscribe: bool = False) -> int:
    """``asked`` lowered to the usable CPUs unless ``oversubscribe``; UsageError when below 1."""
    if asked < 1:
        raise UsageError(f"--workers must be at least 1, got {asked}")
    return asked if oversubscribe else min(asked, usable_cpus())


def check_memory(workers: int) -> None:
    """UsageError when ``workers`` local processes would not fit in the memory available."""
    free = available_memory()
    if workers > 1 and free is not None and workers * WORKER_MEMORY > free:
        most = max(1, free // WORKER_MEMORY)
        raise UsageError(f"{workers} workers need about {workers * WORKER_MEMORY / 2**30:.1f} GiB "
                         f"({WORKER_MEMORY >> 20} MiB each) but {free / 2**30:.1f} GiB is available; "
                         f"use at most {most} workers")
