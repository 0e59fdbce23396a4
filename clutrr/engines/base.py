"""The engine interface: map a function over tasks, results in order, retrying failures."""
from __future__ import annotations

import socket
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable, Iterator

MAX_RETRIES = 3
STALL_SECONDS = 600.0  # no task finished for this long: the workers are frozen (SIGSTOP, swapped out)
_NODE: list[str] = []  # set by an engine's worker wrapper (Ray: the node id)


def worker_node() -> str:
    """Where the calling worker runs: the engine's node id (Ray), else the host name."""
    return _NODE[0] if _NODE else socket.gethostname()


def set_worker_node(node: str) -> None:
    """Name this worker's node (an engine's worker wrapper calls it before running tasks)."""
    _NODE[:] = [node]


class EngineError(RuntimeError):
    """A task kept failing after its retries (a worker died each time)."""


class Engine(ABC):
    """Runs ``fn(context, task)`` for each task; subclasses decide where.

    ``workers`` is the number of parallel workers (for Ray on a cluster: ignored, the
    cluster decides). A task whose worker dies is run again, at most ``max_retries`` times;
    so is every task in flight when no task has finished for ``stall`` seconds (local engine).
    ``prepare(context)``, when given, may be run by a worker before its first task (to warm caches).
    ``local_files``: the workers run on the caller's machine, so the caller reads the files they
    write into a local folder as cheaply as they do (and may join them itself).
    Use as a context manager so workers are released.
    """

    name = "engine"
    local_files = False

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = MAX_RETRIES,
                 prepare: Callable[[Any], None] | None = None, stall: float = STALL_SECONDS) -> None:
        self.workers = workers
        self.stall = stall
        self.address = address
        self.max_retries = max_retries
        self.prepare = prepare

    @abstractmethod
    def imap(self, fn: Callable[[Any, Any], Any], context: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        """Yield ``fn(context, task)`` for each task, in the tasks' order."""

    def start(self, context: Any) -> None:
        """Start the workers now (they load what ``context`` needs while the caller prepares)."""

    def describe(self) -> str:
        """A short description for progress lines, e.g. ``2 local processes``."""
        return f"{self.name} ({self.workers} workers)"

    def close(self) -> None:
        """Release the workers."""

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def window(workers: int) -> int:
    """Tasks kept in flight: enough to keep every worker busy, few enough to bound memory."""
    return 2 * workers + 2
