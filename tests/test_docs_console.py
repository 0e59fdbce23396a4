"""The console samples of docs/diagnostics.md are what the commands print.

A ```console block after a ``<!-- console: NAME -->`` marker holds ``$ clutrr ...`` lines, each
followed by its output. The test runs every such line of the page in order, in one empty
folder, through :func:`clutrr.cli.main` (stdout and stderr, as a terminal shows them, without
progress bars), and compares. A ```text block after ``<!-- stories-in: FILE... -->`` lists
stories as ``STORY   (HEAD, TAIL): TARGET`` that must be rows of those files (paths in that
folder). ``CLUTRR_REGEN_DOCS=1 pytest tests/test_docs_console.py`` rewrites the outputs.
"""
from __future__ import annotations

import contextlib
import io
import os
import re
import shlex

from clutrr.cli import main
from clutrr.io.csv_format import read_csv
from helpers import REPO

DOC = REPO / "docs" / "diagnostics.md"
CONSOLE = re.compile(r"<!-- console: (?P<name>[\w-]+) -->\n```console\n(?P<body>.*?)```", re.S)
STORIES = re.compile(r"<!-- stories-in: (?P<files>[^>]*?) -->\n```text\n(?P<body>.*?)```", re.S)
STORY_LINE = re.compile(r"^(?P<story>.*?)\s{3}\((?P<head>[^,]+), (?P<tail>[^)]+)\): (?P<target>\S+)$")


def run_line(line: str) -> str:
    """Run one ``$ clutrr ...`` line; what it prints on stdout and stderr, interleaved."""
    argv = shlex.split(line)
    assert argv[0] == "clutrr", f"only clutrr commands run in doc samples: {line}"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            main(argv[1:])
        except SystemExit:
            pass
    return out.getvalue()


def rerun(body: str) -> str:
    """The block with every command's output replaced by a real run's."""
    text = []
    for line in body.splitlines():
        if line.startswith("$ "):
            text.append(line + "\n")
            text.append(run_line(line[2:]))
    return "".join(text)


def test_console_samples_match_a_real_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = DOC.read_text(encoding="utf-8")
    blocks = list(CONSOLE.finditer(doc))
    assert len(blocks) >= 5
    fresh = {m.group("name"): rerun(m.group("body")) for m in blocks}
    if os.environ.get("CLUTRR_REGEN_DOCS"):
        DOC.write_text(CONSOLE.sub(lambda m: m.group(0).replace(m.group("body"), fresh[m.group("name")]), doc),
                       encoding="utf-8")
        return
    for m in blocks:
        assert fresh[m.group("name")] == m.group("body"), (
            f"docs/diagnostics.md sample {m.group('name')!r} differs from a real run; rewrite it with: "
            "CLUTRR_REGEN_DOCS=1 .venv/bin/pytest tests/test_docs_console.py")
    for m in STORIES.finditer(doc):
        rows = [r for f in m.group("files").split() for r in read_csv(f)]
        for line in m.group("body").splitlines():
            want = STORY_LINE.match(line)
            assert want, line
            assert any(r.story == want["story"] and r.query == (want["head"], want["tail"])
                       and r.target == want["target"] for r in rows), line
