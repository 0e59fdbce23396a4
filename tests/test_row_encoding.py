"""The hand-written CSV and JSONL encoders give the bytes of the standard library's writers."""
from __future__ import annotations

import csv
import io
import json

import pytest

from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.io import rows
from clutrr.io.csv_format import csv_line, row_fields

EDGE_CELLS = ["", "plain", "a,b", 'say "hi"', "two\nlines", '"', ",", " lead", "trail ", "é漢字", 0, 12, None]
EDGE_TEXT = ["".join(chr(i) for i in range(32)), "\u2028\u2029\x7f\x80", "é漢字😀", 'a"b\\c/d', "[Ann]'s"]


def _examples():
    config = GeneratorConfig()
    for k in (2, 3, 6):
        for split in ("train", "test"):
            for i in range(40):
                yield make_example(config, k, "all", 5, i, split)


def _stdlib_csv(cells: list) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow(cells)
    return buf.getvalue()


def test_csv_line_matches_csv_writer():
    for ex in _examples():
        cells = [7, *row_fields(ex.row)]
        assert csv_line(cells) == _stdlib_csv(cells)
    for a in EDGE_CELLS:
        for b in EDGE_CELLS:
            assert csv_line([a, b]) == _stdlib_csv([a, b]), (a, b)


def test_csv_line_quotes_a_carriage_return_and_reads_back():
    line = csv_line(["a\rb", "c"])
    assert line == '"a\rb",c\n'
    assert next(csv.reader(io.StringIO(line, newline=""))) == ["a\rb", "c"]


@pytest.mark.parametrize("fast", [True, False])
def test_json_line_is_compact_json_with_or_without_orjson(monkeypatch, fast):
    if fast:
        pytest.importorskip("orjson")
    else:
        monkeypatch.setattr(rows, "orjson", None)
    records = [ex.record for ex in _examples()]
    records += [{"text": t, "n": [0, -1, 2**63 - 1, -2**63], "flags": [True, False, None]} for t in EDGE_TEXT]
    records.append({"seed": 2**70})  # beyond 64 bits: orjson refuses it, json writes it
    for rec in records:
        line = rows.json_line(rec)
        assert line == (json.dumps(rec, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        assert json.loads(line) == rec
