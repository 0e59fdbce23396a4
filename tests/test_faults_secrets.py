"""Issue 30, part 2: the answer cache is clutrr's and private; server text reaches the terminal
with the key masked and control characters escaped; URLs keep their credentials out and their
query strings in place. Real processes and a real HTTP server on 127.0.0.1; each case is a
row of docs/reliability.md.
"""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

import psutil
import pytest

from fault_servers import Recorder, handler, serve
from helpers import generated_folder, one_line

KEY = "sk-secret-7f3a9c"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "secrets", "--k", "2", "--test-k", "2", "--train-rows", "5",
                            "--test-rows", "4")


def eval_args(data, url: str, cache, *extra: str) -> list[str]:
    return [sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", "m",
            "--cache", str(cache), "--retries", "0", *extra]


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=60, env={**os.environ, "OPENAI_API_KEY": KEY})


class EchoAuth(Recorder):
    """Refuses with 401, echoing the Authorization header and a terminal escape sequence."""

    def answer(self) -> None:
        auth = self.headers.get("Authorization", "")
        self.send_json(401, {"error": {"message": f"bad key {auth} for you \x1b[2J\x1b]0;pwned\x07 and {KEY[3:]}"}})


def test_server_text_is_shown_with_the_key_masked_and_control_characters_escaped(data, tmp_path):
    with serve(handler(EchoAuth)) as url:
        line = one_line(run(eval_args(data, url, tmp_path / "c.jsonl")))
    assert "HTTP 401" in line and KEY not in line and KEY[3:] not in line and "Bearer ***" in line, line
    assert "\x1b" not in line and "\x07" not in line and "\\x1b[2J" in line, line


def test_an_endpoint_url_with_credentials_is_refused_without_showing_them(data, tmp_path):
    server = handler(Recorder)
    with serve(server) as url:
        line = one_line(run(eval_args(data, url.replace("http://", f"http://user:{KEY}@") + "/v1", tmp_path / "c")))
    assert "carries credentials" in line and KEY not in line and "***@127.0.0.1" in line, line
    assert server.seen == [] and not (tmp_path / "c").exists()


def test_the_query_string_stays_at_the_end_of_the_url(data, tmp_path):
    server = handler(Recorder)
    with serve(server) as url:
        res = run(eval_args(data, url + "/v1?api-version=2024-06-01", tmp_path / "c.jsonl", "--limit", "1"))
    assert res.returncode == 0, res.stderr
    assert [path for _, path, _ in server.seen] == ["/v1/chat/completions?api-version=2024-06-01"]


def test_the_reply_cache_is_private(data, tmp_path):
    cache = tmp_path / "new" / "c.jsonl"
    with serve(handler(Recorder)) as url:
        assert run(eval_args(data, url, cache, "--limit", "1")).returncode == 0
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600 and stat.S_IMODE(cache.parent.stat().st_mode) == 0o700


def test_a_file_clutrr_did_not_make_is_never_used_as_the_cache(data, tmp_path):
    diary = tmp_path / "diary.txt"
    diary.write_text("Dear diary, today I evaluated a model.\n")
    server = handler(Recorder)
    with serve(server) as url:
        line = one_line(run(eval_args(data, url, diary)))
        assert "refusing to use" in line and "clutrr did not make it" in line
        assert diary.read_text() == "Dear diary, today I evaluated a model.\n" and server.seen == []
        cache = tmp_path / "c.jsonl"  # a cache clutrr made is read again, answers reused
        assert run(eval_args(data, url, cache)).returncode == 0
        asked = len(server.seen)
        assert run(eval_args(data, url, cache)).returncode == 0
    assert asked == 4 and len(server.seen) == 4 and cache.read_text().startswith('{"clutrr": "llm-response-cache"')


class Slow(Recorder):
    """Answers after ``delay`` seconds."""

    delay = 30.0

    def answer(self) -> None:
        time.sleep(self.delay)
        super().answer()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_reserve_file_outlives_a_signal(data, tmp_path, sig):
    cache = tmp_path / "c.jsonl"
    reserve = f".{cache.name}.reserve"
    with serve(handler(Slow)) as url:
        proc = subprocess.Popen(eval_args(data, url, cache), stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "OPENAI_API_KEY": KEY})
        try:
            deadline = time.monotonic() + 30
            while not any(p.name.startswith(reserve) for p in tmp_path.iterdir()) and time.monotonic() < deadline:
                time.sleep(0.05)
            proc.send_signal(sig)
            err = proc.communicate(timeout=30)[1]
        finally:
            if proc.poll() is None:
                psutil.Process(proc.pid).kill()
                proc.wait(10)
        left = sorted(p.name for p in tmp_path.iterdir())
        if sig == signal.SIGTERM:
            assert proc.returncode == 130 and err.strip().splitlines() == ["clutrr eval: interrupted"], err
            assert left == ["c.jsonl"]
            return
        assert left == [f"{reserve}-{proc.pid}", "c.jsonl"]  # SIGKILL cannot be caught: the next run cleans up
        with serve(handler(Recorder)) as fast:
            res = run(eval_args(data, fast, cache))
    assert res.returncode == 0 and f"removed {tmp_path / left[0]}" in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl"]
