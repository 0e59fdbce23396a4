"""``clutrr robustness``: the train-noise × test-noise matrix, or the systematic-generalisation curve."""
from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from pathlib import Path

from clutrr.io.ownership import FORCE_HELP
from clutrr.commands.generate import parse_ks
from clutrr.errors import UsageError
from clutrr.io.staging import check_output

NAME = "robustness"
HELP = "train or query a model on the four training-noise settings (or k=2,3 / 2,3,4) and fill the paper's matrix"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr robustness``."""
    src = parser.add_argument_group("answers (one of)")
    src.add_argument("--model", metavar="NAME|MODULE:CLASS|MODULE:FUNCTION",
                     help="a registered baseline (gat, bilstm-attn, ...) or a Model class: trained on every setting; "
                          "a function taking items and returning answers: queried only")
    src.add_argument("--predictions", action="append", default=[], metavar="SETTING=PATH",
                     help="predictions for the test files of DATA/SETTING (repeat a setting once per run)")
    exp = parser.add_argument_group("experiment")
    exp.add_argument("--experiment", choices=("noise", "systematic"), default="noise",
                     help="noise: the 4x4 train x test noise matrix (default); systematic: accuracy by test k")
    exp.add_argument("--runs", type=int, default=3, help="training runs per setting, seeds seed..seed+runs-1 (3)")
    exp.add_argument("--train-k", default="2,3", help="training chain lengths (2,3)")
    exp.add_argument("--test-k", default=None, help="test chain lengths (noise: 3; systematic: 2..10)")
    exp.add_argument("--train-rows", type=int, default=5000, help="training rows per k (5000)")
    exp.add_argument("--test-rows", type=int, default=1000, help="test rows per k and noise type (1000)")
    exp.add_argument("--noise-facts", type=int, default=2, help="facts per noise type (2)")
    exp.add_argument("--templates", default="paraphrase", help="story templates of the generated data (paraphrase)")
    exp.add_argument("--seed", type=int, default=0, help="seed of the data and of the first run (0)")
    exp.add_argument("--data", metavar="DIR",
                     help="folder of the settings: read DIR/<setting> when present, else generate it there "
                          "(default: a temporary folder)")
    model = parser.add_argument_group("training")
    model.add_argument("--config", help="YAML mapping of the model's settings")
    model.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="one model setting (repeatable)")
    model.add_argument("--epochs", type=int, help="shorthand for --set epochs=N")
    model.add_argument("--valid-share", type=float, default=0.1, help="validation share of the training stories (0.1)")
    model.add_argument("--threads", type=int, default=1, help="CPU threads for torch (1)")
    model.add_argument("--batch-size", type=int, default=64, help="items per call of a queried function (64)")
    out = parser.add_argument_group("output")
    out.add_argument("--out", help="folder for robustness.md, robustness.json (and accuracy_vs_k.png)")
    out.add_argument("--force", action="store_true", help=FORCE_HELP)
    out.add_argument("--quiet", action="store_true", help="no progress output")


def _plan(args: argparse.Namespace):
    from clutrr.baselines.robustness import Plan

    if args.runs < 1:
        raise UsageError(f"--runs must be at least 1, got {args.runs}")
    default_test = "3" if args.experiment == "noise" else "2..10"
    return Plan(args.experiment, parse_ks(args.train_k), parse_ks(args.test_k or default_test), args.train_rows,
                args.test_rows, args.seed, args.noise_facts, args.templates)


def run(args: argparse.Namespace) -> int:
    """Prepare the settings, train / query / read the answers, print and write the matrix."""
    from clutrr.baselines import robustness as rb

    if bool(args.model) == bool(args.predictions):
        raise UsageError("give either --model or --predictions")
    if args.predictions and not args.data:
        raise UsageError("--predictions needs --data: the folder whose test files they answer")
    if args.out:
        check_output(Path(args.out), args.force)
    plan = _plan(args)
    target = _resolve(args.model) if args.model else None
    overrides = _overrides(args)
    if isinstance(target, str):  # check the settings before any data is generated
        from clutrr.baselines.registry import get_model, make_config

        make_config(get_model(target), args.config, overrides)
    progress = not args.quiet and sys.stderr.isatty()
    echo = (lambda message: None) if args.quiet else rb.log
    start = time.process_time()
    with (contextlib.nullcontext(args.data) if args.data else tempfile.TemporaryDirectory(prefix="clutrr-robust-")) as root:
        if args.predictions:
            rows, name = rb.prediction_rows(_pairs(args.predictions), _existing(plan, Path(root)), plan), "predictions"
        else:
            echo(f"settings in {root}: " + ", ".join(plan.settings()))
            folders = rb.prepare_data(plan, Path(root), progress)
            if isinstance(target, str):
                rows = rb.train_rows(target, folders, plan, args.runs, args.seed, config=args.config,
                                     overrides=overrides, valid_share=args.valid_share, threads=args.threads,
                                     progress=progress, echo=echo)
                name = target
            else:
                echo(f"{args.model} is a function: querying it (it is not trained here)")
                rows = rb.query_rows(target, args.model, folders, plan, args.batch_size, progress)
                name = args.model
    settings = {"config": args.config, **overrides} if isinstance(target, str) else {}
    doc = rb.make_doc(plan, name, rows, time.process_time() - start, settings)
    sys.stdout.write(rb.render_text(doc))
    if args.out:
        rb.write_outputs(doc, args.out, args.force)
        print(f"wrote {Path(args.out) / 'robustness.md'} and robustness.json")
    return 0


def _resolve(spec: str):
    """A trainable model's spec (its registered name or import path), or a function to query."""
    from clutrr.baselines.registry import Model, get_model, model_spec
    from clutrr.eval.models import load_callable

    if ":" in spec:
        target = load_callable(spec)
        if not (isinstance(target, type) and issubclass(target, Model)):
            return target
    return model_spec(get_model(spec))


def _overrides(args: argparse.Namespace) -> dict:
    from clutrr.baselines.train import parse_settings

    overrides = parse_settings(args.set)
    if args.epochs is not None:
        overrides["epochs"] = args.epochs
    return overrides


def _pairs(values: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for value in values:
        setting, sep, path = value.partition("=")
        if not sep:
            raise UsageError(f"--predictions takes SETTING=PATH, got {value!r}")
        pairs.append((setting, path))
    return pairs


def _existing(plan, root: Path) -> dict[str, Path]:
    folders = {name: root / name for name in plan.settings()}
    missing = [str(f) for f in folders.values() if not f.is_dir()]
    if missing:
        raise UsageError(f"--predictions: {missing[0]} does not exist")
    return folders
