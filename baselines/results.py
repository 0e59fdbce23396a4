"""The results file of ``baselines.train``: its schema, run statistics and the accuracy-vs-k plot.

A results JSON (``SCHEMA`` = ``clutrr-baselines/results-v2``) holds::

    schema, model (registered name or import path), config (the config dataclass as a dict),
    data, train_file, train_rows, valid_rows, valid_share, seed, runs (count), threads,
    machine, torch, seconds, started,
    folders: [{name, data, source, tests: [{split, file, k, noise, rows}]}]
    per_run: [{seed, fit (what the model's fit returned), checkpoint, reports: {folder: report}}]
    summary: {folder: {split: {k, noise, n, mean, std, se, runs}}}

A report is ``clutrr.eval.Report.to_dict()`` of that run's predictions on that folder. ``std`` is
the sample standard deviation over runs and ``se`` the standard error of the mean (``std / sqrt
(runs)``); both are 0 for one run.
"""
from __future__ import annotations

import json
import math
import os
import platform
import statistics
from pathlib import Path
from typing import Any

from clutrr.errors import UsageError

SCHEMA = "clutrr-baselines/results-v2"
TOP_KEYS = {
    "schema": str, "model": str, "config": dict, "data": str, "train_file": str, "train_rows": int,
    "valid_rows": int, "seed": int, "runs": int, "threads": int, "machine": str, "seconds": float,
    "started": str, "folders": list, "per_run": list, "summary": dict,
}


class SchemaError(UsageError, ValueError):
    """A results document that does not follow the schema."""


def mean_se(values: list[float]) -> tuple[float, float, float]:
    """Mean, sample standard deviation and standard error of the mean (0 and 0 for one value)."""
    mean = statistics.fmean(values)
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return mean, std, std / math.sqrt(len(values))


def validate(doc: dict[str, Any]) -> None:
    """Raise SchemaError unless ``doc`` is a well-formed results document."""
    if not isinstance(doc, dict):
        raise SchemaError("results: expected an object")
    for key, kind in TOP_KEYS.items():
        if key not in doc:
            raise SchemaError(f"results: missing {key!r}")
        value = doc[key]
        ok = isinstance(value, (int, float)) if kind is float else isinstance(value, kind)
        if not ok or isinstance(value, bool):
            raise SchemaError(f"results: {key!r} should be {kind.__name__}")
    if doc["schema"] != SCHEMA:
        raise SchemaError(f"results: schema is {doc['schema']!r}, expected {SCHEMA!r}")
    if len(doc["per_run"]) != doc["runs"]:
        raise SchemaError("results: per_run has not one entry per run")
    names = [f["name"] for f in doc["folders"]]
    for i, run in enumerate(doc["per_run"]):
        if sorted(run.get("reports", {})) != sorted(names):
            raise SchemaError(f"per_run[{i}]: reports do not cover the folders {names}")
    if sorted(doc["summary"]) != sorted(names):
        raise SchemaError("summary: keys differ from the folders")


def summarize(folders: list[dict[str, Any]], per_run: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per folder and split: k, noise, stories, and mean, std and se of the accuracy over runs."""
    out: dict[str, dict[str, Any]] = {}
    for folder in folders:
        rows = {}
        for test in folder["tests"]:
            split = test["split"]
            accs = [run["reports"][folder["name"]]["by_split"][split]["accuracy"] or 0.0 for run in per_run]
            mean, std, se = mean_se(accs)
            rows[split] = {"k": test["k"], "noise": test["noise"], "n": test["rows"], "mean": mean, "std": std,
                           "se": se, "runs": len(accs)}
        out[folder["name"]] = rows
    return out


def by_k(doc: dict[str, Any], folder: str) -> dict[int, tuple[float, float, int]]:
    """Accuracy by k on ``folder`` (test files of one k pooled by stories): k -> (mean, se, stories)."""
    out = {}
    ks = sorted({int(k) for run in doc["per_run"] for k in run["reports"][folder]["by_k"]})
    for k in ks:
        tallies = [run["reports"][folder]["by_k"][str(k)] for run in doc["per_run"]]
        mean, _, se = mean_se([t["accuracy"] or 0.0 for t in tallies])
        out[k] = (mean, se, tallies[0]["n"])
    return out


def machine_description() -> str:
    """A one-line description of this machine and its torch build."""
    import torch

    cpu = platform.processor() or platform.machine()
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{platform.system()} {cpu}, {os.cpu_count()} cores, {gpu}, torch {torch.__version__}"


def write_json(doc: dict[str, Any], path: str | Path) -> Path:
    """Validate and write a results document (compact JSON, one line per top-level key)."""
    validate(doc)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"{json.dumps(key)}: {json.dumps(value, separators=(',', ':'))}" for key, value in doc.items()]
    path.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    return path


def read_json(path: str | Path) -> dict[str, Any]:
    """Read and validate a results document; SchemaError names the file when it is not one."""
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        validate(doc)
    except (ValueError, SchemaError) as exc:
        raise SchemaError(f"{path}: {exc}") from None
    return doc


def plot_by_k(curves: dict[str, dict[int, tuple[float, float, int]]], path: str | Path, title: str,
              reference: dict[str, dict[int, float]] | None = None) -> Path:
    """Accuracy against k, one line per label with the standard error over runs as error bars;
    ``reference`` curves (published accuracies by k) dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7.2, 4.2))
    for label, points in curves.items():
        ks = sorted(points)
        ax.errorbar(ks, [points[k][0] for k in ks], yerr=[points[k][1] for k in ks], marker="o", capsize=3,
                    label=label)
    for label, acc in (reference or {}).items():
        ks = sorted(acc)
        ax.plot(ks, [acc[k] for k in ks], linestyle="--", marker="x", alpha=0.8, label=label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (relations in the chain)")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0.0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title(title)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return path
