"""Per-item predictions of the audit's baselines, and Tsuchiya's easy and hard subsets.

Tsuchiya (2018) split an NLI test set by whether a biased model (one that sees only part of
the input) gets an item right: the *easy* items it gets right, the *hard* ones it gets
wrong, so a model's score on the hard subset shows what it does beyond the bias. Here the
biased model is the audit's query-only model on CLUTRR folders and its hypothesis-only
model on recast folders.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from clutrr.diagnostics.audit import Predictions
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
