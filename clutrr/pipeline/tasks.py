"""The work of one task, run by an engine's worker: generate and encode rows of one logical file.

A :class:`~clutrr.io.rows.Task` names a file and positions in it; :func:`run_task` builds
each row's story and returns a :class:`~clutrr.io.rows.TaskResult` of finished rows. The
context every task shares (:class:`TaskContext`) is small and shipped with each task.
"""
from __future__ import annotations

import gc
from collections import Counter
from dataclasses import dataclass
from typing import cast

from clutrr.story.generator import GenerationError, GeneratorConfig, banks, make_example, pattern_heldout
from clutrr.story.long_context import context_counts
from clutrr.core.kb import load_kb
from clutrr.core.native import mypyc_attr
from clutrr.frozen import freezes_kept
from clutrr.io.rows import Task, TaskResult, example_lines, story_hash
from clutrr.io.shards import LogicalFile
from clutrr.render.measures import TextTally


@mypyc_attr(native_class=False)  # pickled to the workers
@dataclass(frozen=True)
class TaskContext:
    """What every task needs besides its positions; small, shipped with each task."""

    config: GeneratorConfig
    seed: int
    files: tuple[LogicalFile, ...]
    formats: tuple[str, ...]
    work: str = ""  # the location of the run's work store (a folder or URL), where workers write
    join_in_place: bool = False  # cut shards' CSV and JSONL go into the shard's files (clutrr.pipeline.joins)


@mypyc_attr(native_class=False)
class RowFailure(Exception):
    """A row could not be generated; carries (k, noise, split) for the error message."""

    def __init__(self, k: int, noise: str, split: str) -> None:
        super().__init__(k, noise, split)
        self.k, self.noise, self.split = k, noise, split


def prepare(ctx: TaskContext) -> None:
    """Load what the generator caches per process (KB, template banks) once."""
    load_kb(ctx.config.kb)
    banks(ctx.config, ctx.seed)


def kinship(ctx: TaskContext) -> bool:
    """Whether the run's stories speak a kinship system's terms (their files add its columns)."""
    return bool(load_kb(ctx.config.kb).system)


# The cyclic collector's first threshold while a task runs: a story allocates thousands of
# containers that its own reference counts free; at the default (700) the collector walked
# each story's live objects several times over.
ROWS_COLLECT_EVERY = 100_000


def run_task(ctx: TaskContext, task: Task) -> TaskResult:
    """Generate and encode the task's rows. Raises RowFailure when a row cannot be built.

    The cyclic collector runs less often meanwhile (:data:`ROWS_COLLECT_EVERY`). In a process
    that freezes what it keeps (marked by :func:`clutrr.frozen.freeze_kept`: the CLI's, an
    engine's worker) what a finished task leaves is frozen too: the generator's caches, which
    the collector's passes went through again and again otherwise. Stories make no reference
    cycles, so freezing holds back no garbage.
    """
    thresholds = gc.get_threshold()
    gc.set_threshold(ROWS_COLLECT_EVERY, thresholds[1], thresholds[2])
    try:
        out = _run_task(ctx, task)
    finally:
        gc.set_threshold(*thresholds)
    if freezes_kept():
        gc.freeze()
    return out



def _run_task(ctx: TaskContext, task: Task) -> TaskResult:
    """The rows of :func:`run_task`."""
    f = ctx.files[task.file]
    out = TaskResult(task)
    tally = None  # made after the first example, so a bad KB is reported as such
    padded: dict = {}  # counts of the padded stories' context records
    attempts = task.attempts or (0,) * len(task.positions)
    config, seed, noise, split = ctx.config, ctx.seed, f.noise, f.split
    csv, jsonl, parquet = (fmt in ctx.formats for fmt in ("csv", "jsonl", "parquet"))
    targets: list[str] = []
    patterns: list[tuple[str, int]] = []
    csv_lines, jsonl_lines, records, hashes = out.csv, out.jsonl, out.records, out.hashes
    padding = bool(config.context_words)
    heldout = 0
    ks, per_k = f.ks, f.rows_per_k  # a row's (k, index), as LogicalFile.example_of gives it, without a Python call
    for pos, attempt in zip(task.positions, attempts):
        k, index = ks[pos // per_k], pos % per_k
        try:
            ex = make_example(config, k, noise, seed, index, split, attempt)
        except GenerationError:
            raise RowFailure(k, noise, split) from None
        if csv or jsonl:
            json_bytes, csv_bytes = example_lines(ex, jsonl, pos if csv else None)
            if csv_bytes is not None:
                csv_lines.append(csv_bytes)
            if json_bytes is not None:
                jsonl_lines.append(json_bytes)
        if parquet:
            records.append(ex.record)
        story = ex.story
        hashes.append(story_hash(story))
        if tally is None:
            tally = TextTally(banks(config, seed))
        tally.add_story(split, k, ex.pieces, ex.chain_words, ex.chain_heads, story, ex.names)
        if padding:
            add_counts(padded, context_counts(cast(dict, ex.context)))
        targets.append(ex.target)
        patterns.append((ex.pattern, k))
        heldout += ex.heldout
    out.heldout = heldout
    out.labels.update(targets)
    for (pattern, k), n in Counter(patterns).items():
        out.patterns[pattern] += n
        # checked independently of the generator's own flag
        out.heldout_in_train += n * (split == "train" and pattern_heldout(pattern, k, seed, config.holdout))
    out.text = {**(tally.counts() if tally else {}), **padded}
    return out


def add_counts(total: dict, counts: dict, sign: int = 1) -> None:
    """Add ``sign`` times ``counts`` (from :meth:`TextTally.counts`, possibly read back from JSON) to ``total``."""
    for name, value in counts.items():
        if isinstance(value, dict):
            into = total.setdefault(name, {})
            for key, n in value.items():
                key = int(key) if isinstance(key, str) and key.isdigit() else key
                into[key] = into.get(key, 0) + sign * n
        else:
            total[name] = total.get(name, 0) + sign * value


def text_measures(counts: dict) -> dict:
    """The text measures of ``config.json`` from summed tally counts."""
    tally = TextTally({})
    tally.take(counts)
    return tally.summary()
