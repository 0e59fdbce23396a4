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
from clutrr.commands.kinship import kb_argument
from clutrr.core.kb import load_kb
from clutrr.diagnostics.audit import (
    ALPHA, CLUTRR_COLUMNS, MIN_WORD_COUNT, PREMISE_UNK, AuditResult, audit_dataset, render_markdown,
)
from clutrr.diagnostics.easy_hard import (
    EASY, HARD, halves, indistinct, partition, prediction_records, render_halves, weak_splits, write_csv_rows,
    write_jsonl,
)
from clutrr.diagnostics.giveaway import RANKS
from clutrr.diagnostics.nli_audit import (
    COLUMNS, HYP_ENCODER, HYP_NB, Encoder, audit_recast, is_recast_folder, load_recast, render_recast_markdown,
)
from clutrr.diagnostics.progress import bar, read_splits
from clutrr.diagnostics.stats import GREATER, TWO_SIDED
from clutrr.errors import UsageError
from clutrr.eval.models import load_callable
from clutrr.io.staging import StagedDir

NAME = "audit"
HELP = ("audit a dataset for label artifacts: majority, query-only and story-bag baselines, give-away words; "
        "on a recast folder, the hypothesis-only baselines and the overlap heuristic")
# Hypothesis-only encoders by name, found by import path when a recast folder is audited (as
# `clutrr robustness` finds a model function), so the diagnostics never import the baselines.
ENCODERS = {"bilstm": "clutrr.baselines.hypothesis_only:fit_predict"}
SIGN_TESTS = {"two-sided": TWO_SIDED, "one-sided": GREATER}
CLUTRR_BIASED = ("query_only", "story_bag", PREMISE_UNK)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr audit``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files (one split per file), or a folder written by "
                                          "`clutrr recast`")
    parser.add_argument("--out", help="folder to write audit.md, audit.json and predictions.jsonl into "
                                      "(default: print markdown only)")
    parser.add_argument("--easy-hard", metavar="DIR",
                        help="write Tsuchiya's subsets: DIR/easy and DIR/hard hold, per split, the items the biased "
                             "model gets right and wrong")
    parser.add_argument("--biased", metavar="MODEL",
                        help="the model that defines easy and hard: query_only (default), story_bag or premise_unk; on "
                             "a recast folder hypothesis_encoder (default when it runs), hypothesis_nb, premise_unk or "
                             "overlap")
    parser.add_argument("--force-split", action="store_true",
                        help="write easy and hard even where the biased model does not beat the majority baseline "
                             "significantly (Tsuchiya's split is meaningful only where it does); says so on stderr")
    parser.add_argument("--giveaway", action="store_true",
                        help="on a recast folder, the give-away words of the hypotheses as in Poliak's dissertation "
                             "(§5.5: per-label lists and the coverage curve); a CLUTRR folder's report always has "
                             "its stories' give-away words")
    parser.add_argument("--per-class", action="store_true",
                        help="add each model's per-class accuracy to the markdown (audit.json always has it, with "
                             "the confusion matrices)")
    parser.add_argument("--figures", action="store_true",
                        help="with --out: write confusion_<split>.png per split (and giveaway_coverage.png with "
                             "--giveaway); needs matplotlib")
    parser.add_argument("--encoder", default="bilstm", metavar="NAME|MODULE:FUNCTION",
                        help="hypothesis-only encoder of a recast folder: bilstm (default; needs PyTorch, skipped "
                             "with a note without it), none, or a function fit_predict(train_texts, train_labels, "
                             "train_groups, test_texts, seed) -> {'predictions': [...]}")
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument("--kb", default="kinship", help="KB giving the label vocabulary (default: kinship)")
    parser.add_argument("--kinship", default=None, metavar="NAME|PATH",
                        help="the kinship system the stories were generated in (as clutrr generate --kinship)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cross-validation folds (default: 0)")
    parser.add_argument("--alpha", type=float, default=ALPHA, help=f"significance level (default: {ALPHA})")
    parser.add_argument("--sign-test", choices=tuple(SIGN_TESTS), default="two-sided",
                        help="two-sided (default, Tsuchiya's test of a difference) or one-sided (the model is better)")
    parser.add_argument("--min-count", type=int, default=MIN_WORD_COUNT,
                        help=f"stories a give-away word must appear in (default: {MIN_WORD_COUNT})")
    parser.add_argument("--giveaway-rank", choices=RANKS, default="p",
                        help="order of the give-away words: by p (default) or by frequency (as Poliak et al.)")
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
    columns: dict[str, str]


def _clutrr_audit(args: argparse.Namespace) -> _Audit:
    if args.biased not in (None, *CLUTRR_BIASED):
        raise UsageError(f"--biased {args.biased!r}: a CLUTRR folder's biased model is one of {', '.join(CLUTRR_BIASED)}")
    kb = load_kb(kb_argument(args))
    splits = read_splits(args.directory)
    with bar(sum(len(s.rows) for s in splits), desc="auditing") as progress:
        result = audit_dataset(splits, kb, seed=args.seed, alpha=args.alpha, min_count=args.min_count,
                               step=progress.update, alternative=SIGN_TESTS[args.sign_test], rank=args.giveaway_rank)
    return _Audit(result, render_markdown(result.report, Path(args.directory).resolve().name, args.per_class),
                  {s.name: s.rows for s in splits}, args.biased or "query_only", lambda r: r.target,
                  lambda i, r: {"id": r.id, "k": r.k, "gold": r.target}, "csv", CLUTRR_COLUMNS)


def load_encoder(spec: str) -> Encoder:
    """The hypothesis-only encoder named by ``--encoder``: a built-in one whose dependencies are
    missing is skipped with the reason; a user's function that cannot be imported is an error."""
    if spec == "none":
        return Encoder(None, "--encoder none")
    if spec not in ENCODERS and ":" not in spec:
        raise UsageError(f"--encoder takes {', '.join(ENCODERS)}, none or MODULE:FUNCTION, not {spec!r}")
    try:
        return Encoder(load_callable(ENCODERS.get(spec, spec)))
    except UsageError as exc:
        if spec in ENCODERS:
            return Encoder(None, str(exc))
        raise


def _recast_audit(args: argparse.Namespace) -> _Audit:
    encoder = load_encoder(args.encoder)
    with bar(desc="reading") as progress:
        splits = load_recast(args.directory, progress.update)
    with bar(sum(len(s.records) for s in splits), desc="auditing") as progress:
        result = audit_recast(splits, seed=args.seed, alpha=args.alpha, step=progress.update, encoder=encoder,
                              alternative=SIGN_TESTS[args.sign_test], giveaway=args.giveaway,
                              min_count=args.min_count)
    models = result.report["models"]
    biased = args.biased or (HYP_ENCODER if HYP_ENCODER in models else HYP_NB)
    if biased not in models:
        raise UsageError(f"--biased {biased!r}: this recast audit ran {', '.join(models)}")
    return _Audit(result, render_recast_markdown(result.report, Path(args.directory).resolve().name, args.per_class),
                  {s.name: s.records for s in splits}, biased, lambda r: r["label"],
                  lambda i, r: {"line": i + 1, "source_id": r.get("source_id"), "k": r.get("k"), "gold": r["label"]},
                  "jsonl", {**COLUMNS, "majority": "majority"})


def run(args: argparse.Namespace) -> int:
    """Run the audit; print the markdown report and write the requested outputs."""
    if not 0 < args.alpha < 1:
        raise UsageError("--alpha must be between 0 and 1")
    if args.min_count < 1:
        raise UsageError("--min-count must be at least 1")
    if args.figures and not args.out:
        raise UsageError("--figures writes into the --out folder: give --out")
    if args.force_split and not args.easy_hard:
        raise UsageError("--force-split only applies to --easy-hard")
    if args.figures:
        from clutrr.diagnostics.figures import require

        require()
    recast = is_recast_folder(args.directory)
    with ExitStack() as stack:  # output folders are checked before the work and filled only when it succeeds
        out = stack.enter_context(StagedDir(args.out, force=args.force)) if args.out else None
        subsets = stack.enter_context(StagedDir(args.easy_hard, force=args.force)) if args.easy_hard else None
        audit = (_recast_audit if recast else _clutrr_audit)(args)
        report = audit.result.report
        report["directory"] = str(Path(args.directory))
        if subsets is not None:
            report["easy_hard"] = _easy_hard(audit, args.force_split)
            audit.markdown += "\n".join(render_halves(report["easy_hard"]["splits"], audit.biased, audit.columns)) + "\n"
        if out is not None:
            out.file("audit.md").write_text(audit.markdown, encoding="utf-8")
            out.file("audit.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
            write_jsonl(out.file("predictions.jsonl"),
                        [rec for name, preds in audit.result.predictions.items()
                         for rec in prediction_records(name, audit.items[name], preds, audit.describe)])
            if args.figures:
                _figures(out, report, audit.columns)
        if subsets is not None:
            _write_subsets(subsets, audit, report["easy_hard"], args.directory)
    sys.stdout.write(audit.markdown)
    return 1 if args.strict and not report["summary"]["passes"] else 0


def _figures(out: StagedDir, report: dict, columns: dict[str, str]) -> None:
    from clutrr.diagnostics.figures import plot_confusions, plot_coverage

    for sp in report["splits"]:
        plot_confusions(sp["split"], sp["classes"], columns, out.file(f"confusion_{sp['split']}.png"))
    if report.get("kind") == "recast" and report["splits"] and "giveaway" in report["splits"][0]:
        plot_coverage({sp["split"]: sp["giveaway"] for sp in report["splits"]}, out.file("giveaway_coverage.png"))


def _easy_hard(audit: _Audit, force: bool = False) -> dict:
    """Each split's halves. UsageError when the biased model cannot tell the items of a split
    apart, or (unless ``force``) does not beat the majority baseline significantly in it."""
    name = audit.columns.get(audit.biased, audit.biased)
    same = indistinct(audit.result.predictions, audit.biased)
    if same:
        raise UsageError(f"--easy-hard: the {name} model cannot tell the "
                         f"items of {same[0]} apart (one answer for all, or its labels tie on every item), so easy "
                         "and hard would only split the gold labels; choose another --biased model")
    report = audit.result.report
    weak = weak_splits(report["splits"], audit.biased)
    if weak and not force:
        raise UsageError(f"--easy-hard: the {name} model does not beat the majority baseline significantly "
                         f"(p < {report['alpha']}) in {', '.join(weak)}, so its easy and hard halves follow its "
                         "label leaning, not a bias; --force-split writes them anyway")
    if weak:
        print(f"clutrr audit: --force-split: easy and hard written although the {name} model does not beat the "
              f"majority baseline significantly in {', '.join(weak)}", file=sys.stderr)
    return {"biased_model": audit.biased, "forced_in": weak, "easy": "items the biased model gets right",
            "hard": "items it gets wrong",
            "splits": {name: {**halves(preds, audit.biased, [audit.gold(r) for r in audit.items[name]]),
                              "evaluation": preds.evaluation}
                       for name, preds in audit.result.predictions.items()}}


def _write_subsets(out: StagedDir, audit: _Audit, manifest: dict, source: str) -> None:
    for sub in (EASY, HARD):
        out.file(sub).mkdir()
    for name, preds in audit.result.predictions.items():
        items = audit.items[name]
        parts = partition(items, preds.by_model[audit.biased], [audit.gold(r) for r in items])
        for sub, chosen in parts.items():
            path = out.file(sub) / f"{name}.{audit.suffix}"
            if audit.suffix == "csv":
                write_csv_rows(path, chosen)
            else:
                write_jsonl(path, chosen)
    out.file("easy_hard.json").write_text(json.dumps({"source": str(source), **manifest}, indent=2) + "\n",
                                          encoding="utf-8")
