"""Ray tasks, on a local Ray instance (``num_cpus`` = workers) or an existing cluster.

A task whose worker dies is retried by Ray (``max_retries``). If Ray is already initialised
in this process (a notebook, a test), that instance is used and left running. Before
connecting to a cluster, its address is checked to answer as a Ray head does (a gRPC
server) within ``connect_timeout`` seconds: Ray itself would retry for minutes, logging.
"""
from __future__ import annotations

import logging
import os
import socket
import time
from collections import deque
from typing import Any, Callable, Iterable, Iterator

from clutrr.engines.base import Engine, EngineError, set_worker_node, window
from clutrr.engines.resources import check_memory
from clutrr.errors import UsageError

try:
    import ray
except ImportError:  # pragma: no cover - depends on the environment
    ray = None


CONNECT_TIMEOUT = 10.0  # seconds for a Ray head to answer
_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])  # preface, empty SETTINGS
_SETTINGS = 4


def _host_port(address: str) -> tuple[str, int]:
    text = address.removeprefix("ray://")
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not host:
        raise UsageError(f"--address {address!r} is not HOST:PORT (or auto)")
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """UsageError unless a gRPC server, as a Ray head runs, answers at ``address`` (HOST:PORT)
    within ``timeout`` seconds; ``auto`` is left to Ray, which fails at once without a cluster."""
    if address == "auto":
        return
    host, port = _host_port(address)
    end = time.monotonic() + timeout
    reason = "it sent no HTTP/2 settings, as a Ray head does"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(max(0.01, end - time.monotonic()))
            sock.sendall(_HTTP2_HELLO)
            head = b""
            while len(head) < 9:
                chunk = sock.recv(9 - len(head))
                if not chunk:
                    break
                head += chunk
            if len(head) == 9 and head[3] == _SETTINGS:
                return
    except socket.timeout:
        reason = f"no answer within {timeout:g} s"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    raise UsageError(f"cannot reach a Ray cluster at {address}: {reason} (start one with `ray start --head`, "
                     f"or drop --address for a local Ray instance)")


def _call(fn: Callable[[Any, Any], Any], context: Any, task: Any) -> Any:
    set_worker_node(ray.get_runtime_context().get_node_id())  # recorded in what the task writes
    return fn(context, task)


class RayEngine(Engine):
    """Tasks on Ray; ``address`` names a running cluster (``auto`` or ``HOST:PORT``)."""

    name = "ray"

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = 3,
                 prepare: Callable[[Any], None] | None = None, connect_timeout: float = CONNECT_TIMEOUT) -> None:
        if ray is None:
            raise UsageError("--engine ray needs Ray: pip install 'clutrr[ray]'")
        super().__init__(workers, address, max_retries, prepare)
        self._owner = not ray.is_initialized()
        if self._owner:
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                       "logging_level": logging.WARNING}
            if address:
                check_reachable(address, connect_timeout)
                options["address"] = address
            else:
                check_memory(workers)
                options["num_cpus"] = workers
                # Token authentication is Ray's default for a local cluster; saying so explicitly keeps
                # it on without the warning Ray prints when the mode is left unset.
                os.environ.setdefault("RAY_AUTH_MODE", "token")
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
