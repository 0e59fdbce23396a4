"""``clutrr release --out DIR``: build the named configurations with a dataset card and fingerprints;
``clutrr release --check DIR``: rebuild a release and compare every byte (``--quick``: compare every
file with the sha256 release.json lists, without a rebuild)."""
from __future__ import annotations

import argparse
import os
import sys

from clutrr.engines import engine_names
from clutrr.errors import UsageError
from clutrr.release.build import BuildOptions
from clutrr.release.compare import comparability_table, measure_release
from clutrr.release.configs import BY_NAME, CONFIGS, select
from clutrr.release.run import check_release, file_count, quick_check, write_release

NAME = "release"
HELP = "build the named configurations (the original six and ours) with a dataset card, or check a release"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``clutrr release``."""
    p.add_argument("--out", help="folder to write the release into")
    p.add_argument("--check", metavar="DIR", help="rebuild the release in DIR and compare it byte for byte "
                                                  "(exit 0: identical, 1: files differ, 2: not a release)")
    p.add_argument("--quick", action="store_true",
                   help="with --check: compare every file with the sha256 release.json lists instead of rebuilding "
                        "(seconds; proves the files are the release's, not that this clutrr makes them)")
    p.add_argument("--compare", metavar="DIR",
                   help="measure what keeps the release in DIR from being compared with published CLUTRR results "
                        "and print the card's comparability table")
    p.add_argument("--configs", help=f"comma-separated configurations or tiers (default: the {len(CONFIGS)} of the "
                                     f"main release; of the {len(BY_NAME)}, tier kinship is one per kinship system)")
    p.add_argument("--seed", type=int, default=0, help="release seed (default 0)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiply every row count (default 1: about the original sizes; e.g. 0.01 for a quick test)")
    p.add_argument("--force", action="store_true",
                   help="replace the release in --out if clutrr wrote it and nothing was added since")
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (local engine, default 1) or CPUs of a local Ray instance; "
                        "the bytes are the same for any number")
    p.add_argument("--engine", default="local", choices=engine_names(), help="where generation runs (default local)")
    p.add_argument("--address", default=None, help="with --engine ray: a running Ray cluster")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def run(args: argparse.Namespace) -> int:
    """Build or check a release."""
    if sum(a is not None for a in (args.out, args.check, args.compare)) != 1:
        raise UsageError("give one of --out DIR (build), --check DIR (compare with a rebuild) or --compare DIR")
    if args.compare is not None:
        print("\n".join(comparability_table(measure_release(args.compare))))
        return 0
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1 if args.engine == "ray" else 1)
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    options = BuildOptions(seed=args.seed, scale=args.scale, workers=workers, engine=args.engine,
                           address=args.address, progress=not args.quiet)
    if args.quick and args.check is None:
        raise UsageError("--quick goes with --check DIR")
    if args.check is not None:
        if args.configs is not None or args.force:
            raise UsageError("--check takes the configurations, seed and scale from the release's release.json")
        result = quick_check(args.check) if args.quick else check_release(args.check, options)
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
        for line in result.differing:
            print(line)
        files, against = file_count(result.manifest), "release.json" if args.quick else "a rebuild"
        if result.differing:
            print(f"{len(result.differing)} of {files} files differ from {against}", file=sys.stderr)
            return 1
        print(f"all {files} files match {against} (fingerprint {result.manifest['fingerprint']})", file=sys.stderr)
        return 0
    doc = write_release(args.out, select(args.configs), options, force=args.force)
    rows = sum(sum(f["rows"].values()) for f in doc["figures"].values())
    size = sum(f["bytes"] for f in doc["files"])
    print(f"wrote {len(doc['configs'])} configurations ({rows} rows, {file_count(doc)} files, "
          f"{size / 1e6:.1f} MB) to {args.out}; fingerprint {doc['fingerprint']}", file=sys.stderr)
    return 0
