"""Output to an object store: a real S3-compatible server (moto's server mode) on 127.0.0.1, written
through s3fs by the workers themselves, gives the bytes of a local run; the staging prefix and the
commit follow the local folder's safety rules."""
from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys

import pytest

from helpers import REPO
from clutrr.io.manifest import check_manifest

moto_server = pytest.importorskip("moto.server", reason="moto is not installed: pip install 'moto[server]'")
s3fs = pytest.importorskip("s3fs", reason="s3fs is not installed: pip install 'clutrr[s3]'")
fsspec = pytest.importorskip("fsspec")

ARGS = ["--k", "2,3", "--test-k", "2,4", "--noise", "all", "--train-rows", "700", "--test-rows", "150",
        "--seed", "11", "--format", "csv,jsonl,parquet", "--rows-per-shard", "500"]
SMALL = ["--k", "2", "--test-k", "2", "--train-rows", "30", "--test-rows", "20", "--format", "csv"]
SECRET = "not-a-real-secret-4f1d"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3():
    """An S3-compatible server on a free port of 127.0.0.1, with bucket ``data``; the environment
    that points fsspec at it (fake credentials)."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_DEFAULT_REGION": "us-east-1",
           "FSSPEC_S3_ENDPOINT_URL": f"http://127.0.0.1:{port}"}
    fs = s3fs.S3FileSystem(key="testing", secret=SECRET, endpoint_url=env["FSSPEC_S3_ENDPOINT_URL"])
    fs.mkdir("data")
    try:
        yield fs, env
    finally:
        server.stop()


def _generate(out: str, env: dict | None, *extra: str, args: list[str] = ARGS) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "generate.py"), "--quiet", *args, "--out", out, *extra],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, cwd=REPO)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    out = tmp_path_factory.mktemp("local") / "d"
    done = _generate(str(out), None)
    assert done.returncode == 0, done.stderr
    return out


def test_workers_write_to_s3_the_bytes_of_a_local_run(s3, local, monkeypatch):
    fs, env = s3
    done = _generate("s3://data/runs/d", env, "--workers", "2")
    assert done.returncode == 0, done.stderr
    fs.invalidate_cache()
    remote = sorted(p.rpartition("/")[2] for p in fs.find("data/runs/d"))
    assert remote == sorted(p.name for p in local.iterdir())
    for name in remote:
        assert fs.cat(f"data/runs/d/{name}") == (local / name).read_bytes(), name
    assert fs.ls("data/runs", detail=False) == ["data/runs/d"]  # the staging prefix is gone
    for key, value in env.items():  # check_manifest reads the store from this process
        monkeypatch.setenv(key, value)
    monkeypatch.setitem(fsspec.config.conf, "s3", {"endpoint_url": env["FSSPEC_S3_ENDPOINT_URL"]})
    assert check_manifest("s3://data/runs/d") == []


def test_force_replaces_only_a_dataset_clutrr_wrote(s3):
    fs, env = s3
    fs.pipe("data/mine/notes.txt", b"my notes")
    refused = _generate("s3://data/mine", env, "--force", args=SMALL)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "clutrr did not write it" in refused.stderr
    assert fs.cat("data/mine/notes.txt") == b"my notes"
    assert _generate("s3://data/twice", env, args=SMALL).returncode == 0
    again = _generate("s3://data/twice", env, args=SMALL)
    assert again.returncode == 2 and "use --force" in again.stderr
    fs.pipe("data/twice/extra.csv", b"added by a user")
    refused = _generate("s3://data/twice", env, "--force", args=SMALL)
    assert refused.returncode == 2 and "extra.csv" in refused.stderr
    assert fs.cat("data/twice/extra.csv") == b"added by a user"
    fs.rm("data/twice/extra.csv")
    # an older, larger dataset: --force removes the files it listed that the new one lacks
    fs.pipe("data/twice/old-00001-of-00009.csv", b"x")
    manifest = json.loads(fs.cat("data/twice/manifest.json"))
    manifest["files"].append({"file": "old-00001-of-00009.csv"})
    fs.pipe("data/twice/manifest.json", json.dumps(manifest).encode())
    replaced = _generate("s3://data/twice", env, "--force", args=SMALL)
    assert replaced.returncode == 0, replaced.stderr
    fs.invalidate_cache()
    listed = {e["file"] for e in json.loads(fs.cat("data/twice/manifest.json"))["files"]}
    assert {p.rpartition("/")[2] for p in fs.find("data/twice")} == listed | {"manifest.json", "config.json"}
    assert "old-00001-of-00009.csv" not in listed


def test_store_failures_are_one_line_without_credentials(s3):
    _, env = s3
    done = _generate(f"s3://testing:{SECRET}@data/d", env, args=SMALL)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "credentials in a URL are refused" in done.stderr and SECRET not in done.stderr
    missing = _generate("s3://no-such-bucket/d", env, args=SMALL)
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1, missing.stderr
    assert "cannot write to s3://no-such-bucket/d" in missing.stderr and SECRET not in missing.stderr
    whole = _generate("s3://data", env, args=SMALL)
    assert whole.returncode == 2 and "whole bucket" in whole.stderr


def test_a_job_array_on_s3_then_resume_assembles_the_local_bytes(s3, tmp_path):
    fs, env = s3
    args = [*SMALL, "--rows-per-shard", "10"]
    local = _generate(str(tmp_path / "d"), None, args=args)
    assert local.returncode == 0, local.stderr
    for i in range(2):
        job = _generate("s3://data/array/d", env, "--shard", str(i), "--num-shards", "2", args=args)
        assert job.returncode == 0, job.stderr
    fs.invalidate_cache()
    assert fs.ls("data/array", detail=False) == ["data/array/.d.partial"]
    done = _generate("s3://data/array/d", env, "--resume", args=args)
    assert done.returncode == 0, done.stderr
    fs.invalidate_cache()
    assert fs.ls("data/array", detail=False) == ["data/array/d"]
    names = sorted(p.name for p in (tmp_path / "d").iterdir())
    assert sorted(p.rpartition("/")[2] for p in fs.find("data/array/d")) == names
    for name in names:
        assert fs.cat(f"data/array/d/{name}") == (tmp_path / "d" / name).read_bytes(), name
