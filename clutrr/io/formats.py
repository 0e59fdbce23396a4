"""Output formats of a shard: CSV (original CLUTRR schema), JSONL and Parquet (typed).

A writer takes the finished rows of :class:`clutrr.io.rows.TaskResult` in order. Each
format can also rewrite a finished shard with some rows replaced (the de-duplication pass),
giving the bytes a direct write of the final rows would give.
"""
from __future__ import annotations

import csv
import hashlib
import os
from pathlib import Path
from typing import Callable

from clutrr.errors import UsageError
from clutrr.io.csv_format import COLUMNS, csv_line
from clutrr.io.rows import TaskResult

FORMATS = ("csv", "jsonl", "parquet")
ROW_GROUP = 10_000  # Parquet rows per row group, whatever the task size
ROW_GROUP_TEXT = 8 << 20  # ... unless padded stories reach this many characters first


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def parse_formats(text: str) -> tuple[str, ...]:
    """Parse ``csv,jsonl,parquet`` (any non-empty subset, written in this order)."""
    asked = {t.strip() for t in text.split(",") if t.strip()}
    bad = sorted(asked - set(FORMATS))
    if bad or not asked:
        raise UsageError(f"unknown format {bad[0] if bad else text!r} (choose from {', '.join(FORMATS)})")
    if "parquet" in asked:
        try:
            import pyarrow  # noqa: F401
        except ImportError:
            raise UsageError("--format parquet needs pyarrow: pip install 'clutrr[parquet]'") from None
    return tuple(f for f in FORMATS if f in asked)


class TextShard:
    """CSV or JSONL: one line (or CSV record) per row, with a header for CSV. The rows come
    encoded; the file's sha256 is taken as it is written (``sha256`` once closed)."""

    def __init__(self, path: Path, fmt: str) -> None:
        self.fmt = fmt
        self._fh = open(path, "wb", buffering=1 << 20)
        self._hash = hashlib.sha256()
        self.sha256: str | None = None
        if fmt == "csv":
            self._put(csv_line(["", *COLUMNS]).encode())

    def _put(self, data: bytes) -> None:
        self._fh.write(data)
        self._hash.update(data)

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        self._put(b"".join(result.csv if self.fmt == "csv" else result.jsonl))

    def close(self) -> None:
        """Finish the file."""
        self._fh.close()
        self.sha256 = self._hash.hexdigest()


class ParquetShard:
    """Parquet with the typed record schema, in row groups of ROW_GROUP rows, or fewer when the
    stories of padded records (long contexts) reach ROW_GROUP_TEXT characters.

    The schema is the padded stories' when the first record has a ``context`` field.
    """

    def __init__(self, path: Path, fmt: str = "parquet") -> None:
        self.path = path
        self.sha256: str | None = None
        self.schema = None
        self._writer = None
        self._buffer: list[dict] = []
        self._text = 0

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        for record in result.records:
            self._buffer.append(record)
            if "context" in record:  # padded stories: row groups bounded by their text too
                self._text += len(record["story"])
            if len(self._buffer) >= ROW_GROUP or self._text >= ROW_GROUP_TEXT:
                self._flush()

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from clutrr.io.schema import arrow_schema

        if self._writer is None:
            self.schema = arrow_schema(context=bool(self._buffer) and "context" in self._buffer[0])
            self._writer = pq.ParquetWriter(self.path, self.schema, compression="zstd")
        if self._buffer:
            self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=self.schema), row_group_size=ROW_GROUP)
        self._buffer, self._text = [], 0

    def close(self) -> None:
        """Finish the file."""
        if self._buffer or self._writer is None:
            self._flush()
        self._writer.close()
        self.sha256 = sha256_file(self.path)


WRITERS: dict[str, Callable[[Path, str], TextShard | ParquetShard]] = {
    "csv": TextShard, "jsonl": TextShard, "parquet": ParquetShard,
}


def open_shard(path: Path, fmt: str) -> TextShard | ParquetShard:
    """A writer for one shard file of format ``fmt``."""
    return WRITERS[fmt](path, fmt)


def _old_rows(path: Path, fmt: str):
    """The rows of a finished shard file, one item per row, in the writer's own units."""
    if fmt == "csv":
        with open(path, newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh)
            next(reader)
            yield from reader
    elif fmt == "jsonl":
        with open(path, "rb") as fh:
            yield from fh
    else:
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        for i in range(pf.num_row_groups):
            yield from pf.read_row_group(i).to_pylist()


def rewrite_shard(path: Path, fmt: str, start: int, new_rows: dict[int, TaskResult]) -> str:
    """Rewrite shard file ``path`` (first row at position ``start``), putting ``new_rows``
    (position -> a one-row result) in place of the old rows at those positions; returns its new sha256."""
    tmp = path.with_name(path.name + ".rewrite")
    writer = open_shard(tmp, fmt)
    for pos, old in enumerate(_old_rows(path, fmt), start):
        if pos in new_rows:
            writer.write(new_rows[pos])
        elif fmt == "csv":
            writer.write(TaskResult(None, csv=[csv_line(old).encode()]))
        elif fmt == "jsonl":
            writer.write(TaskResult(None, jsonl=[old]))
        else:
            writer.write(TaskResult(None, records=[old]))
    writer.close()
    os.replace(tmp, path)
    return writer.sha256
