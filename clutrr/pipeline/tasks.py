"""The work of one task, run by an engine's worker: generate and encode rows of one logical file.

A :class:`~clutrr.io.rows.Task` names a file and positions in it; :func:`run_task` builds
each row's story and returns a :class:`~clutrr.io.rows.TaskResult` of finished rows. The
context every task shares (:class:`TaskContext`) is small and shipped with each task.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import cast

from clutrr.story.generator import GenerationError, GeneratorConfig, banks, make_example, pattern_heldout
from clutrr.story.long_context import context_counts
from clutrr.core.kb import load_kb
from clutrr.core.native import mypyc_attr
from clutrr.io.csv_format import csv_line, row_fields
from clutrr.io.rows import Task, TaskResult, json_line, story_hash
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


def run_task(ctx: TaskContext, task: Task) -> TaskResult:
    """Generate and encode the task's rows. Raises RowFailure when a row cannot be built."""
    f = ctx.files[task.file]
    out = TaskResult(task)
    tally = None  # made after the first example, so a bad KB is reported as such
    padded: dict = {}  # counts of the padded stories' context records
    attempts = task.attempts or (0,) * len(task.positions)
    config, seed, noise, split = ctx.config, ctx.seed, f.noise, f.split
    csv, jsonl, parquet = (fmt in ctx.formats for fmt in ("csv", "jsonl", "parquet"))
    targets: list[str] = []
    patterns: list[tuple[str, int]] = []
    for pos, attempt in zip(task.positions, attempts):
        k, index = f.example_of(pos)
        try:
            ex = make_example(config, k, noise, seed, index, split, attempt)
        except GenerationError:
            raise RowFailure(k, noise, split) from None
        if csv:
            cells = row_fields(ex.row) if ex.question is None else [*row_fields(ex.row), *ex.question_cells]
            if ex.kb.system:
                cells = [*cells, ex.row.kin_type, repr(ex.row.glossary)]
            out.csv.append(csv_line([pos, *cells]).encode())
        if jsonl:
            out.jsonl.append(json_line(ex.record))
        if parquet:
            out.records.append(ex.record)
        out.hashes.append(story_hash(ex.story))
        if tally is None:
            tally = TextTally(banks(config, seed))
        tally.add_story(split, k, ex.pieces, ex.chain_words, ex.chain_heads, ex.story, ex.names)
        if config.context_words:
            add_counts(padded, context_counts(cast(dict, ex.context)))
        targets.append(ex.target)
        patterns.append((ex.pattern, k))
        out.heldout += ex.heldout
    out.labels.update(targets)
    for (pattern, k), n in Counter(patterns).items():
        out.patterns[pattern] += n
        # checked independently of the generator's own flag
        out.heldout_in_train += n * (split == "train" and pattern_heldout(pattern, k, seed, config.holdout))
    out.text = {**(tally_counts(tally) if tally else {}), **padded}
    return out


def tally_counts(tally: TextTally) -> dict:
    """The additive counts of a text tally (what a worker sends back): its public attributes but the banks."""
    return {k: dict(v) if isinstance(v, dict) else v for k, v in vars(tally).items()
            if k != "banks" and not k.startswith("_")}


def add_counts(total: dict, counts: dict, sign: int = 1) -> None:
    """Add ``sign`` times ``counts`` (from :func:`tally_counts`, possibly read back from JSON) to ``total``."""
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
    for name, value in counts.items():
        setattr(tally, name, value)
    return tally.summary()
