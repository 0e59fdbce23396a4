"""``clutrr eval`` on a folder of question forms against the real test chat server on 127.0.0.1
(tests/chat_server.py: right, partial-set, wrong and unparsable replies), and the reading of
names, lists of names, numbers and yes/no under the answer protocol."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from chat_server import form_policy, policy
from clutrr.eval.forms import load_form_golds, score
from clutrr.llm.form_answers import read_form_answer
from helpers import REPO, generated_folder
from test_eval_endpoint import MODEL, Server

NAMES = ["Anna", "Ben", "Carl", "Dora", "Mary-Jo"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    return generated_folder(tmp_path_factory, "forms-eval", "--question", "mixed", "--k", "2", "--test-k", "2,3",
                            "--train-rows", "10", "--test-rows", "60", "--noise", "all")


def expected(data) -> dict[str, dict]:
    """Per form: questions, exact matches, summed set F1 and unparsed replies, from the server's policies."""
    out: dict[str, dict] = {}
    for g in load_form_golds(data):
        if g.form == "relation":
            kind = policy(g.id, g.answer, *g.asked)[0]
        else:
            kind = form_policy(g.id, g.form, g.answer, g.names)[0]
        row = out.setdefault(g.form, {"n": 0, "exact": 0, "f1": 0.0, "unparsed": 0, "partial": 0, "wrong": 0})
        row["n"] += 1
        row["exact"] += kind == "right"
        row["f1"] += 1.0 if kind == "right" else 2 * (len(g.answer) - 1) / (2 * len(g.answer) - 1) \
            if kind == "partial" else 0.0
        row["unparsed"] += kind == "unparsable"
        row["partial"] += kind == "partial"
        row["wrong"] += kind == "wrong"
    return out


def _eval(data, url, tmp_path, name, *extra):
    return subprocess.run([sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", url, "--model-name",
                           MODEL, "--cache", str(tmp_path / f"{name}.jsonl"), "--retries", "1", "--timeout", "10",
                           "--out", str(tmp_path / name), *extra], capture_output=True, text=True, cwd=REPO)


def test_eval_scores_each_form_against_the_chat_server(data, tmp_path):
    want = expected(data)
    assert set(want) == {"relation", "person", "people", "count", "yesno"}
    assert want["people"]["partial"] > 0 and all(w["exact"] < w["n"] for w in want.values())
    assert all(w["wrong"] > 0 and w["exact"] > 0 for w in want.values())  # right and wrong replies in every form
    server = Server(data, tmp_path, "forms", "--sampling")
    try:
        res = _eval(data, server.url, tmp_path, "first")
        assert res.returncode == 0, res.stderr
        report = json.loads((tmp_path / "first" / "report.json").read_text())["models"][MODEL]
        for form, w in want.items():
            got = report["by_form"][form]
            assert got["n"] == w["n"] and got["unparsed"] == w["unparsed"], form
            assert got["exact"] == pytest.approx(w["exact"] / w["n"]), form
            assert got["set_f1"] == pytest.approx(w["f1"] / w["n"]), form
        assert report["by_form"]["people"]["set_f1"] > report["by_form"]["people"]["exact"]  # partial sets score F1
        line = next(s.split() for s in res.stdout.splitlines() if s.startswith("  people "))
        assert line[1] == str(want["people"]["n"]) and line[2] == f"{want['people']['exact'] / want['people']['n']:.1%}"
        items = [json.loads(line) for line in (tmp_path / "first" / "items.jsonl").read_text().splitlines()]
        assert len(items) == sum(w["n"] for w in want.values())
        # two samples at a temperature: the server's second reply is always right, so pass@2 is 1
        res = _eval(data, server.url, tmp_path, "sampled", "--samples", "2", "--temperature", "0.7")
        assert res.returncode == 0, res.stderr
        report = json.loads((tmp_path / "sampled" / "report.json").read_text())["models"][MODEL]
        assert report["samples"] == 2
        for form, w in want.items():
            got = report["by_form"][form]
            assert got["pass@2"] == pytest.approx(1.0), form
            assert got["pass@1"] == pytest.approx((w["exact"] + w["n"]) / (2 * w["n"])), form
    finally:
        server.kill()


def test_form_folders_refuse_options_of_relation_questions(data, tmp_path):
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "eval", str(data), "--endpoint", "http://127.0.0.1:9/v1",
                          "--model-name", MODEL, "--shots", "2"], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "go with relation questions" in res.stderr


@pytest.mark.parametrize("reply, form, answer", [
    ("<think>Maybe Carl.</think>It is <answer>Ben</answer>", "person", "Ben"),
    ("<think>Maybe Carl, it could be", "person", None),  # an open reasoning block: no answer
    ("Ben is Anna's brother, and Anna's aunt is Dora.\nAnswer: Dora", "person", "Dora"),
    ("<answer>Ben and Carl</answer>", "person", None),
    ("<answer>Anna's sister is Dora</answer>", "person", "Dora"),  # the name asked about does not count
    ("<answer>mary-jo</answer>", "person", "Mary-Jo"),
    ("<answer>Dora, Ben</answer>", "people", ["Dora", "Ben"]),
    ("The answer is: nobody.", "people", []),
    ("\\boxed{\\text{three}}", "count", 3),
    ("Anna has 2 granddaughters here.", "count", 2),
    ('{"answer": "No"}', "yesno", "no"),
    ("<answer>Yes</answer> no doubt", "yesno", "yes"),
    ("I cannot tell.", "yesno", None),
])
def test_replies_are_read_under_the_answer_protocol(reply, form, answer):
    assert read_form_answer(reply, form, NAMES, ["Anna"]) == answer


def test_set_scores():
    assert score("people", ["Ben", "Carl"], ["Carl", "Ben"]) == (True, 1.0)
    assert score("people", ["Ben", "Carl"], ["Ben"]) == (False, pytest.approx(2 / 3))
    assert score("people", ["Ben"], None) == (False, 0.0)
    assert score("count", 0, 0) == (True, 1.0)


def test_a_form_folder_without_jsonl_is_refused_in_one_line(tmp_path):
    from helpers import run_generate

    res = run_generate("--question", "count", "--k", "none", "--test-k", "2", "--test-rows", "5", "--format", "csv",
                       "--out", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "eval", str(tmp_path / "d"), "--predictions",
                          str(tmp_path / "none.jsonl")], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "JSONL twins" in res.stderr
