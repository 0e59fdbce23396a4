"""``clutrr eval DATA``: score models on a dataset folder's test files; tables, JSON and a plot."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.staging import check_output
from clutrr.eval.data import load_eval_set
from clutrr.eval.models import load_callable, predict_with_callable, predict_with_endpoint
from clutrr.eval.published import published, references
from clutrr.eval.report import render_text
from clutrr.eval.writer import write_report
from clutrr.eval.scoring import evaluate
from clutrr.llm.client import ChatClient, ChatSettings, EndpointError, ResponseCache, default_cache_path
from clutrr.llm.prompts import STYLES

NAME = "eval"
HELP = "evaluate models (prediction files, a Python callable or a chat endpoint) on a dataset folder"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr eval``."""
    parser.add_argument("data", help="dataset folder (ours or a released CLUTRR folder)")
    src = parser.add_argument_group("answers (give at least one; each is a column of the report)")
    src.add_argument("--predictions", action="append", default=[], metavar="[NAME=]PATH",
                     help="JSONL or CSV of id,prediction[,split], or a folder of them (repeatable)")
    src.add_argument("--model", action="append", default=[], metavar="[NAME=]MODULE:FUNCTION",
                     help="a Python function taking a list of items and returning one answer each (repeatable)")
    src.add_argument("--batch-size", type=int, default=64, help="items per call of a --model function (64)")
    src.add_argument("--endpoint", metavar="URL", help="OpenAI-compatible server, e.g. http://127.0.0.1:8000/v1")
    src.add_argument("--model-name", help="the model to ask at --endpoint")
    llm = parser.add_argument_group("endpoint options")
    llm.add_argument("--prompt", choices=sorted(STYLES), default="tagged",
                     help="tagged: answer inside <answer></answer> (default); plain: a plain chat question")
    llm.add_argument("--shots", type=int, default=0, help="worked examples from the training file (0)")
    llm.add_argument("--shot-seed", type=int, default=0, help="seed of the example draw (0)")
    llm.add_argument("--cache", help="response cache file (default: $CLUTRR_CACHE or ~/.cache/clutrr/llm/MODEL.jsonl)")
    llm.add_argument("--timeout", type=float, default=60.0, help="seconds per request (60)")
    llm.add_argument("--retries", type=int, default=4, help="retries of a failed request (4)")
    llm.add_argument("--backoff", type=float, default=1.0, help="first retry delay in seconds, doubled each time (1)")
    llm.add_argument("--concurrency", type=int, default=4, help="requests in flight at once (4)")
    llm.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    llm.add_argument("--max-tokens", type=int, default=512, help="longest answer in tokens (512)")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY",
                     help="environment variable holding the API key, if any (OPENAI_API_KEY)")
    scope = parser.add_argument_group("what to evaluate and report")
    scope.add_argument("--split", action="append", metavar="PATTERN",
                       help="evaluate the splits matching this pattern, e.g. '1.*_test' (default: every test file)")
    scope.add_argument("--limit", type=int, help="only the first N stories of each split")
    scope.add_argument("--kb", default="kinship", help="KB giving the relation words (kinship)")
    scope.add_argument("--strict", action="store_true", help="a story without a prediction is an error")
    scope.add_argument("--reference", action="append", default=[], metavar="NAME",
                       help=f"published curve to add to the k table and plot: {', '.join(published())} (repeatable)")
    scope.add_argument("--out", help="folder for report.md, report.json and accuracy_vs_k.png")
    scope.add_argument("--force", action="store_true", help="overwrite files in a non-empty --out folder")


def _named(value: str, default: str) -> tuple[str, str]:
    name, sep, rest = value.partition("=")
    if sep and name and "/" not in name and os.sep not in name:
        return name, rest
    return default, value


def _check_args(args: argparse.Namespace) -> None:
    if not (args.predictions or args.model or args.endpoint):
        raise UsageError("nothing to evaluate: give --predictions, --model or --endpoint")
    if bool(args.endpoint) != bool(args.model_name):
        raise UsageError("--endpoint and --model-name go together")
    if args.shots < 0:
        raise UsageError(f"--shots must be non-negative, got {args.shots}")
    if args.concurrency < 1 or args.retries < 0 or args.timeout <= 0 or args.backoff < 0:
        raise UsageError("--concurrency must be >= 1, --retries and --backoff >= 0, --timeout > 0")
    if args.out:
        check_output(Path(args.out), args.force)


def run(args: argparse.Namespace) -> int:
    """Score every answer source and print (and with --out, write) the report."""
    _check_args(args)
    progress = sys.stderr.isatty()
    refs = references(args.reference)
    data = load_eval_set(args.data, args.split, args.kb, args.limit)
    reports, generated, names = [], {}, set()

    def add(name: str, predictions) -> None:
        if name in names:
            raise UsageError(f"two models are named {name!r}; name them with NAME=...")
        names.add(name)
        reports.append(evaluate(data, predictions, name=name, strict=args.strict))

    for value in args.predictions:
        name, path = _named(value, Path(value).stem or Path(value).name)
        add(name, path)
    for value in args.model:
        name, spec = _named(value, value.rpartition(":")[2])
        generated[name] = predict_with_callable(load_callable(spec), data, args.batch_size, name, progress)
        add(name, generated[name])
    if args.endpoint:
        cache_path = Path(args.cache) if args.cache else default_cache_path(args.model_name)
        settings = ChatSettings(args.endpoint, args.model_name, timeout=args.timeout, retries=args.retries,
                                backoff=args.backoff, concurrency=args.concurrency, temperature=args.temperature,
                                max_tokens=args.max_tokens, api_key=os.environ.get(args.api_key_env))
        cache = ResponseCache(cache_path)
        client = ChatClient(settings, cache)
        try:
            records = predict_with_endpoint(client, data, args.prompt, args.shots, args.shot_seed, progress)
        except EndpointError as exc:
            raise UsageError(f"{exc}; {len(cache)} answers are cached in {cache_path}, a rerun resumes") from None
        generated[args.model_name] = records
        add(args.model_name, records)
    sys.stdout.write(render_text(reports, refs))
    if args.out:
        write_report(reports, args.out, refs, force=args.force, predictions=generated)
        sys.stdout.write(f"wrote {Path(args.out) / 'report.md'}, report.json and accuracy_vs_k.png\n")
    return 0
