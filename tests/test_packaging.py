"""The wheel ships the data folders, the installed package finds them, and a plain install (no
extras) runs every command, naming the extra a feature needs in one line."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from clutrr import __version__
from helpers import REPO

OPTIONAL = ("pyarrow", "ray", "matplotlib", "networkx", "torch", "datasets", "orjson", "fsspec")
NO_INDEX = ("No matching distribution", "Could not find a version", "Failed to establish a new connection",
            "Network is unreachable", "Temporary failure in name resolution")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The pure-Python wheel (CLUTRR_PURE=1: nothing compiled; tests/test_compiled.py builds the other)."""
    out = tmp_path_factory.mktemp("wheel")
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(out)],
                         capture_output=True, text=True, timeout=300, env={**os.environ, "CLUTRR_PURE": "1"})
    assert res.returncode == 0, res.stderr
    built = next(out.glob("clutrr-*.whl"))
    assert built.name.endswith("-py3-none-any.whl"), built.name
    return built


def test_wheel_contains_rules_templates_and_names(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in ("clutrr/kb_rules/kinship.yaml", "clutrr/kb_rules/clutrr_v1.yaml",
                   "clutrr/paraphrases/synthetic.yaml", "clutrr/core/data/names_male.txt",
                   "clutrr/core/data/names_female.txt", "clutrr/commands/generate.py",
                   "clutrr/baselines/train.py", "clutrr/baselines/registry.py", "clutrr/eval/published.yaml"):
        assert needed in names, needed
    assert not any(n.startswith("baselines/") for n in names), "no generic top-level 'baselines' module"
    assert any(n.startswith("clutrr/paraphrases/k1/") and n.endswith(".yaml") for n in names)
    systems = {p.name for p in (REPO / "kb_rules" / "systems").glob("*.yaml")}
    assert len(systems) == 7 and {f"clutrr/kb_rules/systems/{s}" for s in systems} <= names, "terminology files"
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "clutrr = clutrr.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()


def test_a_plain_install_runs_every_command_and_names_the_extras(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    res = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", str(wheel)],
                         capture_output=True, text=True, timeout=300)
    if res.returncode != 0 and any(m in res.stderr for m in NO_INDEX):
        pytest.skip(f"pip cannot reach a package index for the base dependencies: {res.stderr.strip()[-300:]}")
    assert res.returncode == 0, res.stderr
    found = subprocess.run([str(python), "-c", "import importlib.util as u, sys; "
                            "print(' '.join(m for m in sys.argv[1:] if u.find_spec(m)))", *OPTIONAL],
                           capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert found.returncode == 0 and found.stdout.split() == [], found.stdout + found.stderr

    def clutrr(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(venv / "bin" / "clutrr"), *argv], capture_output=True, text=True,
                              cwd=tmp_path, timeout=120)

    top = clutrr("--help")
    assert top.returncode == 0, top.stderr
    commands = top.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    assert {"generate", "show", "verify", "release", "eval"} <= set(commands)
    for name in commands:
        done = clutrr(name, "--help")
        assert done.returncode == 0 and "usage: clutrr" in done.stdout, (name, done.stderr)
    assert clutrr("--version").stdout.strip() == f"clutrr {__version__} (pure Python)"
    made = clutrr("generate", "--k", "2", "--test-k", "3", "--train-rows", "4", "--test-rows", "2",
                  "--out", "data", "--quiet")
    assert made.returncode == 0, made.stderr
    shown = clutrr("show", "data", "-n", "1")
    assert shown.returncode == 0 and "[" in shown.stdout, shown.stderr
    checked = clutrr("verify", "data")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    needs = [
        (("release", "--out", "rel", "--configs", "ctx_depth_k4_w4000", "--scale", "0.003"), "clutrr[parquet]"),
        (("generate", "--k", "2", "--test-k", "none", "--train-rows", "2", "--out", "pq", "--format", "parquet"),
         "clutrr[parquet]"),
        (("generate", "--k", "2", "--test-k", "none", "--train-rows", "2", "--out", "ray", "--engine", "ray"),
         "clutrr[ray]"),
        (("show", "data", "-n", "1", "--draw", "story.png"), "clutrr[graph]"),
    ]
    for argv, extra in needs:
        done = clutrr(*argv)
        assert done.returncode == 2, (argv, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and extra in done.stderr, (argv, done.stderr)
    assert not (tmp_path / "rel").exists() and not (tmp_path / "pq").exists()
    built = subprocess.run([sys.executable, "-m", "clutrr.cli", "release", "--out", str(tmp_path / "built"),
                            "--configs", "ctx_depth_k4_w4000", "--scale", "0.003", "--quiet"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert built.returncode == 0, built.stderr
    quick = clutrr("release", "--check", "built", "--quick")  # hashes only: no extra needed
    assert quick.returncode == 0 and "files match release.json" in quick.stderr, quick.stderr
    compared = clutrr("release", "--compare", "built")
    assert compared.returncode == 0 and "| `ctx_depth_k4_w4000` |" in compared.stdout, compared.stderr


def test_names_list_is_large_and_gendered():
    from clutrr.core.names import load_names

    names = load_names()
    assert len(names["male"]) + len(names["female"]) >= 300
    assert not set(names["male"]) & set(names["female"])


def test_every_subpackage_is_listed_in_pyproject():
    import tomllib

    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(REPO).parts) for p in (REPO / "clutrr").rglob("__init__.py")}
    assert on_disk <= listed, sorted(on_disk - listed)


def test_the_version_is_one_in_package_metadata_and_citation():
    import tomllib

    import yaml

    assert tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"] == __version__
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["version"] == __version__ and citation["cff-version"] == "1.2.0"
