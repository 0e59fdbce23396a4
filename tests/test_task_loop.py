"""The task loop: its rows are those of the generator, and the collector's thresholds it
raises while it runs are back as they were after it, also when a row fails."""
from __future__ import annotations

import gc
import hashlib

import pytest

from clutrr import frozen
from clutrr.errors import UsageError
from clutrr.io.rows import Task, json_line, story_hash
from clutrr.io.shards import LogicalFile
from clutrr.pipeline import tasks
from clutrr.story.generator import GeneratorConfig, make_example


def _context(ks: tuple[int, ...] = (2, 3), rows_per_k: int = 6) -> tasks.TaskContext:
    files = (LogicalFile(0, "x_train", "train", "all", ks, rows_per_k, 0),)
    return tasks.TaskContext(GeneratorConfig(), 5, files, ("jsonl",))


def test_a_task_holds_the_generator_rows_and_leaves_the_thresholds():
    before = gc.get_threshold()
    out = tasks.run_task(_context(), Task(0, 0, range(12)))
    assert gc.get_threshold() == before
    examples = [make_example(GeneratorConfig(), k, "all", 5, i, "train") for k in (2, 3) for i in range(6)]
    assert out.jsonl == [json_line(ex.record) for ex in examples]
    assert out.hashes == [story_hash(ex.story) for ex in examples]


def test_the_collector_runs_less_often_during_a_task():
    ctx = _context((10,), 40)
    tasks.run_task(ctx, Task(0, 0, range(20)))  # the generator's caches are made
    passes = gc.get_stats()[0]["collections"]
    tasks.run_task(ctx, Task(0, 0, range(20, 40)))
    assert gc.get_stats()[0]["collections"] - passes <= 1  # at the default threshold (700): 5


def test_a_failed_row_leaves_the_thresholds():
    before = gc.get_threshold()
    with pytest.raises(UsageError):  # k=200 is refused
        tasks.run_task(_context((200,), 1), Task(0, 0, range(1)))
    assert gc.get_threshold() == before


def test_a_task_leaves_nothing_frozen_in_a_process_that_freezes_nothing(monkeypatch):
    monkeypatch.setattr(frozen, "_marked", False)
    count = gc.get_freeze_count()
    gc.unfreeze()
    try:
        tasks.run_task(_context(), Task(0, 0, range(2)))
        assert gc.get_freeze_count() == 0
    finally:
        if count:
            gc.freeze()


def test_a_process_that_freezes_gets_what_a_task_leaves_frozen(monkeypatch):
    monkeypatch.setattr(frozen, "_marked", False)
    count = gc.get_freeze_count()
    frozen.freeze_kept()
    assert frozen.freezes_kept()
    try:
        before = gc.get_freeze_count()
        out = tasks.run_task(_context(), Task(0, 0, range(2)))
        assert gc.get_freeze_count() > before  # the result's lists, at least
        assert not any(o is out.jsonl for o in gc.get_objects())  # frozen: out of the collected generations
    finally:
        if not count:
            gc.unfreeze()


def test_the_task_loop_never_counts_the_frozen_objects(monkeypatch):
    """Counting them walks every frozen object: once per task, a third of a long run's CPU time."""
    def walk():
        raise AssertionError("gc.get_freeze_count() called by the task loop")
    for marked in (False, True):
        monkeypatch.setattr(frozen, "_marked", marked)
        with monkeypatch.context() as m:
            m.setattr(gc, "get_freeze_count", walk)
            tasks.run_task(_context(), Task(0, 0, range(2)))


def test_stories_make_no_reference_cycles():
    """What freezing a task's leftovers relies on: a task leaves no garbage for the collector."""
    ctx = _context((2, 3, 10), 10)
    tasks.run_task(ctx, Task(0, 0, range(10)))
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        tasks.run_task(ctx, Task(0, 0, range(10, 30)))
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


def test_the_story_hash_is_blake2b_128_of_the_utf8_story():
    """Work stores of earlier runs hold these hashes: the key must not change with the code."""
    for story in ("", "[Ann] is [Bo]'s sister.", "é漢字😀" * 100):
        assert story_hash(story) == hashlib.blake2b(story.encode(), digest_size=16).digest()
    assert story_hash("a") != story_hash("b")
