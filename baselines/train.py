"""Train a baseline on a data folder's training file and evaluate every test file, over several runs.

    python -m clutrr.baselines.train --model gat --data DIR --epochs 30 --seed 0 --runs 3 --out results/

prints a per-test accuracy table (mean ± std over runs), and writes
``RESULTS_DIR/<model>.json`` (see :mod:`baselines.results`) and ``RESULTS_DIR/<model>.png``.
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm import tqdm

from clutrr.baselines.config import MODEL_NAMES, load_config
from clutrr.baselines.data import NOISE_NAMES, Dataset, load_dataset
from clutrr.baselines.probe_eval import check_probe, permutation_metrics
from clutrr.baselines.results import SCHEMA, format_table, plot_accuracy, summarize, write_json
from clutrr.baselines.tasks import make_task
from clutrr.errors import UsageError


def setup_torch(threads: int = 1, device: str | None = None) -> torch.device:
    """Cap CPU threads and pick the device: ``device`` if given, else CUDA when present, else CPU."""
    torch.set_num_threads(max(1, threads))
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def accuracy(model: torch.nn.Module, task: Any, file: str | None, device: torch.device, batch_size: int = 500) -> float:
    """Accuracy of ``model`` on a test file (or the training set when ``file`` is None)."""
    model.eval()
    right = total = 0
    with torch.no_grad():
        for batch in task.eval_batches(file, batch_size):
            batch = batch.to(device)
            gold = task.labels_of(batch)
            right += int((model(batch).argmax(dim=-1) == gold).sum())
            total += int(gold.numel())
    return right / max(total, 1)


def train_run(dataset: Dataset, config: dict[str, Any], epochs: int, seed: int, device: torch.device,
              progress: bool = True, probe: str | Path | None = None, out: str | Path | None = None) -> dict[str, Any]:
    """One run: train from scratch with ``seed``, then evaluate every test file (and the
    word-permute probes in ``probe``, when given, saving their probabilities under ``out``)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed)
    task = make_task(dataset, config, seed)
    model = task.model().to(device)
    training = config["training"]
    params = [p for p in model.parameters() if p.requires_grad]
    optim = torch.optim.Adam(params, lr=float(training["lr"]), weight_decay=float(training.get("weight_decay", 0.0)))
    start = time.perf_counter()
    loss_value = float("nan")
    bar = tqdm(range(epochs), desc=f"{config['name']} seed {seed}", disable=not progress, file=sys.stderr)
    for _ in bar:
        model.train()
        total, count = 0.0, 0
        for batch in task.train_batches(int(training["batch_size"]), rng, gen):
            batch = batch.to(device)
            loss = F.cross_entropy(model(batch), task.labels_of(batch))
            optim.zero_grad()
            loss.backward()
            optim.step()
            n = int(task.labels_of(batch).numel())
            total += float(loss.detach()) * n
            count += n
        loss_value = total / max(count, 1)
        bar.set_postfix(loss=f"{loss_value:.3f}")
    train_seconds = time.perf_counter() - start
    result = {
        "seed": seed,
        "train_seconds": round(train_seconds, 2),
        "final_loss": loss_value,
        "train_accuracy": accuracy(model, task, None, device),
        "accuracy": {t.file: accuracy(model, task, t.file, device) for t in dataset.tests},
    }
    if probe is not None:
        export = Path(out) / f"{config['name']}.seed{seed}.permutations.npz" if out is not None else None
        result["permutation"] = permutation_metrics(model, task, dataset, probe, device, seed, export, progress)
    return result


def train_and_evaluate(model: str, data: str | Path, epochs: int | None = None, seed: int = 0, runs: int = 1,
                       out: str | Path | None = None, config: str | Path | dict[str, Any] | None = None,
                       threads: int = 1, device: str | None = None, max_train: int | None = None,
                       progress: bool = True, probe: str | Path | None = None) -> dict[str, Any]:
    """Train ``runs`` times (seeds ``seed``, ``seed+1``, ...) and evaluate; returns the results document.

    ``config`` is a YAML path laid over the built-in config, or a full config dict. With ``out``,
    writes ``out/<model>.json`` and ``out/<model>.png``. With ``probe`` (a folder written by
    ``clutrr probe --kind word-permute``), each run also reports Ω_max, Ω_rand, P^c and P^f and, with
    ``out``, saves the probabilities behind them to ``out/<model>.seed<S>.permutations.npz``.
    """
    if runs < 1:
        raise UsageError("--runs must be at least 1")
    cfg = dict(config, name=model) if isinstance(config, dict) else load_config(model, config)
    epochs = int(cfg["training"]["epochs"] if epochs is None else epochs)
    if epochs < 1:
        raise UsageError("--epochs must be at least 1")
    dev = setup_torch(threads, device)
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    clock = time.perf_counter()
    dataset = load_dataset(data, max_train=max_train)
    if probe is not None:
        check_probe(dataset, probe, cfg)
    per_run = [train_run(dataset, cfg, epochs, seed + r, dev, progress, probe, out) for r in range(runs)]
    tests = [
        {"file": t.file, "task": t.task, "noise": t.noise, "noise_name": NOISE_NAMES.get(t.noise, str(t.noise)),
         "k": t.k, "rows": len(t.stories)}
        for t in dataset.tests
    ]
    doc = {
        "schema": SCHEMA, "model": model, "config": cfg, "data": str(Path(data).resolve()),
        "train_file": dataset.train_file, "train_rows": len(dataset.train), "epochs": epochs, "seed": seed,
        "runs": runs, "device": str(dev), "threads": torch.get_num_threads(),
        "seconds": round(time.perf_counter() - clock, 2), "started": started, "tests": tests,
        "per_run": per_run, "summary": summarize(tests, per_run),
    }
    if out is not None:
        write_json(doc, Path(out) / f"{model}.json")
        plot_accuracy([doc], Path(out) / f"{model}.png")
    return doc


def build_parser() -> argparse.ArgumentParser:
    """The CLI's argument parser."""
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.train", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True, choices=MODEL_NAMES)
    p.add_argument("--data", required=True, help="folder with one *_train.csv and *_test.csv files")
    p.add_argument("--epochs", type=int, default=None, help="default: the config's training.epochs")
    p.add_argument("--seed", type=int, default=0, help="seed of the first run; run r uses seed + r")
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--out", default=None, help="folder for <model>.json and <model>.png")
    p.add_argument("--config", default=None, help="YAML laid over the built-in config of the model")
    p.add_argument("--threads", type=int, default=1, help="CPU threads for torch (default 1: fastest on a shared 2-core CPU)")
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when present)")
    p.add_argument("--max-train", type=int, default=None, help="use only the first N training stories")
    p.add_argument("--probe", default=None,
                   help="folder from `clutrr probe DATA --kind word-permute`: also report permutation acceptance")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 on bad input)."""
    args = build_parser().parse_args(argv)
    try:
        doc = train_and_evaluate(
            args.model, args.data, args.epochs, args.seed, args.runs, args.out, args.config,
            args.threads, args.device, args.max_train, not args.quiet, args.probe,
        )
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(doc))
    for run in doc["per_run"]:
        for file, m in run.get("permutation", {}).items():
            pc, pf = (("-" if v is None else f"{v:.2f}") for v in (m["p_correct"], m["p_wrong"]))
            print(f"seed {run['seed']} {file}: Omega_max {m['omega_max']:.2f} Omega_rand {m['omega_rand']:.2f} "
                  f"P^c {pc} P^f {pf} ({m['stories']} stories, q={m['q']}; P^f over the {m['permutations_wrong']} "
                  f"permutations of the {m['originally_wrong']} stories wrong originally)")
    if args.out:
        print(f"wrote {Path(args.out) / (args.model + '.json')} and {Path(args.out) / (args.model + '.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
