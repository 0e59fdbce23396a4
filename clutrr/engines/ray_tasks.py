"""Ray tasks, on a local Ray instance (``num_cpus`` = workers) or an existing cluster.

A task whose worker dies is retried by Ray (``max_retries``). If Ray is already initialised
in this process (a notebook, a test), that instance is used and left running.
"""
from __future__ import annotations

import logging
from collections import deque
from typing import Any, Callable, Iterable, Iterator

from clutrr.engines.base import Engine, EngineError, set_worker_node, window
from clutrr.errors import UsageError

try:
    import ray
except ImportError:  # pragma: no cover - depends on the environment
    ray = None


def _call(fn: Callable[[Any, Any], Any], context: Any, task: Any) -> Any:
    set_worker_node(ray.get_runtime_context().get_node_id())  # recorded in what the task writes
    return fn(context, task)


class RayEngine(Engine):
    """Tasks on Ray; ``address`` names a running cluster (``auto`` or ``HOST:PORT``)."""

    name = "ray"

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = 3,
                 prepare: Callable[[Any], None] | None = None) -> None:
        if ray is None:
            raise UsageError("--engine ray needs Ray: pip install 'clutrr[ray]'")
        super().__init__(workers, address, max_retries, prepare)
        self._owner = not ray.is_initialized()
        if self._owner:
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                       "logging_level": logging.WARNING}
            if address:
                options["address"] = address
            else:
                options["num_cpus"] = workers
            try:
                ray.init(**options)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise UsageError(f"cannot start or reach Ray{f' at {address}' if address else ''}: {exc}") from None
        self.workers = max(1, int(ray.cluster_resources().get("CPU", workers)))
        self._remote = ray.remote(max_retries=max_retries)(_call)

    def describe(self) -> str:
        return f"ray on {self.workers} CPUs"

    def imap(self, fn: Callable[[Any, Any], Any], context: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        fn_ref, ctx_ref = ray.put(fn), ray.put(context)
        todo = iter(tasks)
        pending: deque = deque()
        try:
            while True:
                while len(pending) < window(self.workers):
                    task = next(todo, None)
                    if task is None:
                        break
                    pending.append(self._remote.remote(fn_ref, ctx_ref, task))
                if not pending:
                    return
                try:
                    result = ray.get(pending[0])
                except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
                    raise EngineError(f"a Ray task failed after {self.max_retries} retries: {exc}") from None
                except ray.exceptions.RayTaskError as exc:
                    raise exc.as_instanceof_cause() from None
                pending.popleft()
                yield result
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)

    def close(self) -> None:
        if self._owner and ray.is_initialized():
            ray.shutdown()
        self._owner = False
