"""Per-item predictions of the audit's baselines, and Tsuchiya's easy and hard subsets.

Tsuchiya (2018) split an NLI test set by whether a biased model (one that sees only part of
the input) gets an item right: the *easy* items it gets right, the *hard* ones it gets
wrong, and reported how models score on each: a model's score on the hard subset shows what
it does beyond the bias. Here the biased model is the audit's query-only model on CLUTRR
folders, and a hypothesis-only model on recast folders (the encoder when it ran, else the
Naive Bayes).

A split is only split when the biased model can tell its items apart. A model without a
preference on any item of a split (all its labels tie on every item: the hypothesis-only
Naive Bayes on exactly balanced hypotheses) "predicts" its tie-break label everywhere, so its
easy/hard split would be a split by gold label, as would that of a model giving every item
one label; :func:`indistinct` finds such splits so the command can refuse them.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from clutrr.diagnostics.models import Predictions
from clutrr.io.csv_format import CsvWriter

EASY, HARD = "easy", "hard"


def prediction_records(split: str, items: Sequence[Any], preds: Predictions,
                       describe: Callable[[int, Any], dict]) -> Iterator[dict]:
    """One JSON-ready record per item: who it is (``describe(index, item)``, with its gold
    label) and every baseline's prediction."""
    for i, item in enumerate(items):
        yield {"split": split, **describe(i, item), **{m: p[i] for m, p in preds.by_model.items()},
               "evaluation": preds.evaluation}


def partition(items: Sequence[Any], biased: Sequence[str], gold: Sequence[str]) -> dict[str, list[Any]]:
    """The items the biased model gets right (easy) and wrong (hard), in their order."""
    out: dict[str, list[Any]] = {EASY: [], HARD: []}
    for item, p, g in zip(items, biased, gold):
        out[EASY if p == g else HARD].append(item)
    return out


def indistinct(predictions: dict[str, Predictions], biased: str) -> list[str]:
    """The splits whose items the biased model cannot tell apart: it ties on every item, or
    gives every item the same label (either way, easy and hard would be the gold labels)."""
    return [name for name, p in predictions.items()
            if len(set(p.by_model[biased])) < 2 or (p.tied.get(biased) and all(p.tied[biased]))]


def weak_splits(report_splits: Sequence[dict], biased: str) -> list[str]:
    """The splits where the biased model does not beat the majority baseline significantly
    (its sign test over the whole split): Tsuchiya's easy/hard split is meaningful only where
    the partial-input model is significantly better than the majority, so these are refused."""
    return [sp["split"] for sp in report_splits if not sp["groups"][0][biased]["vs_majority"]["better"]]


def halves(preds: Predictions, biased: str, gold: Sequence[str]) -> dict:
    """Sizes of the easy and hard halves, the biased model's ties, and every other model's
    accuracy on each half (None on an empty half)."""
    right = [p == g for p, g in zip(preds.by_model[biased], gold)]
    out: dict[str, Any] = {EASY: sum(right), HARD: len(right) - sum(right),
                           "tied": sum(preds.tied.get(biased, [])), "accuracy": {}}
    for name, p in preds.by_model.items():
        if name in (biased, "majority"):
            continue
        acc = {}
        for half, want in ((EASY, True), (HARD, False)):
            idx = [i for i, r in enumerate(right) if r == want]
            acc[half] = sum(p[i] == gold[i] for i in idx) / len(idx) if idx else None
        out["accuracy"][name] = acc
    return out


def render_halves(splits: dict[str, dict], biased: str, columns: dict[str, str]) -> list[str]:
    """The markdown section of the easy and hard subsets."""
    names = list(dict.fromkeys(m for h in splits.values() for m in h["accuracy"]))
    out = ["", "## Easy and hard subsets", "",
           f"Items the biased model ({columns.get(biased, biased)}) gets right (easy) and wrong (hard), and every "
           "other model's accuracy (%) on each half.", "",
           "| split | easy | hard | " + " | ".join(f"{columns.get(m, m)} easy | {columns.get(m, m)} hard"
                                                   for m in names) + " |",
           "|---|---|---|" + "---|---|" * len(names)]
    for split, h in splits.items():
        cells = []
        for m in names:
            acc = h["accuracy"].get(m, {})
            cells += ["–" if acc.get(half) is None else f"{100 * acc[half]:.1f}" for half in (EASY, HARD)]
        out.append(f"| {split} | {h[EASY]} | {h[HARD]} | " + " | ".join(cells) + " |")
    return out


def write_csv_rows(path: Path, rows: Sequence[Any]) -> None:
    """Rows of a CLUTRR split as a CLUTRR CSV file."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = CsvWriter(fh)
        for row in rows:
            writer.write(row)


def write_jsonl(path: Path, records: Sequence[dict]) -> None:
    """Records as JSON lines."""
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
