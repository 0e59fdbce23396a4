"""Without the baselines extra, every way into the baselines says what to install, in one line."""
from __future__ import annotations

import subprocess
import sys

import pytest

BLOCK = "import sys; sys.modules['torch'] = None; "


def run(code: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", BLOCK + code], capture_output=True, text=True, cwd=tmp_path,
                          timeout=120)


@pytest.mark.parametrize("module", ["train", "reproduce"])
def test_script_without_torch_names_the_extra(module, tmp_path):
    code = (f"import runpy; sys.argv = ['x', '--results', 'r', '--data', 'd', '--model', 'gat']; "
            f"runpy.run_module('clutrr.baselines.{module}', run_name='__main__')")
    if module == "reproduce":
        code = code.replace(", '--data', 'd', '--model', 'gat'", "")
    r = run(code, tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()]
    assert "pip install" in r.stderr and "clutrr[baselines]" in r.stderr
    assert not (tmp_path / "r").exists()


def test_cli_robustness_without_torch_names_the_extra(tmp_path):
    r = run("from clutrr.cli import main; raise SystemExit(main(['robustness', '--model', 'gat', '--out', 'o']))",
            tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("clutrr robustness: error: the baselines need PyTorch")
    assert len(r.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_importing_a_model_module_without_torch_raises_usage_error(tmp_path):
    r = run("from clutrr.errors import UsageError\n"
            "try:\n    import clutrr.baselines.composer\nexcept UsageError as e:\n    print('usage', e)", tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("usage the baselines need PyTorch"), r.stderr
