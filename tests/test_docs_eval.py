"""docs/eval.md's first example is what the commands print today: the three commands run as a
user would (in a fresh folder) and the tables the doc shows are compared with the output.

``CLUTRR_REGEN_DOCS=1 pytest tests/test_docs_eval.py`` rewrites the doc's text block.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

from helpers import REPO

DOC = REPO / "docs" / "eval.md"
EXAMPLE = re.compile(r"<!-- run: eval-example -->\n```sh\n(?P<code>.*?)```\n.*?```text\n(?P<out>.*?)```", re.S)


def commands(code: str) -> list[list[str]]:
    """The example's commands with the checkout's interpreter in place of .venv/bin/..."""
    out = []
    for line in code.replace("\\\n", " ").strip().splitlines():
        words = shlex.split(line)
        if words[0] == ".venv/bin/clutrr":
            words = [sys.executable, "-m", "clutrr.cli", *words[1:]]
        elif words[0] == ".venv/bin/python":
            words = [sys.executable, str(REPO / words[1]), *words[2:]]
        out.append(words)
    return out


def shown(printed: str, titles: list[str]) -> str:
    """The tables of ``printed`` named by ``titles``, in that order, separated by blank lines."""
    blocks = {b.splitlines()[0]: b for b in printed.strip().split("\n\n")}
    return "\n\n".join(blocks[t] for t in titles) + "\n"


def test_the_eval_example_prints_what_the_doc_shows(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    m = EXAMPLE.search(text)
    assert m, "docs/eval.md lost its eval-example block"
    runs = commands(m.group("code"))
    assert len(runs) == 3
    for words in runs:
        res = subprocess.run(words, cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stderr
    assert {p.name for p in (tmp_path / "reports" / "eval").iterdir()} == {
        "report.md", "report.json", "items.jsonl", "accuracy_vs_k.png", ".clutrr-output.json"}
    titles = [block.splitlines()[0] for block in m.group("out").strip().split("\n\n")]
    printed = shown(res.stdout, titles)
    if os.environ.get("CLUTRR_REGEN_DOCS"):
        DOC.write_text(text[: m.start("out")] + printed + text[m.end("out"):], encoding="utf-8")
        return
    assert printed == m.group("out"), "docs/eval.md's example output differs from a real run; rewrite it with: " \
                                      "CLUTRR_REGEN_DOCS=1 .venv/bin/pytest tests/test_docs_eval.py"
