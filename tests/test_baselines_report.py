"""The results files and RESULTS.md: statistics, schema, and a report that never writes emptiness."""
from __future__ import annotations

import math
import shutil

import pytest
from helpers import REPO

from clutrr.baselines.report import binomial_two_sided, main, write_report
from clutrr.baselines.results import SchemaError, mean_se, read_json, validate

RESULTS = REPO / "baselines" / "results"


def test_mean_and_standard_error():
    assert mean_se([0.5, 0.7, 0.9]) == pytest.approx((0.7, 0.2, 0.2 / math.sqrt(3)))
    assert mean_se([0.4]) == (0.4, 0.0, 0.0)


def test_exact_two_sided_binomial():
    assert binomial_two_sided(5, 10, 0.5) == pytest.approx(1.0)
    assert binomial_two_sided(0, 10, 0.5) == pytest.approx(2 / 1024)
    assert binomial_two_sided(10, 10, 0.5) == pytest.approx(2 / 1024)
    # a skewed null: outcomes no more likely than the observed 1 are 0 and 5..10 under Binomial(10, 0.3)
    probs = [math.comb(10, i) * 0.3 ** i * 0.7 ** (10 - i) for i in range(11)]
    assert probs[0] < probs[1] and probs[5] < probs[1] < probs[4]
    assert binomial_two_sided(1, 10, 0.3) == pytest.approx(probs[0] + probs[1] + sum(probs[5:]))


def test_report_refuses_missing_results_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["--results", str(tmp_path / "empty"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "missing gat-released-k23.json" in err and "nothing was written" in err
    assert not out.exists()


@pytest.mark.skipif(not any(RESULTS.glob("*.json")), reason="no committed results")
def test_committed_results_regenerate_results_md(tmp_path):
    """RESULTS.md is exactly what the report writes from the committed JSONs (never hand-edited)."""
    path = write_report(RESULTS, tmp_path)
    assert path.read_text() == (REPO / "baselines" / "RESULTS.md").read_text()
    assert (tmp_path / "accuracy_vs_k.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.skipif(not any(RESULTS.glob("*.json")), reason="no committed results")
def test_a_broken_result_file_is_rejected(tmp_path):
    doc = read_json(RESULTS / "gat-released-k23.json")
    validate(doc)
    for breakage in (lambda d: d.pop("summary"), lambda d: d.update(runs=d["runs"] + 1),
                     lambda d: d["per_run"][0]["reports"].clear(), lambda d: d.update(schema="v0")):
        broken = read_json(RESULTS / "gat-released-k23.json")
        breakage(broken)
        with pytest.raises(SchemaError):
            validate(broken)
    shutil.copytree(RESULTS, tmp_path / "results")
    (tmp_path / "results" / "gat-ours-k23.json").write_text("{}")
    with pytest.raises(SchemaError):
        write_report(tmp_path / "results", tmp_path / "out")
    assert not (tmp_path / "out" / "RESULTS.md").exists()


def test_reproduce_names_the_released_data_it_needs(tmp_path, capsys):
    from clutrr.baselines.reproduce import main as reproduce

    code = reproduce(["--release", str(tmp_path / "nowhere"), "--results", str(tmp_path / "r"),
                      "--only", "gat-released-k23,bilstm-attn-released-robust"])
    assert code == 2
    err = capsys.readouterr().err
    assert "data_089907f8, data_7c5b0e70" in err and "github.com/uclnlp/ctp" in err and str(tmp_path / "nowhere") in err
    assert not (tmp_path / "r").exists()
