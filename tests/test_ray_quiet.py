"""A local Ray run prints no warning a user cannot act on (Ray's token-authentication notice)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")


def test_a_local_ray_run_prints_no_warning(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    env["HOME"] = str(tmp_path / "home")  # no Ray token yet, as on a fresh machine
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "generate", "--engine", "ray", "--workers", "1",
                          "--train-rows", "20", "--test-rows", "5", "--test-k", "2", "--quiet",
                          "--out", str(tmp_path / "d")], capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "d" / "manifest.json").exists()
    assert "WARNING" not in res.stderr and "Token authentication" not in res.stderr, res.stderr
