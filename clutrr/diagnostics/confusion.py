"""Per-class accuracy and confusion matrices of the audit's models (Tsuchiya, 2018, Fig. 2;
Poliak's dissertation, Table 5.3): which gold labels a partial-input model gets right, and
what it answers instead."""
from __future__ import annotations

from collections import Counter
from typing import Sequence


def confusion(gold: Sequence[str], pred: Sequence[str], labels: Sequence[str] | None = None) -> dict:
    """The confusion matrix: ``matrix[i][j]`` counts the items of gold label ``labels[i]``
    predicted as ``labels[j]``. ``labels`` defaults to every label seen, gold or predicted, sorted."""
    pairs = Counter(zip(gold, pred, strict=True))
    labels = sorted(set(gold) | set(pred)) if labels is None else list(labels)
    return {"labels": labels, "matrix": [[pairs[(g, p)] for p in labels] for g in labels]}


def per_class_accuracy(gold: Sequence[str], pred: Sequence[str]) -> dict[str, dict]:
    """For each gold label: its items and the share of them predicted right (the class's recall)."""
    n, right = Counter(gold), Counter(g for g, p in zip(gold, pred, strict=True) if g == p)
    return {lab: {"n": n[lab], "accuracy": right[lab] / n[lab]} for lab in sorted(n)}


def model_classes(gold: Sequence[str], by_model: dict[str, Sequence[str]]) -> dict[str, dict]:
    """Per-class accuracy and the confusion matrix of every model, on one split's items."""
    return {name: {"per_class": per_class_accuracy(gold, pred), "confusion": confusion(gold, pred)}
            for name, pred in by_model.items()}


def per_class_lines(split: str, classes: dict[str, dict], columns: dict[str, str]) -> list[str]:
    """A markdown table of one split: one row per gold label, a column per model (accuracy in %)."""
    models = list(classes)
    labels = list(next(iter(classes.values()))["per_class"]) if classes else []
    out = [f"**{split}**", "", "| gold label | n | " + " | ".join(columns.get(m, m) for m in models) + " |",
           "|---|---|" + "---|" * len(models)]
    for lab in labels:
        cells = [f"{100 * classes[m]['per_class'][lab]['accuracy']:.1f}" for m in models]
        out.append(f"| {lab} | {classes[models[0]]['per_class'][lab]['n']} | " + " | ".join(cells) + " |")
    return out + [""]
