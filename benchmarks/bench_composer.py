"""The composer baseline's goals: accuracy by k, training time, and the rules it learns.

    python benchmarks/bench_composer.py [--data data/composer] [--test-rows 1000] [--runs 3]
                                        [--out results/composer] [--threads 1] [--table]

Three settings, all trained on k=2,3 only with ``clutrr.baselines.train`` (each run holds out its own
seeded 10% validation split, by story; EM is deterministic, so runs differ only through the split):

* ``ours-clean``: our generator's clean training set, tested on clean and on every noise family;
* ``ours-noisy``: our generator's ``--noise all`` training set, tested on the same test files;
* ``released``: the released ``data_089907f8`` (skipped when ../shared is absent).

Our data is generated into ``--data`` on first use (seed 0; ``--force`` regenerates). Prints, per
setting, ``clutrr eval``'s tables (a column per run), training CPU and wall seconds and prediction
speed; then the learned table against ``kb_rules/kinship.yaml`` (and, for the released data,
against the original ``clutrr_v1`` table). Writes each setting's ``clutrr.baselines.train`` output
folder (results.json, checkpoints, predictions, reports), the rule comparisons as JSON, the learned
tables as text and ``accuracy_vs_k.png`` to ``--out``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clutrr.baselines.composer import Composer  # noqa: E402
from clutrr.baselines.composer_rules import compare_with_kb, format_rules  # noqa: E402
from clutrr.baselines.data import load_tests  # noqa: E402
from clutrr.baselines.registry import load_checkpoint  # noqa: E402
from clutrr.baselines.train import train_and_evaluate  # noqa: E402

RELEASED = ROOT.parent / "shared" / "clutrr-release" / "data_089907f8"
NOISY_TESTS = "none,supporting,irrelevant,disconnected,all"


def ensure_data(root: Path, test_rows: int, force: bool) -> tuple[Path, Path]:
    """Our clean and noisy k=2,3 sets under ``root`` (generated with seed 0 unless present)."""
    from clutrr.commands.generate import main as generate

    clean, noisy = root / "clean", root / "noisy"
    common = ["--k", "2,3", "--test-k", "2..10", "--test-rows", str(test_rows), "--seed", "0", "--quiet"]
    for path, extra in ((clean, []), (noisy, ["--noise", "all", "--test-noise", NOISY_TESTS])):
        if force or not (path / "config.json").is_file():
            print(f"generating {path} ...", file=sys.stderr, flush=True)
            if generate(common + extra + ["--out", str(path), "--force"]) not in (0, None):
                raise SystemExit(f"generating {path} failed")
    return clean, noisy


def prediction_speed(model: Composer, folder: Path) -> float:
    """Stories predicted per CPU second on the test files of ``folder``."""
    stories = [s for t in load_tests(folder, model.labels) for s in t.stories]
    start = time.process_time()
    model.predict_proba(stories)
    return len(stories) / max(time.process_time() - start, 1e-9)


def plot(docs: dict[str, dict[str, Any]], path: Path) -> Path:
    """One panel per setting: accuracy against k on its last test folder, one line per noise
    family, error bars = std over runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(docs), figsize=(4.2 * len(docs), 3.6), sharey=True, squeeze=False)
    for ax, (name, doc) in zip(axes[0], docs.items()):
        summary = doc["summary"][doc["folders"][-1]["name"]]
        for noise in dict.fromkeys(s["noise"] for s in summary.values()):
            points = sorted((s["k"], s["mean"], s["std"]) for s in summary.values() if s["noise"] == noise)
            ks, means, stds = zip(*points)
            ax.errorbar(ks, means, yerr=stds, marker="o", markersize=3, capsize=2, label=noise)
        ax.set_title(f"composer ({name})", fontsize=10)
        ax.set_xlabel("k (relations in the chain)")
        ax.set_ylim(0.9, 1.005)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="lower left")
    axes[0][0].set_ylabel("test accuracy (trained on k=2,3)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "composer", help="where our data lives")
    parser.add_argument("--released", type=Path, default=RELEASED)
    parser.add_argument("--test-rows", type=int, default=1000, help="test rows per k and noise family")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "composer")
    parser.add_argument("--force", action="store_true", help="regenerate our data")
    parser.add_argument("--table", action="store_true", help="also print every learned table")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    clean_dir, noisy_dir = ensure_data(args.data, args.test_rows, args.force)
    settings = [("ours-clean", clean_dir, noisy_dir), ("ours-noisy", noisy_dir, noisy_dir)]
    if args.released.is_dir():
        settings.append(("released", args.released, args.released))
    else:
        print(f"{args.released} is absent: skipping the released setting", file=sys.stderr)

    args.out.mkdir(parents=True, exist_ok=True)
    docs, comparisons = {}, {}
    for name, train, tests in settings:
        out = args.out / name
        print(f"\n== {name}: trained on {train}, tested on {tests}")
        doc = train_and_evaluate("composer", train, test_data=[tests] if tests != train else [], runs=args.runs,
                                 out=out, force=True, threads=args.threads, echo=True)
        docs[name] = doc
        model = load_checkpoint(out / "checkpoints" / "seed0")
        cpu = [run["fit"]["cpu_seconds"] for run in doc["per_run"]]
        wall = [run["fit"]["wall_seconds"] for run in doc["per_run"]]
        iterations = max(len(run["fit"]["history"]) for run in doc["per_run"])
        print(f"training: {np.mean(cpu):.1f} CPU s (max {max(cpu):.1f}), {np.mean(wall):.1f} wall s per run, "
              f"{iterations} EM iterations at most; prediction: {prediction_speed(model, tests):.0f} stories per "
              "CPU second")
        kbs = ("kinship", "clutrr_v1") if name == "released" else ("kinship",)
        table_text = format_rules(model)
        (args.out / f"{name}-table.txt").write_text(table_text + "\n", encoding="utf-8")
        if args.table:
            print(table_text)
        for kb in kbs:
            comparison = compare_with_kb(model, kb)
            comparisons[f"{name}/{kb}"] = comparison.as_dict()
            print(comparison.format(weak_limit=12))
    (args.out / "rules.json").write_text(json.dumps(comparisons, indent=1) + "\n", encoding="utf-8")
    png = plot(docs, args.out / "accuracy_vs_k.png")
    print(f"\nwrote {args.out}/<setting>/, *-table.txt, rules.json and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
