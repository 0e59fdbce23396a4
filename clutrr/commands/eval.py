"""``clutrr eval DATA``: score models on a dataset folder's test files; tables, JSON, items and a plot."""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from clutrr.io.ownership import FORCE_HELP
from clutrr.commands.kinship import kb_argument
from clutrr.errors import UsageError
from clutrr.io.staging import check_output
from clutrr.eval.data import load_eval_set
from clutrr.eval.forms import evaluate_forms, form_item, is_form_folder, load_form_golds, render_forms, replies_of
from clutrr.eval.predictions import iter_predictions
from clutrr.eval.models import load_callable, predict_with_callable, predict_with_endpoint
from clutrr.eval.plot import has_matplotlib
from clutrr.eval.published import published, references
from clutrr.eval.report import render_text
from clutrr.eval.scoring import evaluate
from clutrr.eval.writer import ITEMS, write_report
from clutrr.io.staging import StagedDir
from clutrr.llm.client import (APIS, DEFAULT_MAX_TOKENS, MAX_TOKENS, CacheError, ChatClient, ChatSettings,
                               EndpointError, ResponseCache, check_url, default_cache_path)
from clutrr.llm.prompts import STYLES, PromptTemplate, build_form_messages

T = TypeVar("T")
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
    llm.add_argument("--api", choices=APIS, default="chat",
                     help="chat: /chat/completions with chat messages (default); completions: /completions with "
                          "one plain text ending in 'Answer:', for base models")
    llm.add_argument("--prompt", choices=sorted(STYLES), default="tagged",
                     help="tagged: answer inside <answer></answer> (default); plain: a plain chat question")
    llm.add_argument("--system-prompt", metavar="TEXT",
                     help="replace the system message ({words} becomes the relation words; '' drops it)")
    llm.add_argument("--prompt-template", metavar="FILE",
                     help="question text with {story}, {head}, {tail}, {question} and {words} placeholders")
    llm.add_argument("--stop", action="append", default=None, metavar="TEXT",
                     help="stop sequence (repeatable; default for --api completions: a new line)")
    llm.add_argument("--shots", type=int, default=0, help="worked examples from the training file (0)")
    llm.add_argument("--shot-seed", type=int, default=0, help="seed of the example draw (0)")
    llm.add_argument("--samples", type=int, default=1,
                     help="answers per story; above 1 the report adds pass@k and majority vote (1)")
    llm.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (0)")
    llm.add_argument("--top-p", type=float, help="nucleus sampling probability (server default)")
    llm.add_argument("--seed", type=int, help="sampling seed; sample i is sent seed+i (not sent by default)")
    llm.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS,
                     help=f"longest answer in tokens, reasoning included ({DEFAULT_MAX_TOKENS})")
    llm.add_argument("--cache", help="response cache file (default: $CLUTRR_CACHE or ~/.cache/clutrr/llm/MODEL.jsonl)")
    llm.add_argument("--timeout", type=float, default=60.0,
                     help="seconds for a whole request: connecting, sending and reading the reply (60)")
    llm.add_argument("--retries", type=int, default=4, help="retries of a failed request (4)")
    llm.add_argument("--backoff", type=float, default=1.0,
                     help="first retry delay in seconds, doubled each time, at most 30 (1)")
    llm.add_argument("--concurrency", type=int, default=4, help="requests in flight at once (4)")
    llm.add_argument("--api-key-env", default="OPENAI_API_KEY",
                     help="environment variable holding the API key, if any (OPENAI_API_KEY)")
    scope = parser.add_argument_group("what to evaluate and report")
    scope.add_argument("--split", action="append", metavar="PATTERN",
                       help="evaluate the splits matching this pattern, e.g. '1.*_test' (default: every test file)")
    scope.add_argument("--limit", type=int, help="only the first N stories of each split")
    scope.add_argument("--kb", default="kinship", help="KB giving the relation words (kinship)")
    scope.add_argument("--kinship", default=None, metavar="NAME|PATH",
                       help="the kinship system the stories were generated in (as clutrr generate --kinship)")
    scope.add_argument("--no-glossary", action="store_true",
                       help="leave the definitions of a kinship system's terms out of the prompts (tests what a "
                            "model knows of the system)")
    scope.add_argument("--strict", action="store_true", help="a story without a prediction is an error")
    scope.add_argument("--think-open", action="store_true",
                       help="replies start inside a reasoning block (the chat template opens <think> in the prompt): "
                            "a reply without the closing tag has no answer")
    scope.add_argument("--reference", action="append", default=[], metavar="NAME",
                       help=f"published curve to add to the k table and plot: {', '.join(published())} (repeatable)")
    scope.add_argument("--out", help="folder for report.md, report.json, items.jsonl and accuracy_vs_k.png")
    scope.add_argument("--force", action="store_true", help=FORCE_HELP)


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
    if args.endpoint:
        try:
            check_url(args.endpoint)
        except ValueError as exc:
            raise UsageError(f"--endpoint {exc}") from None
    if args.shots < 0:
        raise UsageError(f"--shots must be non-negative, got {args.shots}")
    if args.concurrency < 1 or args.retries < 0 or args.timeout <= 0 or args.backoff < 0:
        raise UsageError("--concurrency must be >= 1, --retries and --backoff >= 0, --timeout > 0")
    for flag, value, most in (("--timeout", args.timeout, 86400), ("--backoff", args.backoff, 3600),
                              ("--max-tokens", args.max_tokens, MAX_TOKENS), ("--concurrency", args.concurrency, 256),
                              ("--retries", args.retries, 100)):
        if not value <= most:  # nan and inf too
            raise UsageError(f"{flag} must be at most {most:,}, got {value}")
    if not 1 <= args.samples <= 1024:
        raise UsageError(f"--samples must be from 1 to 1024, got {args.samples}")
    if args.max_tokens < 1 or args.temperature < 0 or args.top_p is not None and not 0 < args.top_p <= 1:
        raise UsageError("--max-tokens must be >= 1, --temperature >= 0 and --top-p in (0, 1]")
    if args.cache and Path(args.cache).is_dir():
        raise UsageError(f"--cache {args.cache} is a folder; give a file path")
    if args.out:
        check_output(Path(args.out), args.force)


def _template(path: str | None) -> PromptTemplate | None:
    if not path:
        return None
    try:
        return PromptTemplate(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--prompt-template {path}: cannot read ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise UsageError(f"--prompt-template {path}: not a UTF-8 text file") from None
    except ValueError as exc:
        raise UsageError(f"--prompt-template {path}: {exc}") from None


def _client(args: argparse.Namespace) -> tuple[ChatClient, Path]:
    """The chat client the endpoint options describe, and its response cache's path."""
    stop = tuple(args.stop) if args.stop is not None else (("\n",) if args.api == "completions" else ())
    cache_path = Path(args.cache) if args.cache else default_cache_path(args.model_name)
    settings = ChatSettings(args.endpoint, args.model_name, timeout=args.timeout, retries=args.retries,
                            backoff=args.backoff, concurrency=args.concurrency, temperature=args.temperature,
                            max_tokens=args.max_tokens, top_p=args.top_p, seed=args.seed, stop=stop, api=args.api,
                            api_key=os.environ.get(args.api_key_env) or None)
    try:
        cache = ResponseCache(cache_path)
    except CacheError as exc:
        raise UsageError(str(exc)) from None
    return ChatClient(settings, cache), cache_path


def _asking(client: ChatClient, cache_path: Path, call: Callable[[], T]) -> T:
    """``call()``, with a failed endpoint or cache as one UsageError saying what is cached."""
    try:
        return call()
    except EndpointError as exc:
        n = len(client.cache)
        raise UsageError(f"{exc}; {n} answer{'' if n == 1 else 's'} cached in {cache_path}, a rerun resumes") from None
    except CacheError as exc:
        raise UsageError(str(exc)) from None


def _endpoint_records(args: argparse.Namespace, data, progress: bool) -> list[dict]:
    template = _template(args.prompt_template)
    client, cache_path = _client(args)
    return _asking(client, cache_path, lambda: predict_with_endpoint(
        client, data, args.prompt, args.shots, args.shot_seed, progress, args.samples, args.system_prompt, template))


def _run_forms(args: argparse.Namespace) -> int:
    """Evaluate a folder of other question forms (docs/questions.md): per-form tables."""
    if args.model or args.shots or args.api != "chat" or args.prompt_template or args.reference \
            or args.system_prompt is not None:
        raise UsageError("a folder of question forms is evaluated with --predictions or a chat --endpoint, "
                         "zero-shot: --model, --shots, --api completions, --prompt-template, --system-prompt and "
                         "--reference go with relation questions")
    golds = load_form_golds(args.data, args.split, args.limit, glossary=not args.no_glossary)
    kb = kb_argument(args)
    models: dict[str, dict] = {}
    for value in args.predictions:
        name, path = _named(value, Path(value).stem or Path(value).name)
        models[name] = replies_of(iter_predictions(path, {g.split for g in golds}),
                                  lambda p: (p.split, p.id, p.sample, p.prediction), golds)
    if args.endpoint:
        client, cache_path = _client(args)
        prompts = [build_form_messages(form_item(g), args.prompt, kb) for g in golds]
        answers = _asking(client, cache_path, lambda: client.ask_many(prompts, args.samples))
        models[args.model_name] = {(g.split, g.id, s): rec["content"]
                                   for g, recs in zip(golds, answers) for s, rec in enumerate(recs)}
    results = {}
    for name, replies in models.items():
        missing = sum((g.split, g.id, 0) not in replies for g in golds)
        if args.strict and missing:
            raise UsageError(f"{name}: {missing} of {len(golds)} questions have no prediction")
        report, items = evaluate_forms(golds, replies, kb)
        results[name] = (report, items)
        sys.stdout.write(render_forms(name, report))
    if args.out:
        try:
            with StagedDir(args.out, force=args.force) as out:
                out.file("report.json").write_text(json.dumps(
                    {"data": str(args.data), "models": {n: r for n, (r, _) in results.items()}}, indent=1) + "\n",
                    encoding="utf-8")
                with open(out.file(ITEMS), "w", encoding="utf-8") as fh:
                    for name, (_, items) in results.items():
                        fh.writelines(json.dumps({"model": name, **i}, ensure_ascii=False) + "\n" for i in items)
        except OSError as exc:
            raise UsageError(f"cannot write the report to {args.out} ({exc.strerror or exc})") from None
        sys.stdout.write(f"wrote report.json, {ITEMS} in {args.out}\n")
    return 0


def run(args: argparse.Namespace) -> int:
    """Score every answer source and print (and with --out, write) the report."""
    _check_args(args)
    if is_form_folder(args.data):
        return _run_forms(args)
    progress = sys.stderr.isatty()
    refs = references(args.reference)
    data = load_eval_set(args.data, args.split, kb_argument(args), args.limit)
    data.glossary = not args.no_glossary
    reports, generated, names = [], {}, set()

    def add(name: str, predictions) -> None:
        if name in names:
            raise UsageError(f"two models are named {name!r}; name them with NAME=...")
        names.add(name)
        reports.append(evaluate(data, predictions, name=name, strict=args.strict, think_open=args.think_open))

    for value in args.predictions:
        name, path = _named(value, Path(value).stem or Path(value).name)
        add(name, path)
    for value in args.model:
        name, spec = _named(value, value.rpartition(":")[2])
        generated[name] = predict_with_callable(load_callable(spec), data, args.batch_size, name, progress)
        add(name, generated[name])
    if args.endpoint:
        generated[args.model_name] = _endpoint_records(args, data, progress)
        add(args.model_name, generated[args.model_name])
    sys.stdout.write(render_text(reports, refs))
    if args.out:
        written = write_report(reports, args.out, refs, force=args.force, predictions=generated)
        sys.stdout.write(f"wrote {', '.join(written)} in {args.out}\n")
        if not has_matplotlib():
            sys.stderr.write("clutrr eval: note: accuracy_vs_k.png not drawn: matplotlib is not installed "
                             "(pip install 'clutrr[eval]')\n")
    return 0
