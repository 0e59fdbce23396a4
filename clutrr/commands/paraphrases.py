"""``clutrr paraphrases check [PATH]``: validate a template bank and print its statistics."""
from __future__ import annotations

import argparse
from pathlib import Path

from clutrr.render.amt_templates import amt_pair
from clutrr.render.bank_check import TARGETS, check_bank, format_stats
from clutrr.errors import UsageError

NAME = "paraphrases"
HELP = "check the paraphrase bank (or a bank at PATH) and print its statistics"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``check`` action and its options."""
    actions = p.add_subparsers(dest="action", required=True)
    check = actions.add_parser("check", help=HELP, description=HELP)
    check.add_argument("path", nargs="?", default="paraphrase",
                       help="paraphrase (default), synthetic, a YAML file or directory, or an AMT-format JSON file")
    check.add_argument("--no-targets", action="store_true",
                       help="check the templates only, not the bank's size and diversity targets")
    check.add_argument("--clauses", action="store_true", help="also print the template counts of every clause")


def run(args: argparse.Namespace) -> int:
    """Print statistics, then problems and unmet targets one per line; 1 if any, else 0."""
    if args.path not in ("paraphrase", "synthetic") and not Path(args.path).exists() and amt_pair(args.path) is None:
        raise UsageError(f"no such file or directory: {args.path}")
    report = check_bank(args.path, targets=not args.no_targets)
    if not report.entries and report.problems:
        for line in report.problems:
            print(line)
        return 1
    print(f"bank: {args.path} ({len(report.entries)} templates)")
    for line in format_stats(report):
        print(line)
    if args.clauses:
        print(f"\n{'clause':40s} {'any':>5s} {'male':>5s} {'female':>6s}")
        for clause, counts in report.counts.items():
            print(f"{'-'.join(clause):40s} {counts['any']:5d} {counts['male']:5d} {counts['female']:6d}")
    if not args.no_targets:
        print(f"\ntargets: k=1 >= {TARGETS['k1_per_gender']} per A gender, valid k=2 >= {TARGETS['k2_per_gender']} "
              f"per A gender, k=3 >= {TARGETS['k3_per_clause']}, total >= {TARGETS['total']}, Jaccard <= "
              f"{TARGETS['jaccard_unigram']} / {TARGETS['jaccard_bigram']}, unique words >= {TARGETS['unique_words']}")
        print(f"unmet targets: {len(report.unmet)}")
        for line in report.unmet:
            print(f"  {line}")
    print(f"problems: {len(report.problems)}")
    for line in report.problems:
        print(f"  {line}")
    return 0 if report.ok else 1
