"""Local worker processes (the default engine), or the calling process for one worker.

On Linux the workers are forked: the parent loads the KB and templates once (``prepare``)
and every worker starts with them already in memory, in milliseconds. Elsewhere (where
forking a process that has imported numpy is not safe) they are spawned and each loads
them itself. A worker that dies breaks the pool; the engine then starts a new pool and
resubmits the tasks in flight, so the parent never waits forever; so it does when the
workers made no progress for ``stall`` seconds (no task finished and, on Linux, no worker
used any CPU time: a worker stopped by SIGSTOP, frozen or swapped out), after killing the
workers (SIGKILL ends a stopped process too). Workers ignore Ctrl-C
and take the default action on SIGTERM: the parent alone handles both and terminates
them, so no worker prints a traceback. Workers run as batch jobs (:func:`as_batch`). Workers
die with their parent, however it ends
(SIGKILL, the out-of-memory killer): on Linux the kernel sends them SIGKILL
(``PR_SET_PDEATHSIG``), elsewhere a watchdog thread notices the parent is gone.
"""
from __future__ import annotations

import contextlib
import ctypes
import gc
import os
import signal
import sys
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from clutrr.engines.base import STALL_SECONDS, Engine, EngineError, window
from clutrr.engines.resources import check_memory
from clutrr.frozen import freeze_kept

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1
_CAN_HOLD = hasattr(signal, "pthread_sigmask")  # POSIX
_HELD = {signal.SIGINT, signal.SIGTERM}  # signals a worker is born with blocked, until it has its own handlers
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None  # loaded before any fork
WATCHDOG_PERIOD = 0.5  # seconds between a watchdog's looks at the parent (where PR_SET_PDEATHSIG is missing)


def start_method() -> str:
    """``fork`` on Linux (workers inherit what the parent loaded), ``spawn`` elsewhere."""
    return "fork" if sys.platform.startswith("linux") else "spawn"


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_PERIOD)
    os._exit(1)


def die_with_parent(parent: int) -> None:
    """Make this process end when process ``parent`` (its parent) ends, even by SIGKILL."""
    done = False
    if _LIBC is not None:
        try:
            done = _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL) == 0
        except AttributeError:  # pragma: no cover - a libc without prctl
            done = False
    if not done:  # pragma: no cover - macOS, Windows
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def _init_worker(prepare: Callable[[Any], None] | None, context: Any, parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the parent's handler
    if _CAN_HOLD:  # a Ctrl-C held back since birth is dropped, a SIGTERM ends the worker now
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)
    die_with_parent(parent)
    as_batch()
    if prepare is not None:
        load_and_freeze(prepare, context)  # a no-op after a fork: the parent's caches came along


def as_batch() -> None:
    """Schedule this process as a batch job where the OS can (Linux ``SCHED_BATCH``): it is not
    preempted when another process wakes, so the parent's short turns (joining the pieces it
    gets back) do not cut a worker's turn in the middle and cool its caches."""
    try:
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):  # pragma: no cover - no such policy here, or not allowed
        pass


def load_and_freeze(prepare: Callable[[Any], None], context: Any) -> None:
    """Run ``prepare`` with the cyclic collector paused, then freeze what it loaded: KB and template
    banks, tens of thousands of objects that live as long as the process. Left on, the collector
    would go through them again and again while they load (most of the 0.1 CPU-s it took in a
    generate run's start), and after that at every full pass (and, in a forked worker, copy their
    memory pages by touching them)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        prepare(context)
    finally:
        if enabled:
            gc.enable()
    freeze_kept()


def _idle() -> None:
    """A task that only makes the pool start a worker."""


class LocalEngine(Engine):
    """``workers`` processes on this machine; ``workers == 1`` runs tasks in this process."""

    name = "local"
    local_files = True

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = 3,
                 prepare: Callable[[Any], None] | None = None, stall: float = STALL_SECONDS) -> None:
        super().__init__(workers, address, max_retries, prepare, stall)
        check_memory(workers)
        self._pool: ProcessPoolExecutor | None = None
        self._progress = time.monotonic()  # when a task last finished (or the pool started)

    def describe(self) -> str:
        return "1 process" if self.workers == 1 else f"{self.workers} local processes"

    def _new_pool(self, context: Any) -> None:
        """Start the workers as ``self._pool``. Children are born with Ctrl-C and SIGTERM held
        back (blocked until the initializer has set their own handlers), so one during their
        start-up cannot make them print a traceback; this process holds them back too until
        the pool is stored, then takes them (a signal is never lost, and the pool is there
        for ``close``)."""
        import multiprocessing as mp  # imported here: one worker (the default) needs neither
        from concurrent.futures import ProcessPoolExecutor

        method = start_method()
        if method == "fork" and self.prepare is not None:
            load_and_freeze(self.prepare, context)  # the workers start with it loaded
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD) if _CAN_HOLD else None
        try:
            pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context(method),
                                       initializer=_init_worker, initargs=(self.prepare, context, os.getpid()))
            self._pool = pool
            for _ in range(self.workers):  # processes are spawned on demand: ask for all of them now
                pool.submit(_idle)
        finally:
            if held is not None:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)

    def start(self, context: Any) -> None:
        if self.workers > 1 and self._pool is None:
            self._new_pool(context)
        elif self.workers == 1 and self.prepare is not None:  # as a forked worker does
            load_and_freeze(self.prepare, context)

    def imap(self, fn: Callable[[Any, Any], Any], context: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        if self.workers == 1:
            for task in tasks:
                yield fn(context, task)
            return
        from concurrent.futures import TimeoutError as FutureTimeout
        from concurrent.futures.process import BrokenProcessPool

        tries: dict[int, int] = {}
        todo = enumerate(tasks)
        pending: deque = deque()  # (sequence number, task, future)
        try:
            if self._pool is None:  # the initializer's context only warms caches; tasks carry their own
                self._new_pool(context)
            self._progress, last_cpu = time.monotonic(), None
            while True:
                while len(pending) < window(self.workers):
                    item = next(todo, None)
                    if item is None:
                        break
                    pending.append((*item, self._submit(fn, context, item[1])))
                if not pending:
                    return
                try:
                    result = pending[0][2].result(timeout=max(0.05, self._progress + self.stall - time.monotonic()))
                except BrokenProcessPool:
                    self._restart(fn, context, pending, tries)
                    continue
                except FutureTimeout:
                    cpu = self._cpu_ticks()
                    if cpu != last_cpu:
                        last_cpu, self._progress = cpu, time.monotonic()
                    elif time.monotonic() - self._progress >= self.stall:
                        self._stalled(fn, context, pending, tries)
                    continue
                pending.popleft()
                yield result
        except GeneratorExit:  # the caller stopped early: drop what it will not read, keep the workers
            for _, _, future in pending:
                future.cancel()
            raise
        except BaseException:
            self.close()
            raise

    def _submit(self, fn: Callable[[Any, Any], Any], context: Any, task: Any):
        """Submit one task; its end counts as progress."""
        future = self._pool.submit(fn, context, task)
        future.add_done_callback(self._progressed)
        return future

    def _cpu_ticks(self) -> int | None:
        """The CPU time the workers used so far, in clock ticks (None where /proc is missing)."""
        total = 0
        for proc in list(getattr(self._pool, "_processes", {}).values()):
            try:
                with open(f"/proc/{proc.pid}/stat", "rb") as fh:
                    fields = fh.read().rpartition(b")")[2].split()
            except OSError:
                return None
            total += int(fields[11]) + int(fields[12])  # utime, stime
        return total

    def _progressed(self, future) -> None:
        if not future.cancelled() and future.exception() is None:
            self._progress = time.monotonic()

    def _stalled(self, fn: Callable[[Any, Any], Any], context: Any, pending: deque, tries: dict[int, int]) -> None:
        """No task finished for ``stall`` seconds: kill the workers, then run their tasks again."""
        for proc in list(getattr(self._pool, "_processes", {}).values()):
            if proc.is_alive():
                proc.kill()
        print(f"note: no task finished for {self.stall:g} s (a worker stopped, frozen or swapped out?): the workers "
              "were killed and their tasks are run again", file=sys.stderr)
        self._restart(fn, context, pending, tries, f"the workers made no progress for {self.stall:g} s",
                      " (--stall-timeout sets this deadline)")

    def _restart(self, fn: Callable[[Any, Any], Any], context: Any, pending: deque, tries: dict[int, int],
                 what: str = "a worker process died", hint: str = "") -> None:
        """A worker died (or stalled): count a try for every task in flight, then resubmit them to a new pool."""
        for seq, _, _ in pending:
            tries[seq] = tries.get(seq, 0) + 1
            if tries[seq] > self.max_retries:
                raise EngineError(f"{what} {tries[seq]} times while task {seq} was running{hint}")
        self.close()
        self._new_pool(context)
        self._progress = time.monotonic()
        old = list(pending)
        pending.clear()
        pending.extend((seq, task, self._submit(fn, context, task)) for seq, task, _ in old)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)  # shutdown drops the queue
        manager = getattr(pool, "_executor_manager_thread", None)  # ... and the thread
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:  # running tasks are not waited for
            if proc.is_alive():
                proc.terminate()
                with contextlib.suppress(OSError):  # a stopped worker acts on SIGTERM only once continued
                    os.kill(proc.pid, signal.SIGCONT)
        for proc in processes:
            proc.join(5)
        # A worker stopped while sending its result leaves half a message in the result pipe,
        # and the pool's reader thread would wait for the rest forever (and the interpreter
        # for that thread at exit). The workers are gone: closing this process's own write
        # end of the pipe gives the reader an end of file instead.
        if writer is not None:
            writer.close()
        # The pool's manager thread ends once its workers are gone. Waited for here, it is not
        # still ending when the interpreter exits: CPython 3.11 then wakes every such thread
        # without a lock, and a wake-up racing the thread's own close failed with EBADF (a
        # traceback on stderr after the run's one-line error, seen once in CI).
        if manager is not None:
            manager.join(5)
