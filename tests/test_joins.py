"""A cut shard's CSV and JSONL joined in place (clutrr.pipeline.joins): the bytes and sha256 of a
whole-shard write, whatever order the pieces end in and whichever of them go to piece files."""
from __future__ import annotations

import hashlib
import itertools
import json

import numpy as np
import pytest

from clutrr.io import manifest as mf
from clutrr.io.dedupe import RECORD, sorted_records
from clutrr.io.shards import Piece, plan_shards
from clutrr.io.store import LocalStore
from clutrr.pipeline import joins
from clutrr.pipeline.parts import write_piece
from clutrr.pipeline.spec import DatasetSpec, plan_pieces
from clutrr.pipeline.tasks import TaskContext

SPEC = DatasetSpec(train_k=(10,), test_k=(), train_rows=1200, seed=7)  # five pieces for two workers
FORMATS = ("csv", "jsonl")


def _context(folder, in_place: bool) -> TaskContext:
    return TaskContext(SPEC.config, SPEC.seed, tuple(SPEC.logical_files()), FORMATS, str(folder), in_place)


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    """The shard written by one task: its files' bytes and digests."""
    folder = tmp_path_factory.mktemp("whole")
    shard = plan_shards(SPEC.logical_files(), 1_000_000)[0]
    record = write_piece(_context(folder, False), Piece(shard, 0, 1, shard.start, shard.stop, 0))
    names = mf.shard_files(shard, FORMATS)
    return {fmt: (folder / names[fmt]).read_bytes() for fmt in FORMATS}, record["sha256"]


def _pieces() -> list[Piece]:
    pieces = plan_pieces(plan_shards(SPEC.logical_files(), 1_000_000), 2)
    assert len(pieces) >= 4, "the shard is not cut into enough pieces"
    return pieces


def _join(folder, order: list[int]) -> tuple[dict, dict, list[dict]]:
    """Write the pieces in ``order`` (each one whole before the next starts), then join them in
    the driver's order; (the shard's bytes by format, the joiner's digests, the records)."""
    pieces = _pieces()
    work = LocalStore(folder)
    joiner = joins.PieceJoiner(work, FORMATS, pieces)
    records = {i: write_piece(_context(folder, True), pieces[i]) for i in order}
    digests = None
    for i, piece in enumerate(pieces):
        digests = joiner.add(piece, records[i]) or digests
    names = mf.shard_files(pieces[0].shard, FORMATS)
    return {fmt: (folder / names[fmt]).read_bytes() for fmt in FORMATS}, digests, [records[i] for i in range(len(pieces))]


def _placed(records: list[dict]) -> list[bool]:
    return [r["placed"]["csv"] and r["placed"]["jsonl"] for r in records]


def test_pieces_in_row_order_are_all_written_in_place(whole, tmp_path):
    data, digests, records = _join(tmp_path, list(range(len(_pieces()))))
    assert _placed(records) == [True] * len(records)
    assert (data, digests) == whole
    assert not list((tmp_path / mf.PARTS).glob("*.csv")), "a piece file was written"


def test_pieces_ending_before_the_ones_before_them_go_to_piece_files(whole, tmp_path):
    n = len(_pieces())
    data, digests, records = _join(tmp_path, [0, *range(n - 1, 0, -1)])  # the first, then from the last back
    assert _placed(records) == [True, True, *[False] * (n - 2)]  # the second knows its place: it ends last
    assert (data, digests) == whole


@pytest.mark.parametrize("order", [p for p in itertools.permutations(range(4))][::5])
def test_any_order_of_the_first_pieces_gives_the_whole_shards_bytes(whole, tmp_path, order):
    n = len(_pieces())
    data, digests, _ = _join(tmp_path, [*order, *range(4, n)])
    assert (data, digests) == whole


def test_a_piece_that_outgrows_the_buffer_before_its_place_is_known_goes_to_its_piece_file(whole, tmp_path,
                                                                                          monkeypatch):
    monkeypatch.setattr(joins, "PIECE_BUFFER", 1000)
    n = len(_pieces())
    data, digests, records = _join(tmp_path, [1, 0, *range(2, n)])
    assert _placed(records)[:2] == [True, False]
    assert (tmp_path / mf.PARTS).exists()
    assert (data, digests) == whole


def test_an_earlier_runs_sizes_and_longer_file_do_not_change_the_join(whole, tmp_path):
    pieces = _pieces()
    work = LocalStore(tmp_path)
    for p in pieces[:3]:  # sizes an interrupted run wrote down, wrong for this one
        work.write_bytes(mf.piece_sizes(p.shard, p.number), json.dumps({"csv": 5, "jsonl": 7}).encode())
    for fmt, name in mf.shard_files(pieces[0].shard, FORMATS).items():
        work.write_bytes(name, b"x" * (len(whole[0][fmt]) + 4096))
    data, digests, _ = _join(tmp_path, list(range(len(pieces))))
    assert (data, digests) == whole


def test_the_joiner_takes_no_format_without_a_local_folder():
    assert joins.PieceJoiner(None, FORMATS, _pieces()).formats == ()
    assert joins.PieceJoiner(LocalStore("."), ("parquet",), []).formats == ()


def test_the_digest_is_the_files_sha256(whole):
    data, digests = whole
    assert digests == {fmt: hashlib.sha256(data[fmt]).hexdigest() for fmt in FORMATS}


def _records(rng, n: int, shared: int) -> np.ndarray:
    rec = np.empty(n, dtype=RECORD)
    rec["h1"] = rng.integers(0, 1 << 63, n, dtype=np.uint64)
    rec["h2"] = rng.integers(0, 1 << 63, n, dtype=np.uint64)
    rec["g"] = rng.permutation(n)
    to, src = rng.choice(n, shared, replace=False), rng.choice(n, shared)
    rec["h1"][to] = rec["h1"][src]  # runs of one h1, half of them with one h2 too (the same story)
    rec["h2"][to[: shared // 2]] = rec["h2"][src[: shared // 2]]
    return rec


@pytest.mark.parametrize("n, shared", [(1, 0), (2, 1), (50, 30), (20_000, 900), (20_000, 0)])
def test_sorted_records_are_the_three_key_sort(n, shared):
    rec = _records(np.random.default_rng(n + shared), n, shared)
    expected = rec[np.lexsort((rec["g"], rec["h2"], rec["h1"]))]
    assert sorted_records(rec).tobytes() == expected.tobytes()


def test_a_workers_memory_budget_holds_the_piece_buffers():
    from clutrr.engines.resources import WORKER_MEMORY

    assert WORKER_MEMORY >= len(joins.BYTE_PIECES) * joins.PIECE_BUFFER + (20 << 20)


@pytest.mark.parametrize("rows, k", [(100_000, (2, 3)), (30_000, (10,)), (3_000, (2, 3))])
def test_a_cut_shards_pieces_are_short_and_its_first_is_shorter_than_the_second(rows, k):
    from clutrr.pipeline.spec import PIECE_TASKS, task_size

    spec = DatasetSpec(train_k=k, test_k=(), train_rows=rows)
    pieces = plan_pieces(plan_shards(spec.logical_files(), 1_000_000), 2)
    sizes = [p.rows for p in pieces]
    assert len(sizes) > 2 and sum(sizes) == spec.logical_files()[0].rows
    assert max(sizes) <= PIECE_TASKS * task_size(max(k)) * 3 // 2  # the last may take the rest
    assert sizes[0] < sizes[1]  # started together, the second ends after the first
