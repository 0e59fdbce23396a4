"""The composer answers every question form from its derived relations (baselines/composer_forms.py),
and ``clutrr eval`` scores those answers per form."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest

from clutrr.baselines.composer import Composer, ComposerConfig, story_paths
from clutrr.baselines.composer_forms import form_predictions, form_reply
from clutrr.baselines.data import LabelVocab, story_from_row
from clutrr.eval.forms import load_form_golds
from clutrr.io.datadir import load_splits
from clutrr.story.generator import GeneratorConfig, make_example
from helpers import REPO, generated_folder

LABELS = LabelVocab.from_kb()


@pytest.fixture(scope="module")
def model():
    config = GeneratorConfig(templates="synthetic")
    train = [story_from_row(make_example(config, k, "none", 5, i, "train").row, LABELS)
             for k in (2, 3) for i in range(400)]
    composer = Composer(ComposerConfig(), LABELS)
    composer.fit(train[:720], train[720:], seed=0, progress=False)
    return composer


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return generated_folder(tmp_path_factory, "composer-forms", "--question", "mixed", "--k", "2", "--test-k", "2,3",
                            "--train-rows", "5", "--test-rows", "25")


def _expected_reply(model, story, rec):
    """The reply the composer's own relation answers (predict_proba on each pair) give, by the rules of the module."""
    x = rec["query"][0]
    words = {}
    for b in range(len(story.people)):
        pair = replace(story, query=(x, b))
        if b != x and story_paths(pair, LABELS.unknown_relation, model.config.max_paths, model.config.max_path_length):
            probs = model.predict_proba([pair])[0]
            words[b] = (LABELS.words[int(probs.argmax())], float(probs.max()))
    if rec["form"] == "relation":
        return words.get(rec["query"][1], ("unknown",))[0]
    if rec["form"] == "yesno":
        return "yes" if words.get(rec["query"][1], ("",))[0] == rec["target"] else "no"
    held = [b for b, (w, _) in words.items() if w == rec["target"]]
    if rec["form"] == "count":
        return str(len(held))
    if rec["form"] == "person":
        return story.people[max(held, key=lambda b: (words[b][1], -b))] if held else "nobody"
    return ", ".join(story.people[b] for b in sorted(held)) or "none"


def test_composer_form_answers_are_its_derived_relations(model, folder, tmp_path):
    records = {}
    for path in folder.glob("*_test.jsonl"):
        records.update({r["id"]: r for r in map(json.loads, path.read_text().splitlines())})
    forms = set()
    for split in load_splits(folder):
        for row in split.rows:
            if row.id in records:
                story, rec = story_from_row(row, LABELS), records[row.id]
                assert form_reply(model, story, rec) == _expected_reply(model, story, rec), rec["form"]
                forms.add(rec["form"])
    assert forms == {"relation", "person", "people", "count", "yesno"}
    predictions = tmp_path / "composer.jsonl"
    predictions.write_text("".join(json.dumps(p) + "\n" for p in form_predictions(model, folder)))
    res = subprocess.run([sys.executable, "-m", "clutrr.cli", "eval", str(folder), "--predictions",
                          f"composer={predictions}", "--out", str(tmp_path / "report")], capture_output=True,
                         text=True, cwd=REPO)
    assert res.returncode == 0, res.stderr
    report = json.loads((tmp_path / "report" / "report.json").read_text())["models"]["composer"]
    assert set(report["by_form"]) == forms
    assert sum(r["n"] for r in report["by_form"].values()) == len(load_form_golds(folder)) == 50
    assert report["by_form"]["relation"]["exact"] == 1.0  # clean chains of 2 and 3 facts: the rules it learned
