"""The results file: its schema, per-test summaries, the printed table and the accuracy-vs-k plot.

A results JSON (``SCHEMA`` = ``clutrr-baselines/results-v1``) holds::

    schema, model, config, data, train_file, train_rows, epochs, seed, runs (count),
    device, threads, seconds, started,
    tests:   [{file, task, noise, noise_name, k, rows}]
    per_run: [{seed, train_seconds, final_loss, train_accuracy, accuracy: {file: float}}]
    summary: {file: {task, noise, k, mean, std, runs}}

``std`` is the population standard deviation over runs (0 for one run).
"""
from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

SCHEMA = "clutrr-baselines/results-v1"
TOP_KEYS = {
    "schema": str, "model": str, "config": dict, "data": str, "train_file": str, "train_rows": int,
    "epochs": int, "seed": int, "runs": int, "device": str, "threads": int, "seconds": float,
    "started": str, "tests": list, "per_run": list, "summary": dict,
}
TEST_KEYS = {"file": str, "task": str, "noise": int, "noise_name": str, "k": int, "rows": int}
RUN_KEYS = {"seed": int, "train_seconds": float, "final_loss": float, "train_accuracy": float, "accuracy": dict}
SUMMARY_KEYS = {"task": str, "noise": int, "k": int, "mean": float, "std": float, "runs": int}


class SchemaError(ValueError):
    """A results document that does not follow the schema."""


def _check(obj: Any, keys: dict[str, type], where: str) -> None:
    if not isinstance(obj, dict):
        raise SchemaError(f"{where}: expected an object")
    for key, kind in keys.items():
        if key not in obj:
            raise SchemaError(f"{where}: missing {key!r}")
        value = obj[key]
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) if kind is float else isinstance(value, kind)
        if not ok or (kind is int and isinstance(value, bool)):
            raise SchemaError(f"{where}: {key!r} should be {kind.__name__}")


def validate(doc: dict[str, Any]) -> None:
    """Raise SchemaError unless ``doc`` is a well-formed results document."""
    _check(doc, TOP_KEYS, "results")
    if doc["schema"] != SCHEMA:
        raise SchemaError(f"results: schema is {doc['schema']!r}, expected {SCHEMA!r}")
    files = []
    for i, test in enumerate(doc["tests"]):
        _check(test, TEST_KEYS, f"tests[{i}]")
        files.append(test["file"])
    if len(doc["per_run"]) != doc["runs"]:
        raise SchemaError("results: per_run has not one entry per run")
    for i, run in enumerate(doc["per_run"]):
        _check(run, RUN_KEYS, f"per_run[{i}]")
        if sorted(run["accuracy"]) != sorted(files):
            raise SchemaError(f"per_run[{i}]: accuracy keys differ from the test files")
        for file, acc in run["accuracy"].items():
            if not 0.0 <= acc <= 1.0:
                raise SchemaError(f"per_run[{i}]: accuracy of {file} is outside [0, 1]")
    if sorted(doc["summary"]) != sorted(files):
        raise SchemaError("summary: keys differ from the test files")
    for file, entry in doc["summary"].items():
        _check(entry, SUMMARY_KEYS, f"summary[{file}]")


def summarize(tests: list[dict[str, Any]], per_run: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Mean and std of each test file's accuracy over runs."""
    out = {}
    for test in tests:
        accs = [run["accuracy"][test["file"]] for run in per_run]
        out[test["file"]] = {
            "task": test["task"], "noise": test["noise"], "k": test["k"],
            "mean": statistics.fmean(accs), "std": statistics.pstdev(accs), "runs": len(accs),
        }
    return out


def format_table(doc: dict[str, Any]) -> str:
    """A plain-text per-test table: task, noise, k, rows, mean ± std."""
    lines = [f"{doc['model']} on {doc['data']} ({doc['runs']} run(s), {doc['epochs']} epochs)",
             f"{'task':<6} {'noise':<13} {'k':>3} {'rows':>5}  accuracy"]
    for test in doc["tests"]:
        s = doc["summary"][test["file"]]
        lines.append(f"{test['task']:<6} {test['noise_name']:<13} {test['k']:>3} {test['rows']:>5}  "
                     f"{s['mean']:.3f} ± {s['std']:.3f}")
    return "\n".join(lines)


def write_json(doc: dict[str, Any], path: str | Path) -> Path:
    """Validate and write a results document."""
    validate(doc)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return path


def read_json(path: str | Path) -> dict[str, Any]:
    """Read and validate a results document."""
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    validate(doc)
    return doc


def plot_accuracy(docs: list[dict[str, Any]], path: str | Path, title: str | None = None,
                  reference: dict[str, dict[int, float]] | None = None) -> Path:
    """Accuracy against k, one line per (model, noise family), error bars = std over runs.

    ``reference`` maps a label to published accuracies by k, drawn dashed.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for doc in docs:
        families = sorted({t["noise"] for t in doc["tests"]})
        for noise in families:
            points = sorted((s["k"], s["mean"], s["std"]) for s in doc["summary"].values() if s["noise"] == noise)
            ks, means, stds = zip(*points)
            label = doc["model"] if len(families) == 1 else f"{doc['model']} ({_noise_name(doc, noise)})"
            ax.errorbar(ks, means, yerr=stds, marker="o", capsize=3, label=label)
    for label, by_k in (reference or {}).items():
        ks = sorted(by_k)
        ax.plot(ks, [by_k[k] for k in ks], linestyle="--", marker="x", label=label)
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (relations in the chain)")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0.0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title or ", ".join(sorted({Path(d["data"]).name for d in docs})))
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _noise_name(doc: dict[str, Any], noise: int) -> str:
    return next(t["noise_name"] for t in doc["tests"] if t["noise"] == noise)
