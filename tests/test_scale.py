"""Sharded generation: same bytes for any engine, worker count or sharding; manifest, resume, retries."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest

from helpers import REPO, run_generate
from clutrr.baselines.data import load_dataset
from clutrr.story.generator import GeneratorConfig
from clutrr.io.csv_format import read_csv
from clutrr.io.datadir import load_splits
from clutrr.pipeline import parts, run as pipeline_run
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec, RunOptions, plan_pieces
from clutrr.io.formats import sha256_file
from clutrr.io.manifest import check_manifest
from clutrr.io.shards import logical_files, plan_shards

SPEC = DatasetSpec(train_k=(2, 3), test_k=(2, 4), noise="all", test_noise=("all",), train_rows=90, test_rows=60, seed=4)
FORMATS = ("csv", "jsonl", "parquet")


def _bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


class DieOnce:
    """A test-only wrapper of ``write_piece``: the worker writing piece ``task`` exits abruptly
    once (it creates ``marker``, which a retry finds). Production code has no such hook: the
    tests put this in the place of the pipeline's ``write_piece``."""

    def __init__(self, task: int, marker: str) -> None:
        self.task, self.marker = task, marker

    def __call__(self, ctx, piece):
        if piece.task == self.task and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(3)
        return parts.write_piece(ctx, piece)


class JoinRecorder:
    """A test-only wrapper of ``join_file`` that notes the format of every join task in ``log``
    (one line each, from whichever process runs the task), then joins."""

    def __init__(self, log: str) -> None:
        self.log = log

    def __call__(self, ctx, job):
        with open(self.log, "a") as fh:
            fh.write(job[1] + "\n")
        return parts.join_file(ctx, job)


CUT = DatasetSpec(train_k=(4,), test_k=(), train_rows=1600, seed=4)  # one shard two workers cut in pieces


def _write(out, run=RunOptions(progress=False), spec=SPEC, rows_per_shard=1_000_000):
    return write_dataset(spec, out, formats=FORMATS, rows_per_shard=rows_per_shard, run=run)


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    out = tmp_path_factory.mktemp("single") / "d"
    _write(out)
    return out


def test_two_processes_give_the_bytes_of_one_even_when_a_worker_dies(single, tmp_path, monkeypatch):
    monkeypatch.setattr(pipeline_run, "write_piece", DieOnce(1, str(tmp_path / "died")))
    _write(tmp_path / "d", RunOptions(workers=2, progress=False))
    assert (tmp_path / "died").exists(), "the fault hook did not fire"
    assert _bytes(tmp_path / "d") == _bytes(single)


def test_ray_gives_the_bytes_of_one_process_after_a_task_fails(single, tmp_path, monkeypatch):
    ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    # Ray's workers import this module (by name, as the hook's class is pickled) from the tests folder
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        monkeypatch.setattr(pipeline_run, "write_piece", DieOnce(2, str(tmp_path / "died")))
        _write(tmp_path / "d", RunOptions(engine="ray", workers=2, progress=False))
    finally:
        ray.shutdown()
    assert (tmp_path / "died").exists(), "the fault hook did not fire"
    assert _bytes(tmp_path / "d") == _bytes(single)


def test_local_workers_join_a_cut_shards_text_in_the_driver(tmp_path, monkeypatch):
    """Local workers: the CSV and JSONL of a shard cut into pieces are joined by the driver as
    the pieces come back, no task joins them (Parquet is joined by a task); one process's bytes."""
    assert len(plan_pieces(plan_shards(CUT.logical_files(), 1_000_000), 2)) > 1, "the shard is not cut"
    _write(tmp_path / "one", spec=CUT)
    monkeypatch.setattr(pipeline_run, "join_file", JoinRecorder(str(tmp_path / "joins")))
    _write(tmp_path / "two", RunOptions(workers=2, progress=False), spec=CUT)
    assert (tmp_path / "joins").read_text() == "parquet\n"
    assert _bytes(tmp_path / "two") == _bytes(tmp_path / "one")


def test_ray_joins_a_cut_shard_in_tasks(tmp_path, monkeypatch):
    """Ray workers may be on other machines: every format of a cut shard is joined by a task."""
    ray = pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    _write(tmp_path / "one", spec=CUT)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO / "tests"), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.setattr(pipeline_run, "join_file", JoinRecorder(str(tmp_path / "joins")))
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        _write(tmp_path / "two", RunOptions(engine="ray", workers=2, progress=False), spec=CUT)
    finally:
        ray.shutdown()
    assert sorted((tmp_path / "joins").read_text().split()) == sorted(FORMATS)
    assert _bytes(tmp_path / "two") == _bytes(tmp_path / "one")


def test_shards_hold_the_rows_of_the_unsharded_file(single, tmp_path):
    out = tmp_path / "d"
    _write(out, RunOptions(workers=2, progress=False), rows_per_shard=50)
    files = logical_files(out, ".csv")
    assert [p.name for p in files["5.2,5.3_train"]] == [f"5.2,5.3_train-{i:05d}-of-00004.csv" for i in range(4)]
    assert [p.name for p in files["5.4_test"]] == ["5.4_test-00000-of-00002.csv", "5.4_test-00001-of-00002.csv"]
    for suffix in (".csv", ".jsonl"):
        for stem, parts in logical_files(out, suffix).items():
            joined = "".join(p.read_text().split("\n", 1)[1] if suffix == ".csv" else p.read_text() for p in parts)
            whole = (single / f"{stem}{suffix}").read_text()
            assert joined == (whole.split("\n", 1)[1] if suffix == ".csv" else whole), stem
    # every reader sees the logical files
    assert [(s.name, [r.id for r in s.rows]) for s in load_splits(out)] == \
        [(s.name, [r.id for r in s.rows]) for s in load_splits(single)]
    assert [r.story for r in read_csv(out / "5.4_test.csv")] == [r.story for r in read_csv(single / "5.4_test.csv")]
    sharded, whole = load_dataset(out), load_dataset(single)
    assert [s.id for s in sharded.train] == [s.id for s in whole.train]
    assert [(t.file, len(t.stories)) for t in sharded.tests] == [(t.file, len(t.stories)) for t in whole.tests]
    # the statistics do not depend on the sharding
    a, b = (json.loads((d / "config.json").read_text()) for d in (out, single))
    assert {k: {**v, "shards": 0} for k, v in a["files"].items()} == {k: {**v, "shards": 0} for k, v in b["files"].items()}


def test_manifest_lists_every_file_with_its_sha256(single, tmp_path):
    doc = json.loads((single / "manifest.json").read_text())
    on_disk = sorted(p.name for p in single.iterdir() if p.name not in ("manifest.json", "config.json"))
    assert sorted(e["file"] for e in doc["files"]) == on_disk
    for e in doc["files"]:
        assert e["sha256"] == sha256_file(single / e["file"]) and e["rows"] > 0
    assert check_manifest(single) == []


def test_job_array_then_resume_assembles_the_same_dataset(single, tmp_path):
    out = tmp_path / "d"
    for i in range(3):
        summary = _write(out, RunOptions(shard=(i, 3), progress=False), rows_per_shard=50)
        assert summary["generated"] == summary["shards"] > 0
    assert not out.exists(), "jobs of an array only write shards"
    partial = tmp_path / ".d.partial"
    before = {p.name: p.stat().st_mtime_ns for p in partial.iterdir() if p.suffix == ".csv"}
    _write(out, RunOptions(resume=True, progress=False), rows_per_shard=50)
    assert not partial.exists()
    sharded = _bytes(out)
    assert before and all((out / n).stat().st_mtime_ns == m for n, m in before.items()), \
        "finished shards were generated again"
    # resume also finishes a run that stopped half way; its bytes are those of a direct run
    direct = tmp_path / "direct"
    _write(direct, rows_per_shard=50)
    assert sharded == _bytes(direct)


def test_resume_refuses_shards_of_other_arguments(tmp_path):
    _write(tmp_path / "d", RunOptions(shard=(0, 2), progress=False), rows_per_shard=50)
    other = DatasetSpec(**{**SPEC.__dict__, "seed": 5})
    res = run_generate("--resume", "--out", str(tmp_path / "d"), "--seed", "5")
    assert res.returncode == 2 and "other arguments" in res.stderr
    with pytest.raises(Exception, match="other arguments"):
        _write(tmp_path / "d", RunOptions(resume=True, progress=False), spec=other, rows_per_shard=50)


def test_repeated_stories_are_replaced_the_same_way_for_any_sharding(tmp_path):
    # one-fact stories with plain templates repeat often enough to exercise the replacement rounds
    spec = DatasetSpec(train_k=(1,), test_k=(1,), train_rows=4000, test_rows=2000, seed=0,
                       config=GeneratorConfig(templates="synthetic", template_split=False))
    a = write_dataset(spec, tmp_path / "a", formats=FORMATS, run=RunOptions(progress=False))
    write_dataset(spec, tmp_path / "b", formats=FORMATS, rows_per_shard=700, run=RunOptions(workers=2, progress=False))
    assert a["checks"]["rows_replaced"] > 0
    stories = [r.story for s in load_splits(tmp_path / "a") for r in s.rows]
    assert len(stories) == 6000 and len(set(stories)) == 6000
    for stem, parts in logical_files(tmp_path / "b", ".jsonl").items():
        assert "".join(p.read_text() for p in parts) == (tmp_path / "a" / f"{stem}.jsonl").read_text()
    # the statistics count the rows as written
    labels = Counter(r.target for r in read_csv(tmp_path / "a" / "1.1_train.csv"))
    assert a["files"]["1.1_train"]["labels"] == dict(sorted(labels.items()))


def test_import_clutrr_does_not_import_ray():
    code = ("import sys, clutrr, clutrr.pipeline.run, clutrr.commands.generate, clutrr.engines; "
            "print('ray' in sys.modules, 'pyarrow' in sys.modules)")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert res.stdout.split() == ["False", "False"], res.stderr


@pytest.mark.parametrize("buckets", [1, 2])  # one bucket is held in memory, more are files
def test_story_hashes_keep_the_lowest_index_whatever_the_order(tmp_path, buckets):
    from clutrr.io.dedupe import StoryHashes, hash_records

    h = [bytes([i % 3]) * 16 for i in range(9)]  # three stories, each three times
    results = []
    for name, order in (("a", range(9)), ("b", reversed(range(9)))):
        store = StoryHashes(tmp_path / name, buckets=buckets)
        for i in order:
            store.add(hash_records([h[i]], i))
        dups, keepers = store.take_duplicates(range(buckets))
        results.append((dups.tolist(), keepers.tolist()))
        assert store.take_duplicates(range(buckets))[0].size == 0, "duplicates leave their bucket"
        assert any((tmp_path / name).iterdir()) == (buckets > 1)
    assert results[0] == results[1] == ([3, 4, 5, 6, 7, 8], [0, 1, 2, 0, 1, 2])


def test_resume_on_a_finished_dataset_checks_it_against_the_manifest(single, tmp_path):
    import shutil

    from clutrr.errors import UsageError

    copy = tmp_path / "d"
    shutil.copytree(single, copy)
    before = _bytes(copy)
    assert _write(copy, RunOptions(resume=True, progress=False))["seed"] == SPEC.seed
    assert _bytes(copy) == before
    with open(copy / "5.4_test.jsonl", "a") as fh:
        fh.write("\n")
    with pytest.raises(UsageError, match="differs from manifest"):
        _write(copy, RunOptions(resume=True, progress=False))
