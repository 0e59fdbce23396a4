"""``clutrr release --out DIR``: build the named configurations with a dataset card and fingerprints;
``clutrr release --check DIR``: rebuild a release and compare every byte."""
from __future__ import annotations

import argparse
import os
import sys

from clutrr.engines import engine_names
from clutrr.errors import UsageError
from clutrr.release.build import BuildOptions
from clutrr.release.configs import BY_NAME, select
from clutrr.release.run import check_release, write_release

NAME = "release"
HELP = "build the named configurations (the original six and ours) with a dataset card, or check a release"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of ``clutrr release``."""
    p.add_argument("--out", help="folder to write the release into")
    p.add_argument("--check", metavar="DIR", help="rebuild the release in DIR and compare it byte for byte "
                                                  "(exit 0: identical, 1: files differ, 2: not a release)")
    p.add_argument("--configs", help=f"comma-separated configurations (default: all {len(BY_NAME)})")
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
    if (args.out is None) == (args.check is None):
        raise UsageError("give either --out DIR (build) or --check DIR (compare)")
    workers = args.workers if args.workers is not None else (os.cpu_count() or 1 if args.engine == "ray" else 1)
    if workers < 1:
        raise UsageError(f"--workers must be at least 1, got {workers}")
    options = BuildOptions(seed=args.seed, scale=args.scale, workers=workers, engine=args.engine,
                           address=args.address, progress=not args.quiet)
    if args.check is not None:
        if args.configs is not None or args.force:
            raise UsageError("--check takes the configurations, seed and scale from the release's release.json")
        result = check_release(args.check, options)
        for note in result.notes:
            print(f"note: {note}", file=sys.stderr)
        for line in result.differing:
            print(line)
        files = len(result.manifest["files"]) + 1
        if result.differing:
            print(f"{len(result.differing)} of {files} files differ from a rebuild", file=sys.stderr)
            return 1
        print(f"all {files} files match a rebuild (fingerprint {result.manifest['fingerprint']})", file=sys.stderr)
        return 0
    doc = write_release(args.out, select(args.configs), options, force=args.force)
    rows = sum(sum(f["rows"].values()) for f in doc["figures"].values())
    size = sum(f["bytes"] for f in doc["files"])
    print(f"wrote {len(doc['configs'])} configurations ({rows} rows, {len(doc['files'])} files, "
          f"{size / 1e6:.1f} MB) to {args.out}; fingerprint {doc['fingerprint']}", file=sys.stderr)
    return 0
