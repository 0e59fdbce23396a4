"""The local engine's workers: how the OS schedules them."""
from __future__ import annotations

import os

import pytest

from clutrr.engines.local import LocalEngine


def _policy(context, task) -> int:
    return os.sched_getscheduler(0)


@pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="no SCHED_BATCH on this OS")
def test_local_workers_run_as_batch_jobs_and_the_caller_does_not():
    with LocalEngine(workers=2) as engine:
        assert set(engine.imap(_policy, None, range(4))) == {os.SCHED_BATCH}
    assert os.sched_getscheduler(0) != os.SCHED_BATCH


def test_closing_the_engine_waits_for_the_pools_manager_thread():
    """The thread must not be still ending at the interpreter's exit, where CPython 3.11 wakes
    it without a lock (a wake-up racing its close printed an EBADF traceback once)."""
    engine = LocalEngine(workers=2)
    assert sorted(engine.imap(_policy, None, range(2)))
    manager = engine._pool._executor_manager_thread
    assert manager.is_alive()
    engine.close()
    assert not manager.is_alive()
