"""Command-line details a new user meets first: version, program names, KB names, odd paths, imports."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import clutrr
from clutrr.cli import main
from helpers import REPO, run_generate

BIN = Path(sys.executable).parent


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == f"clutrr {clutrr.__version__} (pure Python)\n"  # the suite runs the sources
    assert clutrr.compiled is False and clutrr.BUILD == "pure Python"


def test_each_entry_point_names_itself_in_usage():
    script = BIN / "clutrr-generate"
    if not script.exists():
        pytest.skip("the clutrr-generate script is not installed in this environment")
    res = subprocess.run([str(script), "--help"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("usage: clutrr-generate ")
    res = subprocess.run([sys.executable, str(REPO / "generate.py"), "--help"], capture_output=True, text=True)
    assert res.stdout.startswith("usage: generate.py ")
    res = subprocess.run([str(script), "--k", "0", "--out", "x"], capture_output=True, text=True)
    assert res.returncode == 2 and res.stderr.startswith("clutrr-generate: error: ")


def test_an_unknown_kb_lists_the_built_in_names(tmp_path):
    res = run_generate("--kb", "bogus", "--out", str(tmp_path / "out"))
    assert res.returncode == 2 and res.stderr.count("\n") == 1
    assert "unknown KB 'bogus' (built-in KBs: kinship, kinship-blood, clutrr_v1" in res.stderr


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs a /proc file system")
def test_an_output_under_proc_gives_the_real_reason(tmp_path, capsys):
    assert main(["audit", str(REPO / "tests" / "fixtures_diag"), "--out", "/proc/clutrr-out"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write to /proc" in err
    assert "No such file or directory" not in err


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(), reason="needs a git checkout")
def test_reports_are_git_ignored():
    res = subprocess.run(["git", "check-ignore", "-q", "reports/audit/audit.md"], cwd=REPO)
    assert res.returncode == 0


def test_a_folder_named_clutrr_in_the_working_directory_does_not_shadow_the_package(tmp_path):
    """As when a script runs from the folder above a checkout named clutrr."""
    (tmp_path / "clutrr" / "clutrr").mkdir(parents=True)  # a checkout's root: no __init__.py
    (tmp_path / "clutrr" / "README.md").write_text("a checkout\n")
    code = "import clutrr; from clutrr import GeneratorConfig; print(clutrr.__version__)"
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout == f"{clutrr.__version__}\n"
