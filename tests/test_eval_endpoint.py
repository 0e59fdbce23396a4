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
from helpers import REPO, generated_folder

MODEL = "test-model"


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "endpoint", "--k", "2,3", "--test-k", "2,3", "--train-rows", "22",
                            "--test-rows", "22")


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


def test_repeated_sampling_pass_at_k_majority_and_truncations(data, tmp_path):
    kinds = expected(data)
    right = {"right": 3, "wrong": 2, "unparsable": 2}  # right answers among a story's 4 sampled replies
    cache = tmp_path / "c.jsonl"
    server = Server(data, tmp_path, "sampling", "--sampling")
    try:
        res = subprocess.run(eval_command(data, server.url, cache, tmp_path / "r", "--samples", "4",
                                          "--temperature", "0.7"), capture_output=True, text=True, timeout=180)
        assert res.returncode == 0, res.stderr
        asked = server.asked()
        assert len(asked) == 4 * 44 and all(asked.count(i) == 4 for i in kinds)  # a fresh request per sample
        again = subprocess.run(eval_command(data, server.url, cache, tmp_path / "r2", "--samples", "4",
                                            "--temperature", "0.7"), capture_output=True, text=True, timeout=180)
        assert again.returncode == 0 and len(server.asked()) == 4 * 44  # the replayed rerun sends nothing
    finally:
        server.kill()
    assert "pass@4" in res.stdout and "majority vote" in res.stdout and "cut by length" in res.stdout
    report = json.loads((tmp_path / "r" / "report.json").read_text())["reports"][0]
    assert report["samples"] == 4
    overall = report["sampling"]["overall"]["all"]
    assert overall["pass@1"]["value"] == pytest.approx(sum(right[k] for k in kinds.values()) / (4 * 44))
    assert overall["pass@4"]["value"] == 1.0 and overall["majority"]["accuracy"] == 1.0
    assert overall["pass@2"]["value"] == pytest.approx(
        sum(1.0 if right[k] == 3 else 5 / 6 for k in kinds.values()) / 44)
    assert set(report["sampling"]["by_k"]) == {"2", "3"} and set(report["sampling"]["by_noise"]) == {"none"}
    for k in ("2", "3"):
        replies = report["replies_by_k"][k]
        assert replies["replies"] == 88 and replies["cut_by_length"] == 22 and replies["cut_share"] == 0.25
        assert replies["tokens"]["reasoning"]["mean"] == 3
        assert replies["judged"] >= 22 and replies["precision"] == 1.0  # the reasoning fields state the answer
    items = [json.loads(line) for line in (tmp_path / "r" / "items.jsonl").read_text().splitlines()]
    assert len(items) == 176 and {x["sample"] for x in items} == {0, 1, 2, 3}
    assert {"model", "id", "file", "k", "noise", "gold", "reply", "answer", "correct", "finish_reason", "tokens",
            "sample"} <= set(items[0])
    for story in kinds:
        mine = [x for x in items if x["id"] == story]
        assert len({x["reply"] for x in mine}) == 4 and sum(x["correct"] for x in mine) == right[kinds[story]]
        assert sum(x["finish_reason"] == "length" for x in mine) == 1
    assert json.loads((tmp_path / "r2" / "report.json").read_text())["reports"][0]["sampling"] == report["sampling"]


def test_think_open_replies_cut_or_unclosed_are_wrong(data, tmp_path):
    """A model whose chat template opens <think> in the prompt: 4 samples per story, only the
    first closes its block (with the policy's right or wrong word); one more states the right
    relation without closing it, two are cut by the length limit (one after closing it)."""
    kinds = expected(data)
    right_stories = sum(kind == "right" for kind in kinds.values())
    server = Server(data, tmp_path, "open", "--sampling", "--think-open")
    try:
        runs = {}
        for name, extra in (("open", ("--think-open",)), ("plain", ())):
            res = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / name, "--samples", "4",
                                              "--temperature", "0.7", *extra), capture_output=True, text=True,
                                 timeout=180)
            assert res.returncode == 0, res.stderr
            runs[name] = json.loads((tmp_path / name / "report.json").read_text())["reports"][0]
    finally:
        server.kill()
    # by hand: with --think-open a right story has 1 right reply of 4, the others none;
    # pass@k = P(the right one among k drawn of 4) = k/4 for a right story
    opened = runs["open"]["sampling"]["overall"]["all"]
    share = right_stories / len(kinds)
    assert 0 < share < 1
    for k in (1, 2, 4):
        assert opened[f"pass@{k}"]["value"] == pytest.approx(share * k / 4)
    # read without --think-open, the unclosed reply 2 is paid (so every story passes); the cut ones never are
    plain = runs["plain"]["sampling"]["overall"]["all"]
    assert plain["pass@4"]["value"] == 1.0
    assert plain["pass@1"]["value"] == pytest.approx((right_stories * 2 + (len(kinds) - right_stories)) / (4 * 44))
    items = [json.loads(line) for line in (tmp_path / "open" / "items.jsonl").read_text().splitlines()]
    cut = [x for x in items if x["finish_reason"] == "length"]
    assert len(cut) == 88 and not any(x["correct"] or x["answer"] for x in cut)
    assert sum(runs["open"]["replies_by_k"][k]["cut_by_length"] for k in ("2", "3")) == 88


def test_base_model_completions_and_prompt_control(data, tmp_path):
    template = tmp_path / "t.txt"
    template.write_text("Q: {question}")
    server = Server(data, tmp_path, "base")
    try:
        res = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / "r", "--api",
                                          "completions", "--prompt-template", str(template), "--limit", "3"),
                             capture_output=True, text=True, timeout=120)
        chat = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / "r2", "--prompt",
                                           "plain", "--system-prompt", "Kinship words: {words}.", "--limit", "3"),
                              capture_output=True, text=True, timeout=120)
        bad = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / "r3",
                                          "--prompt-template", str(data)), capture_output=True, text=True)
        template.write_text("{story} and {nobody}")
        unknown = subprocess.run(eval_command(data, server.url, tmp_path / "c.jsonl", tmp_path / "r3",
                                              "--prompt-template", str(template)), capture_output=True, text=True)
    finally:
        server.kill()
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "r" / "report.json").read_text())["reports"][0]
    assert report["stories"] == 6 and report["overall"]["accuracy"] == 1.0  # the server completes " WORD\n"
    records = ResponseCache(tmp_path / "c.jsonl")
    prompts = [r for r in (json.loads(x) for x in (tmp_path / "c.jsonl").read_text().splitlines())]
    assert len(records) == 12 and all(p["content"] for p in prompts)
    assert chat.returncode == 0, chat.stderr
    assert bad.returncode == 2 and "--prompt-template" in bad.stderr and bad.stderr.count("\n") == 1
    assert unknown.returncode == 2 and "unknown placeholder {nobody}" in unknown.stderr
