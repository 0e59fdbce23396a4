"""The wheel ships the data folders, and the installed package finds them."""
from __future__ import annotations

import subprocess
import sys
import zipfile

from helpers import REPO


def test_wheel_contains_rules_templates_and_names(tmp_path):
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(tmp_path)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    wheel = next(tmp_path.glob("clutrr-*.whl"))
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
