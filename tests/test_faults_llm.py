"""Faults around ``clutrr eval --endpoint`` and its inputs, tried as a user would: real HTTP
servers on 127.0.0.1, real processes, a small file system that fills up.

Each case asserts the exit code, the one-line message, and that nothing paid for (a cached
answer) or owned by the user is lost. The table in docs/reliability.md lists them.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from clutrr.llm.client import ChatClient, ChatSettings, EndpointError, ResponseCache
from fault_servers import GoodThenBad, Recorder, Redirect, Trickle, chat_reply, handler, serve
from helpers import generated_folder

KEY = "sk-test-secret-0123"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "faults", "--k", "2", "--test-k", "2", "--train-rows", "5",
                            "--test-rows", "30")


def clutrr_eval(data, url, *extra, timeout=120, env=None):
    cmd = [sys.executable, "-m", "clutrr.cli", "eval", str(data), "--model-name", "m", *extra]
    if url is not None:
        cmd[5:5] = ["--endpoint", url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "OPENAI_API_KEY": KEY, **(env or {})})


def one_line(res) -> str:
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr, res.stderr
    return res.stderr


def cache_lines(path) -> list[dict]:
    return [r for r in map(json.loads, path.read_text().splitlines()) if "key" in r] if path.exists() else []


@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("where", ["other host", "same origin"])
def test_redirects_are_not_followed_and_the_key_stays_at_its_origin(data, tmp_path, code, where):
    other = handler(Recorder)
    with serve(other) as other_url:
        first = handler(Redirect, code=code)
        with serve(first) as url:
            first.target = other_url if where == "other host" else url + "/moved"
            res = clutrr_eval(data, url + "/v1", "--cache", str(tmp_path / "c.jsonl"), "--limit", "2",
                              "--out", str(tmp_path / "r"))
    err = one_line(res)
    assert f"HTTP {code}" in err and "redirects are not followed" in err
    assert other.seen == []  # the second server never saw a request, let alone the key
    assert 1 <= len(first.seen) <= 2  # the requests in flight (concurrency 4, 2 stories), none retried
    assert all(m == "POST" and h["Authorization"] == f"Bearer {KEY}" for m, _, h in first.seen)
    assert cache_lines(tmp_path / "c.jsonl") == [] and not (tmp_path / "r").exists()  # no GET reply scored


@pytest.mark.parametrize("headers_too", [False, True])
def test_timeout_is_a_deadline_for_the_whole_request(tmp_path, headers_too):
    slow = handler(Trickle, every=0.3, headers_too=headers_too)
    with serve(slow) as url:
        settings = ChatSettings(url + "/v1", "m", timeout=1.5, retries=1, backoff=0.2)
        client = ChatClient(settings, ResponseCache(tmp_path / "c.jsonl"))
        start = time.monotonic()
        with pytest.raises(EndpointError, match=r"after 2 tries \(no complete reply within 1.5 s\)"):
            client.complete([{"role": "user", "content": "hi"}])
        took = time.monotonic() - start
    assert settings.worst_case_seconds() == pytest.approx(3.2)
    assert 3.0 <= took <= settings.worst_case_seconds() + 2.0  # the bound, with slack for a loaded machine
    assert len(slow.seen) == 2


def test_a_trickling_server_stops_the_command_at_the_deadline(data, tmp_path):
    with serve(handler(Trickle, every=0.5)) as url:
        start = time.monotonic()
        res = clutrr_eval(data, url, "--cache", str(tmp_path / "c.jsonl"), "--limit", "1", "--timeout", "1",
                          "--retries", "0")
        took = time.monotonic() - start
    err = one_line(res)
    assert "no complete reply within 1 s" in err and took < 20


@pytest.mark.parametrize("bad", [
    {"choices": [{"index": 0, "finish_reason": "stop"}]},
    {"choices": [{"index": 0, "message": None}]},
    {"choices": [{"index": 0, "message": "aunt"}]},
])
def test_a_reply_without_a_message_object_keeps_what_was_paid_for(data, tmp_path, bad):
    server = handler(GoodThenBad, good=3, bad=bad)
    cache = tmp_path / "c.jsonl"
    with serve(server) as url:
        res = clutrr_eval(data, url, "--cache", str(cache), "--limit", "10", "--concurrency", "1", "--retries", "0")
    err = one_line(res)
    assert "without a message object in choices[0]" in err and "3 answers cached" in err
    assert len(cache_lines(cache)) == 3
    good = handler(Recorder)
    with serve(good) as url:
        res = clutrr_eval(data, url, "--cache", str(cache), "--limit", "10")
    assert res.returncode == 0, res.stderr
    assert len(good.seen) == 7  # only the unanswered stories are asked again


@pytest.mark.parametrize("bad, words", [
    ({"choices": []}, "without a choices list"),
    ({"error": "quota"}, "without a choices list"),
    ({"choices": [{"message": {"content": 5}}]}, "unknown format"),
])
def test_other_malformed_replies_are_one_line(data, tmp_path, bad, words):
    with serve(handler(GoodThenBad, good=0, bad=bad)) as url:
        res = clutrr_eval(data, url, "--cache", str(tmp_path / "c.jsonl"), "--limit", "1", "--retries", "0")
    assert words in one_line(res)


def test_a_cache_naming_a_folder_is_refused_before_any_request(data, tmp_path):
    server = handler(Recorder)
    with serve(server) as url:
        res = clutrr_eval(data, url, "--cache", str(tmp_path), "--limit", "2")
    assert "is a folder" in one_line(res)
    assert server.seen == []


@pytest.mark.parametrize("url", ["notaurl", "ftp://127.0.0.1/v1", "http://", "http://127.0.0.1:99999/v1",
                                 "127.0.0.1:8000/v1"])
def test_an_endpoint_that_is_not_a_url_is_named_as_such(data, tmp_path, url):
    res = clutrr_eval(data, url, "--cache", str(tmp_path / "c.jsonl"), "--limit", "1")
    err = one_line(res)
    assert "--endpoint" in err and ("not an http(s) URL" in err or "not a valid URL" in err), err
    assert "chat-completions format" not in err and not (tmp_path / "c.jsonl").exists()


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="peak memory is read from /proc")
def test_a_huge_sparse_predictions_file_is_refused_without_reading_it(data, tmp_path):
    huge = tmp_path / "huge.jsonl"
    with open(huge, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GiB of holes: NUL characters and no line break
    # the peak memory of this process image (VmHWM; getrusage's maxrss counts the forking parent too)
    probe = textwrap.dedent(f"""
        import re, sys
        from clutrr.cli import main
        rc = main(["eval", {str(data)!r}, "--predictions", {str(huge)!r}])
        status = open("/proc/self/status").read()
        print("maxrss_kb", re.search(r"VmHWM:\\s+(\\d+)", status).group(1))
        sys.exit(rc)
    """)
    start = time.monotonic()
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "a line longer than 4 Mi characters" in res.stderr, res.stderr
    rss_mb = int(res.stdout.split("maxrss_kb")[1]) / 1024
    assert rss_mb < 250 and time.monotonic() - start < 30, rss_mb


# --- a small file system that fills up (a tmpfs mounted in a private mount namespace) ---

def _small_fs_command() -> list[str] | None:
    """The command prefix that runs a shell script in a private mount namespace, or None."""
    probe = "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs \"$d\" && umount \"$d\" && rmdir \"$d\""
    for prefix in (["unshare", "-rm"], ["unshare", "-m"]):
        if shutil.which(prefix[0]):
            try:
                ok = subprocess.run([*prefix, "sh", "-c", probe], capture_output=True, timeout=30).returncode == 0
            except (OSError, subprocess.TimeoutExpired):
                ok = False
            if ok:
                return [*prefix, "sh", "-c"]
    return None


SMALL_FS = _small_fs_command()
needs_small_fs = pytest.mark.skipif(SMALL_FS is None, reason="this OS lets no process mount a small tmpfs")

FILL = """
import os, sys
free = os.statvfs(sys.argv[1]); room = free.f_bavail * free.f_frsize
with open(os.path.join(sys.argv[1], "filler"), "wb") as fh:
    fh.write(b"x" * max(0, room - int(sys.argv[2])))
"""


def in_small_fs(tmp_path, leave: int, command: list[str]) -> tuple[int, str, list[str]]:
    """Run ``command`` (FS in it: the small file system's path) with ``leave`` bytes free on a 4 MiB
    tmpfs; (exit code, stderr, names left on the file system); the file system's cache.jsonl is copied out."""
    fs, out = tmp_path / "fs", tmp_path / "out"
    fs.mkdir()
    out.mkdir()
    cmd = " ".join(f"'{w}'" for w in command).replace("FS", str(fs))
    script = (f"mount -t tmpfs -o size=4m tmpfs '{fs}' && '{sys.executable}' -c '{FILL}' '{fs}' {leave} && "
              f"{cmd} > '{out}/stdout' 2> '{out}/stderr'; echo $? > '{out}/rc'; "
              f"cp '{fs}/cache.jsonl' '{out}/' 2>/dev/null; ls -A '{fs}' > '{out}/listing'")
    subprocess.run([*SMALL_FS, script], timeout=300, check=True, env={**os.environ, "OPENAI_API_KEY": KEY})
    return (int((out / "rc").read_text()), (out / "stderr").read_text(), (out / "listing").read_text().split())


class Padded(Recorder):
    """Answers right, with a 1,500-character reasoning block (so a few answers fill a page)."""

    def answer(self) -> None:
        self.send_json(200, chat_reply("<think>" + "Tom is Ann's son. " * 84 + "</think><answer>aunt</answer>"))


@needs_small_fs
def test_a_full_disk_under_the_cache_keeps_every_paid_answer(data, tmp_path):
    server = handler(Padded)
    settings = ChatSettings("http://x", "m", concurrency=2, max_tokens=16)
    page = 4096
    leave = -(-settings.reserve_bytes() // page) * page + 3 * page
    with serve(server) as url:
        rc, err, listing = in_small_fs(tmp_path, leave, [
            sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", "m",
            "--cache", "FS/cache.jsonl", "--concurrency", "2", "--max-tokens", "16", "--retries", "0"])
        assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert "is full" in err and "free some space and rerun to resume" in err
        kept = cache_lines(tmp_path / "out" / "cache.jsonl")  # every line whole
        assert 0 < len(kept) < 30 and len(kept) == len(server.seen)  # every answer paid for is kept
        assert listing == ["cache.jsonl", "filler"]  # the reserve is gone, nothing else left
        cache = tmp_path / "cache.jsonl"
        shutil.copy(tmp_path / "out" / "cache.jsonl", cache)
        asked = len(server.seen)
        res = clutrr_eval(data, url, "--cache", str(cache), "--concurrency", "2", "--max-tokens", "16")
    assert res.returncode == 0, res.stderr
    assert len(server.seen) - asked == 30 - len(kept) and len(cache_lines(cache)) == 30


@needs_small_fs
def test_a_full_disk_under_the_report_leaves_no_partial_output(data, tmp_path):
    server = handler(Padded)
    cache = tmp_path / "cache.jsonl"
    with serve(server) as url:
        rc, err, listing = in_small_fs(tmp_path, 2 * 4096, [
            sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", "m",
            "--cache", str(cache), "--out", "FS/report"])
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "cannot write the report to" in err and "nothing was written there" in err
    assert listing == ["filler"]  # no report folder, no staging folder
    assert len(server.seen) == 30 and len(cache_lines(cache)) == 30  # every answer kept in the cache


@needs_small_fs
def test_a_disk_too_full_for_the_answers_in_flight_is_refused_before_any_request(data, tmp_path):
    server = handler(Padded)
    with serve(server) as url:
        rc, err, listing = in_small_fs(tmp_path, 4096, [
            sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", "m",
            "--cache", "FS/cache.jsonl"])
    assert rc == 2 and err.count("\n") == 1 and "no room for the response cache" in err, err
    assert server.seen == [] and ".cache.jsonl.reserve" not in listing


class Huge(Recorder):
    """Answers right, with a 150,000-character reasoning block: more than the reserve of one answer."""

    def answer(self) -> None:
        self.send_json(200, chat_reply("<think>" + "x" * 150_000 + "</think><answer>aunt</answer>"))


@needs_small_fs
def test_replies_larger_than_the_reserve_are_kept_when_the_disk_fills(data, tmp_path):
    server = handler(Huge)
    settings = ChatSettings("http://x", "m", concurrency=2, max_tokens=16)
    leave = -(-settings.reserve_bytes() // 4096) * 4096 + 200 * 1024  # the reserve and one answer
    with serve(server) as url:
        rc, err, listing = in_small_fs(tmp_path, leave, [
            sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name", "m",
            "--cache", "FS/cache.jsonl", "--concurrency", "2", "--max-tokens", "16", "--retries", "0"])
    assert rc == 2 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "is full" in err and "append it to the cache before the rerun" in err, err
    spilled = Path(err.split("did not fit, in ")[1].split(" (append")[0])
    kept, extra = cache_lines(tmp_path / "out" / "cache.jsonl"), cache_lines(spilled)
    assert extra and len(kept) + len(extra) == len(server.seen)  # every answer paid for is kept somewhere
    assert oct(spilled.stat().st_mode & 0o777) == oct(0o600)
    spilled.unlink()
