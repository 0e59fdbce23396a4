"""Bad input: one line on stderr, exit code 2, nothing written."""
from __future__ import annotations

import os

import pytest

from helpers import REPO, run_generate


@pytest.mark.parametrize("args, fragment", [
    (["--k", "0"], "k must be between 1 and"),
    (["--test-k", "2..101"], "k must be between 1 and 100"),
    (["--k", "two"], "bad list of lengths"),
    (["--noise", "loud"], "unknown noise type 'loud'"),
    (["--test-noise", "none,loud"], "unknown noise type 'loud'"),
    (["--train-rows", "0"], "row counts must be positive"),
    (["--test-rows", "-3"], "row counts must be positive"),
    (["--kb", "no/such/rules.yaml"], "cannot read rules file"),
    (["--kb", "clutrr_v1"], "unsound"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--k", "1", "--noise", "supporting"], "supporting noise needs k >= 2"),
])
def test_bad_arguments(tmp_path, args, fragment):
    out = tmp_path / "out"
    res = run_generate(*args, "--out", str(out))
    assert res.returncode == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], res.stderr
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_invalid_rules_file(tmp_path):
    bad = tmp_path / "rules.yaml"
    bad.write_text((REPO / "kb_rules" / "kinship.yaml").read_text() + "  - child . child -> sibling\n")
    out = tmp_path / "out"
    res = run_generate("--kb", str(bad), "--out", str(out))
    assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1
    assert "rules.yaml:" in res.stderr and "conflicts" in res.stderr
    assert not out.exists()


def test_non_empty_output_needs_force_and_force_replaces_only_a_dataset(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    small = ("--train-rows", "5", "--test-rows", "5", "--test-k", "2", "--out", str(out))
    res = run_generate(*small)
    assert res.returncode == 2 and "not empty" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    res = run_generate(*small, "--force")
    assert res.returncode == 2 and "clutrr did not write it" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    (out / "keep.txt").unlink()
    assert run_generate(*small).returncode == 0
    res = run_generate(*small, "--seed", "1", "--force")
    assert res.returncode == 0, res.stderr
    assert '"seed": 1' in (out / "config.json").read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_path(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    res = run_generate("--out", str(locked / "out"))
    assert res.returncode == 2 and "cannot write" in res.stderr


def test_unwritable_path_under_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run_generate("--out", str(blocker / "out"))
    assert res.returncode == 2 and "cannot write" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["file"]
