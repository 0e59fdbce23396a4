"""`clutrr robustness`: the train-noise × test-noise matrix and the systematic curve, end to end."""
from __future__ import annotations

import json
import statistics

import pytest

from clutrr.cli import main
from clutrr.io.csv_format import read_csv

SETTINGS = ["clean", "supporting", "irrelevant", "disconnected"]
SMALL = ["--train-rows", "60", "--test-rows", "20", "--quiet"]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    root = tmp_path_factory.mktemp("robust")
    code = main(["robustness", "--model", "gat", "--runs", "2", "--epochs", "2", *SMALL,
                 "--data", str(root / "data"), "--out", str(root / "out")])
    assert code == 0
    return root


def test_gat_fills_the_four_by_four_matrix(matrix, capsys):
    doc = json.loads((matrix / "out" / "robustness.json").read_text())
    assert list(doc["summary"]) == SETTINGS
    for row in doc["summary"].values():
        assert list(row) == SETTINGS
        for cell in row.values():
            assert cell["runs"] == 2 and cell["stories"] == 20 and len(cell["per_run"]) == 2
            assert cell["mean"] == pytest.approx(statistics.fmean(cell["per_run"]))
            assert cell["se"] == pytest.approx(statistics.stdev(cell["per_run"]) / 2 ** 0.5)
    text = (matrix / "out" / "robustness.md").read_text()
    assert "| train \\ test | clean | supporting | irrelevant | disconnected |" in text
    assert text.count("\n| clean |") == 1 and "±" in text


def test_every_setting_shares_the_same_test_files(matrix):
    data = matrix / "data"
    assert sorted(p.name for p in data.iterdir()) == sorted(SETTINGS)
    for test in ("1.3_test.csv", "2.3_test.csv", "3.3_test.csv", "4.3_test.csv"):
        assert len({(data / s / test).read_bytes() for s in SETTINGS}) == 1
    trains = {s: read_csv(next((data / s).glob("*_train.csv"))) for s in SETTINGS}
    assert all(r.task_name.startswith("task_2.") for r in trains["supporting"])


def test_prediction_files_fill_the_matrix(matrix, tmp_path, capsys):
    data = matrix / "data"
    perfect = tmp_path / "perfect.jsonl"
    constant = tmp_path / "constant.jsonl"
    rows = [(p.stem, r) for p in sorted((data / "clean").glob("*_test.csv")) for r in read_csv(p)]
    perfect.write_text("".join(json.dumps({"id": r.id, "split": s, "prediction": r.target}) + "\n" for s, r in rows))
    constant.write_text("".join(json.dumps({"id": r.id, "split": s, "prediction": "aunt"}) + "\n" for s, r in rows))
    code = main(["robustness", "--predictions", f"clean={perfect}", "--predictions", f"clean={constant}",
                 "--predictions", f"disconnected={perfect}", "--data", str(data), "--quiet"])
    assert code == 0
    out = capsys.readouterr().out.splitlines()
    clean = next(line for line in out if line.startswith("clean "))
    aunt = {split: sum(r.target == "aunt" for s, r in rows if s == split) / 20
            for split in ("1.3_test", "2.3_test", "3.3_test", "4.3_test")}
    assert clean.split()[1:4] == [f"{(1 + aunt['1.3_test']) / 2:.3f}", "±", f"{(1 - aunt['1.3_test']) / 2:.3f}"]
    # one prediction file is one run: the mean alone, no standard error
    assert next(line for line in out if line.startswith("disconnected ")).split()[1:] == ["1.000"] * 4


def test_a_function_is_queried_not_trained(matrix, capsys):
    code = main(["robustness", "--model", "eval_models:first_fact", "--data", str(matrix / "data"), *SMALL])
    assert code == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("(not trained here)"))
    assert row.count("±") == 0 and len(row.split()) == 3 + 4  # queried once: the mean of one run, no ±


def test_systematic_curve(tmp_path, capsys):
    code = main(["robustness", "--model", "gat", "--experiment", "systematic", "--runs", "1", "--epochs", "1",
                 "--test-k", "2..4", *SMALL, "--out", str(tmp_path / "out")])
    assert code == 0
    assert "train \\ test k  2" in capsys.readouterr().out
    doc = json.loads((tmp_path / "out" / "robustness.json").read_text())
    assert list(doc["summary"]) == ["k=2,3"] and list(doc["summary"]["k=2,3"]) == ["2", "3", "4"]
    assert (tmp_path / "out" / "accuracy_vs_k.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("args, message", [
    (["--model", "gat", "--predictions", "clean=x"], "either --model or --predictions"),
    (["--predictions", "clean=x"], "--predictions needs --data"),
    (["--model", "gat", "--runs", "0"], "--runs must be at least 1"),
    (["--model", "gcn"], "unknown model 'gcn'"),
    (["--model", "gat", "--set", "rounds=x", "--data", "DATA"], "setting 'rounds' of gat takes a int"),
])
def test_bad_input_exits_2(args, message, tmp_path, capsys):
    args = [str(tmp_path / "data") if a == "DATA" else a for a in args]
    assert main(["robustness", *args, *SMALL]) == 2
    assert not (tmp_path / "data").exists()  # refused before generating anything
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
