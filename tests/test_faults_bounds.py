"""Issue 30, part 1: counts bounded before work starts, readers bounded in depth, a model
function that raises. Real processes (``clutrr ...`` in a fresh interpreter), real files and a
real HTTP server on 127.0.0.1; each case is a row of docs/reliability.md.
"""
from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time

import pytest

from fault_servers import Recorder, handler, serve
from helpers import generated_folder, one_line

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "bounds", "--k", "2", "--test-k", "2", "--train-rows", "5",
                            "--test-rows", "6")


def cli(*args: str, cwd=None, env=None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "clutrr.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "OPENAI_API_KEY": "sk-bounds-0123", **(env or {})}, timeout=timeout)



@pytest.mark.parametrize("args, fragments", [
    (("generate", "--train-rows", "99999999999999999999"), ("--train-rows must be at most 1,000,000,000",)),
    (("generate", "--test-rows", "1000000001"), ("--test-rows must be at most 1,000,000,000",)),
    (("generate", "--rows-per-shard", "1", "--train-rows", "1000000000"), ("--rows-per-shard 1", "100,000")),
])
def test_generate_counts_are_bounded_before_work_starts(tmp_path, args, fragments):
    start = time.monotonic()
    one_line(cli(*args, "--quiet", "--out", str(tmp_path / "d"), timeout=30), *fragments)
    assert time.monotonic() - start < 20 and list(tmp_path.iterdir()) == []


def test_probe_q_is_bounded_before_work_starts(data, tmp_path):
    one_line(cli("probe", str(data), "--kind", "word-permute", "--q", "1000000000", "--out", str(tmp_path / "p"),
                 timeout=30), "--q must be from 1 to 10,000")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args, fragment", [
    (("--max-tokens", "99999999999999999999"), "--max-tokens must be at most 1,048,576"),
    (("--timeout", "inf"), "--timeout must be at most 86,400, got inf"),
    (("--timeout", "nan"), "--timeout must be at most 86,400, got nan"),
    (("--concurrency", "100000"), "--concurrency must be at most 256"),
])
def test_endpoint_counts_and_deadlines_are_checked_before_any_request(data, tmp_path, args, fragment):
    server = handler(Recorder)
    with serve(server) as url:
        one_line(cli("eval", str(data), "--endpoint", url, "--model-name", "m", "--cache", str(tmp_path / "c.jsonl"),
                     *args, timeout=30), fragment)
    assert server.seen == [] and not (tmp_path / "c.jsonl").exists()


# --- readers bounded in depth ---------------------------------------------------------------

def test_a_deeply_nested_predictions_line_is_one_line_naming_file_and_line(data, tmp_path):
    first = json.loads((data / "1.2_test.jsonl").read_text().splitlines()[0])["id"]
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": first, "prediction": "aunt"}) + "\n" + DEEP + "\n")
    one_line(cli("eval", str(data), "--predictions", str(preds)), f"{preds}:2:", "nested deeper than 64 levels")


def test_a_deeply_nested_cache_line_is_skipped_and_asked_again(data, tmp_path):
    cache = tmp_path / "c.jsonl"
    cache.write_text('{"clutrr": "llm-response-cache", "format": 1}\n' + '{"key": ' + DEEP + "}\n")
    server = handler(Recorder)
    with serve(server) as url:
        res = cli("eval", str(data), "--endpoint", url, "--model-name", "m", "--cache", str(cache))
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr[-2000:]
    assert len(server.seen) == 6


class DeepReply(Recorder):
    """Answers with JSON nested 100,000 levels deep (``code`` 200: a reply; else an error body)."""

    code = 200

    def answer(self) -> None:
        body = ('{"error": {"message": ' + DEEP + "}}").encode() if self.code != 200 else DEEP.encode()
        self.send_response(self.code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.mark.parametrize("code, fragment", [(200, "did not answer with usable JSON (JSON nested deeper than 64"),
                                            (400, "refused the request: HTTP 400")])
def test_a_deeply_nested_reply_or_error_body_is_one_line(data, tmp_path, code, fragment):
    with serve(handler(DeepReply, code=code)) as url:
        one_line(cli("eval", str(data), "--endpoint", url, "--model-name", "m", "--cache", str(tmp_path / "c.jsonl"),
                     "--limit", "1", "--retries", "0"), fragment)


@pytest.mark.parametrize("edges, detail", [
    ('"1+" * 100_000 + "1"', "too complex to parse"),
    ('"[" * 100_000', "nested deeper than 64 levels"),
    ('"-" * 100_000 + "1"', "too complex to parse"),
    ('"[1, 2]"', "not a list of (int, int) pairs"),
    ('"[(0, 1.5)]"', "not a list of (int, int) pairs"),
    ('"{[1]: 2}"', "not a Python literal"),
])
def test_verify_reads_hostile_story_edges_as_one_unparsable_row(data, tmp_path, edges, detail):
    with open(data / "1.2_test.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    rows[0]["story_edges"] = eval(edges)  # noqa: S307 - the test's own constant expressions
    path = tmp_path / "1.2_test.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    res = cli("verify", str(path))
    assert "Traceback" not in res.stderr and res.returncode in (0, 1), res.stderr[-2000:]
    unparsable = [line for line in res.stdout.splitlines() if "unparsable: row 0" in line]
    assert len(unparsable) == 1 and detail in unparsable[0], res.stdout


# --- a model function that raises -----------------------------------------------------------

MODULE = """
calls = 0


def answer(items):
    global calls
    calls += 1
    if calls > 1:
        raise RuntimeError("the GPU fell off the bus")
    return ["aunt"] * len(items)
"""


def test_a_model_function_that_raises_is_one_line_and_its_answers_are_kept(data, tmp_path):
    (tmp_path / "flaky.py").write_text(MODULE)
    env = {"TMPDIR": str(tmp_path)}
    line = one_line(cli("eval", str(data), "--model", "flaky:answer", "--batch-size", "4", cwd=tmp_path, env=env),
                    "--model answer: flaky.answer raised RuntimeError: the GPU fell off the bus",
                    "its 4 answers before it are kept in")
    kept = line.split("kept in ")[1].split(" (")[0]
    assert [json.loads(x)["prediction"] for x in open(kept)] == ["aunt"] * 4
    assert oct(os.stat(kept).st_mode & 0o777) == oct(0o600)
    res = cli("eval", str(data), "--predictions", kept)
    assert res.returncode == 0 and "answer" in res.stdout, res.stderr


def test_out_of_memory_advice_names_the_knobs_of_the_command(monkeypatch, capsys):
    import argparse

    from clutrr.commands import generate, probe
    from clutrr.commands.console import run_command

    def exhausted(*_):
        raise MemoryError

    monkeypatch.setattr(probe, "read_splits", exhausted)  # where a huge folder would exhaust memory
    parser = argparse.ArgumentParser()
    probe.add_arguments(parser)
    assert run_command(probe.run, parser.parse_args(["d", "--kind", "word-permute"]), "clutrr probe") == 2
    line = capsys.readouterr().err.strip()
    assert line == "clutrr probe: error: out of memory; ask for less (a smaller --q, or a folder of fewer test rows)"
    assert "--q" in probe.MEMORY_ADVICE and "--workers" in generate.MEMORY_ADVICE
    assert "--q" in {a for action in parser._actions for a in action.option_strings}  # a knob probe has
