"""``clutrr show``: print stories with their query and answer, from a dataset file or freshly generated."""
from __future__ import annotations

import argparse
import json
import random
from typing import Iterator

from clutrr.commands.generate import depth_arg
from clutrr.story.systems import kinship_fields
from clutrr.core.memory import QUERY_KINDS
from clutrr.core.noise import NOISE_KINDS
from clutrr.story.generator import GeneratorConfig, check_request, make_example
from clutrr.diagnostics.progress import bar
from clutrr.errors import UsageError
from clutrr.graph.items import item_stories
from clutrr.graph.output import draw_stories
from clutrr.graph.story import answer_lines
from clutrr.io.csv_format import StoryRow, iter_records
from clutrr.io.datadir import load_splits
from clutrr.questions.forms import QUESTION_KINDS, RELATION, Question

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
    p.add_argument("--query", default="reasoning", choices=QUERY_KINDS,
                   help="without DATA: what stories ask, as clutrr generate --query (default reasoning)")
    p.add_argument("--question", default=RELATION, choices=QUESTION_KINDS,
                   help="without DATA: the question form, as clutrr generate --question (default relation)")
    p.add_argument("--context-words", type=int, default=0,
                   help="without DATA: pad each story to about N words, as clutrr generate (default 0: none)")
    p.add_argument("--depth", default="spread",
                   help="without DATA: where a padded story's own sentences go, as clutrr generate (default spread)")
    p.add_argument("--kinship", default=None, metavar="NAME|PATH",
                   help="without DATA: stories in a kinship system's terms, as clutrr generate --kinship")
    p.add_argument("--draw", metavar="FILE", default=None,
                   help="also draw each story's graph to FILE (.svg or .png; several: FILE-1.svg, FILE-2.svg, ...)")
    p.add_argument("--items", metavar="ITEMS", default=None,
                   help="with DATA: the stories of clutrr eval's items.jsonl, with each model's answer")
    p.add_argument("--model", default=None, help="with --items: one model's answers only")
    p.add_argument("--wrong", action="store_true", help="with --items: only stories a model got wrong")


def format_row(row: StoryRow, asked: Question | None = None) -> str:
    """A story, then its query, answer and relation pattern on one line (the question ``asked``
    of another form than relation, with its form, when given)."""
    if asked is not None and asked.form != RELATION:
        answer = ", ".join(asked.answer) if isinstance(asked.answer, list) else asked.answer
        names = [n for n, _ in row.genders]
        return f"{row.story}\n  {asked.text(names)} {answer}  ({asked.form}; pattern {row.f_comb})"
    head, tail = row.query
    return f"{row.story}\n  how is {tail} related to {head}? {row.target}  (pattern {row.f_comb})"


def _from_folder(args: argparse.Namespace) -> list[tuple[StoryRow, StoryRow, Question | None]]:
    splits = load_splits(args.data)
    if args.file is not None:
        chosen = [s for s in splits if s.name == args.file]
        if not chosen:
            raise UsageError(f"{args.data}: no file {args.file!r} (files: {', '.join(s.name for s in splits)})")
        split = chosen[0]
    else:
        split = splits[0]
    asked = _questions(split.path)
    rows = random.Random(args.seed).sample(split.rows, min(args.n, len(split.rows)))
    return [(r, r, asked.get(r.id)) for r in rows]


def _questions(path) -> dict[str, Question]:
    """Row id -> the question of another form a CSV file's row asks (its question columns; none
    in a file of relation questions)."""
    out = {}
    for _, rec in iter_records(path):
        if rec.get("form") not in (None, RELATION):
            out[rec["id"]] = Question(rec["form"], tuple(json.loads(rec["form_query"])), rec["form_target"],
                                      json.loads(rec["answer"]))
    return out


def _generated(args: argparse.Namespace) -> Iterator[tuple[StoryRow, StoryRow, Question | None]]:
    system = kinship_fields(args.kinship) if args.kinship else {}
    config = GeneratorConfig(query=args.query, context_words=args.context_words, depth=depth_arg(args.depth),
                             question=args.question, **system)
    config.validate()
    check_request(args.k, args.noise, args.split, config)
    for i in range(args.n):
        ex = make_example(config, args.k, args.noise, args.seed, i, args.split)
        yield ex.row, ex.row, ex.question


def _text(row: StoryRow, source, asked: Question | None = None) -> str:
    """A story as :func:`format_row` prints it, with the answers of an evaluated item below."""
    return "\n".join([format_row(row, asked), *(f"  {line}" for line in answer_lines(source))])


def run(args: argparse.Namespace) -> int:
    """Print the stories, one blank line apart, each as soon as it is made."""
    if args.n < 1:
        raise UsageError(f"-n must be at least 1, got {args.n}")
    if args.data is not None and (args.query != "reasoning" or args.context_words or args.depth != "spread"
                                  or args.question != RELATION):
        raise UsageError("--query, --question, --context-words and --depth go with generated stories (without DATA)")
    if args.items is None and (args.model is not None or args.wrong):
        raise UsageError("--model and --wrong go with --items")
    if args.items is not None:
        if args.data is None:
            raise UsageError("--items needs DATA, the dataset folder the evaluation ran on")
        shown = ((row, src, None) for row, src in item_stories(args.items, args.data, model=args.model,
                                                               file=args.file, wrong=args.wrong, n=args.n,
                                                               seed=args.seed))
    elif args.data is not None:
        shown = _from_folder(args)
    else:
        shown = _generated(args)
    if args.draw is not None:  # every picture's target is checked before any is drawn: all stories first
        shown = list(shown)
        with bar(len(shown), "drawing", unit="story") as progress:
            paths = draw_stories([src for _, src, _ in shown], args.draw, step=progress.update)
        print("\n\n".join(f"{_text(row, src, asked)}\n  picture: {path}"
                           for (row, src, asked), path in zip(shown, paths)))
        return 0
    for i, (row, src, asked) in enumerate(shown):
        print(("\n" if i else "") + _text(row, src, asked), flush=True)
    return 0
