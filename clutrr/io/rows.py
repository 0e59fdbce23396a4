"""The unit of work: rows of one logical file, generated and encoded in a worker.

A task names a file and positions in it (with the attempt of each, 0 unless the row
replaces a duplicate story). The worker sends back only finished rows: the CSV line, the
JSONL line, the Parquet-ready record when asked, a 128-bit hash of each story, and the
row's label and pattern for the statistics. It never ships family or chain objects.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from clutrr.core.generator import GenerationError, GeneratorConfig, banks, make_example, pattern_heldout
from clutrr.core.kb import load_kb
from clutrr.io.csv_format import csv_line, row_fields
from clutrr.io.shards import LogicalFile
from clutrr.render.measures import TextTally

try:  # optional (pip install 'clutrr[fast]'): the same bytes, several times faster
    import orjson
except ImportError:  # pragma: no cover - depends on the environment
    orjson = None

FAULT_ENV = "CLUTRR_FAULT_ONCE"
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class TaskContext:
    """What every task needs besides its positions; small, shipped with each task."""

    config: GeneratorConfig
    seed: int
    files: tuple[LogicalFile, ...]
    formats: tuple[str, ...]
    fault: tuple[int, str] | None = None  # (task number, marker file): see fault_from_env


@dataclass(frozen=True)
class Task:
    """Positions of one logical file; ``attempts`` is None when every attempt is 0."""

    number: int
    file: int
    positions: range | tuple[int, ...]
    attempts: tuple[int, ...] | None = None


@dataclass
class TaskResult:
    """Finished rows of a task, in the task's order."""

    task: Task
    csv: list[bytes] = field(default_factory=list)  # UTF-8 lines, encoded by the worker
    jsonl: list[bytes] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)  # 16 bytes per row
    labels: Counter = field(default_factory=Counter)
    patterns: Counter = field(default_factory=Counter)
    heldout: int = 0  # rows whose pattern is held out of training
    heldout_in_train: int = 0
    text: dict = field(default_factory=dict)  # the counts of a TextTally over the rows

    @property
    def rows(self) -> int:
        """Rows in the result."""
        return len(self.hashes)


class RowFailure(Exception):
    """A row could not be generated; carries (k, noise, split) for the error message."""

    def __init__(self, k: int, noise: str, split: str) -> None:
        super().__init__(k, noise, split)
        self.k, self.noise, self.split = k, noise, split


def fault_from_env() -> tuple[int, str] | None:
    """Test hook: ``CLUTRR_FAULT_ONCE=N:PATH`` makes the worker running task N exit abruptly
    once (it creates PATH, and a retry finds it). Used to prove that retries give the same bytes."""
    value = os.environ.get(FAULT_ENV)
    if not value:
        return None
    number, _, path = value.partition(":")
    return int(number), path


def prepare(ctx: TaskContext) -> None:
    """Load what the generator caches per process (KB, template banks) once."""
    load_kb(ctx.config.kb)
    banks(ctx.config, ctx.seed)


def json_line(record: dict) -> bytes:
    """A JSONL line in UTF-8: compact JSON with non-ASCII text kept. orjson, when installed,
    writes exactly these bytes (the tests compare both); integers beyond 64 bits go to ``json``."""
    if orjson is not None:
        try:
            return orjson.dumps(record) + b"\n"
        except TypeError:
            pass
    return (_COMPACT.encode(record) + "\n").encode()


def story_hash(story: str) -> bytes:
    """The 128-bit key under which stories are de-duplicated."""
    return hashlib.blake2b(story.encode(), digest_size=16).digest()


def run_task(ctx: TaskContext, task: Task) -> TaskResult:
    """Generate and encode the task's rows. Raises RowFailure when a row cannot be built."""
    if ctx.fault and ctx.fault[0] == task.number and not Path(ctx.fault[1]).exists():
        Path(ctx.fault[1]).touch()
        os._exit(3)
    f = ctx.files[task.file]
    out = TaskResult(task)
    tally = None  # made after the first example, so a bad KB is reported as such
    attempts = task.attempts or (0,) * len(task.positions)
    for pos, attempt in zip(task.positions, attempts):
        k, index = f.example_of(pos)
        try:
            ex = make_example(ctx.config, k, f.noise, ctx.seed, index, f.split, attempt)
        except GenerationError:
            raise RowFailure(k, f.noise, f.split) from None
        if "csv" in ctx.formats:
            out.csv.append(csv_line([pos, *row_fields(ex.row)]).encode())
        if "jsonl" in ctx.formats:
            out.jsonl.append(json_line(ex.record))
        if "parquet" in ctx.formats:
            out.records.append(ex.record)
        out.hashes.append(story_hash(ex.row.story))
        tally = tally or TextTally(banks(ctx.config, ctx.seed))
        tally.add(ex.record)
        out.labels[ex.row.target] += 1
        out.heldout += bool(ex.record["pattern_heldout"])
        out.patterns[ex.row.f_comb] += 1
        # checked independently of the generator's own flag
        out.heldout_in_train += f.split == "train" and pattern_heldout(ex.row.f_comb, k, ctx.seed, ctx.config.holdout)
    out.text = tally_counts(tally) if tally else {}
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
