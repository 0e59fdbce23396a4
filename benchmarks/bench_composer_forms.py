"""The composer on every question form: per-form exact match and set F1 (docs/questions.md).

    python benchmarks/bench_composer_forms.py [--train-rows 600] [--test-rows 200] [--test-k 2,3,4,6]

Trains the composer on clean k=2,3 stories (synthetic templates, seed 5; 10% held out for
selection), generates a ``--question mixed`` test folder (seed 0) into a temporary folder, answers
every question from the composer's derived relations (``clutrr.baselines.composer_forms``) and
prints ``clutrr eval``'s per-form tables. EM is deterministic: the figures do not depend on the
machine.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from clutrr.baselines.composer import Composer, ComposerConfig
from clutrr.baselines.composer_forms import form_predictions
from clutrr.baselines.data import LabelVocab, story_from_row
from clutrr.cli import main as clutrr
from clutrr.story.generator import GeneratorConfig, make_example


def run(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train-rows", type=int, default=600, help="training stories per k (2 and 3)")
    p.add_argument("--test-rows", type=int, default=200, help="test questions per k (a fifth of each form)")
    p.add_argument("--test-k", default="2,3,4,6", help="test chain lengths")
    args = p.parse_args(argv)
    labels = LabelVocab.from_kb()
    config = GeneratorConfig(templates="synthetic")
    train = [story_from_row(make_example(config, k, "none", 5, i, "train").row, labels)
             for k in (2, 3) for i in range(args.train_rows)]
    cut = len(train) * 9 // 10
    model = Composer(ComposerConfig(), labels)
    model.fit(train[:cut], train[cut:], seed=0, progress=False)
    with tempfile.TemporaryDirectory() as tmp:
        folder, predictions = Path(tmp) / "data", Path(tmp) / "composer.jsonl"
        clutrr(["generate", "--question", "mixed", "--k", "2", "--test-k", args.test_k, "--train-rows", "5",
                "--test-rows", str(args.test_rows), "--quiet", "--out", str(folder)])
        predictions.write_text("".join(json.dumps(r) + "\n" for r in form_predictions(model, folder)))
        return clutrr(["eval", str(folder), "--predictions", f"composer={predictions}"])


if __name__ == "__main__":
    sys.exit(run())
