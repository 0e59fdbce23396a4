"""Worker tasks that write the dataset's files into the work store themselves.

The driver sends each worker a :class:`~clutrr.io.shards.Piece` and gets back only a part
record (rows, sha256, label counts, text counts, the node that wrote it): the rows travel
from the worker to the store, never back to the driver (which reads them from the store
only to join a cut shard written by workers of its own machine, :mod:`clutrr.pipeline.joins`).

- :func:`write_piece` generates a piece's rows and writes them. A piece that is a whole
  shard gets the shard's final files, its story hashes and pattern counts, then its part
  record (last). Otherwise the files are the piece's own, to be joined, except CSV and JSONL
  when the driver joins them as the pieces come back: they go into the shard's files in place.
- :func:`join_file` joins the pieces of one shard file into the final file (the bytes of
  a direct write); :func:`seal_shard` then joins their small files and writes the record.
  With workers on the driver's machine and a local work folder, the driver joins CSV and
  JSONL instead, each piece as it comes back (:class:`~clutrr.pipeline.joins.PieceJoiner`).
- :func:`rewrite_rows` puts regenerated rows in place of duplicate stories in a finished
  shard and returns the new digests and the statistics of the rows that changed.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from clutrr.engines import worker_node
from clutrr.io import manifest as mf
from clutrr.io.formats import csv_header, join_pieces, open_shard, rewrite_shard
from clutrr.io.rows import Task, TaskResult
from clutrr.io.shards import Piece, Shard, blocks
from clutrr.io.store import LocalStore, Store, open_store
from clutrr.pipeline.joins import BYTE_PIECES, PlacedPiece, Places
from clutrr.pipeline.spec import task_size
from clutrr.pipeline.tasks import TaskContext, add_counts, kinship, run_task


def write_piece(ctx: TaskContext, piece: Piece) -> dict:
    """Generate and write one piece (see the module's doc); its record."""
    work = open_store(ctx.work)
    shard, whole = piece.shard, piece.count == 1
    writers, places = _writers(ctx, work, piece)
    _, hash_name, pattern_name = mf.part_names(shard, None if whole else piece.number)
    labels: Counter = Counter()
    patterns: Counter = Counter()
    heldout = heldout_in_train = 0
    text: dict = {}
    with work.open(hash_name, "wb") as hashes:
        for r in blocks(piece, task_size(max(shard.file.ks), ctx.config.context_words)):
            result = run_task(ctx, Task(piece.task, shard.file.number, r))
            for w in writers.values():
                w.write(result)
            hashes.write(b"".join(result.hashes))
            labels.update(result.labels)
            patterns.update(result.patterns)
            heldout += result.heldout
            heldout_in_train += result.heldout_in_train
            add_counts(text, result.text)
    for w in writers.values():
        w.close()
    work.write_text(pattern_name, "".join(f"{p}\t{n}\n" for p, n in sorted(patterns.items())))
    record = mf.part_record(shard, {fmt: w.sha256 for fmt, w in writers.items()} if whole else {},
                            labels, heldout, heldout_in_train, text, [worker_node()])
    record["rows"] = piece.rows
    if whole:
        mf.write_part(work, shard, record)
    elif places is not None:
        placed = {fmt: w for fmt, w in writers.items() if isinstance(w, PlacedPiece)}
        record["sizes"] = {fmt: w.size for fmt, w in placed.items()}
        record["placed"] = {fmt: w.placed for fmt, w in placed.items()}
        places.write_sizes(record["sizes"])
    return record


def _writers(ctx: TaskContext, work: Store, piece: Piece) -> tuple[dict, Places | None]:
    """The piece's writers by format: the shard's files for a whole shard, else the piece's own,
    or CSV and JSONL into the shard's files in place (:mod:`clutrr.pipeline.joins`) when the
    driver joins them there; and the piece's :class:`Places` in that case."""
    shard, question, kin = piece.shard, ctx.config.question, kinship(ctx)
    if piece.count == 1:
        return {fmt: open_shard(work, name, fmt, True, question, kin)
                for fmt, name in mf.shard_files(shard, ctx.formats).items()}, None
    in_place = tuple(f for f in ctx.formats if f in BYTE_PIECES) if ctx.join_in_place else ()
    places = Places(work, piece, in_place) if in_place and isinstance(work, LocalStore) else None
    writers: dict = {}
    for fmt in ctx.formats:
        name = mf.piece_file(shard, piece.number, fmt)
        if fmt not in BYTE_PIECES:
            writers[fmt] = open_shard(work, name, fmt, False, question, kin)
        elif places is not None:
            header = csv_header(question, kin) if fmt == "csv" and piece.number == 0 else b""
            writers[fmt] = PlacedPiece(places.work, piece, fmt, places, header)
        else:
            writers[fmt] = TextPiece(work, name, fmt)
    return writers, places


class TextPiece:
    """A CSV or JSONL piece file: its rows' bytes, with no header and no digest (the shard's
    file is hashed once, when its pieces are joined)."""

    sha256 = None

    def __init__(self, work: Store, name: str, fmt: str) -> None:
        self._fh = work.open(name, "wb")
        self._csv = fmt == "csv"

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        self._fh.write(b"".join(result.csv if self._csv else result.jsonl))

    def close(self) -> None:
        """Finish the file."""
        self._fh.close()


def join_file(ctx: TaskContext, job: tuple[Shard, str, int]) -> str:
    """Join the ``count`` pieces of one shard file of format ``fmt`` into the shard's file; its sha256."""
    shard, fmt, count = job
    work = open_store(ctx.work)
    name = mf.shard_files(shard, (fmt,))[fmt]
    return join_pieces(work, [mf.piece_file(shard, i, fmt) for i in range(count)], name, fmt,
                       ctx.config.question, kinship(ctx))


def seal_shard(work: Store, shard: Shard, formats: tuple[str, ...], pieces: list[dict], sha: dict[str, str]) -> dict:
    """After its files are joined: the shard's story hashes and patterns from its pieces', its
    part record (written last), and the piece files removed. Small files only; the record."""
    _, hash_name, pattern_name = mf.part_names(shard)
    for name, i in ((hash_name, 1), (pattern_name, 2)):
        with work.open(name, "wb") as out:
            for p in range(len(pieces)):
                out.write(work.read_bytes(mf.part_names(shard, p)[i]))
    labels: Counter = Counter()
    text: dict = {}
    for p in pieces:
        labels.update(p["labels"])
        add_counts(text, p["text"])
    nodes = sorted({n for p in pieces for n in p["nodes"]})
    record = mf.part_record(shard, sha, labels, sum(p["heldout"] for p in pieces),
                            sum(p["heldout_in_train"] for p in pieces), text, nodes)
    mf.write_part(work, shard, record)
    for p in range(len(pieces)):
        for name in (*mf.part_names(shard, p)[1:], mf.piece_sizes(shard, p),
                     *(mf.piece_file(shard, p, fmt) for fmt in formats)):
            work.remove(name)
    return record


def rewrite_rows(ctx: TaskContext, job: tuple[Shard, dict[int, int]]) -> dict:
    """Regenerate the rows at these positions of a shard with these attempts and rewrite its
    files; returns ``{"sha256": {format: digest}, "new": [...], "old": [...]}``, the
    statistics of the new rows and of the rows they replace (see :func:`row_stats`)."""
    shard, attempts = job
    new = regenerate(ctx, shard.file.number, attempts)
    old = regenerate(ctx, shard.file.number, {p: 0 for p in attempts}, formats=())
    rows = _by_row(new)
    work = open_store(ctx.work)
    sha = {fmt: rewrite_shard(work, name, fmt, shard.start, rows, ctx.config.question, kinship(ctx))
           for fmt, name in mf.shard_files(shard, ctx.formats).items()}
    return {"sha256": sha, "new": [row_stats(r) for r in new], "old": [row_stats(r) for r in old]}


def regenerate(ctx: TaskContext, file: int, attempts: dict[int, int], formats: tuple[str, ...] | None = None
               ) -> list[TaskResult]:
    """The rows at these positions of a file with these attempts, in position order (in this worker)."""
    if formats is not None:
        ctx = replace(ctx, formats=formats)
    items = sorted(attempts.items())
    return [run_task(ctx, Task(-1, file, (p,), (a,))) for p, a in items]


def row_stats(r: TaskResult) -> dict:
    """What the statistics need from a result: labels, patterns, held-out counts, text counts."""
    return {"labels": dict(r.labels), "patterns": dict(r.patterns), "heldout": r.heldout,
            "heldout_in_train": r.heldout_in_train, "text": r.text}


def _by_row(results: list[TaskResult]) -> dict[int, TaskResult]:
    """Position -> a one-row result holding that row's encodings and hash."""
    out = {}
    for r in results:
        for i, pos in enumerate(r.task.positions):
            out[pos] = TaskResult(None, csv=r.csv[i:i + 1], jsonl=r.jsonl[i:i + 1], records=r.records[i:i + 1],
                                  hashes=r.hashes[i:i + 1])
    return out
