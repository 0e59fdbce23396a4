"""CSV round trip, the JSONL twin, and reading the released CLUTRR files."""
from __future__ import annotations

import csv
import io
import json

from clutrr.core.records import split_f_comb
from clutrr.io.csv_format import COLUMNS, CsvWriter, parse_row, read_csv
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.diagnostics.verify import summarize, verify_file


def test_round_trip_preserves_every_field():
    rows = [make_example(GeneratorConfig(), k, n, 1, i, "test").row
            for i, (k, n) in enumerate([(2, "none"), (4, "supporting"), (3, "all")])]
    buf = io.StringIO()
    w = CsvWriter(buf)
    for r in rows:
        w.write(r)
    buf.seek(0)
    back = [parse_row(rec) for rec in csv.DictReader(buf)]
    assert back == rows
    buf.seek(0)
    assert next(csv.reader(buf)) == ["", *COLUMNS]


def test_written_format_matches_the_original_literals():
    r = make_example(GeneratorConfig(), 3, "none", 2, 0, "train").row
    buf = io.StringIO()
    CsvWriter(buf).write(r)
    rec = next(csv.DictReader(io.StringIO(buf.getvalue())))
    assert rec["query"].startswith("('") and rec["query_edge"] == "(0, 3)"
    assert rec["story_edges"] == "[(0, 1), (1, 2), (2, 3)]"
    assert rec["edge_types"].startswith("['") and rec["task_name"] == "task_1.3"
    assert rec["proof_state"].startswith("[{('") and rec["text_target"][:2] in ("['", '["')
    assert all(":" in g for g in rec["genders"].split(","))
    assert rec[""] == "0" and rec["task_split"] == "train"


def test_jsonl_twin_has_typed_fields(tmp_path):
    spec = DatasetSpec(train_k=(2,), test_k=(3,), noise="supporting", test_noise=("supporting",),
                       train_rows=5, test_rows=5, seed=1)
    write_dataset(spec, tmp_path / "d", progress=False)
    recs = [json.loads(line) for line in (tmp_path / "d" / "2.3_test.jsonl").read_text().splitlines()]
    rows = read_csv(tmp_path / "d" / "2.3_test.csv")
    assert len(recs) == len(rows) == 5
    for rec, row in zip(recs, rows):
        assert rec["id"] == row.id and rec["target"] == row.target and rec["k"] == 3
        assert [e["relation"] for e in rec["edges"]] == row.edge_types
        assert [e["noise"] for e in rec["edges"][:3]] == ["none"] * 3
        assert all(e["noise"] == "supporting" for e in rec["edges"][3:]) and len(rec["edges"]) == 5
        assert rec["proof"][0]["goal"] == [row.query[0], row.target, row.query[1]]
        assert all(p["template"] for p in rec["pieces"])


def test_split_f_comb_handles_hyphenated_words():
    assert split_f_comb("son-in-law-brother-sister-in-law") == ["son-in-law", "brother", "sister-in-law"]


def test_reads_every_released_file(release):
    for path in sorted(release.glob("*/*.csv")):
        rows = read_csv(path)
        assert rows and all(r.k == len(split_f_comb(r.f_comb)) for r in rows)
        assert all(len(r.edge_types) == r.k for r in rows)


def test_released_rows_are_all_derivable_with_the_original_rules(release):
    from clutrr.core.kb import load_kb

    v1 = load_kb("clutrr_v1")
    for path in sorted(release.glob("*/*_test.csv")):
        counts = summarize(verify_file(v1, path))
        assert counts["wrong"] == counts["not_entailed"] == counts["unparsable"] == 0, (path, counts)


def test_sound_kb_flags_the_released_k3_test(release, kb):
    counts = summarize(verify_file(kb, release / "data_089907f8" / "1.3_test.csv"))
    assert counts["entailed"] < 105 and counts["wrong"] > 0 and counts["not_entailed"] > 0


def test_our_files_verify_fully(tmp_path, kb):
    spec = DatasetSpec(train_k=(2, 3), test_k=(4, 7), noise="all", test_noise=("all",), train_rows=30, test_rows=20, seed=3)
    write_dataset(spec, tmp_path / "d", progress=False)
    for path in (tmp_path / "d").glob("*.csv"):
        counts = summarize(verify_file(kb, path))
        assert counts["entailed"] == sum(counts.values()), (path, counts)
