"""Shards: a dataset file cut into contiguous row ranges, and how their files are named.

A logical file (``1.2_test``) of R rows is cut into ``ceil(R / rows_per_shard)`` shards.
With one shard the file keeps its original CLUTRR name (``1.2_test.csv``); with several
each shard is a complete file of its own, ``1.2_test-00001-of-00004.csv``, holding rows
``[1 * rows_per_shard, 2 * rows_per_shard)``. The CSV index column counts rows of the
logical file, so the shards' rows, read in order, are the unsharded file's rows.

:func:`logical_files` is the one place that reads this naming back: every reader in the
project lists a folder's files through it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

SHARD_NAME = re.compile(r"^(?P<stem>.+)-(?P<i>\d{5})-of-(?P<n>\d{5})$")


@dataclass(frozen=True)
class LogicalFile:
    """One file of a dataset: its rows are (k, index) pairs, k outermost."""

    number: int  # position in the dataset's file order
    stem: str  # e.g. "1.2,1.3_train"
    split: str
    noise: str
    ks: tuple[int, ...]
    rows_per_k: int
    offset: int  # global index of its first row (rows of earlier files come first)

    @property
    def rows(self) -> int:
        """Rows in the file."""
        return self.rows_per_k * len(self.ks)

    def example_of(self, position: int) -> tuple[int, int]:
        """(k, index) of the row at ``position``."""
        return self.ks[position // self.rows_per_k], position % self.rows_per_k


@dataclass(frozen=True)
class Shard:
    """Rows ``[start, stop)`` of a logical file, written as one file per format."""

    file: LogicalFile
    number: int  # within its file
    count: int  # shards of its file
    start: int
    stop: int
    global_number: int  # position among all shards of the dataset

    @property
    def name(self) -> str:
        """File name without extension: the original stem, or ``STEM-0000i-of-0000n``."""
        return shard_name(self.file.stem, self.number, self.count)

    @property
    def rows(self) -> int:
        """Rows in the shard."""
        return self.stop - self.start


@dataclass(frozen=True)
class Piece:
    """Rows ``[start, stop)`` of a shard written by one task: the whole shard (``count == 1``,
    its final files) or one of ``count`` pieces that a later task joins into the shard's files."""

    shard: Shard
    number: int  # within its shard
    count: int
    start: int
    stop: int
    task: int  # position among all pieces of the run

    @property
    def rows(self) -> int:
        """Rows in the piece."""
        return self.stop - self.start


def shard_name(stem: str, number: int, count: int) -> str:
    """``stem`` for a single shard, else ``stem-0000i-of-0000n``."""
    return stem if count == 1 else f"{stem}-{number:05d}-of-{count:05d}"


def plan_shards(files: list[LogicalFile], rows_per_shard: int) -> list[Shard]:
    """Every shard of ``files``, in file order then row order."""
    out: list[Shard] = []
    for f in files:
        count = max(1, -(-f.rows // rows_per_shard))
        for i in range(count):
            out.append(Shard(f, i, count, i * rows_per_shard, min(f.rows, (i + 1) * rows_per_shard), len(out)))
    return out


def blocks(part: Shard | Piece, size: int) -> Iterator[range]:
    """A shard's or piece's positions cut into ranges of at most ``size`` rows."""
    return (range(s, min(part.stop, s + size)) for s in range(part.start, part.stop, size))


def logical_files(folder: str | Path, suffix: str = ".csv") -> dict[str, list[Path]]:
    """A folder's dataset files with extension ``suffix``, by logical stem, shards in order.

    ``1.2_test.csv`` maps to ``{"1.2_test": [that path]}``; ``1.2_test-00000-of-00002.csv``
    and ``1.2_test-00001-of-00002.csv`` map to ``{"1.2_test": [both]}``. Hidden files are
    ignored. Raises ValueError when a sharded file lacks a shard.
    """
    found: dict[str, dict[int, Path]] = {}
    counts: dict[str, int] = {}
    for path in sorted(Path(folder).glob(f"*{suffix}")):
        if path.name.startswith(".") or not path.is_file():
            continue
        stem = path.name[: -len(suffix)]
        m = SHARD_NAME.match(stem)
        if m:
            stem, number, count = m["stem"], int(m["i"]), int(m["n"])
            if counts.setdefault(stem, count) != count:
                raise ValueError(f"{folder}: shards of {stem} disagree on their count")
        else:
            number = 0
            counts.setdefault(stem, 1)
        found.setdefault(stem, {})[number] = path
    out = {}
    for stem, parts in sorted(found.items()):
        missing = sorted(set(range(counts[stem])) - set(parts))
        if missing:
            raise ValueError(f"{folder}: {stem} lacks shard {missing[0]} of {counts[stem]}")
        out[stem] = [parts[i] for i in sorted(parts)]
    return out
