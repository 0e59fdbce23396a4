"""``clutrr paraphrases check [PATH]``: check a template bank against the writing rules and
measure it.

Output order: errors (the bank cannot be used as it is), flags per rule and per file (flagged
templates are dropped when generating), statistics, measures of a generated sample, and the
size and diversity targets. Exit 2 for an unusable bank; otherwise 0, or 1 with ``--strict``
when a template is flagged or a target is unmet.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.render.amt_templates import amt_pair
from clutrr.render.bank_check import TARGETS, Report, check_bank, flag_line, format_stats
from clutrr.render.statements import RULE_NAMES
from clutrr.render.usable import NO_FALLBACK

NAME = "paraphrases"
HELP = "check a template bank against the writing rules and print its measures"
SHOWN = 12  # lines of each long list printed without --all
# Mean bigram Jaccard per k of the original CLUTRR crowd (AMT) templates, as reference: measured
# as this command measures any bank (the templates that pass the checker: 1,152 of 1,346) on the
# whole of facebookresearch/clutrr templates/amt/test.json.
CROWD_BIGRAM = {1: 0.058, 2: 0.075, 3: 0.092}
# 370 templates of that file (its whole clause blocks at three places, docs/text.md) checked by this
# checker: templates dropped, and how many of 40 drops and of 40 kept templates drawn at random
# (seed 31) are real defects when read by hand (docs/text.md lists them).
CROWD_DROPPED = (56, 370)
CROWD_PRECISION = (35, 40)
CROWD_MISSED = (1, 40)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``check`` action and its options."""
    actions = p.add_subparsers(dest="action", required=True)
    check = actions.add_parser("check", help=HELP, description=HELP)
    check.add_argument("path", nargs="?", default="paraphrase",
                       help="paraphrase (default), synthetic, a YAML file or directory, or an AMT-format JSON file "
                            "(X.train.json checks the pair X.train.json + X.test.json)")
    check.add_argument("--fallback-templates", default="paraphrase",
                       help="bank that fills the one-fact clauses PATH lacks, as in generate (default paraphrase; none)")
    check.add_argument("--strict", action="store_true",
                       help="exit 1 when a template is flagged (a role-only fact among them) or a target is unmet")
    check.add_argument("--no-targets", action="store_true", help="do not report the size and diversity targets")
    check.add_argument("--no-sample", action="store_true", help="skip the measures of a generated sample")
    check.add_argument("--all", action="store_true", help="list every flag and every unmet target")
    check.add_argument("--clauses", action="store_true", help="also print the template counts of every clause")


def _usable(path: str, fallback: str) -> str | None:
    """Why the generator cannot use the bank (None when it can)."""
    from clutrr.story.generator import GeneratorConfig, banks

    try:
        banks(GeneratorConfig(templates=path, fallback_templates=fallback), 0)
    except UsageError as exc:
        return str(exc)
    return None


def _listed(lines: list[str], show_all: bool, what: str) -> list[str]:
    if show_all or len(lines) <= SHOWN:
        return [f"  {x}" for x in lines]
    return [f"  {x}" for x in lines[:SHOWN]] + [f"  ... {len(lines) - SHOWN} more {what} (--all lists them)"]


def _flag_lines(report: Report, show_all: bool) -> list[str]:
    dropped, repaired = report.dropped, report.repaired
    out = [f"flags: {len(dropped)} of {len(report.entries)} templates flagged (dropped when generating)"
           + (f", {len(repaired)} more with prose repaired when rendered" if repaired else "")]
    for rule, n in report.by_rule().items():
        out.append(f"  rule {rule} ({RULE_NAMES[rule]}): {n} templates")
    kinds = report.kinds()
    out.append(f"facts told without their owner: {kinds.get('role-only', 0)} templates role-only, "
               f"{kinds.get('unstated', 0)} unstated; dangling appositives: {kinds.get('dangling', 0)}; "
               f"ages, dates, marriage lengths, step-families: {kinds.get('world', 0)}; "
               f"extra named people: {kinds.get('extra-person', 0)}")
    out.append(f"templates naming a person twice in one sentence: {kinds.get('repeated-name', 0)} (kept; "
               "their share of generated sentences is measured below)")
    by_file = report.by_file()
    if len(by_file) > 1:
        out.append("dropped per file:")
        out += _listed([f"{n:5d}  {f}" for f, n in sorted(by_file.items(), key=lambda kv: -kv[1])], show_all, "files")
    shown = [(e, f) for e, f in report.flags if f.drops or f.rule == "8"]
    notes = [(e, f) for e, f in report.flags if not (f.drops or f.rule == "8")]
    if shown:
        out.append("flags:")
        out += _listed([flag_line(e, f) for e, f in shown], show_all, "flags")
    if notes:
        out.append("notes (kept when generating):")
        out += _listed([flag_line(e, f) for e, f in notes], show_all, "notes")
    return out


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _sample_lines(path: str, fallback: str, report: Report) -> list[str]:
    from clutrr.story.sample import FRAME_KS, FRAME_SENTENCES, SAMPLE_KS, frame_summary, sample_summary

    per_k = 40
    m = sample_summary(path, fallback, per_k=per_k)
    frames = frame_summary(path, fallback)
    ks = f"k={SAMPLE_KS.start}..{SAMPLE_KS.stop - 1}"
    out = [f"generated sample: {m['stories']} test stories ({per_k} per k, {ks}, noise all)",
           "  chain spans covered by the bank's own templates: "
           + ", ".join(f"k={k} {_pct(v)}" for k, v in m["coverage"].items()),
           f"  pieces from the fallback bank: {_pct(m['fallback_share'])}",
           f"  chain facts inside multi-fact pieces (k=4..10): {_pct(m['multi_fact_share'])} (goal >= 60%)",
           f"  stories with a self-possessive \"[X] ... [X]'s\": {_pct(m['self_possessive_share'])} (goal < 3%)",
           f"  stories using a template twice: {_pct(m['reused_template_share'])}"]
    bigram = []
    for k, s in report.stats.items():
        crowd = CROWD_BIGRAM.get(k)
        bigram.append(f"k={k} {s.jaccard_bigram:.3f}" + (f" (crowd {crowd:.3f})" if crowd is not None else ""))
    out.append("  bigram Jaccard: " + ", ".join(bigram))
    spans = {split: f"k={min(ks)}..{max(ks)}" if len(ks) > 2 else "k=" + ",".join(map(str, ks))
             for split, ks in FRAME_KS.items()}
    out.append(f"first {FRAME_SENTENCES} sentences of each split ("
               + ", ".join(f"{split} {span}" for split, span in spans.items()) + "):")
    out.append("  distinct sentence frames: " + ", ".join(f"{split} {_pct(v['distinct_frames'])}"
                                                        for split, v in frames.items()) + " (goal: test >= train - 2 points)")
    out.append("  sentences naming a person twice: " + ", ".join(f"{split} {_pct(v['repeated_name'])}"
                                                             for split, v in frames.items()) + " (goal < 1%)")
    dropped, total = CROWD_DROPPED
    real, read = CROWD_PRECISION
    missed, kept = CROWD_MISSED
    out.append(f"crowd reference (part of the original AMT test file): this checker drops {dropped} of {total} "
               f"templates ({100 * dropped / total:.1f}%); read by hand, {real} of {read} drops are real defects "
               f"and {missed} of {kept} kept templates is one")
    return out


def _target_lines(report: Report, show_all: bool) -> list[str]:
    out = [f"targets (a report; --strict fails on them): k=1 >= {TARGETS['k1_per_gender']} per A gender, valid "
           f"k=2 >= {TARGETS['k2_per_gender']} per A gender, >= {TARGETS['k3_clauses']} k=3 clauses with >= "
           f"{TARGETS['k3_per_clause']}, total >= {TARGETS['total']}, Jaccard <= {TARGETS['jaccard_unigram']} / "
           f"{TARGETS['jaccard_bigram']}, unique words >= {TARGETS['unique_words']}"]
    groups: dict[str, int] = {}
    for line in report.unmet:
        kind = line.split(":")[0].split(" ")[0]
        groups[kind] = groups.get(kind, 0) + 1
    out.append(f"unmet targets: {len(report.unmet)}"
               + (" (" + ", ".join(f"{k}: {n}" for k, n in groups.items()) + ")" if report.unmet else ""))
    out += _listed(report.unmet, show_all, "unmet targets")
    return out


def run(args: argparse.Namespace) -> int:
    """Print errors, flags, statistics, sample measures and targets; see the module docstring."""
    path, fallback = args.path, args.fallback_templates
    if path not in ("paraphrase", "synthetic") and not Path(path).exists() and amt_pair(path) is None:
        raise UsageError(f"no such file or directory: {path}")
    pair = amt_pair(path)
    report = check_bank(path, targets=not args.no_targets)
    print(f"bank: {path} ({len(report.entries)} templates)")
    if pair is not None:
        print(f"note: {Path(path).name} names a train/test pair; both {pair[0].name} and {pair[1].name} are checked")
    unusable = None if report.errors else _usable(path, fallback)
    errors = report.errors + ([unusable] if unusable else [])
    print(f"errors: {len(errors)}" + (" (the bank cannot be used as it is)" if errors else ""))
    for line in _listed(errors, args.all, "errors"):
        print(line)
    for line in _flag_lines(report, args.all):
        print(line)
    if report.entries:
        print()
        for line in format_stats(report):
            print(line)
    if not errors and not args.no_sample:
        print()
        for line in _sample_lines(path, fallback if fallback != path else NO_FALLBACK, report):
            print(line)
    if args.clauses:
        print(f"\n{'clause':40s} {'any':>5s} {'male':>5s} {'female':>6s}")
        for clause, counts in report.counts.items():
            print(f"{'-'.join(clause):40s} {counts['any']:5d} {counts['male']:5d} {counts['female']:6d}")
    if not args.no_targets:
        print()
        for line in _target_lines(report, args.all):
            print(line)
    if errors:
        return 2
    return 1 if args.strict and (report.dropped or report.repaired or report.unmet) else 0
