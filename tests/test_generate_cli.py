"""The generate command as a user meets it: entry points, modes, errors and Ctrl-C."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil

from helpers import REPO, run_generate

SMALL = ["--k", "2", "--test-k", "3", "--train-rows", "30", "--test-rows", "10", "--seed", "2"]


def _bytes(folder):
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_generate_py_and_clutrr_generate_write_identical_bytes(tmp_path):
    assert run_generate(*SMALL, "--out", str(tmp_path / "a")).returncode == 0
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "generate", "--quiet", *SMALL, "--out", str(tmp_path / "b")],
                         capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    assert _bytes(tmp_path / "a") == _bytes(tmp_path / "b")


def test_output_folder_gets_the_users_umask(tmp_path):
    code = ("import os, sys; os.umask(0o022); from clutrr.commands.generate import main; "
            f"sys.exit(main({['--quiet', *SMALL, '--out', str(tmp_path / 'd')]!r}))")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == 0
    assert (tmp_path / "d").stat().st_mode & 0o777 == 0o755


def test_unbuildable_settings_fail_in_one_line_before_any_work(tmp_path):
    res = run_generate("--generations", "2", "--max-children", "1", "--k", "2", "--test-k", "2,6",
                       "--out", str(tmp_path / "d"))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "k=6" in lines[0] and "--generations" in lines[0] and "--test-k" in lines[0]
    assert list(tmp_path.iterdir()) == []


def _wait_for_workers(pid: int, n: int = 2) -> list:
    """The child processes of ``pid`` once ``n`` workers exist (up to 60 s): forked workers, or
    spawned ones (``spawn_main``; a spawning parent has a resource tracker child too)."""
    deadline = time.time() + 60
    while time.time() < deadline:
        children = psutil.Process(pid).children(recursive=True)
        spawned = sum("spawn_main" in " ".join(c.cmdline()) for c in children)
        forked = sum(c.cmdline() == psutil.Process(pid).cmdline() for c in children)
        if max(spawned, forked) >= n:
            return children
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


def _finish(proc: subprocess.Popen) -> str:
    """The stderr of ``proc`` once it exits; a process that hangs is killed and fails the test."""
    try:
        return proc.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        for child in psutil.Process(proc.pid).children(recursive=True):
            child.kill()
        proc.kill()
        raise AssertionError("generate did not exit after the signal") from None


def test_ctrl_c_with_two_workers_prints_one_line_and_leaves_nothing(tmp_path):
    proc = subprocess.Popen([sys.executable, str(REPO / "generate.py"), "--workers", "2", "--train-rows", "100000",
                             "--out", str(tmp_path / "d")], stderr=subprocess.PIPE, text=True, cwd=REPO,
                            start_new_session=True)
    _wait_for_workers(proc.pid)  # Ctrl-C while the workers start: the moment a stray traceback could appear
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    err = _finish(proc)
    assert proc.returncode == 130, err
    assert err.strip() == "generate.py: interrupted", err
    assert list(tmp_path.iterdir()) == []


def test_bad_scale_options_are_one_line_errors(tmp_path):
    for args, needle in ((["--format", "csv,xml"], "unknown format"), (["--shard", "1"], "go together"),
                         (["--shard", "3", "--num-shards", "2"], "--shard must be"),
                         (["--rows-per-shard", "0"], "--rows-per-shard")):
        res = run_generate(*SMALL, *args, "--out", str(tmp_path / "d"))
        assert res.returncode == 2 and needle in res.stderr and len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert list(tmp_path.iterdir()) == []


def test_sigterm_stops_the_workers_too(tmp_path):
    proc = subprocess.Popen([sys.executable, str(REPO / "generate.py"), "--workers", "2", "--train-rows", "100000",
                             "--out", str(tmp_path / "d")], stderr=subprocess.PIPE, text=True, cwd=REPO)
    children = _wait_for_workers(proc.pid)
    proc.send_signal(signal.SIGTERM)  # a job scheduler's stop: to the parent only
    _finish(proc)
    assert proc.returncode == 130
    gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, alive
    assert list(tmp_path.iterdir()) == []
