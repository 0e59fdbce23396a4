"""Seconds per training epoch of each baseline on 10k stories, on this machine's CPU.

    python benchmarks/bench_baselines.py [--data DIR] [--stories 10000] [--epochs 2] [--threads 1,2]

Uses the released data_089907f8 training file when present, else stories from our generator.
Prints one line per (model, threads): the mean seconds of the timed epochs (the first epoch is
timed too; batching and the entity redraw are included, data loading is not).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clutrr.baselines.config import MODEL_NAMES, load_config  # noqa: E402
from clutrr.baselines.data import load_dataset  # noqa: E402
from clutrr.baselines.tasks import make_task  # noqa: E402

RELEASED = ROOT.parent / "shared" / "clutrr-release" / "data_089907f8"


def generated_data(out: Path, stories: int) -> Path:
    """A clean k=2,3 dataset from our generator with ``stories`` training rows."""
    from clutrr.commands.generate import main as generate

    generate(["--k", "2,3", "--test-k", "2", "--train-rows", str(stories // 2), "--test-rows", "10",
              "--out", str(out), "--force", "--quiet"])
    return out


def seconds_per_epoch(model_name: str, data: Path, stories: int, epochs: int) -> list[float]:
    """Wall seconds of each of ``epochs`` training epochs."""
    dataset = load_dataset(data, max_train=stories)
    config = load_config(model_name)
    task = make_task(dataset, config, seed=0)
    model = task.model()
    optim = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    rng, gen = np.random.default_rng(0), torch.Generator().manual_seed(0)
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        model.train()
        for batch in task.train_batches(int(config["training"]["batch_size"]), rng, gen):
            loss = F.cross_entropy(model(batch), task.labels_of(batch))
            optim.zero_grad()
            loss.backward()
            optim.step()
        times.append(time.perf_counter() - start)
    return times


def main() -> int:
    """Run the benchmark and print a table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None)
    p.add_argument("--stories", type=int, default=10000)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--models", default=",".join(MODEL_NAMES))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.data) if args.data else RELEASED if RELEASED.is_dir() else generated_data(Path(tmp), args.stories)
        print(f"data: {data}, {args.stories} training stories, {args.epochs} epochs, CPU")
        print(f"{'model':<12} {'threads':>7} {'s/epoch':>8}")
        for threads in (int(t) for t in args.threads.split(",")):
            torch.set_num_threads(threads)
            for name in args.models.split(","):
                times = seconds_per_epoch(name, data, args.stories, args.epochs)
                print(f"{name:<12} {threads:>7} {statistics.fmean(times):>8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
