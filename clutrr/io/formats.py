"""Output formats of a shard: CSV (original CLUTRR schema), JSONL and Parquet (typed).

A writer takes the finished rows of :class:`clutrr.io.rows.TaskResult` in order. Each
format can also join a shard from pieces written apart (by several workers) and rewrite a
finished shard with some rows replaced (the de-duplication pass), giving the bytes a direct
write of the final rows would give. Files live in a :class:`clutrr.io.store.Store`.
"""
from __future__ import annotations

import csv
import io
from itertools import islice
from pathlib import Path
from typing import Callable

from clutrr.errors import UsageError
from clutrr.io.csv_format import csv_columns, csv_line
from clutrr.io.rows import TaskResult
from clutrr.io.store import Store, read_sha256

FORMATS = ("csv", "jsonl", "parquet")
ROW_GROUP = 10_000  # Parquet rows per row group, whatever the task size
ROW_GROUP_TEXT = 8 << 20  # ... unless padded stories reach this many characters first


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes."""
    with open(path, "rb") as fh:
        return read_sha256(fh)


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


def csv_header(question: str = "relation", kinship: bool = False) -> bytes:
    """The first line of a CSV shard of rows asking ``question``."""
    return csv_line(["", *csv_columns(question, kinship)]).encode()


class TextShard:
    """CSV or JSONL: one line (or CSV record) per row, with a header for CSV (unless ``header``
    is False: a piece of a shard), whose columns are those of rows asking ``question``. The rows
    come encoded; the file's sha256 is taken as it is written (``sha256`` once closed)."""

    def __init__(self, store: Store, name: str, fmt: str, header: bool = True, question: str = "relation",
                 kinship: bool = False) -> None:
        self.fmt = fmt
        self._fh = store.writer(name)
        self.sha256: str | None = None
        if fmt == "csv" and header:
            self._fh.write(csv_header(question, kinship))

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        self._fh.write(b"".join(result.csv if self.fmt == "csv" else result.jsonl))

    def write_bytes(self, data: bytes) -> None:
        """Append rows already encoded (a piece's bytes)."""
        self._fh.write(data)

    def close(self) -> None:
        """Finish the file."""
        self.sha256 = self._fh.close()


class ParquetShard:
    """Parquet with the typed record schema, in row groups of ROW_GROUP rows, or fewer when the
    stories of padded records (long contexts) reach ROW_GROUP_TEXT characters (both counted
    from the first row written, so a shard joined from pieces has the row groups of a direct
    write).

    The schema is the padded stories' when the first record has a ``context`` field, and that
    of rows asking ``question`` (:func:`clutrr.io.schema.record_fields`).
    """

    def __init__(self, store: Store, name: str, fmt: str = "parquet", header: bool = True,
                 question: str = "relation", kinship: bool = False) -> None:
        self._store, self._name, self._question = store, name, question
        self.sha256: str | None = None
        self.schema = None
        self._fh = None
        self._writer = None
        self._buffer: list[dict] = []
        self._text = 0

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        from clutrr.io.schema import arrow_record

        for record in result.records:
            self._buffer.append(arrow_record(record, self._question))
            if "context" in record:  # padded stories: row groups bounded by their text too
                self._text += len(record["story"])
            if len(self._buffer) >= ROW_GROUP or self._text >= ROW_GROUP_TEXT:
                self._flush()

    def schema_for(self, context: bool, kinship: bool = False, difficulty: bool = False):
        """The Parquet schema of the file's records (a padded story's with ``context``, a kinship
        system's with ``kinship``, a ``--difficulty`` run's with ``difficulty``)."""
        from clutrr.io.schema import arrow_schema

        return arrow_schema(context=context, question=self._question, kinship=kinship, difficulty=difficulty)

    def _flush(self) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if self._writer is None:
            first = self._buffer[0] if self._buffer else {}
            self.schema = self.schema_for("context" in first, kinship="kin_type" in first,
                                          difficulty="difficulty" in first)
            self._fh = self._store.writer(self._name)
            self._writer = pq.ParquetWriter(self._fh, self.schema, compression="zstd")
        if self._buffer:
            self._writer.write_table(pa.Table.from_pylist(self._buffer, schema=self.schema), row_group_size=ROW_GROUP)
        self._buffer, self._text = [], 0

    def close(self) -> None:
        """Finish the file."""
        if self._buffer or self._writer is None:
            self._flush()
        self._writer.close()
        self.sha256 = self._fh.close()


WRITERS: dict[str, Callable[..., TextShard | ParquetShard]] = {
    "csv": TextShard, "jsonl": TextShard, "parquet": ParquetShard,
}


def open_shard(store: Store, name: str, fmt: str, header: bool = True,
               question: str = "relation", kinship: bool = False) -> TextShard | ParquetShard:
    """A writer for one shard file of format ``fmt`` (``header=False``: a piece without the CSV
    header) of rows asking ``question``; ``kinship``: a kinship system's rows, whose CSV header
    adds :data:`clutrr.io.csv_format.KINSHIP_COLUMNS` (Parquet finds them in the first record)."""
    return WRITERS[fmt](store, name, fmt, header, question, kinship)


def join_pieces(store: Store, pieces: list[str], name: str, fmt: str, question: str = "relation",
                kinship: bool = False) -> str:
    """Write shard file ``name`` from its pieces' files in order (each written with
    ``header=False``), giving the bytes a direct write would give; returns its sha256."""
    writer = open_shard(store, name, fmt, question=question, kinship=kinship)
    for piece in pieces:
        if fmt == "parquet":  # records again, so row groups are cut as in a direct write
            rows = _old_rows(store, piece, fmt)
            while batch := list(islice(rows, 1000)):
                writer.write(TaskResult(None, records=batch))
        else:
            with store.open(piece) as fh:
                for chunk in iter(lambda: fh.read(1 << 22), b""):
                    writer.write_bytes(chunk)
    writer.close()
    return writer.sha256


def _old_rows(store: Store, name: str, fmt: str):
    """The rows of a finished shard file, one item per row, in the writer's own units."""
    with store.open(name) as fh:
        if fmt == "csv":
            text = io.TextIOWrapper(fh, encoding="utf-8", newline="")
            reader = csv.reader(text)
            next(reader)
            yield from reader
        elif fmt == "jsonl":
            yield from fh
        else:
            import pyarrow.parquet as pq

            pf = pq.ParquetFile(fh)
            for i in range(pf.num_row_groups):
                yield from pf.read_row_group(i).to_pylist()


def rewrite_shard(store: Store, name: str, fmt: str, start: int, new_rows: dict[int, TaskResult],
                  question: str = "relation", kinship: bool = False) -> str:
    """Rewrite shard file ``name`` (first row at position ``start``), putting ``new_rows``
    (position -> a one-row result) in place of the old rows at those positions; returns its new sha256."""
    tmp = name + ".rewrite"
    writer = open_shard(store, tmp, fmt, question=question, kinship=kinship)
    for pos, old in enumerate(_old_rows(store, name, fmt), start):
        if pos in new_rows:
            writer.write(new_rows[pos])
        elif fmt == "csv":
            writer.write(TaskResult(None, csv=[csv_line(old).encode()]))
        elif fmt == "jsonl":
            writer.write(TaskResult(None, jsonl=[old]))
        else:
            writer.write(TaskResult(None, records=[old]))
    writer.close()
    store.replace(tmp, name)
    return writer.sha256
