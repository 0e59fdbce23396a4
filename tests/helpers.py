"""Small dataset fixtures shared by tests."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_generate(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python generate.py ARGS`` and capture its output."""
    return subprocess.run([sys.executable, str(REPO / "generate.py"), "--quiet", *args],
                          capture_output=True, text=True, cwd=cwd or REPO)


def generated_folder(tmp_path_factory, name: str, *args: str) -> Path:
    """A dataset folder generated with ``generate.py ARGS`` in a fresh temporary folder (a fixture's body)."""
    out = tmp_path_factory.mktemp(name) / "d"
    res = run_generate(*args, "--out", str(out))
    assert res.returncode == 0, res.stderr
    return out


def one_line(res, *fragments: str) -> str:
    """The single stderr line of a run that failed as promised (exit 2, no traceback), holding every fragment."""
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr[-2000:]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]
