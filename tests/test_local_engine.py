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
