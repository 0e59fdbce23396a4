"""``clutrr eval`` end to end: prediction files, a Python callable, bad input, the Python API."""
from __future__ import annotations

import csv
import json
import random
import shutil

import pytest

from clutrr.cli import main
from clutrr.eval import Report, evaluate, load_eval_set, read_predictions, write_report
from clutrr.eval.metrics import wilson
from eval_models import CALLS
from helpers import run_generate


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A small folder: train k=2,3; tests k=2..4 clean and k=3 irrelevant; 44 stories per file."""
    out = tmp_path_factory.mktemp("eval") / "d"
    res = run_generate("--k", "2,3", "--test-k", "2..4", "--test-noise", "none,irrelevant", "--train-rows", "66",
                       "--test-rows", "44", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return out


def golds(data):
    return load_eval_set(data).golds


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def run_eval(capsys, *args):
    code = main(["eval", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_perfect_constant_and_shuffled_predictions(data, tmp_path, capsys):
    gs = golds(data)
    assert len(gs) == 6 * 44
    perfect = write_jsonl(tmp_path / "perfect.jsonl", [{"id": g.id, "prediction": g.row.target} for g in gs])
    constant = tmp_path / "constant.csv"
    with open(constant, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "prediction", "split"])
        w.writerows([g.id, "Aunt", g.split] for g in gs)
    targets = [g.row.target for g in gs]
    random.Random(0).shuffle(targets)
    shuffled = write_jsonl(tmp_path / "shuffled.jsonl", [{"id": g.id, "prediction": t} for g, t in zip(gs, targets)])
    code, out, err = run_eval(capsys, data, "--predictions", perfect, "--predictions", f"const={constant}",
                              "--predictions", shuffled, "--reference", "gat", "--out", tmp_path / "report")
    assert code == 0, err
    doc = json.loads((tmp_path / "report" / "report.json").read_text())
    by_name = {r["model"]: r for r in doc["reports"]}
    assert list(by_name) == ["perfect", "const", "shuffled"]
    assert by_name["perfect"]["overall"]["accuracy"] == 1.0
    assert all(t["accuracy"] == 1.0 for t in by_name["perfect"]["by_split"].values())
    share_aunt = sum(g.target == "aunt" for g in gs) / len(gs)
    assert by_name["const"]["overall"]["accuracy"] == pytest.approx(share_aunt) == pytest.approx(1 / 22)
    shuffled_acc = by_name["shuffled"]["overall"]
    assert shuffled_acc["ci"][0] <= 1 / 22 <= shuffled_acc["ci"][1] and shuffled_acc["accuracy"] < 0.12
    # the breakdowns of the report
    perfect_doc = by_name["perfect"]
    assert perfect_doc["by_split"]["3.3_test"] | {"k": 3, "noise": "irrelevant", "n": 44} == perfect_doc["by_split"]["3.3_test"]
    assert set(perfect_doc["by_k"]) == {"2", "3", "4"} and perfect_doc["by_k"]["3"]["n"] == 88
    assert set(perfect_doc["by_noise"]) == {"none", "irrelevant"}
    heldout = sum(bool(g.heldout) for g in gs)
    assert heldout > 0 and perfect_doc["by_pattern"]["heldout"]["n"] == heldout
    assert perfect_doc["by_pattern"]["seen"]["n"] == len(gs) - heldout
    assert len(perfect_doc["by_relation"]) == 22 and perfect_doc["confusion"]["aunt"] == {"aunt": 12}
    assert by_name["const"]["confusion"]["uncle"] == {"aunt": 12}
    assert doc["ci_method"].startswith("Wilson") and doc["references"][0]["name"] == "gat"
    # one table with a column per model, printed and written, and the plot
    assert "perfect" in out and "const" in out and "1.000 [0.986, 1.000]" in out
    md = (tmp_path / "report" / "report.md").read_text()
    assert "| k | stories | perfect | const | shuffled | GAT (published) |" in md
    assert "Minervini et al. 2020" in md and "![accuracy against k](accuracy_vs_k.png)" in md
    assert (tmp_path / "report" / "accuracy_vs_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_missing_ids_count_as_wrong_unless_strict(data, tmp_path, capsys):
    gs = golds(data)
    half = write_jsonl(tmp_path / "half.jsonl", [{"id": g.id, "prediction": g.row.target} for g in gs[::2]])
    code, out, err = run_eval(capsys, data, "--predictions", half)
    assert code == 0, err
    assert "132 (50.0%)" in out and "0.500 [" in out
    report = evaluate(data, half, name="half")
    assert report.missing == 132 and report.overall.correct == 132 and report.missing_ids[0] == gs[1].id
    code, out, err = run_eval(capsys, data, "--predictions", half, "--strict")
    assert code == 2 and err.count("\n") == 1 and "132 of 264 stories have no prediction" in err


@pytest.mark.parametrize("case, message", [
    ("unknown", "unknown id 'no-such-id'"),
    ("duplicate", "duplicate prediction for id"),
    ("empty", "holds no predictions"),
    ("not-json", "not a JSON object"),
    ("no-field", "needs 'id' and 'prediction'"),
    ("bad-split", "unknown id"),
    ("csv-header", "needs the header id,prediction"),
    ("absent", "no such predictions file"),
])
def test_bad_prediction_files_exit_2_with_one_line(data, tmp_path, capsys, case, message):
    gs = golds(data)
    good = [{"id": g.id, "prediction": "aunt"} for g in gs]
    path = tmp_path / f"{case}.jsonl"
    if case == "unknown":
        write_jsonl(path, good + [{"id": "no-such-id", "prediction": "aunt"}])
    elif case == "duplicate":
        write_jsonl(path, good + good[:1])
    elif case == "empty":
        path.write_text("\n")
    elif case == "not-json":
        path.write_text(json.dumps(good[0]) + "\n{oops\n")
    elif case == "no-field":
        write_jsonl(path, [{"id": gs[0].id}])
    elif case == "bad-split":
        write_jsonl(path, [{"id": gs[0].id, "prediction": "aunt", "split": "9.9_test"}])
    elif case == "csv-header":
        path = tmp_path / "bad.csv"
        path.write_text("story,answer\nx,aunt\n")
    code, out, err = run_eval(capsys, data, "--predictions", path, "--out", tmp_path / "never")
    assert code == 2
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "never").exists()


def test_bad_options_exit_2(data, tmp_path, capsys):
    for args, message in [((), "nothing to evaluate"),
                          (("--predictions", "x.jsonl", "--reference", "bogus"), "unknown reference 'bogus'"),
                          (("--endpoint", "http://127.0.0.1:9"), "go together"),
                          (("--model", "nocolon"), "MODULE:FUNCTION"),
                          (("--model", "no_such_module_xyz:f"), "cannot import"),
                          (("--predictions", "x.jsonl", "--split", "7.*"), "no split matches")]:
        code, _, err = run_eval(capsys, data, *args)
        assert code == 2 and message in err and err.count("\n") == 1, (args, err)


def test_unreachable_endpoint_is_one_line_exit_2(data, tmp_path, capsys):
    import socket

    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = run_eval(capsys, data, "--endpoint", f"http://127.0.0.1:{port}/v1", "--model-name", "m",
                              "--retries", "1", "--backoff", "0", "--cache", tmp_path / "cache.jsonl", "--limit", "2")
    assert code == 2 and err.count("\n") == 1
    assert "cannot get an answer" in err and "after 2 tries" in err and "0 answers cached" in err


def test_python_callable_in_batches(data, tmp_path, capsys):
    gs = golds(data)
    CALLS.clear()
    code, out, err = run_eval(capsys, data, "--model", "eval_models:first_fact", "--batch-size", "50",
                              "--model", "probs=eval_models:with_probabilities", "--out", tmp_path / "r")
    assert code == 0, err
    assert CALLS == [50] * 5 + [14]
    expected = sum(g.row.edge_types[0] == g.row.target for g in gs)
    doc = json.loads((tmp_path / "r" / "report.json").read_text())
    assert doc["reports"][0]["model"] == "first_fact"
    assert doc["reports"][0]["overall"]["correct"] == expected
    written = read_predictions(tmp_path / "r" / "predictions-first_fact.jsonl")
    assert [p.id for p in written] == [g.id for g in gs] and written[0].split == gs[0].split
    probs = read_predictions(tmp_path / "r" / "predictions-probs.jsonl")
    assert probs[0].probabilities == {"aunt": 0.6, "uncle": 0.4}
    code, _, err = run_eval(capsys, data, "--model", "eval_models:wrong_count")
    assert code == 2 and "returned 63 answers for a batch of 64 items" in err


def test_models_never_see_the_answer(data):
    data_set = load_eval_set(data)
    item = data_set.item(0, answer=False)
    assert "answer" not in item and data_set.item(0)["answer"] == data_set.golds[0].row.target


def test_prediction_folder_takes_split_from_file_names(data, tmp_path, capsys):
    gs = golds(data)
    folder = tmp_path / "preds"
    folder.mkdir()
    for split in {g.split for g in gs}:
        write_jsonl(folder / f"{split}.jsonl", [{"id": g.id, "prediction": g.row.target} for g in gs if g.split == split])
    assert {p.split for p in read_predictions(folder, [g.split for g in gs])} == {g.split for g in gs}
    code, out, err = run_eval(capsys, data, "--predictions", f"mine={folder}", "--split", "1.*_test", "--limit", "40")
    assert code == 0 and "mine   120      1.000" in out  # predictions outside the chosen stories are ignored
    code, out, err = run_eval(capsys, data, "--predictions", f"mine={folder}")
    assert code == 0 and "mine   264      1.000" in out


def test_python_api_and_report_round_trip(data, tmp_path):
    data_set = load_eval_set(data, splits=["1.4_test"])
    answers = {g.id: ("I think it is his aunt." if i % 2 else None) for i, g in enumerate(data_set.golds)}
    report = evaluate(data_set, answers, name="api")
    assert report.overall.n == 44 and report.unparsable == 22 and report.missing == 0
    assert report.overall.correct == sum(g.target == "aunt" for g in data_set.golds[1::2])
    again = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert again.to_dict() == report.to_dict()
    write_report([report], tmp_path / "out")
    assert {p.name for p in (tmp_path / "out").iterdir()} == {"report.md", "report.json", "items.jsonl",
                                                              "accuracy_vs_k.png", ".clutrr-output.json"}


def test_wilson_interval_known_values():
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) == (0.0, 1.0) and wilson(10, 10)[1] == 1.0


def test_released_folder_reads_k_and_noise_from_task_names(release, tmp_path, capsys):
    folder = tmp_path / "released"  # the test files only (a temporary copy: reading the training file is slow)
    folder.mkdir()
    for path in (release / "data_7c5b0e70").glob("*_test.csv"):
        shutil.copy(path, folder / path.name)
    data_set = load_eval_set(folder)
    assert data_set.source == "released" and all(g.heldout is None for g in data_set.golds)
    assert {g.split: (g.k, g.noise) for g in data_set.golds} == {
        "1.2_test": (2, "none"), "1.3_test": (3, "none"), "2.3_test": (3, "supporting"),
        "3.3_test": (3, "irrelevant"), "4.3_test": (3, "disconnected")}
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": g.id, "prediction": g.row.target, "split": g.split}
                                               for g in data_set.golds])
    code, out, err = run_eval(capsys, folder, "--predictions", preds, "--out", tmp_path / "r")
    assert code == 0, err
    doc = json.loads((tmp_path / "r" / "report.json").read_text())["reports"][0]
    assert doc["overall"]["accuracy"] == 1.0 and doc["by_pattern"] == {}
    assert "Not available" in (tmp_path / "r" / "report.md").read_text()


def test_the_training_file_is_read_only_when_needed(data, tmp_path):
    folder = tmp_path / "d"
    shutil.copytree(data, folder)
    train = next(folder.glob("*_train.csv"))
    ids = [r["id"] for r in csv.DictReader(train.open(encoding="utf-8"))]
    train.write_text("not,a,clutrr,file\n1,2,3,4\n", encoding="utf-8")  # broken: any read of it fails
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": g.id, "prediction": g.target} for g in golds(data)])
    assert evaluate(folder, preds).overall.accuracy == 1.0
    stray = write_jsonl(tmp_path / "s.jsonl", [{"id": ids[0], "prediction": "aunt"}])
    with pytest.raises(Exception, match="not a CLUTRR CSV"):
        evaluate(folder, stray)  # an id outside the test files: the training file is read to tell
    assert evaluate(data, stray).missing == len(golds(data))  # with a sound training file: ignored


def test_samples_in_a_predictions_file_give_pass_at_k(data, tmp_path):
    gs = golds(data)
    records = [{"id": g.id, "sample": s, "prediction": g.target if s == 1 else "nobody"} for g in gs for s in range(2)]
    report = evaluate(data, write_jsonl(tmp_path / "p.jsonl", records))
    assert report.samples == 2 and report.overall.correct == 0  # the tables score sample 0
    overall = report.to_dict()["sampling"]["overall"]["all"]
    assert overall["pass@1"]["value"] == 0.5 and overall["pass@2"]["value"] == 1.0
    assert overall["majority"]["accuracy"] == 1.0  # "nobody" is parsed as no relation word: no vote
    assert len(report.items) == 2 * len(gs) and {x["sample"] for x in report.items} == {0, 1}
    dup = write_jsonl(tmp_path / "d.jsonl", records + records[:1])
    with pytest.raises(Exception, match="duplicate prediction for id"):
        evaluate(data, dup)


def test_without_matplotlib_the_report_is_written_without_the_plot(data, tmp_path, monkeypatch, capsys):
    import clutrr.commands.eval as command
    import clutrr.eval.writer as writer

    monkeypatch.setattr(writer, "has_matplotlib", lambda: False)
    monkeypatch.setattr(command, "has_matplotlib", lambda: False)
    preds = write_jsonl(tmp_path / "p.jsonl", [{"id": g.id, "prediction": g.target} for g in golds(data)])
    code, out, err = run_eval(capsys, data, "--predictions", preds, "--out", tmp_path / "r")
    assert code == 0 and "accuracy_vs_k.png not drawn: matplotlib is not installed" in err
    assert {p.name for p in (tmp_path / "r").iterdir()} == {"report.md", "report.json", "items.jsonl",
                                                            ".clutrr-output.json"}
    assert "accuracy_vs_k.png" not in (tmp_path / "r" / "report.md").read_text()


def test_the_report_reads_replies_with_the_query_names_as_the_reward_does(data):
    """A reply stating the query's relation backwards is no answer; one stating the answer and
    then relations of other pairs is read for the query's pair; the report and the reward agree."""
    from clutrr.rl.reward import score_answer

    data_set = load_eval_set(data, splits=["1.3_test"])
    gs = data_set.golds[:10]
    answers = {}
    for i, g in enumerate(gs):
        head, tail = (n.strip("[]") for n in g.row.query)
        other = "sister" if g.target != "sister" else "brother"
        if i % 2:  # the query pair backwards: about head, not tail
            answers[g.id] = f"{head} is {tail}'s {g.target}."
        else:  # the answer, then another pair's relation
            answers[g.id] = f"{tail} is {head}'s {g.target}, because of the story. Zed is Quin's {other}."
    report = evaluate(data_set, answers, name="names", strict=False)
    by_id = {r["id"]: r for r in report.items}
    for i, g in enumerate(gs):
        record = by_id[g.id]
        assert record["correct"] == (i % 2 == 0), answers[g.id]
        entry = {"answer": g.target, "query": list(g.row.query)}
        assert score_answer(answers[g.id], entry) == float(record["correct"])
