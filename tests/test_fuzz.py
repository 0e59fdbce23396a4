"""Issue 30: fuzzing the readers of user files. Random byte strings and mutations of a valid
file go to ``verify``, ``eval --predictions``, ``--kb`` and ``--templates`` through the code the
command runs (in this process, for speed: the command's own error mapping,
:func:`clutrr.commands.console.run_command`, decides the outcome), then a few through the real
command line. Each reader gets ``CLUTRR_FUZZ_N`` of each (default 250: 1,000 random byte
strings and 1,000 mutated files in all; ``CLUTRR_FUZZ_N=1000`` gives each reader 1,000). Every input must end, within seconds, in exit 0, 1 or 2: never a
traceback, never a hang. The seeds are fixed, so a failure names an input that reproduces.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from clutrr.commands.console import run_command
from helpers import REPO, generated_folder

N = int(os.environ.get("CLUTRR_FUZZ_N", "250"))
DEADLINE = 10  # seconds for one input
MARKERS = [b"[" * 3000, b"{" * 3000, b"(" * 3000, b"1+" * 3000, b"-" * 3000, b"\x00", b"\xff\xfe", b'"', b"'",
           b"\n", b"\r", b",", b"9" * 5000, b"NaN", b"Infinity", b"\\", b"\x1b[2J", b"&a [*a, *a, *a]", b"*a",
           b"!!python/object/apply:os.system ['true']", b": ", b"- ", b"\t", b"\"\"\"", b"{{", b"}}", b"1e999",
           b"[(0, 1)]", b"\xc3", b"\xef\xbb\xbf"]


class Hung(Exception):
    pass


def _alarm(signum, frame):
    raise Hung


def mutate(rng: random.Random, data: bytes) -> bytes:
    """``data`` with 1 to 6 random edits: a byte changed, a slice cut, repeated or a marker put in."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 6)):
        at = rng.randrange(len(out) + 1)
        op = rng.randrange(4)
        if op == 0 and out:
            out[min(at, len(out) - 1)] = rng.randrange(256)
        elif op == 1:
            del out[at:at + rng.randrange(1, 200)]
        elif op == 2:
            out[at:at] = out[at:at + rng.randrange(1, 400)] * rng.randint(2, 20)
        else:
            out[at:at] = rng.choice(MARKERS)
    return bytes(out)


def inputs(valid: bytes, seed: int):
    """(kind, number, bytes): N random byte strings, then N mutations of ``valid``."""
    rng = random.Random(seed)
    for i in range(N):
        yield "random", i, rng.randbytes(rng.choice([0, 1, 10, 100, 1000, 5000]))
    for i in range(N):
        yield "mutated", i, mutate(rng, valid)


def outcome(call) -> int:
    """The exit code of ``call`` run as a command runs it, with a deadline; stdout and stderr dropped."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE)
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            return run_command(lambda _: call(), None, "fuzz")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "fuzz", "--k", "2", "--test-k", "2", "--train-rows", "2",
                            "--test-rows", "3", "--format", "csv")


def _verify(path: Path):
    """``clutrr verify PATH`` as the command runs it (its own parser, without the start-up of the whole CLI)."""
    from clutrr.commands import verify

    parser = argparse.ArgumentParser()
    verify.add_arguments(parser)
    return lambda: verify.run(parser.parse_args([str(path)]))


def _predictions(data: Path):
    from clutrr.eval.data import load_eval_set
    from clutrr.eval.scoring import evaluate

    golds = load_eval_set(str(data), None, "kinship", None)
    return lambda path: (lambda: evaluate(golds, str(path), name="m") and 0)


def _kb(path: Path):
    from clutrr.core.kb import load_kb

    return lambda: load_kb(str(path)) and 0


def _templates(path: Path):
    from clutrr.render.bank_check import possible_heads
    from clutrr.story.generator import GeneratorConfig, banks

    possible_heads("kinship")  # computed once per process (seconds): not part of any input's time

    return lambda: banks(GeneratorConfig(templates=str(path), fallback_templates="none"), 0) and 0


def _valid_predictions(data: Path) -> bytes:
    from clutrr.io.csv_format import read_csv

    rows = read_csv(data / "1.2_test.csv")
    return "".join(json.dumps({"id": r.id, "prediction": r.target}) + "\n" for r in rows).encode()


def run_fuzz(tmp_path: Path, valid: bytes, suffix: str, make, seed: int) -> dict[int, int]:
    """Feed every input of :func:`inputs` to ``make(path)()``; the count of each exit code."""
    codes: dict[int, int] = {}
    warm = tmp_path / f"valid{suffix}"
    warm.write_bytes(valid)
    assert outcome(make(warm)) in (0, 1)  # the valid file passes, and one-time caches are filled untimed
    warm.unlink()
    for kind, i, blob in inputs(valid, seed):
        path = tmp_path / f"{kind}-{i}{suffix}"  # a new name each time: readers cache by path
        path.write_bytes(blob)
        try:
            code = outcome(make(path))
        except Hung:
            pytest.fail(f"{kind} input {i} (seed {seed}) ran for more than {DEADLINE} s")
        except BaseException as exc:  # a traceback in the command
            pytest.fail(f"{kind} input {i} (seed {seed}): {type(exc).__name__}: {str(exc)[:300]}")
        assert code in (0, 1, 2), (kind, i, code)
        codes[code] = codes.get(code, 0) + 1
        path.unlink()
    return codes


def test_fuzz_verify(data, tmp_path):
    codes = run_fuzz(tmp_path, (data / "1.2_test.csv").read_bytes(), ".csv", _verify, 1)
    assert codes.get(2, 0) > N // 2  # most inputs are refused in one line; some still verify


def test_fuzz_eval_predictions(data, tmp_path):
    score = _predictions(data)
    codes = run_fuzz(tmp_path, _valid_predictions(data), ".jsonl", score, 2)
    assert codes.get(2, 0) > N // 2 and codes.get(0, 0) > 0


def test_fuzz_kb(tmp_path):
    codes = run_fuzz(tmp_path, (REPO / "kb_rules" / "kinship.yaml").read_bytes(), ".yaml", _kb, 3)
    assert codes.get(2, 0) > N // 2


def test_fuzz_templates(tmp_path):
    codes = run_fuzz(tmp_path, (REPO / "paraphrases" / "synthetic.yaml").read_bytes(), ".yaml", _templates, 4)
    assert codes.get(2, 0) > N // 2


def test_fuzzed_files_through_the_real_command_line(data, tmp_path):
    rng = random.Random(5)
    csv = tmp_path / "1.2_test.csv"
    csv.write_bytes(mutate(rng, (data / "1.2_test.csv").read_bytes()) + rng.choice(MARKERS))
    preds = tmp_path / "p.jsonl"
    preds.write_bytes(mutate(rng, _valid_predictions(data)) + b"\n" + b"[" * 100_000 + b"\n")
    kb = tmp_path / "kb.yaml"
    kb.write_bytes(mutate(rng, (REPO / "kb_rules" / "kinship.yaml").read_bytes()))
    for args in (["verify", str(csv)], ["eval", str(data), "--predictions", str(preds)],
                 ["verify", str(data / "1.2_test.csv"), "--kb", str(kb)]):
        res = subprocess.run([sys.executable, "-m", "clutrr.cli", *args], capture_output=True, text=True, timeout=60)
        assert res.returncode in (0, 1, 2) and "Traceback" not in res.stderr, (args, res.stderr[-2000:])
        assert res.returncode != 2 or len(res.stderr.strip().splitlines()) == 1, res.stderr
