"""``clutrr generate`` (also ``python generate.py`` and ``clutrr-generate``): write a dataset."""
from __future__ import annotations

import argparse
import os
import signal
import sys

from clutrr.commands.console import Parser, run_command
from clutrr.commands.kinship import kb_argument
from clutrr.story.systems import kinship_fields
from clutrr.engines import engine_names
from clutrr.engines.base import STALL_SECONDS
from clutrr.engines.resources import capped_workers, usable_cpus
from clutrr.io.ownership import DISCARD_EDITS_HELP, FORCE_HELP
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import ROWS_PER_SHARD, DatasetSpec, RunOptions
from clutrr.io.formats import parse_formats
from clutrr.errors import UsageError
from clutrr.core.family import FamilyConfig
from clutrr.story.generator import MAX_K, GeneratorConfig
from clutrr.core.kb import load_kb
from clutrr.core.memory import QUERY_KINDS
from clutrr.core.noise import NOISE_KINDS
from clutrr.questions.forms import QUESTION_KINDS
from clutrr.render.placement import parse_depth

NAME = "generate"
HELP = "generate train/test splits of CLUTRR-style stories"
MEMORY_ADVICE = "fewer rows or --workers, smaller families, shorter --context-words"


def parse_ks(text: str, flag: str = "--k") -> tuple[int, ...]:
    """Parse '2,3', '2..10' or a mix like '2,4..6' into sorted distinct lengths; ``none`` gives
    no lengths. Each range is checked against 1..MAX_K before it is expanded; UsageError for an
    empty list or range."""
    if text.strip().lower() == "none":
        return ()
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            lo, hi = (int(x) for x in part.split("..")) if ".." in part else (int(part), int(part))
        except ValueError:
            raise UsageError(f"bad list of lengths {text!r} for {flag} (use e.g. 2,3 or 2..10)") from None
        bad = [k for k in (lo, hi) if k < 1 or k > MAX_K]
        if bad:
            raise UsageError(f"k must be between 1 and {MAX_K}, got {bad[0]}")
        if lo > hi:
            raise UsageError(f"{flag} {text!r}: the range {part} is empty (write the shorter length first)")
        out.update(range(lo, hi + 1))
    if not out:
        raise UsageError(f"{flag} is empty: give lengths such as 2,3 or 2..10 (or none, for no such files)")
    return tuple(sorted(out))


def parse_noise(text: str) -> tuple[str, ...]:
    """Parse a comma-separated list of noise types."""
    kinds = tuple(t.strip() for t in text.split(",") if t.strip())
    for kind in kinds:
        if kind not in NOISE_KINDS:
            raise UsageError(f"unknown noise type {kind!r} (choose from {', '.join(NOISE_KINDS)})")
    return kinds


def depth_arg(text: str) -> str:
    """Parse --depth: a share in [0, 1] or spread, as the canonical string the records carry."""
    try:
        return parse_depth(text)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the generate command."""
    p.add_argument("--k", default="2,3", help="training chain lengths, e.g. 2,3 (default 2,3; none: no training file)")
    p.add_argument("--test-k", default="2..10", help="test chain lengths (default 2..10; none: no test files)")
    p.add_argument("--noise", default="none", help=f"noise in training stories: {'|'.join(NOISE_KINDS)} (default none)")
    p.add_argument("--test-noise", default=None, help="comma-separated noise types of the test files (default: --noise)")
    p.add_argument("--noise-facts", type=int, default=2, help="facts per noise type in a story (default 2)")
    p.add_argument("--train-rows", type=int, default=5000, help="training rows per k (default 5000)")
    p.add_argument("--test-rows", type=int, default=1000, help="test rows per k and noise type (default 1000)")
    p.add_argument("--holdout", type=float, default=0.1, help="share of k>2 patterns kept out of training (default 0.1)")
    p.add_argument("--seed", type=int, default=0, help="random seed: fixes every byte of the output (default 0)")
    p.add_argument("--out", default="data/clutrr", help="output directory (default data/clutrr)")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--discard-edits", action="store_true", help=DISCARD_EDITS_HELP)
    p.add_argument("--workers", type=int, default=None,
                   help="worker processes (local engine, default 1) or CPUs of a local Ray instance (default all);"
                        " at most the CPUs this process may use, and never more than the tasks; output is identical"
                        " for any number")
    p.add_argument("--stall-timeout", type=float, default=STALL_SECONDS, metavar="SECONDS",
                   help=f"with --workers above 1: when no task finishes for this long (a worker stopped or frozen),"
                        f" the workers are killed and their tasks run again, at most 3 times (default {STALL_SECONDS:g})")
    p.add_argument("--oversubscribe", action="store_true",
                   help="allow --workers above the CPU count (still checked against the memory available)")
    p.add_argument("--engine", default="local", choices=engine_names(),
                   help="where tasks run: local processes (default) or ray (pip install 'clutrr[ray]')")
    p.add_argument("--address", default=None, help="with --engine ray: a running Ray cluster (auto or HOST:PORT)")
    p.add_argument("--format", default="csv,jsonl", help="output formats, any of csv,jsonl,parquet (default csv,jsonl)")
    p.add_argument("--rows-per-shard", type=int, default=ROWS_PER_SHARD,
                   help=f"rows per shard file; a file with more rows is cut into shards (default {ROWS_PER_SHARD:,})")
    p.add_argument("--shard", type=int, default=None,
                   help="generate only the shards s with s %% NUM_SHARDS == SHARD (one job of an array); "
                        "then run the same command with --resume to assemble")
    p.add_argument("--num-shards", type=int, default=None, help="number of jobs sharing the shards (with --shard)")
    p.add_argument("--resume", action="store_true",
                   help="keep finished shards when stopped, and skip shards already finished by an earlier run")
    p.add_argument("--kb", default="kinship",
                   help="KB: kinship (default), kinship-blood, or a rules file marked sound (clutrr_v1 is not)")
    p.add_argument("--kinship", default=None, metavar="NAME|PATH",
                   help="tell stories in a kinship system's terms: a built-in terminology (eskimo, hawaiian, "
                        "sudanese, iroquois, dravidian, crow, omaha) or a terminology file; its rules are derived "
                        "and proved sound, and its own one-fact sentences replace the default templates")
    p.add_argument("--templates", default="paraphrase", help="templates: paraphrase (the bank), synthetic (one plain sentence per fact), or a YAML/AMT JSON path (default paraphrase)")
    p.add_argument("--fallback-templates", default="paraphrase",
                   help="bank that fills the one-fact clauses --templates lacks (default paraphrase; none: no filling)")
    p.add_argument("--no-template-split", action="store_true", help="let test stories reuse train templates")
    p.add_argument("--max-piece", type=int, default=3, help="most facts one template may cover (1-3, default 3)")
    p.add_argument("--no-brackets", action="store_true", help="write names without [brackets]")
    p.add_argument("--relations", default="all", help="relation words stories may state and ask: all, or a vocabulary of kb_rules/vocabularies.yaml such as clutrr_v1 (the original release's words; default all)")
    p.add_argument("--query", default="reasoning", choices=QUERY_KINDS,
                   help="what stories ask: reasoning (tasks 1-5, by noise), memory (task 6: a relation the story "
                        "states) or mixed (task 7: half of each) (default reasoning)")
    p.add_argument("--question", default="relation", choices=QUESTION_KINDS,
                   help="the question form: relation (how is Y related to X?, default), person (who is X's aunt?), "
                        "people (which people are X's nieces?), count (how many are X's grandsons?), yesno "
                        "(is Y X's nephew?) or mixed (the five in equal shares); see docs/questions.md")
    p.add_argument("--difficulty", action="store_true",
                   help="JSONL/Parquet rows carry a difficulty record: facts, distractors touching the chain, "
                        "paths between the query's people (docs/scale.md)")
    p.add_argument("--context-words", type=int, default=0,
                   help="pad each story to about N words with true facts about other families (default 0: none)")
    p.add_argument("--depth", default="spread",
                   help="where a padded story's own sentences go: a share of the padding in [0, 1] (0 = first, "
                        "1 = last) or spread (evenly through it; default)")
    p.add_argument("--generations", type=int, default=3, help="family generations (default 3)")
    p.add_argument("--min-children", type=int, default=1, help="fewest children per couple (default 1)")
    p.add_argument("--max-children", type=int, default=4, help="most children per couple (default 4)")
    p.add_argument("--p-marry", type=float, default=0.8, help="probability that a child marries (default 0.8)")
    p.add_argument("--p-female", type=float, default=0.5, help="probability that a child is female (default 0.5)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


UNRECORDED_DEFAULTS = {("question", "relation"), ("kinship", None), ("difficulty", False)}
RUNTIME_ONLY = ("out", "workers", "oversubscribe", "stall_timeout", "force", "discard_edits", "quiet", "command", "engine",
                "address", "shard", "num_shards", "resume")


def recorded_arguments(args: argparse.Namespace) -> dict:
    """The arguments config.json records: all but those that cannot change the data (and
    --question, --kinship and --difficulty when they are the default, so a default run's config.json keeps its bytes)."""
    return {k: v for k, v in vars(args).items() if not k.startswith("_") and k not in RUNTIME_ONLY
            and (k, v) not in UNRECORDED_DEFAULTS}


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def spec_from_args(args: argparse.Namespace) -> DatasetSpec:
    """The dataset spec the arguments ask for (UsageError on a bad list of lengths or noise types)."""
    noise = parse_noise(args.noise)
    if len(noise) != 1:
        raise UsageError("--noise takes exactly one noise type")
    test_noise = parse_noise(args.test_noise) if args.test_noise is not None else noise
    kb, templates, fallback = kinship_choice(args)
    config = GeneratorConfig(
        kb=kb,
        family=FamilyConfig(args.generations, args.min_children, args.max_children, args.p_marry, args.p_female),
        noise_facts=args.noise_facts, holdout=args.holdout, templates=templates,
        fallback_templates=fallback, template_split=not args.no_template_split, max_piece=args.max_piece, brackets=not args.no_brackets,
        relations=args.relations, query=args.query, context_words=args.context_words, depth=depth_arg(args.depth),
        question=args.question, difficulty=args.difficulty,
    )
    return DatasetSpec(
        train_k=parse_ks(args.k), test_k=parse_ks(args.test_k, "--test-k"), noise=noise[0], test_noise=test_noise,
        train_rows=args.train_rows, test_rows=args.test_rows, seed=args.seed, config=config,
    )


def kinship_choice(args: argparse.Namespace) -> tuple[str, str, str]:
    """(KB, templates, fallback templates) of the arguments: with ``--kinship``, the compiled KB of
    the terminology and its own sentences (unless other --templates are given), no fallback."""
    kb = kb_argument(args)
    if args.kinship is None or args.templates != "paraphrase":
        return kb, args.templates, args.fallback_templates
    fields = kinship_fields(args.kinship)
    return kb, fields["templates"], fields["fallback_templates"]


def run(args: argparse.Namespace) -> int:
    """Validate the arguments, generate, and print a one-line summary."""
    load_kb(args.kb)
    spec = spec_from_args(args)
    if (args.shard is None) != (args.num_shards is None):
        raise UsageError("--shard and --num-shards go together")
    if args.num_shards is not None and args.num_shards < 1:
        raise UsageError(f"--num-shards must be at least 1, got {args.num_shards}")
    # a job scheduler stops a job with SIGTERM: clean up (workers, work folder) as for Ctrl-C
    signal.signal(signal.SIGTERM, _interrupt)
    if not 0 < args.stall_timeout <= 86400:  # nan and inf too
        raise UsageError(f"--stall-timeout must be above 0 and at most 86,400 seconds, got {args.stall_timeout}")
    if args.discard_edits and not args.force:
        raise UsageError("--discard-edits goes with --force")
    if args.address is not None and args.engine != "ray":
        raise UsageError("--address names a Ray cluster: use it with --engine ray")
    formats = parse_formats(args.format)
    if args.difficulty and not {"jsonl", "parquet"} & set(formats):
        raise UsageError(f"--difficulty adds a record to JSONL and Parquet rows, and --format {args.format} "
                         "writes neither: add jsonl or parquet to --format")
    workers = _workers(args)
    run = RunOptions(workers=workers, engine=args.engine, address=args.address, resume=args.resume,
                     shard=None if args.shard is None else (args.shard, args.num_shards), progress=not args.quiet,
                     discard_edits=args.discard_edits, stall=args.stall_timeout)
    result = write_dataset(spec, args.out, force=args.force, args=recorded_arguments(args),
                           formats=formats, rows_per_shard=args.rows_per_shard, run=run)
    if args.shard is not None:
        print(f"job {args.shard} of {args.num_shards}: {result['generated']} of its {result['shards']} shards generated"
              f" into {result['work']}; when every job is done, run the same command without --shard"
              f" --num-shards, with --resume", file=sys.stderr)
        return 0
    rows = sum(f["rows"] for f in result["files"].values())
    shards = sum(f["shards"] for f in result["files"].values())
    print(f"wrote {rows} rows in {len(result['files'])} files ({shards} shards, {', '.join(result['formats'])})"
          f" to {args.out}", file=sys.stderr)
    return 0


def _workers(args: argparse.Namespace) -> int:
    """The worker count: as asked (default 1, all CPUs for a local Ray instance), lowered to the
    CPUs this process may use unless --oversubscribe, with a note when lowered."""
    if args.workers is None:
        return usable_cpus() if args.engine == "ray" else 1
    workers = capped_workers(args.workers, args.oversubscribe)
    if workers < args.workers and not (args.engine == "ray" and args.address):
        print(f"note: --workers {args.workers} lowered to {workers}, the CPUs this process may use "
              f"(--oversubscribe keeps more)", file=sys.stderr)
    return workers


def main(argv: list[str] | None = None) -> int:
    """The ``generate`` command alone, parsed from ``argv`` (``sys.argv`` then) and run; the
    ``clutrr-generate`` script and ``python generate.py`` start their process with
    :func:`clutrr.cli.generate_main`, which calls this."""
    parser = Parser(prog=os.path.basename(sys.argv[0]) or "generate.py", description=HELP)
    add_arguments(parser)
    args = parser.parse_args(argv)
    return run_command(run, args, parser.prog)
