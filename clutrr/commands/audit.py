"""``clutrr audit DIR``: the artifact audit of a dataset folder, as markdown and JSON."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from clutrr.diagnostics.audit import ALPHA, MIN_WORD_COUNT, audit_splits, render_markdown
from clutrr.io.datadir import load_splits
from clutrr.io.staging import StagedDir
from clutrr.errors import UsageError
from clutrr.core.kb import load_kb

NAME = "audit"
HELP = "audit a dataset for label artifacts: majority, query-only and story-bag baselines, give-away words"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr audit``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files (one split per file)")
    parser.add_argument("--out", help="folder to write audit.md and audit.json into (default: print markdown only)")
    parser.add_argument("--force", action="store_true", help="overwrite files in a non-empty --out folder")
    parser.add_argument("--kb", default="kinship", help="KB giving the label vocabulary (default: kinship)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cross-validation folds (default: 0)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level (default: {ALPHA})")
    parser.add_argument("--min-count", type=int, default=MIN_WORD_COUNT,
                        help=f"stories a give-away word must appear in (default: {MIN_WORD_COUNT})")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a split exceeds the gender-prior ceiling")


def run(args: argparse.Namespace) -> int:
    """Run the audit; print the markdown report and optionally write both reports."""
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    if args.min_count < 1:
        raise UsageError("--min-count must be at least 1")
    kb = load_kb(args.kb)
    splits = load_splits(args.directory)
    report = audit_splits(splits, kb, seed=args.seed, alpha=args.alpha, min_count=args.min_count)
    report["directory"] = str(Path(args.directory))
    markdown = render_markdown(report, Path(args.directory).resolve().name)
    if args.out:
        with StagedDir(args.out, force=args.force) as out:
            out.file("audit.md").write_text(markdown, encoding="utf-8")
            out.file("audit.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(markdown)
    return 1 if args.strict and not report["summary"]["passes"] else 0
