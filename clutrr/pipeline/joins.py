"""A cut shard's CSV and JSONL files joined in place: each piece's bytes go into the shard's file once.

When a shard is cut into pieces (the last shards of a run with several workers,
:func:`clutrr.pipeline.spec.plan_pieces`), a piece's place in the shard's file is the size of
the pieces before it, known only when they end. With the engine's workers on this machine and
a local work folder:

- a worker holds its piece's bytes until the pieces before it have all written down their
  sizes (:class:`Places`), then writes what it holds, and the rest of its piece, into the
  shard's file at that place (:class:`PlacedPiece`). The first piece's place is known at once.
  A piece whose place is still unknown when it holds :data:`PIECE_BUFFER` bytes, or when it
  ends, goes to a piece file instead, as with any other engine;
- the driver (:class:`PieceJoiner`) takes the pieces back in order and takes the file's
  sha256: it reads a placed piece from the shard's file, and copies a piece file into its
  place, removing it.

A byte then crosses the page cache once (twice for piece files: docs/speed.md, "Parallel runs").
"""
from __future__ import annotations

import hashlib
import json
import os
from typing import BinaryIO

from clutrr.io import manifest as mf
from clutrr.io.rows import TaskResult
from clutrr.io.shards import Piece, Shard
from clutrr.io.store import LocalStore

BYTE_PIECES = ("csv", "jsonl")  # formats whose shard file is its pieces' bytes end to end (Parquet is not)
# bytes the driver reads, hashes (and writes) at a time: small enough to stay in the core's own
# cache through the passes (4 MB chunks were several times slower to copy: docs/speed.md)
JOIN_CHUNK = 1 << 16
# bytes of a piece a worker holds while its place in the shard's file is unknown (per format)
PIECE_BUFFER = 32 << 20


def write_all(fd: int, data, at: int) -> int:
    """Write all of ``data`` at offset ``at`` of file descriptor ``fd``; the offset after it."""
    view = memoryview(data)
    while view:
        done = os.pwrite(fd, view, at)
        view, at = view[done:], at + done
    return at


class Places:
    """Where one piece starts in each of its shard's files: known once every piece before it
    has written down its sizes (:meth:`write_sizes`), read from those small files."""

    def __init__(self, work: LocalStore, piece: Piece, formats: tuple[str, ...]) -> None:
        self.work, self._piece = work, piece
        self._summed = 0  # pieces before this one whose sizes are in the offsets
        self._offsets = dict.fromkeys(formats, 0)

    def known(self) -> dict[str, int] | None:
        """Format -> the piece's offset in the shard's file, or None while a piece before it runs."""
        while self._summed < self._piece.number:
            try:
                sizes = json.loads(self.work.read_bytes(mf.piece_sizes(self._piece.shard, self._summed)))
            except FileNotFoundError:
                return None
            for fmt in self._offsets:
                self._offsets[fmt] += sizes[fmt]
            self._summed += 1
        return self._offsets

    def write_sizes(self, sizes: dict[str, int]) -> None:
        """Write down this piece's size in each file (whole, by a rename), for the pieces after it."""
        self.work.write_bytes(mf.piece_sizes(self._piece.shard, self._piece.number), json.dumps(sizes).encode())


class PlacedPiece:
    """One format of a piece, written into its shard's file at its place once :class:`Places`
    knows it; until then held in memory, or in a piece file past :data:`PIECE_BUFFER` bytes.
    ``header`` starts the piece (the CSV header of a shard's first piece)."""

    sha256 = None  # the shard's file is hashed by the driver

    def __init__(self, work: LocalStore, piece: Piece, fmt: str, places: Places, header: bytes = b"") -> None:
        self._work, self._piece, self._fmt, self._places = work, piece, fmt, places
        self._csv = fmt == "csv"
        self._held: list[bytes] = []
        self._held_bytes = 0
        self._file: BinaryIO | None = None  # the shard's file, once the place is known
        self._at = 0
        self._spill: BinaryIO | None = None
        self.size = 0  # bytes of the piece so far
        self.placed = False  # written into the shard's file (else into its piece file)
        self._add(header)

    def write(self, result: TaskResult) -> None:
        """Append the result's rows."""
        self._add(b"".join(result.csv if self._csv else result.jsonl))

    def _add(self, data: bytes) -> None:
        self.size += len(data)
        if self._file is not None:
            self._at = write_all(self._file.fileno(), data, self._at)
        elif self._spill is not None:
            self._spill.write(data)
        else:
            self._held.append(data)
            self._held_bytes += len(data)
            if not self._place() and self._held_bytes > PIECE_BUFFER:
                self._to_piece_file()

    def _place(self) -> bool:
        """Write the held bytes at the piece's place if it is known; whether it was."""
        offsets = self._places.known()
        if offsets is None:
            return False
        path = self._work.path(mf.shard_files(self._piece.shard, (self._fmt,))[self._fmt])
        path.parent.mkdir(parents=True, exist_ok=True)
        # never truncated here: pieces after this one may be in the file already (the driver
        # cuts the file to its size after the last piece)
        self._file = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644), "wb", buffering=0)
        self._at = offsets[self._fmt]
        for chunk in self._held:
            self._at = write_all(self._file.fileno(), chunk, self._at)
        self._held, self._held_bytes, self.placed = [], 0, True
        return True

    def _to_piece_file(self) -> None:
        self._spill = self._work.open(mf.piece_file(self._piece.shard, self._piece.number, self._fmt), "wb")
        for chunk in self._held:
            self._spill.write(chunk)
        self._held, self._held_bytes = [], 0

    def close(self) -> None:
        """Finish: the held bytes go to their place if it is known now, else to the piece file."""
        if self._file is None and self._spill is None and not self._place():
            self._to_piece_file()
        if self._file is not None:
            self._file.close()
            self._file = None
        if self._spill is not None:
            self._spill.close()
            self._spill = None


class _ShardFile:
    """The driver's side of one shard file being joined: where the next piece starts, and the sha256."""

    def __init__(self, path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o644), "r+b", buffering=0)
        self.fd = self.file.fileno()
        self.at = 0
        self.hash = hashlib.sha256()

    def read_placed(self, size: int, buffer: bytearray) -> None:
        """Hash the next ``size`` bytes, which a worker wrote in place."""
        view = memoryview(buffer)
        end = self.at + size
        while self.at < end:
            n = os.preadv(self.fd, [view[:min(len(buffer), end - self.at)]], self.at)
            if n == 0:
                raise RuntimeError(f"a placed piece ends {end - self.at} bytes short of its written size")
            self.hash.update(view[:n])
            self.at += n

    def copy_in(self, src: BinaryIO, buffer: bytearray) -> None:
        """Hash a piece file's bytes and write them at their place."""
        view = memoryview(buffer)
        while n := src.readinto(buffer):
            self.hash.update(view[:n])
            self.at = write_all(self.fd, view[:n], self.at)

    def finish(self) -> str:
        """Cut the file to what was joined (a run before may have left more), close it; its sha256."""
        os.ftruncate(self.fd, self.at)
        self.close()
        return self.hash.hexdigest()

    def close(self) -> None:
        """Close the file."""
        self.file.close()


class PieceJoiner:
    """The driver's join of cut shards' CSV and JSONL files, piece by piece as the pieces come
    back in order, so that no join is left after the last piece (see the module's doc). ``work``
    is the folder on this machine where the pieces' workers write, or None when there is none
    (remote workers or an object store: no format is joined here); ``pieces`` are the run's."""

    def __init__(self, work: LocalStore | None, formats: tuple[str, ...], pieces: list[Piece]) -> None:
        self._work = work
        self.formats = tuple(f for f in formats if f in BYTE_PIECES) if work is not None else ()
        self._open: dict[Shard, dict[str, _ShardFile]] = {}
        # one buffer for every read, made on the first piece (most runs cut no shard)
        self._buffer: bytearray | None = None
        if work is not None and self.formats:  # sizes an earlier run's pieces wrote would misplace these
            for p in pieces:
                if p.count > 1:
                    work.remove(mf.piece_sizes(p.shard, p.number))

    def add(self, piece: Piece, record: dict) -> dict[str, str] | None:
        """Join ``piece`` (the next one of its shard; ``record`` its worker's); the digests by
        format once it was the last."""
        shard, work = piece.shard, self._work
        if work is None:
            raise RuntimeError("no local folder to join pieces in")
        if shard not in self._open:
            self._open[shard] = {fmt: _ShardFile(work.path(name))
                                 for fmt, name in mf.shard_files(shard, self.formats).items()}
        files = self._open[shard]
        if self._buffer is None:
            self._buffer = bytearray(JOIN_CHUNK)
        for fmt, joined in files.items():
            if record["placed"][fmt]:
                joined.read_placed(record["sizes"][fmt], self._buffer)
                continue
            name = mf.piece_file(shard, piece.number, fmt)
            with work.open(name) as fh:
                joined.copy_in(fh, self._buffer)
            work.remove(name)
        if piece.number < piece.count - 1:
            return None
        del self._open[shard]
        return {fmt: joined.finish() for fmt, joined in files.items()}

    def close(self) -> None:
        """Close the files of shards left unfinished (the run failed)."""
        for files in self._open.values():
            for joined in files.values():
                joined.close()
        self._open.clear()
