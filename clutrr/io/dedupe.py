"""Partitioned on-disk passes that keep the writer's memory flat in the number of rows.

:class:`StoryHashes` finds repeated stories: every row's 128-bit story hash and global
index go to one of P bucket files (by hash), and each bucket is sorted on its own. Among
equal hashes the lowest global index keeps its story; the others are duplicates, to be
regenerated with their next attempt and checked again, round after round, until none is
left. The answer depends only on the set of (hash, index) pairs, so it is the same for any
sharding, worker count or engine.

:class:`PatternCounts` counts relation-word patterns per file the same way and keeps only
the top N of each file plus the number of distinct patterns.
"""
from __future__ import annotations

import heapq
import zlib
from collections import Counter
from pathlib import Path
from typing import Iterable

import numpy as np

RECORD = np.dtype([("h1", "<u8"), ("h2", "<u8"), ("g", "<u8")])
ROWS_PER_BUCKET = 250_000


def bucket_count(total_rows: int) -> int:
    """Buckets for ``total_rows``: each holds about ROWS_PER_BUCKET rows, so memory is flat."""
    return max(1, -(-total_rows // ROWS_PER_BUCKET))


def hash_records(hashes: Iterable[bytes], first_index: int | Iterable[int]) -> np.ndarray:
    """Records for 16-byte hashes at consecutive global indices from ``first_index`` (or given ones)."""
    raw = np.frombuffer(b"".join(hashes), dtype="<u8").reshape(-1, 2)
    out = np.empty(len(raw), dtype=RECORD)
    out["h1"], out["h2"] = raw[:, 0], raw[:, 1]
    if isinstance(first_index, int):
        out["g"] = np.arange(first_index, first_index + len(raw), dtype="<u8")
    else:
        out["g"] = np.fromiter(first_index, dtype="<u8", count=len(raw))
    return out


def sorted_records(rec: np.ndarray) -> np.ndarray:
    """``rec`` ordered by (h1, h2, g): by h1 alone first (a fast sort; records sharing an h1 share
    their story, rare), then each run of one h1 by all three keys."""
    rec = rec.take(np.argsort(rec["h1"]))
    h1 = rec["h1"]
    tie = h1[1:] == h1[:-1]
    if tie.any():
        member = np.zeros(len(rec), dtype=bool)
        member[1:] = tie
        member[:-1] |= tie
        at = np.flatnonzero(member)
        runs = rec[at]
        rec[at] = runs[np.lexsort((runs["g"], runs["h2"], runs["h1"]))]
    return rec


class StoryHashes:
    """(story hash, global index) pairs in ``buckets`` files under ``folder``; a single bucket
    (a run of up to ROWS_PER_BUCKET rows) is kept in memory instead, no more than its file's read."""

    def __init__(self, folder: Path, buckets: int) -> None:
        self.folder = folder
        self.buckets = buckets
        folder.mkdir(parents=True, exist_ok=True)
        self._held: list[np.ndarray] | None = [] if buckets == 1 else None

    def _path(self, b: int) -> Path:
        return self.folder / f"stories-{b:05d}.bin"

    def _read(self, b: int) -> np.ndarray | None:
        if self._held is not None:  # one array is not copied (a fresh copy's pages cost more than the sort)
            return None if not self._held else self._held[0] if len(self._held) == 1 else np.concatenate(self._held)
        path = self._path(b)
        return np.fromfile(path, dtype=RECORD) if path.exists() else None

    def _keep(self, b: int, rec: np.ndarray) -> None:
        if self._held is not None:
            self._held = [rec]
        else:
            rec.tofile(self._path(b))

    def add(self, records: np.ndarray) -> set[int]:
        """Append records to their buckets; returns the buckets touched."""
        if self._held is not None:
            if not len(records):
                return set()
            self._held.append(records)
            return {0}
        which = records["h1"] % np.uint64(self.buckets)
        touched = set()
        # the buckets holding records, ascending (np.unique would import numpy.ma: 10 ms of start-up)
        for b in np.flatnonzero(np.bincount(which.astype(np.intp), minlength=self.buckets)).tolist():
            with open(self._path(b), "ab") as fh:
                fh.write(records[which == b].tobytes())
            touched.add(b)
        return touched

    def take_duplicates(self, buckets: Iterable[int]) -> tuple[np.ndarray, np.ndarray]:
        """Remove every record whose hash also belongs to a lower index, in ``buckets``.

        Returns (duplicate indices, the index that keeps each one's story), sorted by the
        duplicate's index.
        """
        dups, keepers = [], []
        for b in sorted(buckets):
            held = self._read(b)
            if held is None:
                continue
            rec = sorted_records(held)
            same = np.zeros(len(rec), dtype=bool)
            same[1:] = (rec["h1"][1:] == rec["h1"][:-1]) & (rec["h2"][1:] == rec["h2"][:-1])
            if not same.any():
                continue
            run_start = np.maximum.accumulate(np.where(~same, np.arange(len(rec)), 0))
            dups.append(rec["g"][same])
            keepers.append(rec["g"][run_start[same]])
            self._keep(b, rec[~same])
        if not dups:
            return np.empty(0, dtype="<u8"), np.empty(0, dtype="<u8")
        d, k = np.concatenate(dups), np.concatenate(keepers)
        order = np.argsort(d)
        return d[order], k[order]


class PatternCounts:
    """Signed pattern counts per file, partitioned by pattern; exact top N and distinct counts."""

    def __init__(self, folder: Path, buckets: int) -> None:
        self.folder = folder
        self.buckets = buckets
        folder.mkdir(parents=True, exist_ok=True)

    def add(self, file: int, counts: Counter | dict[str, int], sign: int = 1) -> None:
        """Add ``sign * count`` rows of each pattern to file number ``file``."""
        lines: dict[int, list[str]] = {}
        for pattern, n in counts.items():
            b = zlib.crc32(pattern.encode()) % self.buckets
            lines.setdefault(b, []).append(f"{file}\t{pattern}\t{sign * n}\n")
        for b, text in lines.items():
            with open(self.folder / f"patterns-{b:05d}.tsv", "a", encoding="utf-8") as fh:
                fh.writelines(text)

    def summarise(self, split_of: list[str], top: int) -> tuple[dict[int, dict], dict[str, int]]:
        """Per file number: {"distinct", "top": [[pattern, rows], ...]}; per split: distinct patterns.

        The top list is ordered by rows (descending), then pattern; it is exact.
        """
        distinct: Counter = Counter()
        split_distinct: Counter = Counter()
        best: dict[int, list] = {}
        for b in range(self.buckets):
            path = self.folder / f"patterns-{b:05d}.tsv"
            if not path.exists():
                continue
            counts: Counter = Counter()
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    f, pattern, n = line.rstrip("\n").split("\t")
                    counts[int(f), pattern] += int(n)
            per_split: set[tuple[str, str]] = set()
            for (f, pattern), n in counts.items():
                if n <= 0:
                    continue
                distinct[f] += 1
                per_split.add((split_of[f], pattern))
                heap = best.setdefault(f, [])
                item = (n, _Desc(pattern))
                if len(heap) < top:
                    heapq.heappush(heap, item)
                elif item > heap[0]:
                    heapq.heapreplace(heap, item)
            split_distinct.update(s for s, _ in per_split)
        files = {}
        for f in range(len(split_of)):
            ranked = sorted(best.get(f, []), reverse=True)
            files[f] = {"distinct": distinct[f], "top": [[d.text, n] for n, d in ranked]}
        return files, dict(split_distinct)


class _Desc:
    """A string that sorts in reverse, so ties in count rank the alphabetically first pattern higher."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __lt__(self, other: "_Desc") -> bool:
        return self.text > other.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.text == other.text
