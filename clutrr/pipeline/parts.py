"""Worker tasks that write the dataset's files into the work store themselves.

The driver sends each worker a :class:`~clutrr.io.shards.Piece` and gets back only a part
record (rows, sha256, label counts, text counts, the node that wrote it): the rows travel
from the worker to the store, never back to the driver (which reads them from the store
only to join a cut shard written by workers of its own machine, :class:`PieceJoiner`).

- :func:`write_piece` generates a piece's rows and writes them. A piece that is a whole
  shard gets the shard's final files, its story hashes and pattern counts, then its part
  record (last). Otherwise the files are the piece's own, to be joined.
- :func:`join_file` joins the pieces of one shard file into the final file (the bytes of
  a direct write); :func:`seal_shard` then joins their small files and writes the record.
  With workers on the driver's machine and a local work folder, :class:`PieceJoiner` joins
  CSV and JSONL in the driver instead, each piece as it comes back (no join after the last).
- :func:`rewrite_rows` puts regenerated rows in place of duplicate stories in a finished
  shard and returns the new digests and the statistics of the rows that changed.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import replace

from clutrr.engines import worker_node
from clutrr.io import manifest as mf
from clutrr.io.formats import TextShard, join_pieces, open_shard, rewrite_shard
from clutrr.io.rows import Task, TaskResult
from clutrr.io.shards import Piece, Shard, blocks
from clutrr.io.store import Store, open_store
from clutrr.pipeline.spec import task_size
from clutrr.pipeline.tasks import TaskContext, add_counts, kinship, run_task

BYTE_PIECES = ("csv", "jsonl")  # formats whose shard file is its pieces' bytes end to end (Parquet is not)
# bytes the driver reads, hashes and writes at a time when it joins pieces: small enough to stay in the
# core's own cache through the three passes (a compiled --workers 2 run copied 4 MB chunks into the
# shard's file several times slower: docs/speed.md, "Parallel runs")
JOIN_CHUNK = 1 << 16


def write_piece(ctx: TaskContext, piece: Piece) -> dict:
    """Generate and write one piece (see the module's doc); its record."""
    work = open_store(ctx.work)
    shard, whole = piece.shard, piece.count == 1
    names = mf.shard_files(shard, ctx.formats) if whole else \
        {fmt: mf.piece_file(shard, piece.number, fmt) for fmt in ctx.formats}
    writers = {fmt: open_shard(work, name, fmt, whole, ctx.config.question, kinship(ctx))
               if whole or fmt not in BYTE_PIECES else TextPiece(work, name, fmt) for fmt, name in names.items()}
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
    return record


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


class PieceJoiner:
    """The driver's join of cut shards' CSV and JSONL files, piece by piece as the pieces come
    back in order: each piece file is appended to its shard's file, then removed. The join then
    costs no pass after the last piece (where workers would wait for it) and no task; it needs
    the work store on this machine's disk, written by workers of this machine."""

    def __init__(self, work: Store, ctx: TaskContext) -> None:
        self._work, self._ctx = work, ctx
        self.formats = tuple(f for f in ctx.formats if f in BYTE_PIECES)
        self._open: dict[Shard, dict[str, TextShard]] = {}
        # one buffer for every read (no fresh pages per chunk), made on the first piece (most runs cut
        # no shard into pieces)
        self._buffer: bytearray | None = None

    def add(self, piece: Piece) -> dict[str, str] | None:
        """Append ``piece`` (the next one of its shard); the digests by format once it was the last."""
        shard = piece.shard
        if shard not in self._open:
            self._open[shard] = {fmt: TextShard(self._work, name, fmt, question=self._ctx.config.question,
                                                kinship=kinship(self._ctx))
                                 for fmt, name in mf.shard_files(shard, self.formats).items()}
        writers = self._open[shard]
        if self._buffer is None:
            self._buffer = bytearray(JOIN_CHUNK)
        view = memoryview(self._buffer)
        for fmt, writer in writers.items():
            name = mf.piece_file(shard, piece.number, fmt)
            with self._work.open(name) as fh:
                while size := fh.readinto(self._buffer):
                    writer.write_bytes(view[:size])
            self._work.remove(name)
        if piece.number < piece.count - 1:
            return None
        del self._open[shard]
        for writer in writers.values():
            writer.close()
        return {fmt: writer.sha256 for fmt, writer in writers.items()}

    def close(self) -> None:
        """Close the files of shards left unfinished (the run failed)."""
        for writers in self._open.values():
            for writer in writers.values():
                writer.close()
        self._open.clear()


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
        for name in (*mf.part_names(shard, p)[1:], *(mf.piece_file(shard, p, fmt) for fmt in formats)):
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
