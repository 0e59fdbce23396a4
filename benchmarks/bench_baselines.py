"""CPU seconds per training epoch of each registered baseline on 10k stories, and prediction speed.

    python benchmarks/bench_baselines.py [--data DIR] [--stories 10000] [--epochs 2] [--threads 1,2]

Uses the released data_089907f8 training file when present, else stories from our generator.
Prints one line per (model, threads): CPU and wall seconds per epoch (validation scoring and
batching included, data loading not) and stories predicted per CPU second. Models without
epochs (e.g. EM-trained ones) are timed for one whole fit.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from clutrr.baselines.data import LabelVocab, load_dataset, split_validation  # noqa: E402
from clutrr.baselines.registry import make_config, registered  # noqa: E402

RELEASED = ROOT.parent / "shared" / "clutrr-release" / "data_089907f8"


def generated_data(out: Path, stories: int) -> Path:
    """A clean k=2,3 dataset from our generator with ``stories`` training rows."""
    from clutrr.commands.generate import main as generate

    generate(["--k", "2,3", "--test-k", "2", "--train-rows", str(stories // 2), "--test-rows", "10",
              "--out", str(out), "--force", "--quiet"])
    return out


def measure(name: str, data: Path, stories: int, epochs: int) -> tuple[float, float, float, int]:
    """(CPU s, wall s) per epoch, stories predicted per CPU s, epochs run."""
    labels = LabelVocab.from_kb()
    train, valid = split_validation(load_dataset(data, labels, max_train=stories).train, 0.1, 0)
    cls = registered()[name]
    fields = cls.Config.__dataclass_fields__
    overrides = {"epochs": epochs, "patience": epochs} if "epochs" in fields else {}
    model = cls(make_config(cls, None, overrides), labels)
    cpu, wall = time.process_time(), time.perf_counter()
    fit = model.fit(train, valid, seed=0, progress=False)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    runs = fit.get("epochs_run", 1)
    start = time.process_time()
    model.predict_proba(valid)
    return cpu / runs, wall / runs, len(valid) / max(time.process_time() - start, 1e-9), runs


def main() -> int:
    """Run the benchmark and print a table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default=None)
    p.add_argument("--stories", type=int, default=10000)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--threads", default="1,2")
    p.add_argument("--models", default=",".join(registered()))
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(args.data) if args.data else RELEASED if RELEASED.is_dir() else generated_data(Path(tmp), args.stories)
        print(f"data: {data}, {args.stories} training stories (10% held out for validation), CPU")
        print(f"{'model':<12} {'threads':>7} {'epochs':>6} {'CPU s/epoch':>11} {'wall s/epoch':>12} {'predicted/CPU s':>15}")
        for threads in (int(t) for t in args.threads.split(",")):
            torch.set_num_threads(threads)
            for name in args.models.split(","):
                cpu, wall, rate, runs = measure(name, data, args.stories, args.epochs)
                print(f"{name:<12} {threads:>7} {runs:>6} {cpu:>11.1f} {wall:>12.1f} {rate:>15.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
