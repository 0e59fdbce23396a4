"""A real two-node Ray cluster on this machine: tasks run on both nodes (their node ids are in the
part records), a worker killed on the second node is retried, and the bytes equal one local
process's; a dead cluster address fails fast with one line."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from helpers import REPO

pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
psutil = pytest.importorskip("psutil")

from clutrr.engines.ray_cluster import LocalCluster, free_port  # noqa: E402

ARGS = ["--k", "2,3", "--test-k", "3", "--noise", "all", "--train-rows", "2500", "--test-rows", "200", "--seed", "8",
        "--format", "csv,jsonl,parquet", "--rows-per-shard", "200"]


def _generate(out, *extra: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "generate.py"), "--quiet", *ARGS, "--out", str(out), *extra],
                          capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=timeout)


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster((1, 1)) as c:
        yield c, c.node_ids()


def _records(parts):
    out = []
    for path in parts.glob("*.json"):
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError):  # being written
            continue
    return out


class Killer(threading.Thread):
    """Once node ``node`` has written a shard (its id in a part record under ``parts``), kills
    (SIGKILL) the next Ray worker of that node seen running a task."""

    def __init__(self, cluster: LocalCluster, node: int, node_id: str, parts) -> None:
        super().__init__(daemon=True)
        self.cluster, self.node, self.node_id, self.parts = cluster, node, node_id, parts
        self.killed: list[int] = []
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.is_set() and not any(self.node_id in r["nodes"] for r in _records(self.parts)):
            time.sleep(0.01)
        while not self.done.is_set() and not self.killed:
            for pid, proc in self.cluster.processes(self.node).items():
                try:
                    if proc.cmdline()[:1] == ["ray::_call"]:
                        os.kill(pid, signal.SIGKILL)
                        self.killed.append(pid)
                        break
                except (psutil.Error, IndexError, ProcessLookupError):
                    continue
            time.sleep(0.005)


def test_tasks_run_on_both_nodes_and_a_killed_worker_changes_no_byte(cluster, tmp_path):
    cluster, ids = cluster
    local = _generate(tmp_path / "local")
    assert local.returncode == 0, local.stderr
    ray_args = ("--engine", "ray", "--address", cluster.address)
    killer = Killer(cluster, 1, ids["node1"], tmp_path / ".d.partial" / ".parts")
    killer.start()
    try:
        job = _generate(tmp_path / "d", *ray_args, "--shard", "0", "--num-shards", "1", env=cluster.env)
    finally:
        killer.done.set()
        killer.join()
    assert job.returncode == 0, job.stderr
    assert killer.killed, "no worker of the second node was seen running a task after it wrote a shard"
    nodes = {n for r in _records(tmp_path / ".d.partial" / ".parts") for n in r["nodes"]}
    assert nodes == set(ids.values()), (nodes, ids)
    done = _generate(tmp_path / "d", *ray_args, "--resume", env=cluster.env)
    assert done.returncode == 0, done.stderr
    mine = sorted(p.name for p in (tmp_path / "d").iterdir())
    assert mine == sorted(p.name for p in (tmp_path / "local").iterdir())
    for name in mine:
        assert (tmp_path / "d" / name).read_bytes() == (tmp_path / "local" / name).read_bytes(), name


def test_a_dead_address_fails_fast_with_one_line(tmp_path):
    start = time.monotonic()
    done = _generate(tmp_path / "d", "--engine", "ray", "--address", f"127.0.0.1:{free_port()}", timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "127.0.0.1" in done.stderr, done.stderr
    assert time.monotonic() - start < 30
    assert not (tmp_path / "d").exists() and list(tmp_path.iterdir()) == []
