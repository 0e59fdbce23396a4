"""Two small models that write predictions files for ``clutrr eval``.

    python docs/examples/simple_models.py DATA --out predictions/


``memory`` remembers the answer of every relation pattern (the chain's relation words, in
order) seen in the training file and answers an unseen pattern with the most common
training answer: it does no reasoning, so it fails on longer chains. ``story-bag`` is
Naive Bayes over the words of the story. Each writes ``OUT/<model>.jsonl`` with one JSON
line per test story: ``{"id": ..., "split": ..., "prediction": ...}``.
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from clutrr.diagnostics.audit import story_tokens
from clutrr.diagnostics.naive_bayes import MultinomialNB
from clutrr.eval import load_eval_set, write_predictions


def memory(train: list[dict], test: list[dict]) -> list[str]:
    table = {x["metadata"]["pattern"]: x["answer"] for x in train}
    default = Counter(x["answer"] for x in train).most_common(1)[0][0]
    return [table.get(x["metadata"]["pattern"], default) for x in test]


def story_bag(train: list[dict], test: list[dict]) -> list[str]:
    model = MultinomialNB().fit([story_tokens(x["story"]) for x in train], [x["answer"] for x in train])
    return list(model.predict([story_tokens(x["story"]) for x in test]))


MODELS = {"memory": memory, "story-bag": story_bag}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", help="dataset folder with a training file and test files")
    p.add_argument("--out", default="predictions", help="folder for the files (predictions/)")
    args = p.parse_args()
    data = load_eval_set(args.data)
    test = data.items(answer=False)
    for name, model in MODELS.items():
        answers = model(data.train_items(), test)
        path = write_predictions(({"id": x["id"], "split": x["split"], "prediction": a} for x, a in zip(test, answers)),
                                 Path(args.out) / f"{name}.jsonl")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
