"""A task's JSONL line (:func:`clutrr.io.rows.example_line`, made of the JSON of entries kept
from earlier stories) is the line of the example's record, for every kind of story."""
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


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_line_is_the_records_line(name):
    config = CONFIGS[name]
    for k in ((2, 3, 10) if name == "default" else (2, 3)):
        for split in ("train", "test"):
            for i in range(12):
                ex = make_example(config, k, "all", 5, i, split)
                assert rows.example_line(ex) == rows.json_line(ex.record), (name, k, split, i)


def test_the_line_without_orjson_or_beyond_64_bits(monkeypatch):
    big = make_example(GeneratorConfig(), 2, "all", 2**70, 0)  # orjson refuses the seed
    assert json.loads(rows.example_line(big))["seed"] == 2**70
    monkeypatch.setattr(rows, "orjson", None)
    ex = make_example(GeneratorConfig(), 3, "all", 5, 0)
    assert rows.example_line(ex) == rows.json_line(ex.record)


def test_edges_beyond_an_int_key_are_written_unkept(monkeypatch):
    monkeypatch.setattr(rows, "_ENTRY_JSON", {})  # entries kept under other keys are not read
    monkeypatch.setattr(rows, "EDGE_KEY", 3)
    for i in range(10):
        ex = make_example(GeneratorConfig(), 3, "all", 11, i)
        assert rows.example_line(ex) == rows.json_line(ex.record)


def test_the_kept_entries_start_again_beyond_the_limit(monkeypatch):
    monkeypatch.setattr(rows, "_ENTRY_JSON", {})
    monkeypatch.setattr(rows, "ENTRY_JSON_LIMIT", 5)
    config = GeneratorConfig()
    parts = rows.entry_json(make_example(config, 2, "all", 5, 0).kb)
    for i in range(20):
        ex = make_example(config, 3, "all", 9, i)
        assert rows.example_line(ex) == rows.json_line(ex.record)
        assert parts.size <= 5
        assert sum(map(len, parts.by_person)) <= 5


def test_kept_entries_take_their_size_not_orjsons_buffer(monkeypatch):
    """Each kept entry holds its JSON at its own size (orjson's bytes keep a ~4 KB buffer), so the
    table at its limit stays well under 100 MB."""
    import tracemalloc

    monkeypatch.setattr(rows, "_ENTRY_JSON", {})
    config = GeneratorConfig()
    parts = rows.entry_json(make_example(config, 2, "all", 5, 0).kb)
    examples = [make_example(config, 3, "all", 13, i) for i in range(40)]
    tracemalloc.start()
    try:
        for ex in examples:
            rows.example_line(ex)
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert parts.size > 500
    assert kept / parts.size < 1000  # bytes per entry, with the tables' own share
    assert rows.ENTRY_JSON_LIMIT * 1000 < 100 * 2**20
