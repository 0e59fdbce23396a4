"""``clutrr show``: print stories with their query and answer, from a dataset file or freshly generated."""
from __future__ import annotations

import argparse
import random

from clutrr.story.generator import GeneratorConfig, check_request, make_example
from clutrr.core.noise import NOISE_KINDS
from clutrr.errors import UsageError
from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import load_splits

NAME = "show"
HELP = "print stories with their query and answer, from a dataset folder or generated on the spot"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the show command."""
    p.add_argument("data", nargs="?", default=None,
                   help="a dataset folder; without it, stories are generated with --k, --noise, --split and --seed")
    p.add_argument("--file", default=None, help="with DATA: the file stem to read, e.g. 1.4_test (default: the first)")
    p.add_argument("-n", type=int, default=5, help="how many stories (default 5)")
    p.add_argument("--k", type=int, default=4, help="without DATA: chain length (default 4)")
    p.add_argument("--noise", default="none", help=f"without DATA: {'|'.join(NOISE_KINDS)} (default none)")
    p.add_argument("--split", default="test", help="without DATA: train or test templates and patterns (default test)")
    p.add_argument("--seed", type=int, default=0, help="which stories: a seeded sample of the file, or the generator seed")


def format_row(row: StoryRow) -> str:
    """A story, then its query, answer and relation pattern on one line."""
    head, tail = row.query
    return f"{row.story}\n  how is {tail} related to {head}? {row.target}  (pattern {row.f_comb})"


def _from_folder(args: argparse.Namespace) -> list[StoryRow]:
    splits = load_splits(args.data)
    if args.file is not None:
        chosen = [s for s in splits if s.name == args.file]
        if not chosen:
            raise UsageError(f"{args.data}: no file {args.file!r} (files: {', '.join(s.name for s in splits)})")
        rows = chosen[0].rows
    else:
        rows = splits[0].rows
    return random.Random(args.seed).sample(rows, min(args.n, len(rows)))


def _generated(args: argparse.Namespace) -> list[StoryRow]:
    config = GeneratorConfig()
    check_request(args.k, args.noise, args.split, config)
    return [make_example(config, args.k, args.noise, args.seed, i, args.split).row for i in range(args.n)]


def run(args: argparse.Namespace) -> int:
    """Print the stories, one blank line apart."""
    if args.n < 1:
        raise UsageError(f"-n must be at least 1, got {args.n}")
    rows = _from_folder(args) if args.data is not None else _generated(args)
    print("\n\n".join(format_row(r) for r in rows))
    return 0
