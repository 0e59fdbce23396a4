"""Generation speed and memory: stories per second and peak RSS, through the full writer.

Each case runs in a fresh subprocess that writes a complete dataset (CSV + JSONL +
config.json) with one worker, so its peak RSS is its own. Rates are per CPU-second of
that process (one core) and per wall-second.

    python benchmarks/bench_generate.py            # the standard cases
    python benchmarks/bench_generate.py --million  # also stream 1M k=2,3 rows (memory check)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

CASES = [
    ("train k=2,3, clean", dict(train_k=(2, 3), noise="none", rows=10000)),
    ("train k=2,3, all noise", dict(train_k=(2, 3), noise="all", rows=10000)),
    ("test k=10, clean", dict(test_k=(10,), noise="none", rows=3000)),
    ("test k=10, all noise", dict(test_k=(10,), noise="all", rows=3000)),
    ("test k=20, clean", dict(test_k=(20,), noise="none", rows=300)),
    ("test k=20, all noise", dict(test_k=(20,), noise="all", rows=300)),
]


def _child(case: dict) -> None:
    from clutrr.io.dataset import DatasetSpec, write_dataset

    train_k = tuple(case.get("train_k", ()))
    test_k = tuple(case.get("test_k", ()))
    rows = case["rows"]
    spec = DatasetSpec(train_k=train_k, test_k=test_k, noise=case["noise"], test_noise=(case["noise"],),
                       train_rows=rows // max(1, len(train_k)), test_rows=rows, seed=1)
    with tempfile.TemporaryDirectory() as tmp:
        wall, cpu = time.perf_counter(), time.process_time()
        manifest = write_dataset(spec, os.path.join(tmp, "d"), progress=False)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = sum(f["rows"] for f in manifest["files"].values() if (f["split"] == "train") == bool(train_k))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rows": n, "cpu_s": cpu, "wall_s": wall, "peak_rss_mb": peak_mb}))


def _run(case: dict) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", json.dumps(case)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--million", action="store_true", help="also stream 1,000,000 k=2,3 rows")
    args = parser.parse_args()
    if args.child:
        _child(json.loads(args.child))
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; one worker per case")
    print(f"{'case':26s} {'rows':>9s} {'stories/CPU-s':>14s} {'stories/wall-s':>15s} {'peak RSS MB':>12s}")
    cases = CASES + ([("train k=2,3, 1M rows", dict(train_k=(2, 3), noise="none", rows=1_000_000))] if args.million else [])
    for name, case in cases:
        r = _run(case)
        print(f"{name:26s} {r['rows']:9d} {r['rows'] / r['cpu_s']:14.0f} {r['rows'] / r['wall_s']:15.0f} {r['peak_rss_mb']:12.0f}")


if __name__ == "__main__":
    main()
