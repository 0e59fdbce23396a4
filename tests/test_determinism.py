"""One seed fixes every byte of output, with 1 or 2 workers."""
from __future__ import annotations

from helpers import run_generate

ARGS = ["--k", "2,3", "--test-k", "2,5", "--train-rows", "150", "--test-rows", "70", "--noise", "all"]


def _bytes(d):
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def test_same_seed_same_bytes_any_workers(tmp_path):
    for name, workers in (("a", "1"), ("b", "2"), ("c", "1")):
        res = run_generate(*ARGS, "--seed", "9", "--workers", workers, "--out", str(tmp_path / name))
        assert res.returncode == 0, res.stderr
    a, b, c = (_bytes(tmp_path / n) for n in "abc")
    assert a == b == c
    res = run_generate(*ARGS, "--seed", "10", "--out", str(tmp_path / "d"))
    assert res.returncode == 0
    assert _bytes(tmp_path / "d")["5.5_test.csv"] != a["5.5_test.csv"]
