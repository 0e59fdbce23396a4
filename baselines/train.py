"""Train a registered baseline (or your own model) on a data folder and evaluate it with ``clutrr eval``.

    python -m clutrr.baselines.train --model gat --data DIR [--test-data DIR ...] --runs 3 --out results/gat

Each run holds out a share of the training stories (``--valid-share``, by story, seeded by the
run's seed) for validation; the model keeps its best state on it. Each run's predictions on every
test file of ``--data`` and of each ``--test-data`` folder are scored by :mod:`clutrr.eval`, whose
tables are printed, one column per run. ``--out`` receives (all or nothing)::

    results.json                        the run summary (see clutrr.baselines.results)
    checkpoints/seed<S>/                model.json + checkpoint (clutrr.baselines.registry.load_checkpoint)
    predictions/seed<S>/<folder>.jsonl  id, split, prediction, probabilities: what `clutrr eval` reads
    reports/<folder>/                   report.md, report.json, accuracy_vs_k.png from clutrr eval
    permutations/seed<S>.npz            with --probe: the probabilities behind the permutation metrics
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

from clutrr.baselines.optional import require_torch
from clutrr.io.ownership import FORCE_HELP

require_torch(main=__name__ == "__main__")

import torch  # noqa: E402
import yaml

from clutrr.baselines.data import Dataset, LabelVocab, TestSplit, load_dataset, load_tests, split_validation
from clutrr.baselines.registry import Model, get_model, make_config, model_spec, predict_chunked, save_checkpoint
from clutrr.baselines.results import SCHEMA, machine_description, mean_se, summarize, write_json
from clutrr.diagnostics.progress import track
from clutrr.errors import UsageError
from clutrr.eval import EvalSet, evaluate, load_eval_set, render_text, write_predictions, write_report
from clutrr.io.staging import StagedDir


@dataclasses.dataclass
class TestFolder:
    """A folder whose test files a trained model is scored on."""

    name: str
    root: Path
    tests: list[TestSplit]
    gold: EvalSet

    def describe(self) -> dict[str, Any]:
        """Plain data for the results file."""
        noise = {g.split: g.noise for g in self.gold.golds}
        return {"name": self.name, "data": str(self.root.resolve()), "source": self.gold.source,
                "tests": [{"split": t.split, "file": t.file, "k": t.k, "noise": noise.get(t.split, "none"),
                           "rows": len(t.stories)} for t in self.tests]}


def test_folders(dataset: Dataset, extra: list[str | Path], progress: bool = False) -> list[TestFolder]:
    """The training folder's test files, then each extra folder's; names are folder names, made unique."""
    folders: list[TestFolder] = []
    roots = [Path(dataset.root), *map(Path, extra)]
    for i, root in enumerate(track(roots, desc="reading test folders", unit="folder",
                                   enabled=None if progress else False)):
        name = root.resolve().name or "data"
        taken = {f.name for f in folders}
        if name in taken:
            name = next(f"{name}-{j}" for j in range(2, len(roots) + 2) if f"{name}-{j}" not in taken)
        tests = dataset.tests if i == 0 else load_tests(root, dataset.labels)
        folders.append(TestFolder(name, root, tests, load_eval_set(root, kb=dataset.labels.kb_name)))
    return folders


def prediction_records(model: Model, folder: TestFolder, progress: bool) -> list[dict[str, Any]]:
    """One record per test story of ``folder``: id, split, prediction and the probabilities above 5e-5."""
    stories = [(t.split, s) for t in folder.tests for s in t.stories]
    probs = predict_chunked(model, [s for _, s in stories], f"predict {folder.name}", progress)
    words = model.labels.words
    records = []
    for (split, story), row in zip(stories, probs):
        p = {w: round(float(x), 4) for w, x in zip(words, row) if x >= 5e-5}
        records.append({"id": story.id, "split": split, "prediction": words[int(row.argmax())], "probabilities": p})
    return records


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars and arrays turned into JSON types."""
    return json.loads(json.dumps(value, default=lambda x: x.tolist() if hasattr(x, "tolist") else str(x)))


def train_and_evaluate(model: str | type[Model], data: str | Path, *, test_data: list[str | Path] = (),
                       config: str | Path | None = None, overrides: dict[str, Any] | None = None, seed: int = 0,
                       runs: int = 1, valid_share: float = 0.1, out: str | Path | None = None, force: bool = False,
                       threads: int = 1, max_train: int | None = None, progress: bool = False,
                       probe: str | Path | None = None, echo: bool = False, kb: str = "kinship") -> dict[str, Any]:
    """Train ``runs`` times (seeds ``seed``, ``seed+1``, ...) and score every test folder.

    ``model`` is a registered name, an import path ``package.module:Class`` or a Model class;
    ``config`` a YAML mapping of its settings and ``overrides`` more of them. Returns the results
    document (see :mod:`clutrr.baselines.results`); with ``out`` also writes the files listed in
    the module docstring. With ``probe`` (a folder of ``clutrr probe --kind word-permute``) each
    run of a model that reads the text also reports permutation acceptance (Ω_max, Ω_rand, P^c,
    P^f) and, with ``out``, saves the probabilities behind it (:func:`~clutrr.baselines.probe_eval.load_export`).
    With ``echo`` the tables are printed. ``kb`` gives the relation words (a KB name or path, such as
    the compiled KB of a kinship system, :func:`clutrr.kinship.derive.kinship_kb_path`).
    """
    cls = get_model(model) if isinstance(model, str) else model
    cfg = make_config(cls, config, overrides)
    if runs < 1:
        raise UsageError("--runs must be at least 1")
    if threads < 1:
        raise UsageError("--threads must be at least 1")
    with StagedDir(out, force=force) if out is not None else contextlib.nullcontext() as staged:
        doc = _train_runs(cls, cfg, Path(data), test_data, seed, runs, valid_share, staged, threads, max_train,
                          progress, probe, echo, kb)
        if staged is not None:
            write_json(doc, staged.file("results.json"))
    return doc


def _train_runs(cls: type[Model], cfg: Any, data: Path, test_data: list[str | Path], seed: int, runs: int,
                valid_share: float, staged: StagedDir | None, threads: int, max_train: int | None, progress: bool,
                probe: str | Path | None, echo: bool, kb: str = "kinship") -> dict[str, Any]:
    """The body of :func:`train_and_evaluate`, writing into ``staged`` when given."""
    torch.set_num_threads(threads)
    started = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    clock = time.perf_counter()
    labels = LabelVocab.from_kb(kb)
    if progress:
        print(f"reading {data}", file=sys.stderr, flush=True)
    dataset = load_dataset(data, labels, max_train=max_train)
    folders = test_folders(dataset, list(test_data), progress)
    if probe is not None:
        from clutrr.baselines.probe_eval import load_probes

        probed = load_probes(dataset, probe, cls, progress)
    spec = model_spec(cls)
    per_run, reports = [], {f.name: [] for f in folders}
    for r in range(runs):
        train, valid = split_validation(dataset.train, valid_share, seed + r)
        model = cls(cfg, labels)
        fit = model.fit(train, valid, seed=seed + r, progress=progress)
        run: dict[str, Any] = {"seed": seed + r, "fit": _plain(fit), "reports": {}}
        if staged is not None:
            save_checkpoint(model, staged.file("checkpoints") / f"seed{seed + r}")
            run["checkpoint"] = f"checkpoints/seed{seed + r}"
        for folder in folders:
            records = prediction_records(model, folder, progress)
            if staged is not None:
                write_predictions(records, staged.file("predictions") / f"seed{seed + r}" / f"{folder.name}.jsonl")
            report = evaluate(folder.gold, records, name=f"{cls.name} seed {seed + r}", strict=True)
            reports[folder.name].append(report)
            run["reports"][folder.name] = report.to_dict()
        if probe is not None:
            from clutrr.baselines.probe_eval import permutation_metrics

            export = staged.file("permutations") / f"seed{seed + r}.npz" if staged is not None else None
            run["permutation"] = permutation_metrics(model, dataset, probed, export, progress)
        per_run.append(run)
    described = [f.describe() for f in folders]
    doc = {
        "schema": SCHEMA, "model": spec, "config": dataclasses.asdict(cfg), "data": str(data.resolve()),
        "train_file": dataset.train_file, "train_rows": len(train), "valid_rows": len(valid),
        "valid_share": valid_share, "seed": seed, "runs": runs, "threads": torch.get_num_threads(),
        "machine": machine_description(), "torch": torch.__version__,
        "seconds": round(time.perf_counter() - clock, 2), "started": started, "folders": described,
        "per_run": per_run, "summary": summarize(described, per_run),
    }
    for folder in folders:
        if staged is not None:
            write_report(reports[folder.name], staged.file("reports") / folder.name)
        if echo:
            print(f"== {spec} on {folder.name} ({folder.root}), {runs} run(s), one column per seed ==")
            sys.stdout.write(render_text(reports[folder.name]))
            overall = [rep.overall.accuracy or 0.0 for rep in reports[folder.name]]
            mean, std, se = mean_se(overall)
            print(f"mean over runs: {mean:.3f} (std {std:.3f}, s.e. {se:.3f})\n")
    return doc


def parse_settings(pairs: list[str]) -> dict[str, Any]:
    """``KEY=VALUE`` strings to a dict, values read as YAML scalars (``0.1``, ``true``, ``null``)."""
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--set takes KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            raise UsageError(f"--set {key}: cannot read the value {value!r}") from None
    return out


def kinship_kb_argument(system: str | None) -> str:
    """The KB of the labels: ``kinship``, or the compiled KB of a kinship system (UsageError when refused)."""
    if system is None:
        return "kinship"
    from clutrr.core.kb import KBError
    from clutrr.kinship.derive import kinship_kb_path

    try:
        return kinship_kb_path(system)
    except KBError as exc:
        raise UsageError(str(exc)) from None


def build_parser() -> argparse.ArgumentParser:
    """The CLI's argument parser."""
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.train", description=__doc__.splitlines()[0])
    p.add_argument("--model", required=True,
                   help="a registered model (gat, bilstm-attn, bilstm-mean, ...) or package.module:Class")
    p.add_argument("--data", required=True, help="folder with one *_train.csv and *_test.csv files")
    p.add_argument("--test-data", action="append", default=[], metavar="DIR",
                   help="another folder whose *_test.csv files are evaluated too (repeatable)")
    p.add_argument("--config", default=None, help="YAML mapping of the model's settings, e.g. 'epochs: 30'")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="one setting (repeatable)")
    p.add_argument("--epochs", type=int, default=None, help="shorthand for --set epochs=N")
    p.add_argument("--valid-share", type=float, default=0.1,
                   help="share of training stories held out for validation and early stopping (0.1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first run (its model and validation split)")
    p.add_argument("--runs", type=int, default=1, help="runs with seeds seed, seed+1, ... (1)")
    p.add_argument("--out", default=None, help="folder for results.json, checkpoints, predictions and reports")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--threads", type=int, default=1, help="CPU threads for torch (1: fastest on a shared CPU)")
    p.add_argument("--max-train", type=int, default=None, help="use only the first N training stories")
    p.add_argument("--probe", default=None,
                   help="folder from `clutrr probe DATA --kind word-permute`: also report permutation acceptance "
                        "(text models only)")
    p.add_argument("--kinship", default=None, metavar="NAME|PATH",
                   help="the kinship system the data were generated in (as clutrr generate --kinship): its terms "
                        "are the labels")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (2 on bad input)."""
    args = build_parser().parse_args(argv)
    try:
        overrides = parse_settings(args.set)
        if args.epochs is not None:
            overrides["epochs"] = args.epochs
        doc = train_and_evaluate(
            args.model, args.data, test_data=args.test_data, config=args.config, overrides=overrides,
            seed=args.seed, runs=args.runs, valid_share=args.valid_share, out=args.out, force=args.force,
            threads=args.threads, max_train=args.max_train, progress=not args.quiet and sys.stderr.isatty(),
            probe=args.probe, echo=True, kb=kinship_kb_argument(args.kinship),
        )
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for run in doc["per_run"]:
        for file, m in run.get("permutation", {}).items():
            pc, pf, pf_all = (("-" if v is None else f"{v:.3f}") for v in (m["p_correct"], m["p_wrong"],
                                                                           m["p_wrong_all"]))
            print(f"seed {run['seed']} {file}: Omega_max {m['omega_max']:.2f} (random guesser "
                  f"{m['random_omega_max']:.2f}) Omega_rand {m['omega_rand']:.2f} ({m['random_omega_rand']:.2f}) "
                  f"P^c {pc} P^f {pf} ({m['stories']} stories, q={m['q']}; P^f over the {m['flipped']} stories wrong "
                  f"originally and accepted under a permutation; over all {m['originally_wrong']} wrong: {pf_all})")
    if args.out:
        print(f"wrote {Path(args.out) / 'results.json'}, checkpoints/, predictions/ and reports/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
