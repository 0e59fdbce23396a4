"""The paper's robustness and systematic-generalisation experiments as one call (``clutrr robustness``).

*Noise* (Sinha et al. 2019, Table 2; the thesis's robustness tables): a model is trained on each of
four training settings, stories of k=2,3 with no noise (clean), supporting, irrelevant or
disconnected noise facts, and tested on k=3 stories of all four kinds. Each cell of the 4 × 4
matrix is the mean test accuracy over runs ± its standard error (sample std / sqrt(runs)).

*Systematic*: trained on clean k=2,3 (or 2,3,4) stories, tested on clean k=2..10; the curve is
the mean accuracy per k ± its standard error.

The settings are generated with this project's generator into ``DATA/<setting>/`` (or read from
there when present). Answers come from a model trained here (a registered name or a
``package.module:Class``), from a function ``package.module:function`` that is only queried (one
row: it is not trained here), or from prediction files per setting.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from clutrr.baselines.results import mean_se
from clutrr.errors import UsageError
from clutrr.eval import evaluate, load_eval_set
from clutrr.eval.report import md_table
from clutrr.pipeline.run import write_unless_present
from clutrr.pipeline.spec import DatasetSpec
from clutrr.story.generator import GeneratorConfig

NOISE_SETTINGS = {"clean": "none", "supporting": "supporting", "irrelevant": "irrelevant",
                  "disconnected": "disconnected"}
COLUMN = {noise: name for name, noise in NOISE_SETTINGS.items()}
SCHEMA = "clutrr-robustness/v1"


@dataclass
class Plan:
    """What to generate: the experiment, chain lengths, rows per k, seed and generator options."""

    experiment: str = "noise"  # or systematic
    train_k: tuple[int, ...] = (2, 3)
    test_k: tuple[int, ...] = (3,)
    train_rows: int = 5000
    test_rows: int = 1000
    seed: int = 0
    noise_facts: int = 2
    templates: str = "paraphrase"

    def settings(self) -> dict[str, list[str]]:
        """Training setting name -> the `clutrr generate` arguments of its folder (as the results document them)."""
        common = ["--k", ",".join(map(str, self.train_k)), "--test-k", ",".join(map(str, self.test_k)),
                  "--train-rows", str(self.train_rows), "--test-rows", str(self.test_rows), "--seed", str(self.seed),
                  "--noise-facts", str(self.noise_facts), "--templates", self.templates]
        if self.experiment == "systematic":
            return {"k=" + ",".join(map(str, self.train_k)): [*common, "--noise", "none"]}
        tests = ",".join(NOISE_SETTINGS.values())
        return {name: [*common, "--noise", noise, "--test-noise", tests] for name, noise in NOISE_SETTINGS.items()}

    def specs(self) -> dict[str, DatasetSpec]:
        """Training setting name -> the dataset of its folder (what :meth:`settings` asks `clutrr generate` for)."""
        config = GeneratorConfig(noise_facts=self.noise_facts, templates=self.templates)
        common = dict(train_k=self.train_k, test_k=self.test_k, train_rows=self.train_rows, test_rows=self.test_rows,
                      seed=self.seed, config=config)
        if self.experiment == "systematic":
            return {"k=" + ",".join(map(str, self.train_k)): DatasetSpec(**common)}
        tests = tuple(NOISE_SETTINGS.values())
        return {name: DatasetSpec(**common, noise=noise, test_noise=tests) for name, noise in NOISE_SETTINGS.items()}


def prepare_data(plan: Plan, root: Path, progress: bool = False) -> dict[str, Path]:
    """The folder of every training setting under ``root``: read when it holds a dataset,
    generated there otherwise."""
    return {name: write_unless_present(spec, root / name.replace("=", "").replace(",", ""), progress)
            for name, spec in plan.specs().items()}


def columns_of(report: dict[str, Any], experiment: str) -> dict[str, tuple[float, int]]:
    """A report's cells: test noise (clean, supporting, ...) or k -> (accuracy, stories)."""
    groups = report["by_noise"] if experiment == "noise" else report["by_k"]
    out = {}
    for key, tally in groups.items():
        out[COLUMN.get(key, key) if experiment == "noise" else str(key)] = (tally["accuracy"] or 0.0, tally["n"])
    return out


def train_rows(spec: str, folders: dict[str, Path], plan: Plan, runs: int, seed: int, *, config: str | None,
               overrides: dict[str, Any], valid_share: float, threads: int, progress: bool,
               echo: Callable[[str], None]) -> dict[str, list[dict[str, tuple[float, int]]]]:
    """Train ``spec`` ``runs`` times on each setting; per setting, the cells of each run."""
    from clutrr.baselines.train import train_and_evaluate

    out = {}
    for name, folder in folders.items():
        start = time.process_time()
        doc = train_and_evaluate(spec, folder, config=config, overrides=overrides, seed=seed, runs=runs,
                                 valid_share=valid_share, threads=threads, progress=progress)
        folder_name = doc["folders"][0]["name"]
        out[name] = [columns_of(run["reports"][folder_name], plan.experiment) for run in doc["per_run"]]
        echo(f"trained {doc['model']} on {name}: {runs} run(s), {time.process_time() - start:.0f} CPU s")
    return out


def query_rows(fn: Callable, name: str, folders: dict[str, Path], plan: Plan, batch_size: int,
               progress: bool) -> dict[str, list[dict[str, tuple[float, int]]]]:
    """Ask a function (not trained here) the test stories of the first setting: one row."""
    from clutrr.eval.models import predict_with_callable

    data = load_eval_set(next(iter(folders.values())))
    records = predict_with_callable(fn, data, batch_size, name, progress)
    report = evaluate(data, records, name=name, strict=True).to_dict()
    return {"(not trained here)": [columns_of(report, plan.experiment)]}


def prediction_rows(pairs: list[tuple[str, str]], folders: dict[str, Path],
                    plan: Plan) -> dict[str, list[dict[str, tuple[float, int]]]]:
    """Score prediction files: ``(setting, path)`` pairs, one pair per run of a setting."""
    out: dict[str, list] = {}
    for setting, path in pairs:
        if setting not in folders:
            raise UsageError(f"--predictions {setting}=...: no such setting (choose from {', '.join(folders)})")
        report = evaluate(load_eval_set(folders[setting]), path, name=setting, strict=True).to_dict()
        out.setdefault(setting, []).append(columns_of(report, plan.experiment))
    return out


def summarise(rows: dict[str, list[dict[str, tuple[float, int]]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per row and column: mean, std and se of the accuracy over runs, runs and stories."""
    out = {}
    for row, runs in rows.items():
        cols = {}
        for col in runs[0]:
            mean, std, se = mean_se([run[col][0] for run in runs])
            cols[col] = {"mean": mean, "std": std, "se": se, "runs": len(runs), "stories": runs[0][col][1],
                         "per_run": [run[col][0] for run in runs]}
        out[row] = cols
    return out


def _order(cols: list[str], experiment: str) -> list[str]:
    if experiment == "noise":
        return [c for c in COLUMN.values() if c in cols] + sorted(c for c in cols if c not in COLUMN.values())
    return sorted(cols, key=int)


def table(summary: dict[str, dict[str, dict[str, Any]]], experiment: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows: one row per training setting, one column per test setting."""
    cols = _order(list(dict.fromkeys(c for row in summary.values() for c in row)), experiment)
    corner = "train \\ test" if experiment == "noise" else "train \\ test k"
    rows = []
    for name, cells in summary.items():
        rows.append([name, *(_cell(cells[c]) if c in cells else "–" for c in cols)])
    return [corner, *cols], rows


def _cell(cell: dict[str, Any]) -> str:
    """Mean ± standard error; the mean alone after one run (which gives no standard error)."""
    return f"{cell['mean']:.3f} ± {cell['se']:.3f}" if cell["runs"] > 1 else f"{cell['mean']:.3f}"


def _spread(runs: int) -> str:
    return f"± standard error over {runs} runs" if runs > 1 else "over 1 run (one run gives no standard error)"


def render_text(doc: dict[str, Any]) -> str:
    """The matrix (or curve) as aligned plain text."""
    header, rows = table(doc["summary"], doc["experiment"])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header, *rows]]
    runs = max(c["runs"] for row in doc["summary"].values() for c in row.values())
    return "\n".join([doc["title"], *lines, f"mean accuracy {_spread(runs)}", ""])


def render_markdown(doc: dict[str, Any]) -> str:
    """robustness.md: the matrix, what was run and how."""
    header, rows = table(doc["summary"], doc["experiment"])
    runs = max(c["runs"] for row in doc["summary"].values() for c in row.values())
    settings = ", ".join(f"{k}={v}" for k, v in doc.get("settings", {}).items()) or "its defaults"
    lines = [f"# {doc['title']}", "",
             f"Model `{doc['model']}` ({settings}); cells are the mean test accuracy "
             + (f"± its standard error (sample std / √runs) over {runs} runs" if runs > 1 else
                "of 1 run (one run gives no standard error)")
             + f"; {doc['cpu_seconds']:.0f} CPU seconds in all.", "",
             *md_table(header, rows),
             "", "Data, one folder per training setting:", "",
             *(f"- `{name}`: `clutrr generate {' '.join(args)}`" for name, args in doc["generate"].items()), ""]
    if doc["experiment"] == "systematic":
        lines += ["![accuracy against k](accuracy_vs_k.png)", ""]
    return "\n".join(lines)


def title_of(experiment: str, plan: Plan) -> str:
    """The heading of a result."""
    if experiment == "noise":
        return (f"Robustness: train noise × test noise (train k={','.join(map(str, plan.train_k))}, "
                f"test k={','.join(map(str, plan.test_k))})")
    return f"Systematic generalisation: train k={','.join(map(str, plan.train_k))}, clean"


def write_outputs(doc: dict[str, Any], out: str | Path, force: bool) -> Path:
    """Write robustness.json, robustness.md and, for the curve, accuracy_vs_k.png, all or nothing."""
    from clutrr.io.staging import StagedDir

    with StagedDir(out, force=force) as staged:
        staged.file("robustness.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        staged.file("robustness.md").write_text(render_markdown(doc), encoding="utf-8")
        if doc["experiment"] == "systematic":
            from clutrr.baselines.results import plot_by_k

            curves = {f"{doc['model']} ({row})": {int(k): (c["mean"], c["se"], c["stories"]) for k, c in cells.items()}
                      for row, cells in doc["summary"].items()}
            plot_by_k(curves, staged.file("accuracy_vs_k.png"), doc["title"])
    return Path(out)


def make_doc(plan: Plan, model: str, rows: dict[str, list], cpu_seconds: float,
             settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The robustness.json document (``settings``: the model settings given besides its defaults)."""
    return {"schema": SCHEMA, "experiment": plan.experiment, "title": title_of(plan.experiment, plan),
            "model": model, "settings": {k: v for k, v in (settings or {}).items() if v is not None},
            "plan": asdict(plan), "generate": plan.settings(), "cpu_seconds": round(cpu_seconds, 1),
            "summary": summarise(rows)}


def log(message: str) -> None:
    """A progress line on stderr."""
    print(message, file=sys.stderr, flush=True)
