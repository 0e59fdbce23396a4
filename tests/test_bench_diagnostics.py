"""The figures of docs/diagnostics.md come from one run of benchmarks/bench_diagnostics.py:
rerun it on a tiny folder, and check it writes every figure the page shows."""
from __future__ import annotations

import importlib.util
import os
import re

import pytest

from helpers import REPO

pytest.importorskip("matplotlib")
DOC = REPO / "docs" / "diagnostics.md"


def _script():
    spec = importlib.util.spec_from_file_location("bench_diagnostics", REPO / "benchmarks" / "bench_diagnostics.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_writes_every_figure_of_the_page(tmp_path, capsys):
    script = _script()
    shown = set(re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", DOC.read_text(encoding="utf-8")))
    assert shown and shown == set(script.FIGURES)  # the page shows what the script makes, nothing else
    assert all((REPO / "docs" / name).is_file() for name in shown)
    docs = tmp_path / "docs"
    assert script.main(["--work", str(tmp_path / "work"), "--docs", str(docs), "--train-rows", "40",
                        "--test-rows", "16", "--q", "8"]) == 0
    out = capsys.readouterr().out
    for name in shown:
        assert (docs / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "## Give-away words of the hypotheses" in out and "## Per-class accuracy" in out
    assert "(prose: at least one accepted" in out and "(formula: acceptance above 1/|D_test|" in out
    assert "entropy D^c: accepted permutations" in out and "acceptance by length, right originally" in out
    # the work folder is the script's own: a rerun replaces it, a foreign folder is refused
    foreign = tmp_path / "mine"
    foreign.mkdir()
    with pytest.raises(SystemExit, match="not this script's output folder"):
        script.main(["--work", str(foreign), "--docs", str(docs)])


ACCEPTANCE = re.compile(r"<!-- bench-diagnostics: acceptance -->\n```text\n(?P<body>.*?)```", re.S)


@pytest.mark.skipif(not os.environ.get("CLUTRR_FULL_FIGURES"), reason="a full run: set CLUTRR_FULL_FIGURES=1")
def test_the_printed_acceptance_block_is_a_full_run(tmp_path, capsys):
    assert _script().main(["--work", str(tmp_path / "work"), "--docs", str(tmp_path / "docs")]) == 0
    out = capsys.readouterr().out
    printed = out[out.index("--acceptance"):].split("\n", 1)[1]
    printed = printed[:printed.index("wrote ")]
    assert ACCEPTANCE.search(DOC.read_text(encoding="utf-8"))["body"] == printed
    for name in _script().FIGURES:
        assert (tmp_path / "docs" / name).read_bytes() == (REPO / "docs" / name).read_bytes()
