"""Issue 30, part 3: races on an output folder, edited datasets, leftovers after signals, and
no test hook in production code. Real processes, real signals, real files; each case is a row
of docs/reliability.md.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from helpers import REPO, one_line

SMALL = ("--train-rows", "30", "--test-rows", "10", "--test-k", "2", "--quiet")
SLOW = ("--train-rows", "6000", "--test-rows", "10", "--test-k", "2", "--quiet")  # a few seconds


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clutrr.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "clutrr.cli", *args], stderr=subprocess.PIPE, text=True)



def wait_for(predicate, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def finish(proc: subprocess.Popen) -> subprocess.CompletedProcess:
    try:
        err = proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            psutil.Process(proc.pid).kill()
            proc.wait(10)
    return subprocess.CompletedProcess(proc.args, proc.returncode, "", err)


def pool_workers(pid: int) -> list[psutil.Process]:
    """The worker processes of run ``pid`` (not multiprocessing's resource tracker)."""
    try:
        return [c for c in psutil.Process(pid).children() if "resource_tracker" not in " ".join(c.cmdline())]
    except psutil.Error:
        return []


def staging(folder: Path, name: str) -> bool:
    return any(p.name.startswith(f".{name}.tmp-") for p in folder.iterdir())


def test_a_second_run_into_the_same_folder_stops_naming_the_first(tmp_path):
    out = tmp_path / "d"
    first = start("generate", *SLOW, "--out", str(out))
    wait_for(lambda: staging(tmp_path, "d"))
    one_line(cli("generate", *SMALL, "--out", str(out)), "is being written by another run", f"process {first.pid}")
    res = finish(first)
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "config.json").read_text())["arguments"]["train_rows"] == 6000  # the first one's
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]  # no lock file, no staging folder left


def test_force_rechecks_the_folder_right_before_replacing_it(tmp_path):
    out = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(out)).returncode == 0
    proc = start("generate", *SLOW, "--out", str(out), "--force")
    wait_for(lambda: staging(tmp_path, "d"))
    (out / "notes.txt").write_text("written while the run was going")
    one_line(finish(proc), "refusing to replace", "notes.txt")
    assert (out / "notes.txt").read_text() == "written while the run was going"
    assert json.loads((out / "config.json").read_text())["arguments"]["train_rows"] == 30  # the old dataset kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_force_refuses_a_dataset_the_user_edited_unless_told_to_discard_edits(tmp_path):
    out = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(out)).returncode == 0
    with open(out / "1.2_test.csv", "a") as fh:
        fh.write("my correction\n")
    one_line(cli("generate", *SMALL, "--seed", "1", "--out", str(out), "--force"),
             "1.2_test.csv changed since clutrr wrote it", "--discard-edits")
    assert (out / "1.2_test.csv").read_text().endswith("my correction\n")
    one_line(cli("generate", *SMALL, "--out", str(out), "--discard-edits"), "--discard-edits goes with --force")
    res = cli("generate", *SMALL, "--seed", "1", "--out", str(out), "--force", "--discard-edits")
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "config.json").read_text())["seed"] == 1


def test_probe_leaves_no_staging_folder_after_sigterm(tmp_path):
    data = tmp_path / "d"
    assert cli("generate", "--train-rows", "5", "--test-rows", "300", "--test-k", "2", "--quiet",
               "--out", str(data)).returncode == 0
    proc = start("probe", str(data), "--kind", "word-permute", "--q", "2000", "--out", str(tmp_path / "p"))
    wait_for(lambda: staging(tmp_path, "p"))
    proc.send_signal(signal.SIGTERM)
    res = finish(proc)
    assert res.returncode == 130 and res.stderr.strip().splitlines() == ["clutrr probe: interrupted"], res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def test_production_code_reads_no_test_hook():
    sources = [p for p in (REPO / "clutrr").rglob("*.py")]
    hooks = [p for p in sources if "CLUTRR_FAULT" in p.read_text(encoding="utf-8") or "os._exit(3)" in p.read_text()]
    assert hooks == [], hooks
    assert "CLUTRR_FAULT_ONCE" not in (REPO / "tests" / "test_scale.py").read_text()  # the hook lives in the test


def test_every_test_docs_reliability_names_exists():
    import re

    text = (REPO / "docs" / "reliability.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(test_[a-z0-9_]+)`", text))
    defined = set()
    for path in (REPO / "tests").glob("test_*.py"):
        defined |= set(re.findall(r"^def (test_[a-z0-9_]+)", path.read_text(encoding="utf-8"), re.M))
    assert sorted(named - defined) == []


def test_a_stopped_worker_is_killed_and_its_task_run_again(tmp_path):
    args = ("generate", "--k", "2", "--train-rows", "400", "--test-rows", "10", "--test-k", "2", "--quiet",
            "--rows-per-shard", "100", "--stall-timeout", "1")
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", *args, "--workers", "2", "--out", str(tmp_path / "a")],
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: len(pool_workers(proc.pid)) >= 2)
        workers = pool_workers(proc.pid)
        for worker in workers:  # SIGSTOP: a frozen node, a swapped-out process (both, so that no
            worker.suspend()  # worker not yet busy can finish the run alone and leave no stall)
    finally:
        res = finish(proc)
        for child in psutil.Process().children(recursive=True):  # nothing of the run may stay stopped
            if child.pid != proc.pid and child.is_running() and child.status() == psutil.STATUS_STOPPED:
                child.kill()
    assert res.returncode == 0, res.stderr
    assert "note: no task finished for 1 s" in res.stderr and not any(w.is_running() for w in workers)
    assert cli(*args, "--out", str(tmp_path / "b")).returncode == 0
    a, b = ({p.name: p.read_bytes() for p in (tmp_path / d).iterdir()} for d in "ab")
    assert len(a) > 4 and a == b  # the same bytes as an undisturbed run


def test_workers_stopped_again_and_again_fail_in_one_line_naming_the_deadline(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", "generate", *SLOW, "--workers", "2",
                             "--stall-timeout", "0.5", "--out", str(tmp_path / "d")], stderr=subprocess.PIPE, text=True)
    stopper_done = False
    try:
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:  # stop every worker as soon as it starts
            try:
                for child in pool_workers(proc.pid):
                    if child.status() != psutil.STATUS_STOPPED:
                        child.suspend()
            except psutil.NoSuchProcess:
                pass
            time.sleep(0.02)
        stopper_done = True
    finally:
        res = finish(proc)
    assert stopper_done
    lines = [line for line in res.stderr.splitlines() if not line.startswith("note: no task finished")]
    assert res.returncode == 2 and len(lines) == 1, res.stderr
    assert "the workers made no progress for 0.5 s 4 times" in lines[0] and "--stall-timeout" in lines[0], lines
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_burst_of_ctrl_c_stops_a_ray_run_and_its_whole_cluster(tmp_path):
    """20 SIGINTs 50 ms apart while Ray tasks run (a user hammering Ctrl-C; one Ray start, not 20)."""
    pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", "generate", "--engine", "ray", "--workers", "2",
                             "--train-rows", "200000", "--test-k", "2", "--quiet", "--out", str(tmp_path / "d")],
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    family: list[psutil.Process] = []
    try:
        def ray_running() -> bool:
            family[:] = psutil.Process(proc.pid).children(recursive=True)
            return any(p.name().startswith("raylet") for p in family if p.is_running())
        wait_for(ray_running, 120)
        time.sleep(1)
        family[:] = psutil.Process(proc.pid).children(recursive=True)
        for _ in range(20):
            proc.send_signal(signal.SIGINT)
            time.sleep(0.05)
        err = proc.communicate(timeout=120)[1]
        _, alive = psutil.wait_procs(family, timeout=15)
    finally:
        for p in [psutil.Process(proc.pid)] if proc.poll() is None else []:
            p.kill()
        for p in family:
            try:
                p.kill()
            except psutil.Error:
                pass
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "clutrr generate: interrupted", err[-2000:]
    assert "Traceback" not in err and "Check failed" not in err, err[-2000:]
    assert alive == [], f"Ray processes outlived the run: {[p.name() for p in alive]}"
    assert list(tmp_path.iterdir()) == []


def test_the_jobs_of_a_shard_array_still_run_at_once(tmp_path):
    """The output lock is for runs that replace the folder: ``--shard`` jobs share its work folder."""
    args = ("generate", "--k", "2", "--train-rows", "3000", "--test-rows", "10", "--test-k", "2", "--quiet",
            "--rows-per-shard", "500", "--out", str(tmp_path / "d"))
    jobs = [start(*args, "--shard", str(i), "--num-shards", "2") for i in range(2)]
    results = [finish(job) for job in jobs]
    assert [r.returncode for r in results] == [0, 0], [r.stderr for r in results]
    res = cli(*args, "--resume")
    assert res.returncode == 0, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


def _plus_one(context: int, task: int) -> int:
    return context + task


def test_closing_the_engine_ends_a_worker_stopped_while_idle():
    """A worker stopped between tasks holds no task, so no stall is seen and the run ends; the
    engine's close must still end it (SIGTERM waits on a stopped process: the run once hung at
    exit, joining it)."""
    from clutrr.engines.local import LocalEngine

    engine = LocalEngine(workers=2)
    assert list(engine.imap(_plus_one, 1, range(4))) == [1, 2, 3, 4]
    procs = [psutil.Process(p.pid) for p in engine._pool._processes.values()]
    procs[0].suspend()
    start = time.monotonic()
    engine.close()
    gone, alive = psutil.wait_procs(procs, timeout=10)
    assert not alive and time.monotonic() - start < 5
