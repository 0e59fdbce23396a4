"""Records of finished shards, and the dataset's ``manifest.json``.

While a dataset is generated, each finished shard leaves a part record in the work folder
(``.parts/NAME.json``, written last, atomically) beside its story hashes
(``NAME.hashes``, 16 bytes per row) and pattern counts (``NAME.patterns``). A shard whose
part record exists and whose files still have the recorded sha256 is finished: a run with
``--resume``, or the final assembly after ``--shard`` jobs, skips it.

``manifest.json`` lists every file of the finished dataset: ``{"shard", "file", "rows",
"sha256"}`` plus the logical file it belongs to and its first row.
"""
from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

from clutrr.io.formats import sha256_file
from clutrr.io.shards import Shard

PARTS = ".parts"
SUFFIX = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}


def shard_files(shard: Shard, formats: tuple[str, ...]) -> dict[str, str]:
    """Format -> file name of the shard."""
    return {fmt: shard.name + SUFFIX[fmt] for fmt in formats}


def part_paths(work: Path, shard: Shard) -> tuple[Path, Path, Path]:
    """(record, hashes, patterns) paths of a shard's part files."""
    folder = work / PARTS
    return tuple(folder / f"{shard.name}{ext}" for ext in (".json", ".hashes", ".patterns"))


def write_part(work: Path, shard: Shard, sha256: dict[str, str], labels: Counter, heldout: int,
               heldout_in_train: int, text: dict) -> None:
    """Record a finished shard (its files closed, ``sha256`` their digests by format)."""
    record = {
        "shard": shard.name, "rows": shard.rows, "sha256": sha256,
        "labels": dict(sorted(labels.items())), "heldout": heldout, "heldout_in_train": heldout_in_train,
        "text": text,
    }
    path = part_paths(work, shard)[0]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_part(work: Path, shard: Shard, formats: tuple[str, ...], verify: bool = True) -> dict | None:
    """The shard's part record if the shard is finished and its files are intact, else None.

    ``verify=False`` skips hashing the files (for shards this run wrote or already checked)."""
    path, hashes, patterns = part_paths(work, shard)
    if not (path.exists() and hashes.exists() and patterns.exists()):
        return None
    record = json.loads(path.read_text(encoding="utf-8"))
    if record["rows"] != shard.rows or hashes.stat().st_size != 16 * shard.rows:
        return None
    for fmt, name in shard_files(shard, formats).items():
        file = work / name
        if not file.exists() or fmt not in record["sha256"] or verify and record["sha256"][fmt] != sha256_file(file):
            return None
    return record


def manifest_entries(shard: Shard, formats: tuple[str, ...], sha: dict[str, str]) -> list[dict]:
    """The manifest lines of one shard: one per file."""
    return [{"shard": shard.number, "file": name, "rows": shard.rows, "sha256": sha[fmt],
             "logical_file": shard.file.stem, "start": shard.start, "format": fmt}
            for fmt, name in shard_files(shard, formats).items()]


def check_manifest(folder: Path) -> list[str]:
    """Files of a finished dataset whose bytes differ from its manifest (missing ones too)."""
    doc = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return [e["file"] for e in doc["files"]
            if not (folder / e["file"]).exists() or sha256_file(folder / e["file"]) != e["sha256"]]
