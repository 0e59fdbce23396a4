"""Records of finished shards, and the dataset's ``manifest.json``.

While a dataset is generated, each finished shard leaves a part record in the work store
(``.parts/NAME.json``, written last, by the worker that wrote the shard) beside its story
hashes (``NAME.hashes``, 16 bytes per row) and pattern counts (``NAME.patterns``). A shard
written in pieces by several workers keeps each piece's files (``NAME.piece-0000i.*``)
until one worker joins them. A shard whose
part record exists and whose files still have the recorded sha256 is finished: a run with
``--resume``, or the final assembly after ``--shard`` jobs, skips it.

``manifest.json`` lists every file of the finished dataset: ``{"shard", "file", "rows",
"sha256"}`` plus the logical file it belongs to and its first row.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from clutrr.io.shards import Shard
from clutrr.io.store import Store, open_store

PARTS = ".parts"
SUFFIX = {"csv": ".csv", "jsonl": ".jsonl", "parquet": ".parquet"}


def shard_files(shard: Shard, formats: tuple[str, ...]) -> dict[str, str]:
    """Format -> file name of the shard."""
    return {fmt: shard.name + SUFFIX[fmt] for fmt in formats}


def part_names(shard: Shard, piece: int | None = None) -> tuple[str, str, str]:
    """(record, hashes, patterns) names of a shard's part files in the work store (of one of
    its pieces, when ``piece`` is given: pieces have hashes and patterns but no record)."""
    stem = f"{PARTS}/{shard.name}" if piece is None else f"{PARTS}/{shard.name}.piece-{piece:05d}"
    return tuple(f"{stem}{ext}" for ext in (".json", ".hashes", ".patterns"))


def piece_file(shard: Shard, piece: int, fmt: str) -> str:
    """The work store's name of one piece of a shard file (rows written apart, joined later)."""
    return f"{PARTS}/{shard.name}.piece-{piece:05d}{SUFFIX[fmt]}"


def piece_sizes(shard: Shard, piece: int) -> str:
    """The work store's name of a finished piece's byte sizes by format (where the next piece starts)."""
    return f"{PARTS}/{shard.name}.piece-{piece:05d}.sizes"


def part_record(shard: Shard, sha256: dict[str, str], labels: Counter, heldout: int, heldout_in_train: int,
                text: dict, nodes: list[str]) -> dict:
    """The record of a finished shard (``sha256``: its files' digests by format; ``nodes``: where it was written)."""
    return {
        "shard": shard.name, "rows": shard.rows, "sha256": sha256,
        "labels": dict(sorted(labels.items())), "heldout": heldout, "heldout_in_train": heldout_in_train,
        "text": text, "nodes": nodes,
    }


def write_part(work: Store, shard: Shard, record: dict) -> None:
    """Save a finished shard's record (its files, hashes and patterns written before: the record comes last)."""
    work.write_text(part_names(shard)[0], json.dumps(record) + "\n")


def read_part(work: Store, shard: Shard, formats: tuple[str, ...], verify: bool = True) -> dict | None:
    """The shard's part record if the shard is finished and its files are intact, else None.

    ``verify=False`` skips hashing the files (for shards this run wrote or already checked)."""
    record_name, hashes, patterns = part_names(shard)
    if not (work.exists(record_name) and work.exists(hashes) and work.exists(patterns)):
        return None
    record = json.loads(work.read_text(record_name))
    if record["rows"] != shard.rows or work.size(hashes) != 16 * shard.rows:
        return None
    for fmt, name in shard_files(shard, formats).items():
        if fmt not in record["sha256"] or not work.exists(name) or verify and record["sha256"][fmt] != work.sha256(name):
            return None
    return record


def manifest_entries(shard: Shard, formats: tuple[str, ...], sha: dict[str, str]) -> list[dict]:
    """The manifest lines of one shard: one per file."""
    return [{"shard": shard.number, "file": name, "rows": shard.rows, "sha256": sha[fmt],
             "logical_file": shard.file.stem, "start": shard.start, "format": fmt}
            for fmt, name in shard_files(shard, formats).items()]


def check_manifest(folder: str | Path | Store) -> list[str]:
    """Files of a finished dataset (a folder, a URL or a store) whose bytes differ from its
    manifest (missing ones too)."""
    store = folder if isinstance(folder, Store) else open_store(folder)
    doc = json.loads(store.read_text("manifest.json"))
    return [e["file"] for e in doc["files"] if not store.exists(e["file"]) or store.sha256(e["file"]) != e["sha256"]]
