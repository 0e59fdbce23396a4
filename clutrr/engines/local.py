"""Local worker processes (the default engine), or the calling process for one worker.

Workers are spawned once and load the KB and templates once (``prepare``). A worker that
dies breaks the pool; the engine then starts a new pool and resubmits the tasks in
flight, so the parent never waits forever. Workers ignore Ctrl-C: the parent alone handles
it and terminates them, so no worker prints a traceback.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable, Iterable, Iterator

from clutrr.engines.base import Engine, EngineError, window


def _init_worker(prepare: Callable[[Any], None] | None, context: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if prepare is not None:
        prepare(context)


def _idle() -> None:
    """A task that only makes the pool start a worker."""


class LocalEngine(Engine):
    """``workers`` processes on this machine; ``workers == 1`` runs tasks in this process."""

    name = "local"

    def __init__(self, workers: int = 1, address: str | None = None, max_retries: int = 3,
                 prepare: Callable[[Any], None] | None = None) -> None:
        super().__init__(workers, address, max_retries, prepare)
        self._pool: ProcessPoolExecutor | None = None

    def describe(self) -> str:
        return "1 process" if self.workers == 1 else f"{self.workers} local processes"

    def _new_pool(self, context: Any) -> ProcessPoolExecutor:
        # Children inherit an ignored SIGINT from birth (before the initializer runs), so a
        # Ctrl-C during their start-up cannot make them print a traceback.
        try:
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:  # not the main thread: the initializer alone ignores Ctrl-C
            previous = None
        try:
            pool = ProcessPoolExecutor(self.workers, mp_context=mp.get_context("spawn"),
                                       initializer=_init_worker, initargs=(self.prepare, context))
            for _ in range(self.workers):  # processes are spawned on demand: ask for all of them now
                pool.submit(_idle)
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        return pool

    def start(self, context: Any) -> None:
        if self.workers > 1 and self._pool is None:
            self._pool = self._new_pool(context)

    def imap(self, fn: Callable[[Any, Any], Any], context: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        if self.workers == 1:
            for task in tasks:
                yield fn(context, task)
            return
        tries: dict[int, int] = {}
        todo = enumerate(tasks)
        pending: deque = deque()  # (sequence number, task, future)
        try:
            if self._pool is None:  # the initializer's context only warms caches; tasks carry their own
                self._pool = self._new_pool(context)
            while True:
                while len(pending) < window(self.workers):
                    item = next(todo, None)
                    if item is None:
                        break
                    pending.append((*item, self._pool.submit(fn, context, item[1])))
                if not pending:
                    return
                try:
                    result = pending[0][2].result()
                except BrokenProcessPool:
                    self._restart(fn, context, pending, tries)
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

    def _restart(self, fn: Callable[[Any, Any], Any], context: Any, pending: deque, tries: dict[int, int]) -> None:
        """A worker died: count a try for every task in flight, then resubmit them to a new pool."""
        for seq, _, _ in pending:
            tries[seq] = tries.get(seq, 0) + 1
            if tries[seq] > self.max_retries:
                raise EngineError(f"a worker process died {tries[seq]} times while task {seq} was running")
        self.close()
        self._pool = self._new_pool(context)
        old = list(pending)
        pending.clear()
        pending.extend((seq, task, self._pool.submit(fn, context, task)) for seq, task, _ in old)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for proc in processes:  # running tasks are not waited for
            if proc.is_alive():
                proc.terminate()
        for proc in processes:
            proc.join(5)
