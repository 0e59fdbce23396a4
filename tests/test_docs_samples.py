"""Documented sample outputs are what the code really prints.

Each ``<!-- sample: NAME -->`` marker in a doc is followed by a python block and a text
block; the test runs the python block and compares its output with the text block.
``CLUTRR_REGEN_DOCS=1 pytest tests/test_docs_samples.py`` rewrites the text blocks.
"""
from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from helpers import REPO

SAMPLE = re.compile(r"<!-- sample: (?P<name>[\w-]+) -->\n```python\n(?P<code>.*?)```\n\n```text\n(?P<out>.*?)```",
                    re.S)
DOCS = [REPO / "docs" / "rl.md"]


def samples():
    for doc in DOCS:
        for m in SAMPLE.finditer(doc.read_text(encoding="utf-8")):
            yield pytest.param(doc, m.group("name"), id=f"{doc.name}:{m.group('name')}")


def run_code(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<doc sample>", "exec"), {"__name__": "__doc_sample__"})
    return out.getvalue()


@pytest.mark.parametrize("doc, name", list(samples()))
def test_documented_output_matches_a_real_run(doc, name):
    text = doc.read_text(encoding="utf-8")
    m = next(m for m in SAMPLE.finditer(text) if m.group("name") == name)
    printed = run_code(m.group("code"))
    if os.environ.get("CLUTRR_REGEN_DOCS"):
        doc.write_text(text[: m.start("out")] + printed + text[m.end("out"):], encoding="utf-8")
        return
    assert printed == m.group("out"), (
        f"{doc.name} sample {name!r} differs from a real run; "
        "rewrite it with: CLUTRR_REGEN_DOCS=1 .venv/bin/pytest tests/test_docs_samples.py")


def test_the_curriculum_sample_exists():
    assert any(p.values[1] == "curriculum" for p in samples())


class StubPolicy:
    """Stands in for a language model: right (tagged) up to k=3, wrong beyond."""

    def __init__(self):
        self.updates = 0

    def generate(self, messages):
        question = messages[-1]["content"]
        item = self.items[question]
        return f"<answer>{item['answer'] if item['metadata']['k'] <= 3 else 'aunt'}</answer>"

    def update(self, batch, completions, rewards):
        self.updates += 1


def test_the_reinforcement_learning_sketch_runs(monkeypatch):
    text = (REPO / "docs" / "rl.md").read_text(encoding="utf-8")
    code = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "policy.update" in block)
    from clutrr.rl import Curriculum

    policy = StubPolicy()
    levels = []
    real_dataset = Curriculum.dataset

    def dataset(self, seed):
        ds = real_dataset(self, seed)
        policy.items = {item["question"]: item for item in ds}
        levels.append(self.k)
        return ds

    monkeypatch.setattr(Curriculum, "dataset", dataset)
    exec(compile(code, "<rl sketch>", "exec"), {"policy": policy})
    assert policy.updates == 20
    assert levels[:3] == [2, 3, 4] and max(levels) == 4  # masters k=2,3; stuck at k=4 (stub fails it)
