"""The results JSON schema, the summary statistics, the table, the plot and the RESULTS.md report."""
from __future__ import annotations

import copy
import json

import pytest

from clutrr.baselines.report import render, write_report
from clutrr.baselines.results import SCHEMA, SchemaError, format_table, plot_accuracy, read_json, summarize, validate, write_json


def make_doc(accs: list[dict[str, float]]) -> dict:
    tests = [
        {"file": "1.2_test.csv", "task": "1.2", "noise": 1, "noise_name": "clean", "k": 2, "rows": 38},
        {"file": "1.4_test.csv", "task": "1.4", "noise": 1, "noise_name": "clean", "k": 4, "rows": 190},
    ]
    per_run = [
        {"seed": i, "train_seconds": 1.5, "final_loss": 0.1, "train_accuracy": 0.99, "accuracy": a}
        for i, a in enumerate(accs)
    ]
    return {
        "schema": SCHEMA, "model": "gat", "config": {"model": "gat"}, "data": "/data/data_089907f8",
        "train_file": "1.2,1.3_train.csv", "train_rows": 10094, "epochs": 5, "seed": 0, "runs": len(accs),
        "device": "cpu", "threads": 1, "seconds": 12.0, "started": "2026-01-01T00:00:00+00:00",
        "tests": tests, "per_run": per_run, "summary": summarize(tests, per_run),
    }


ACCS = [{"1.2_test.csv": 1.0, "1.4_test.csv": 0.8}, {"1.2_test.csv": 0.9, "1.4_test.csv": 0.6}]


def test_summary_is_mean_and_population_std():
    s = make_doc(ACCS)["summary"]["1.4_test.csv"]
    assert s["mean"] == pytest.approx(0.7) and s["std"] == pytest.approx(0.1)
    assert (s["k"], s["runs"], s["task"]) == (4, 2, "1.4")


def test_valid_document_round_trips(tmp_path):
    doc = make_doc(ACCS)
    path = write_json(doc, tmp_path / "out" / "gat.json")
    assert read_json(path) == json.loads(json.dumps(doc))


@pytest.mark.parametrize("breakage, message", [
    (lambda d: d.pop("summary"), "missing 'summary'"),
    (lambda d: d.update(schema="other"), "schema"),
    (lambda d: d.update(runs=3), "one entry per run"),
    (lambda d: d["per_run"][0]["accuracy"].update({"1.4_test.csv": 1.5}), "outside"),
    (lambda d: d["per_run"][1]["accuracy"].pop("1.2_test.csv"), "accuracy keys"),
    (lambda d: d["tests"][0].update(k="2"), "'k' should be int"),
    (lambda d: d.update(epochs=True), "'epochs' should be int"),
    (lambda d: d["summary"].pop("1.4_test.csv"), "summary"),
])
def test_broken_documents_are_rejected(breakage, message):
    doc = copy.deepcopy(make_doc(ACCS))
    breakage(doc)
    with pytest.raises(SchemaError, match=message):
        validate(doc)


def test_table_lists_every_test_with_mean_and_std():
    table = format_table(make_doc(ACCS))
    lines = table.splitlines()
    assert "2 run(s)" in lines[0]
    assert lines[-1].split() == ["1.4", "clean", "4", "190", "0.700", "±", "0.100"]


def test_plot_is_a_png(tmp_path):
    path = plot_accuracy([make_doc(ACCS)], tmp_path / "p.png", reference={"published": {2: 1.0, 4: 0.91}})
    assert path.read_bytes()[:4] == b"\x89PNG"


def test_report_puts_ours_beside_published(tmp_path):
    doc = make_doc(ACCS)
    text = render([("GAT, released data_089907f8", doc, "gat-089907f8")], machine="test machine")
    assert "| 4 | 0.91 | 0.70 ± 0.10 |" in text
    assert "test machine" in text and "5 epochs" in text


def test_write_report_reads_results_folder(tmp_path):
    write_json(make_doc(ACCS), tmp_path / "results" / "gat-089907f8" / "gat.json")
    (tmp_path / "results" / "notes.md").write_text("Total wall time: 1 min.\n")
    out = write_report(tmp_path / "results", tmp_path / "doc" / "RESULTS.md", machine="m")
    text = out.read_text()
    assert "| 2 | 1.00 | 0.95 ± 0.05 |" in text
    assert text.count("Not run.") == 2 and "Total wall time: 1 min." in text
    assert (tmp_path / "doc" / "accuracy_vs_k.png").is_file()
