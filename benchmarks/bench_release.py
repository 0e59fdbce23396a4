"""The release's build time and size, the time of its quick check, and the generation rate of
long-context stories.

Each measurement is a fresh process (start-up included); CPU time is the process's and its
workers'; peak RSS is sampled over the whole process tree (see bench_generate.py).

    python benchmarks/bench_release.py                    # the full release, then long contexts
    python benchmarks/bench_release.py --scale 0.05       # a smaller release
    python benchmarks/bench_release.py --no-release       # long contexts only
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from bench_generate import machine, measure_command  # this folder is on sys.path when the script runs
from bench_startup import compile_package

CONTEXTS = ((1_000, 400), (10_000, 60), (100_000, 24), (100_000, 96))  # (words per story, stories)


def release(scale: float, workers: int) -> None:
    """Build the release once and print its time and size."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "release"
        r = measure_command([sys.executable, "-m", "clutrr.cli", "release", "--quiet", "--out", str(out),
                             "--scale", str(scale), "--workers", str(workers)])
        doc = json.loads((out / "release.json").read_text(encoding="utf-8"))
        quick = measure_command([sys.executable, "-m", "clutrr.cli", "release", "--check", str(out), "--quick"])
    rows = sum(sum(f["rows"].values()) for f in doc["figures"].values())
    size = {fmt: sum(f["bytes"] for f in doc["files"] if f["file"].endswith(f".{fmt}")) / 1e6
            for fmt in ("parquet", "csv")}
    print(f"release (`clutrr release --out DIR --scale {scale:g} --workers {workers}`): {len(doc['configs'])} "
          f"configurations, {rows:,} rows, {len(doc['files']) + 1} files, {sum(f['bytes'] for f in doc['files']) / 1e6:.1f} MB "
          f"(Parquet {size['parquet']:.1f} MB, CSV {size['csv']:.1f} MB)")
    print(f"  wall {r['wall_s']:.0f} s, CPU {r['cpu_s']:.0f} s, peak RSS {r['peak_rss_mb']:.0f} MB (all processes); "
          f"{rows / r['cpu_s']:.0f} rows per CPU-second, verification and audit included")
    print(f"  `clutrr release --check DIR --quick` (every file's sha256 against release.json): wall "
          f"{quick['wall_s']:.1f} s, CPU {quick['cpu_s']:.1f} s", flush=True)


def contexts() -> None:
    """Generate k=4 test stories padded to each length; words per CPU-second and peak RSS."""
    print("long contexts (`clutrr generate --k none --test-k 4 --context-words N`, csv+jsonl, one process):")
    print(f"{'words/story':>11s} {'stories':>7s} {'words/CPU-s':>11s} {'stories/CPU-s':>13s} {'peak RSS MB':>11s}")
    for words, stories in CONTEXTS:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "d"
            r = measure_command([sys.executable, "-m", "clutrr.cli", "generate", "--quiet", "--k", "none", "--test-k",
                                 "4", "--test-rows", str(stories), "--context-words", str(words), "--out", str(out)])
            with open(out / "1.4_test.jsonl", encoding="utf-8") as fh:
                total = sum(json.loads(line)["context"]["words"] for line in fh)
        print(f"{words:11,d} {stories:7d} {total / r['cpu_s']:11,.0f} {stories / r['cpu_s']:13.1f} "
              f"{r['peak_rss_mb']:11.0f}", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="release scale (default 1: the full release)")
    p.add_argument("--workers", type=int, default=1, help="worker processes of the release build (default 1)")
    p.add_argument("--no-release", action="store_true", help="only the long-context rates")
    args = p.parse_args()
    compile_package()
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    if not args.no_release:
        release(args.scale, args.workers)
    contexts()


if __name__ == "__main__":
    main()
