"""The encoded rows of a task: what a worker sends back and a shard writer writes.

A task names a file and positions in it (with the attempt of each, 0 unless the row
replaces a duplicate story). Its result holds only finished rows: the CSV line, the JSONL
line, the Parquet-ready record when asked, a 128-bit hash of each story, and the row's
label and pattern for the statistics. It never holds family or chain objects. The worker
that fills it is :func:`clutrr.pipeline.tasks.run_task`.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final, cast

from clutrr.core.native import mypyc_attr
from clutrr.io.csv_format import csv_line, row_fields
from clutrr.story.example import GENDER_WORDS, Example, kb_words


def _orjson() -> Any:
    """The orjson module, or None (optional, pip install 'clutrr[fast]': the same bytes, several times faster)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return orjson


orjson = _orjson()
_NEWLINE = 0 if orjson is None else orjson.OPT_APPEND_NEWLINE

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@mypyc_attr(native_class=False)  # pickled to the workers
@dataclass(frozen=True)
class Task:
    """Positions of one logical file; ``attempts`` is None when every attempt is 0."""

    number: int
    file: int
    positions: range | tuple[int, ...]
    attempts: tuple[int, ...] | None = None


@mypyc_attr(native_class=False)  # pickled back from the workers
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


def json_line(record: dict) -> bytes:
    """A JSONL line in UTF-8: compact JSON with non-ASCII text kept. orjson, when installed,
    writes exactly these bytes (the tests compare both); integers beyond 64 bits go to ``json``."""
    if orjson is not None:
        try:
            return orjson.dumps(record, option=_NEWLINE)
        except TypeError:
            pass
    return (_COMPACT.encode(record) + "\n").encode()


def _c_lines() -> Any:
    """``clutrr.io._lines.example_lines``, the C writer of a common example's lines, built only in a
    compiled wheel; None elsewhere."""
    try:
        from clutrr.io._lines import example_lines as write
    except ImportError:
        return None
    return write


_C_LINES: Final = _c_lines()


def example_lines(ex: Example, jsonl: bool, csv_index: int | None) -> tuple[bytes | None, bytes | None]:
    """The JSONL line of ``ex`` when ``jsonl`` (the bytes of ``json_line(ex.record)``) and its CSV line
    with index ``csv_index`` unless that is None (``csv_line([csv_index, *row_cells(ex)])`` in UTF-8).

    In a compiled wheel, the lines of an example with only the common fields (no question form, long
    context, difficulty or kinship terms) are written in C from the example's own fields, without
    building its record or CSV row: their dicts, lists and literals cost more to make, write and free
    than the lines themselves."""
    json_bytes: bytes | None = None
    csv_bytes: bytes | None = None
    if _C_LINES is not None and ex.question is None and ex.context is None and not ex.with_difficulty \
            and not ex.kb.system:
        kb = ex.kb
        json_bytes, csv_bytes = _C_LINES(
            jsonl, csv_index, ex.id, ex.split, ex.task, ex.k, ex.noise_kind, ex.seed, ex.index, ex.names, ex.genders,
            GENDER_WORDS, ex.edges, ex.words, kb.pred_names, ex.query, ex.target, ex.query_pred, ex.pattern,
            ex.heldout, ex.proof, ex.people, kb_words(kb).flat, ex.story, ex.clean_pieces, ex.target_piece, ex.pieces)
    if jsonl and json_bytes is None:
        json_bytes = json_line(ex.record)
    if csv_index is not None and csv_bytes is None:
        csv_bytes = csv_line([csv_index, *row_cells(ex)]).encode()
    return json_bytes, csv_bytes


def example_line(ex: Example) -> bytes:
    """The JSONL line of ``ex``: the bytes of ``json_line(ex.record)`` (see :func:`example_lines`)."""
    return cast(bytes, example_lines(ex, True, None)[0])


def row_cells(ex: Example) -> list:
    """The CSV cells of an example's row (after the index column): the original columns, then
    those of the question asked and of a kinship system's terms when there are any."""
    cells = row_fields(ex.row) if ex.question is None else [*row_fields(ex.row), *ex.question_cells]
    if ex.kb.system:
        cells = [*cells, ex.row.kin_type, repr(ex.row.glossary)]
    return cells


_BLAKE2B_16: Final = hashlib.blake2b(digest_size=16)  # copied per story: no arguments parsed, no lookup


def story_hash(story: str) -> bytes:
    """The 128-bit key under which stories are de-duplicated (BLAKE2b of the UTF-8 story)."""
    h = _BLAKE2B_16.copy()
    h.update(story.encode())
    return h.digest()
