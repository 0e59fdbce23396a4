"""The composer baseline's goals: accuracy by k, training time, and the rules it learns.

    python benchmarks/bench_composer.py [--data data/composer] [--test-rows 1000] [--runs 3]
                                        [--out results/composer] [--threads 1] [--table]

Three settings, all trained on k=2,3 only, each run with a different seeded 10% validation split:

* ``ours-clean``: our generator's clean training set, tested on clean and on every noise family;
* ``ours-noisy``: our generator's ``--noise all`` training set, tested on the same test files;
* ``released``: the released ``data_089907f8`` (skipped when ../shared is absent).

Our data is generated into ``--data`` on first use (seed 0; ``--force`` regenerates). Prints, per
setting, the accuracy of every test file (mean ± std over runs), training CPU and wall seconds and
prediction speed; then the learned table against ``kb_rules/kinship.yaml`` (and, for the released
data, against the original ``clutrr_v1`` table). Writes one results-v1 JSON per setting, the rule
comparisons as JSON, the learned tables as text and ``accuracy_vs_k.png`` to ``--out``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clutrr.baselines.composer import Composer, ComposerConfig  # noqa: E402
from clutrr.baselines.composer_rules import compare_with_kb, format_rules  # noqa: E402
from clutrr.baselines.data import NOISE_NAMES, Dataset, load_dataset  # noqa: E402
from clutrr.baselines.results import SCHEMA, format_table, summarize, write_json  # noqa: E402

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


def validation_split(n: int, seed: int, share: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the training and validation stories: a seeded ``share`` held out by story."""
    order = np.random.default_rng(seed).permutation(n)
    cut = max(1, int(round(n * share)))
    return np.sort(order[cut:]), np.sort(order[:cut])


def accuracy(model: Composer, stories: list) -> tuple[float, float]:
    """(accuracy, CPU seconds) of ``model`` on ``stories``."""
    start = time.process_time()
    probs = model.predict_proba(stories)
    seconds = time.process_time() - start
    return float((probs.argmax(1) == [s.label for s in stories]).mean()), seconds


def run_setting(name: str, train: Dataset, tests: Dataset, runs: int, threads: int) -> tuple[dict[str, Any], Composer]:
    """Train ``runs`` times on ``train``'s training file, test on ``tests``' files; a results-v1 doc."""
    test_rows = [{"file": t.file, "task": t.task, "noise": t.noise, "noise_name": NOISE_NAMES.get(t.noise, str(t.noise)),
                  "k": t.k, "rows": len(t.stories)} for t in tests.tests]
    per_run, timing, first = [], [], None
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    for seed in range(runs):
        keep, held = validation_split(len(train.train), seed)
        model = Composer(ComposerConfig(), train.labels)
        cpu, wall = time.process_time(), time.perf_counter()
        fit = model.fit([train.train[i] for i in keep], [train.train[i] for i in held], seed=seed, progress=False)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        accs, predict_cpu, predicted = {}, 0.0, 0
        for t in tests.tests:
            accs[t.file], seconds = accuracy(model, t.stories)
            predict_cpu += seconds
            predicted += len(t.stories)
        train_acc, _ = accuracy(model, train.train)
        last = fit["history"][-1] if fit["history"] else {"train_log_likelihood": 0.0}
        per_run.append({"seed": seed, "train_seconds": cpu, "final_loss": -last["train_log_likelihood"] / len(keep),
                        "train_accuracy": train_acc, "accuracy": accs})
        timing.append({"cpu": cpu, "wall": wall, "em_iterations": len(fit["history"]),
                       "predict_stories_per_cpu_second": predicted / max(predict_cpu, 1e-9)})
        first = first or model
    doc = {
        "schema": SCHEMA, "model": f"composer ({name})", "config": asdict(ComposerConfig()), "data": tests.root,
        "train_file": str(Path(train.root) / train.train_file), "train_rows": len(train.train),
        "epochs": max(t["em_iterations"] for t in timing), "seed": 0, "runs": runs, "device": "cpu",
        "threads": threads, "seconds": sum(t["cpu"] for t in timing), "started": started,
        "tests": test_rows, "per_run": per_run, "summary": summarize(test_rows, per_run), "timing": timing,
    }
    return doc, first


def plot(docs: list[dict[str, Any]], path: Path) -> Path:
    """One panel per setting: accuracy against k, one line per noise family, error bars = std over runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(docs), figsize=(4.2 * len(docs), 3.6), sharey=True, squeeze=False)
    for ax, doc in zip(axes[0], docs):
        names = {t["noise"]: t["noise_name"] for t in doc["tests"]}
        for noise, name in sorted(names.items()):
            points = sorted((s["k"], s["mean"], s["std"]) for s in doc["summary"].values() if s["noise"] == noise)
            ks, means, stds = zip(*points)
            ax.errorbar(ks, means, yerr=stds, marker="o", markersize=3, capsize=2, label=name)
        ax.set_title(doc["model"], fontsize=10)
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
    clean, noisy = load_dataset(clean_dir), load_dataset(noisy_dir)
    settings = [("ours-clean", clean, noisy), ("ours-noisy", noisy, noisy)]
    if args.released.is_dir():
        released = load_dataset(args.released)
        settings.append(("released", released, released))
    else:
        print(f"{args.released} is absent: skipping the released setting", file=sys.stderr)

    args.out.mkdir(parents=True, exist_ok=True)
    docs, comparisons = [], {}
    for name, train, tests in settings:
        doc, model = run_setting(name, train, tests, args.runs, args.threads)
        docs.append(doc)
        write_json(doc, args.out / f"{name}.json")
        cpu = [t["cpu"] for t in doc["timing"]]
        wall = [t["wall"] for t in doc["timing"]]
        speed = np.mean([t["predict_stories_per_cpu_second"] for t in doc["timing"]])
        print(f"\n== {name}: trained on {doc['train_file']} ({doc['train_rows']} stories, 90% per run)")
        print(format_table(doc))
        print(f"training: {np.mean(cpu):.1f} CPU s (max {max(cpu):.1f}), {np.mean(wall):.1f} wall s per run, "
              f"{doc['epochs']} EM iterations at most; prediction: {speed:.0f} stories per CPU second")
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
    print(f"\nwrote {args.out}/*.json, *-table.txt and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
