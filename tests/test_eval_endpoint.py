"""``clutrr eval --endpoint`` against a real chat-completions server on 127.0.0.1 (tests/chat_server.py)."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from chat_server import policy
from clutrr.eval import load_eval_set
from clutrr.llm.client import ChatSettings, ResponseCache, request_key
from clutrr.llm.prompts import build_messages, select_shots
from helpers import REPO, run_generate

MODEL = "test-model"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    out = tmp_path_factory.mktemp("endpoint") / "d"
    res = run_generate("--k", "2,3", "--test-k", "2,3", "--train-rows", "22", "--test-rows", "22", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return out


class Server:
    """tests/chat_server.py in a subprocess; stopped by kill()."""

    def __init__(self, data, tmp_path, name: str, *extra: str) -> None:
        self.log = tmp_path / f"{name}.log"
        self.log.touch()
        port_file = tmp_path / f"{name}.port"
        self.proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "chat_server.py"), str(data),
                                      "--port-file", str(port_file), "--log", str(self.log), "--model", MODEL, *extra])
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text():
            assert self.proc.poll() is None and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port_file.read_text()}/v1"

    def asked(self) -> list[str]:
        return self.log.read_text().split("\n")[:-1]

    def kill(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def eval_command(data, url, cache, out, *extra) -> list[str]:
    return [sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", MODEL,
            "--shots", "2", "--concurrency", "2", "--retries", "1", "--backoff", "0.05", "--timeout", "5",
            "--cache", str(cache), "--out", str(out), *extra]


def expected(data) -> dict[str, str]:
    return {g.id: policy(g.id, g.row.target, *g.row.query)[0] for g in load_eval_set(data).golds}


def cached_ids(data, cache_path) -> set[str]:
    """The stories whose prompt (as the command builds it) has an answer in the cache."""
    data_set = load_eval_set(data)
    shots = select_shots(data_set.train_items(), 2, 0)
    cache = ResponseCache(cache_path)
    settings = ChatSettings("unused", MODEL)
    return {item["id"] for item in data_set.items(answer=False)
            if request_key(settings.body(build_messages(item, shots))) in cache}


def test_killed_server_then_resumed_run_asks_only_what_is_not_cached(data, tmp_path):
    kinds = expected(data)
    assert len(kinds) == 44 and {"right", "wrong", "unparsable"} <= set(kinds.values())
    cache = tmp_path / "cache.jsonl"
    first = Server(data, tmp_path, "first", "--delay", "0.05")
    try:
        run = subprocess.Popen(eval_command(data, first.url, cache, tmp_path / "r1"), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(first.asked()) < 10:
            assert run.poll() is None and time.monotonic() < deadline, "the run ended before the server was killed"
            time.sleep(0.02)
    finally:
        first.kill()
    out, err = run.communicate(timeout=60)
    assert run.returncode == 2, (out, err)
    assert err.count("\n") == 1 and "cannot get an answer" in err and "a rerun resumes" in err
    assert not (tmp_path / "r1").exists()
    done = cached_ids(data, cache)
    assert 10 - 2 <= len(done) < 44 and done <= set(first.asked())  # up to 2 (the concurrency) were in flight

    second = Server(data, tmp_path, "second")
    try:
        res = subprocess.run(eval_command(data, second.url, cache, tmp_path / "r2"), capture_output=True, text=True,
                             timeout=120)
    finally:
        second.kill()
    assert res.returncode == 0, res.stderr
    asked = second.asked()
    assert len(asked) == len(set(asked)) and set(asked) == set(kinds) - done  # nothing cached is asked again

    report = json.loads((tmp_path / "r2" / "report.json").read_text())["reports"][0]
    assert report["model"] == MODEL and report["stories"] == 44 and report["missing"] == 0
    assert report["overall"]["correct"] == sum(k == "right" for k in kinds.values())
    assert report["unparsable"] == sum(k == "unparsable" for k in kinds.values())
    replies = [json.loads(line) for line in (tmp_path / "r2" / f"predictions-{MODEL}.jsonl").read_text().splitlines()]
    assert {r["id"] for r in replies} == set(kinds) and all("prediction" in r for r in replies)

    # everything is cached now: a run against a dead address asks nothing and gives the same report
    res = subprocess.run(eval_command(data, second.url, cache, tmp_path / "r3"), capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    again = json.loads((tmp_path / "r3" / "report.json").read_text())["reports"][0]
    assert again["overall"] == report["overall"]


def test_overloaded_server_is_retried_with_back_off(data, tmp_path):
    server = Server(data, tmp_path, "busy", "--fail-first")
    try:
        res = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / "r", "--limit", "3"),
                             capture_output=True, text=True, timeout=120)
    finally:
        server.kill()
    assert res.returncode == 0, res.stderr
    log = server.asked()
    refused = [line.split()[1] for line in log if line.startswith("503 ")]
    answered = [line for line in log if not line.startswith("503 ")]
    assert len(refused) == 6 and sorted(refused) == sorted(answered)  # 3 stories per test file, each asked twice


def test_unknown_model_is_refused_without_retries(data, tmp_path):
    server = Server(data, tmp_path, "strict")
    try:
        res = subprocess.run([sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", server.url,
                              "--model-name", "other", "--cache", str(tmp_path / "c.jsonl"), "--limit", "1"],
                             capture_output=True, text=True, timeout=60)
    finally:
        server.kill()
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "HTTP 404" in res.stderr and "model 'other' not found" in res.stderr
