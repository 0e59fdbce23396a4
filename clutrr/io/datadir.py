"""Dataset folders for the diagnostics: find and read their CSV splits.

A dataset folder holds CLUTRR CSV files such as ``1.2,1.3_train.csv`` and ``1.2_test.csv``;
each file is one split, named by its stem. Outputs are written through
:class:`clutrr.io.staging.StagedDir`.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from clutrr.io.csv_format import COLUMNS, RowParseError, StoryRow, read_csv
from clutrr.errors import UsageError


@dataclass
class Split:
    """One CSV file of a dataset folder."""

    name: str  # the file stem, e.g. "1.2_test"
    path: Path
    rows: list[StoryRow]

    @property
    def is_train(self) -> bool:
        """True for a training file (``*_train.csv``, or rows marked ``train``)."""
        if self.name.endswith("_train"):
            return True
        if self.name.endswith("_test"):
            return False
        return bool(self.rows) and all(r.task_split == "train" for r in self.rows)


def _split_key(path: Path) -> tuple:
    """Train files first, then test files by their k (1.2 before 1.10), then by name."""
    stem = path.stem
    head = stem.split("_")[0].split(",")[0]
    parts = head.split(".")
    k = int(parts[-1]) if len(parts) == 2 and parts[-1].isdigit() else 0
    return (0 if stem.endswith("_train") else 1, k, stem)


def split_paths(directory: str | Path) -> list[Path]:
    """The folder's ``*.csv`` files in split order; raises UsageError for a missing or empty folder."""
    root = Path(directory)
    if not root.is_dir():
        raise UsageError(f"{root}: no such directory")
    paths = sorted(root.glob("*.csv"), key=_split_key)
    if not paths:
        raise UsageError(f"{root}: no CSV files found")
    return paths


def count_rows(path: str | Path) -> int:
    """The number of data rows of a CLUTRR CSV file, read without parsing them; UsageError
    when its header lacks the CLUTRR columns (an empty file has none)."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        missing = [c for c in COLUMNS if c not in header]
        if missing:
            what = "it is empty" if not header else f"no column {', '.join(missing)}"
            raise UsageError(f"{path}: not a CLUTRR CSV ({what})")
        return sum(1 for _ in reader)


def load_splits(directory: str | Path, step: Callable[[], object] | None = None) -> list[Split]:
    """Read every ``*.csv`` in ``directory``; raises UsageError for a missing or empty folder.
    ``step`` is called after each row read (a progress bar's update)."""
    splits = []
    for path in split_paths(directory):
        try:
            rows = read_csv(path, step)
        except (RowParseError, UnicodeDecodeError) as exc:
            detail = str(exc).splitlines()[0].replace(f"{path}: ", "")[:100]
            raise UsageError(f"{path}: not a CLUTRR CSV ({detail})") from None
        splits.append(Split(path.stem, path, rows))
    if not any(s.rows for s in splits):
        raise UsageError(f"{Path(directory)}: the CSV files hold no rows")
    return splits
