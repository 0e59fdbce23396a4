"""Dataset folders for the diagnostics: find and read their CSV splits.

A dataset folder holds CLUTRR CSV files such as ``1.2,1.3_train.csv`` and ``1.2_test.csv``;
each file is one split, named by its stem. A file written in shards
(``1.2_test-00000-of-00004.csv`` ...) is one split too. Outputs are written through
:class:`clutrr.io.staging.StagedDir`.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from clutrr.io.csv_format import COLUMNS, RowParseError, StoryRow, csv_parts, read_csv
from clutrr.io.shards import logical_files
from clutrr.errors import UsageError


@dataclass
class Split:
    """One CSV file of a dataset folder."""

    name: str  # the file stem, e.g. "1.2_test"
    path: Path  # the file, or for a sharded file the name it would have unsharded
    rows: list[StoryRow]

    @property
    def is_train(self) -> bool:
        """True for a training file (``*_train.csv``, or rows marked ``train``)."""
        if self.name.endswith("_train"):
            return True
        if self.name.endswith("_test"):
            return False
        return bool(self.rows) and all(r.task_split == "train" for r in self.rows)


def split_key(stem: str) -> tuple:
    """Train files first, then test files by their k (1.2 before 1.10), then by name."""
    head = stem.split("_")[0].split(",")[0]
    parts = head.split(".")
    k = int(parts[-1]) if len(parts) == 2 and parts[-1].isdigit() else 0
    return (0 if stem.endswith("_train") else 1, k, stem)


def split_paths(directory: str | Path) -> list[Path]:
    """The folder's CSV files (a sharded file under its unsharded name) in split order;
    raises UsageError for a missing or empty folder."""
    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"{root}: not a folder (give the dataset folder)" if root.exists() else f"{root}: no such directory")
    try:
        found = logical_files(root, ".csv")
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not found:
        raise UsageError(f"{root}: no CSV files found")
    return [root / f"{stem}.csv" for stem in sorted(found, key=split_key)]


def count_rows(path: str | Path) -> int:
    """The number of data rows of a CLUTRR CSV file (all its shards), read without parsing
    them; UsageError when a header lacks the CLUTRR columns (an empty file has none)."""
    total = 0
    for part in csv_parts(path):
        try:
            with open(part, newline="", encoding="utf-8") as fh:
                reader = csv.reader(fh)
                header = next(reader, [])
                missing = [c for c in COLUMNS if c not in header]
                if missing:
                    what = "it is empty" if not header else f"no column {', '.join(missing)}"
                    raise UsageError(f"{part}: not a CLUTRR CSV ({what})")
                total += sum(1 for _ in reader)
        except UnicodeDecodeError as exc:
            raise UsageError(f"{part}: not a CLUTRR CSV (not UTF-8 text: byte 0x{exc.object[exc.start]:02x} "
                             f"near offset {exc.start})") from None
        except csv.Error as exc:
            raise UsageError(f"{part}: not a CLUTRR CSV ({exc})") from None
    return total


def read_split(path: Path, step: Callable[[], object] | None = None) -> Split:
    """One CSV file (all its shards) of a dataset folder; UsageError when it is not a CLUTRR CSV."""
    try:
        rows = read_csv(path, step)
    except (RowParseError, UnicodeDecodeError) as exc:
        detail = str(exc).splitlines()[0].replace(f"{path}: ", "")[:100]
        raise UsageError(f"{path}: not a CLUTRR CSV ({detail})") from None
    return Split(path.stem, path, rows)


def load_splits(directory: str | Path, step: Callable[[], object] | None = None) -> list[Split]:
    """Read every CSV file in ``directory``; raises UsageError for a missing or empty folder.
    ``step`` is called after each row read (a progress bar's update)."""
    splits = [read_split(path, step) for path in split_paths(directory)]
    if not any(s.rows for s in splits):
        raise UsageError(f"{Path(directory)}: the CSV files hold no rows")
    return splits
