"""``clutrr audit DIR``: the artifact audit of a dataset folder (or the hypothesis-only audit of a
recast folder), as markdown and JSON, with per-item predictions and easy/hard subsets."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from clutrr.io.ownership import FORCE_HELP
from clutrr.core.kb import load_kb
from clutrr.diagnostics.audit import ALPHA, MIN_WORD_COUNT, AuditResult, audit_dataset, render_markdown
from clutrr.diagnostics.easy_hard import EASY, HARD, partition, prediction_records, write_csv_rows, write_jsonl
from clutrr.diagnostics.nli_audit import BIASED_MODEL, audit_recast, is_recast_folder, load_recast, render_recast_markdown
from clutrr.diagnostics.progress import bar, read_splits
from clutrr.errors import UsageError
from clutrr.io.staging import StagedDir

NAME = "audit"
HELP = ("audit a dataset for label artifacts: majority, query-only and story-bag baselines, give-away words; "
        "on a recast folder, the hypothesis-only baseline")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr audit``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files (one split per file), or a folder written by "
                                          "`clutrr recast`")
    parser.add_argument("--out", help="folder to write audit.md, audit.json and predictions.jsonl into "
                                      "(default: print markdown only)")
    parser.add_argument("--easy-hard", metavar="DIR",
                        help="write Tsuchiya's subsets: DIR/easy and DIR/hard hold, per split, the items the biased "
                             "model (query-only; hypothesis-only on a recast folder) gets right and wrong")
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument("--kb", default="kinship", help="KB giving the label vocabulary (default: kinship)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cross-validation folds (default: 0)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level (default: {ALPHA})")
    parser.add_argument("--min-count", type=int, default=MIN_WORD_COUNT,
                        help=f"stories a give-away word must appear in (default: {MIN_WORD_COUNT})")
    parser.add_argument("--strict", action="store_true",
                        help="exit with status 1 when a split exceeds the gender-prior ceiling "
                             "(on a recast folder: when the hypothesis alone beats the majority baseline)")


@dataclass
class _Audit:
    """An audit's result with what the outputs need: its items per split, the biased model, how
    to read an item's gold label and describe it, and the subsets' file type."""

    result: AuditResult
    markdown: str
    items: dict[str, Sequence]
    biased: str
    gold: Callable[[Any], str]
    describe: Callable[[int, Any], dict]
    suffix: str


def _clutrr_audit(args: argparse.Namespace) -> _Audit:
    kb = load_kb(args.kb)
    splits = read_splits(args.directory)
    with bar(sum(len(s.rows) for s in splits), desc="auditing") as progress:
        result = audit_dataset(splits, kb, seed=args.seed, alpha=args.alpha, min_count=args.min_count,
                               step=progress.update)
    return _Audit(result, render_markdown(result.report, Path(args.directory).resolve().name),
                  {s.name: s.rows for s in splits}, "query_only", lambda r: r.target,
                  lambda i, r: {"id": r.id, "k": r.k, "gold": r.target}, "csv")


def _recast_audit(args: argparse.Namespace) -> _Audit:
    with bar(desc="reading") as progress:
        splits = load_recast(args.directory, progress.update)
    with bar(sum(len(s.records) for s in splits), desc="auditing") as progress:
        result = audit_recast(splits, seed=args.seed, alpha=args.alpha, step=progress.update)
    return _Audit(result, render_recast_markdown(result.report, Path(args.directory).resolve().name),
                  {s.name: s.records for s in splits}, BIASED_MODEL, lambda r: r["label"],
                  lambda i, r: {"line": i + 1, "source_id": r.get("source_id"), "k": r.get("k"), "gold": r["label"]},
                  "jsonl")


def run(args: argparse.Namespace) -> int:
    """Run the audit; print the markdown report and write the requested outputs."""
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    if args.min_count < 1:
        raise UsageError("--min-count must be at least 1")
    recast = is_recast_folder(args.directory)
    with ExitStack() as stack:  # output folders are checked before the work and filled only when it succeeds
        out = stack.enter_context(StagedDir(args.out, force=args.force)) if args.out else None
        subsets = stack.enter_context(StagedDir(args.easy_hard, force=args.force)) if args.easy_hard else None
        audit = (_recast_audit if recast else _clutrr_audit)(args)
        report = audit.result.report
        report["directory"] = str(Path(args.directory))
        if out is not None:
            out.file("audit.md").write_text(audit.markdown, encoding="utf-8")
            out.file("audit.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            write_jsonl(out.file("predictions.jsonl"),
                        [rec for name, preds in audit.result.predictions.items()
                         for rec in prediction_records(name, audit.items[name], preds, audit.describe)])
        if subsets is not None:
            _write_subsets(subsets, audit, args.directory)
    sys.stdout.write(audit.markdown)
    return 1 if args.strict and not report["summary"]["passes"] else 0


def _write_subsets(out: StagedDir, audit: _Audit, source: str) -> None:
    for sub in (EASY, HARD):
        out.file(sub).mkdir()
    counts = {}
    for name, preds in audit.result.predictions.items():
        items = audit.items[name]
        parts = partition(items, preds.by_model[audit.biased], [audit.gold(r) for r in items])
        for sub, chosen in parts.items():
            path = out.file(sub) / f"{name}.{audit.suffix}"
            if audit.suffix == "csv":
                write_csv_rows(path, chosen)
            else:
                write_jsonl(path, chosen)
        counts[name] = {EASY: len(parts[EASY]), HARD: len(parts[HARD]), "evaluation": preds.evaluation}
    manifest = {"source": str(source), "biased_model": audit.biased,
                "easy": "items the biased model gets right", "hard": "items it gets wrong", "splits": counts}
    out.file("easy_hard.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
