"""A task's JSONL line (:func:`clutrr.io.rows.example_line`) is the example's record as the
``json`` module writes it (compact, non-ASCII kept), for every kind of story, with or without orjson."""
from __future__ import annotations

import json

import pytest

from clutrr.io import rows
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.story.systems import kinship_fields

CONFIGS = {
    "default": GeneratorConfig(),
    "difficulty": GeneratorConfig(difficulty=True),
    "questions": GeneratorConfig(question="mixed"),
    "padded": GeneratorConfig(query="mixed", context_words=300),
    "kinship": GeneratorConfig(**kinship_fields("dravidian")),
    "v1-synthetic": GeneratorConfig(relations="clutrr_v1", templates="synthetic"),
}


def json_modules_line(record: dict) -> bytes:
    """The record's line as the standard library writes it."""
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_line_is_the_records_line(name):
    config = CONFIGS[name]
    for k in ((2, 3, 10) if name == "default" else (2, 3)):
        for split in ("train", "test"):
            for i in range(12):
                ex = make_example(config, k, "all", 5, i, split)
                line = rows.example_line(ex)
                assert line == json_modules_line(ex.record), (name, k, split, i)
                assert json.loads(line) == ex.record


def test_the_line_without_orjson_or_beyond_64_bits(monkeypatch):
    big = make_example(GeneratorConfig(), 2, "all", 2**70, 0)  # orjson refuses the seed
    assert json.loads(rows.example_line(big))["seed"] == 2**70
    monkeypatch.setattr(rows, "orjson", None)
    ex = make_example(GeneratorConfig(), 3, "all", 5, 0)
    assert rows.example_line(ex) == json_modules_line(ex.record)
