"""Run the experiments behind ``baselines/RESULTS.md`` and write their result JSONs.

    python -m clutrr.baselines.reproduce --release ../shared/clutrr-release --results baselines/results
    python -m clutrr.baselines.report --results baselines/results --out baselines

Needs the released CLUTRR folders ``data_089907f8`` and ``data_7c5b0e70`` under ``--release``
(from the uclnlp/ctp repository, ``data/clutrr-emnlp/``); our data are generated into ``--work``.
Writes ``<results>/<experiment>.json`` (see :mod:`clutrr.baselines.results`),
``verify-data_089907f8.json`` (the released labels a sound KB derives, per file),
``vocabulary.json`` (relation words of our test stories, with and without ``--relations
clutrr_v1``, that no released training story states) and ``robustness-gat.json``. ``--only`` picks experiments; one runs at a time.
"""
from __future__ import annotations

import argparse
import functools
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from clutrr.baselines.optional import require_torch
from clutrr.baselines.experiments import BY_SLUG, EXPERIMENTS, GENERATED, RELEASE_SOURCE, RELEASED, ROBUSTNESS, folder_name
from clutrr.baselines.results import write_json
from clutrr.errors import UsageError
from clutrr.pipeline.run import write_unless_present

HERE = Path(__file__).resolve().parent
DEFAULT_RELEASE = HERE.parent.parent / "shared" / "clutrr-release"


def data_folder(key: str, release: Path, work: Path, progress: bool) -> Path:
    """The folder of data key ``key``: a released folder, or our data generated into ``work``."""
    if key in RELEASED:
        folder = release / RELEASED[key]
        if not any(folder.glob("*_train.csv")):
            raise UsageError(f"{folder} is missing: download {RELEASE_SOURCE} into {release} (or give --release)")
        return folder
    return write_unless_present(GENERATED[key], work / folder_name(key), progress)


def verify_released(folder: Path) -> dict:
    """Per test file of a released folder: rows and the verdict counts of the sound kinship KB."""
    from clutrr.core.kb import load_kb
    from clutrr.diagnostics.verify import summarize, verify_file

    kb = load_kb("kinship")
    files = {}
    for path in sorted(folder.glob("*_test.csv")):
        verdicts = verify_file(kb, path)
        files[path.stem] = {"k": int(path.stem.split("_")[0].split(".")[1]), "rows": len(verdicts),
                            "counts": summarize(verdicts)}
    return {"data": folder.name, "kb": kb.name, "files": files}


@functools.lru_cache(maxsize=None)
def _stated_words(train: Path) -> frozenset[int]:
    """The relation ids the training stories of ``train`` state as facts (read once per folder)."""
    from clutrr.baselines.data import LabelVocab, load_dataset

    return frozenset(t for s in load_dataset(train, LabelVocab.from_kb()).train for t in s.edge_types)


def unseen_words(train: Path, tests: Path) -> dict:
    """Per test file of ``tests``: stories with a fact word that no training story of ``train`` states."""
    from clutrr.baselines.data import LabelVocab, load_tests

    labels = LabelVocab.from_kb()
    seen = _stated_words(train)
    files = {}
    for split in load_tests(tests, labels):
        unseen = Counter(labels.words[t] for s in split.stories for t in set(s.edge_types)
                         if t not in seen and t != labels.unknown_relation)
        stories = sum(1 for s in split.stories if any(t not in seen and t != labels.unknown_relation
                                                      for t in s.edge_types))
        files[split.split] = {"k": split.k, "rows": len(split.stories), "stories_with_unseen": stories,
                              "words": dict(sorted(unseen.items()))}
    return {"train": train.name, "tests": tests.name,
            "unseen_words": sorted(labels.words[t] for t in set(range(len(labels.words))) - seen), "files": files}


def run_experiment(slug: str, release: Path, work: Path, results: Path, threads: int, progress: bool) -> None:
    """Train and score one experiment; write ``<results>/<slug>.json``."""
    from clutrr.baselines.train import train_and_evaluate

    exp = BY_SLUG[slug]
    train = data_folder(exp.train, release, work, progress)
    tests = [data_folder(key, release, work, progress) for key in exp.tests]
    doc = train_and_evaluate(exp.model, train, test_data=tests, overrides=dict(exp.settings), runs=exp.runs,
                             valid_share=exp.valid_share, threads=threads, progress=progress)
    write_json(doc, results / f"{slug}.json")


def run_robustness(results: Path, work: Path, threads: int, progress: bool) -> None:
    """The train-noise × test-noise matrix of :data:`ROBUSTNESS`; writes ``robustness-<model>.json``."""
    from clutrr.baselines import robustness as rb

    cpu = time.process_time()
    plan = rb.Plan(train_rows=ROBUSTNESS["train_rows"], test_rows=ROBUSTNESS["test_rows"])
    folders = rb.prepare_data(plan, work / "robustness", progress)
    rows = rb.train_rows(ROBUSTNESS["model"], folders, plan, ROBUSTNESS["runs"], 0, config=None, overrides={},
                         valid_share=0.1, threads=threads, progress=progress, echo=rb.log)
    doc = rb.make_doc(plan, ROBUSTNESS["model"], rows, time.process_time() - cpu)
    (results / f"robustness-{ROBUSTNESS['model']}.json").write_text(json.dumps(doc, indent=1) + "\n",
                                                                     encoding="utf-8")


STEPS = [e.slug for e in EXPERIMENTS] + ["verify", "vocabulary", "robustness"]


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.reproduce", description=__doc__.splitlines()[0])
    p.add_argument("--release", default=str(DEFAULT_RELEASE),
                   help=f"folder holding data_089907f8 and data_7c5b0e70 (from {RELEASE_SOURCE})")
    p.add_argument("--results", required=True, help="folder for the result JSONs (e.g. baselines/results)")
    p.add_argument("--work", default=None, help="folder for our generated data (default: a temporary folder)")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--only", default=",".join(STEPS), help=f"comma-separated steps from {', '.join(STEPS)}")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    args = p.parse_args(argv)
    require_torch(main=True)
    release, results = Path(args.release), Path(args.results)
    progress = not args.quiet and sys.stderr.isatty()
    try:
        steps = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [s for s in steps if s not in STEPS]
        if unknown:
            raise UsageError(f"unknown step {unknown[0]!r}; choose from {', '.join(STEPS)}")
        needed = {RELEASED[e.train] for e in EXPERIMENTS if e.slug in steps and e.train in RELEASED}
        needed |= {RELEASED[k] for e in EXPERIMENTS if e.slug in steps for k in e.tests if k in RELEASED}
        if {"verify", "vocabulary"} & set(steps):
            needed.add(RELEASED["released-k23"])
        missing = sorted(n for n in needed if not any((release / n).glob("*_train.csv")))
        if missing:
            raise UsageError(f"needs the released folders {', '.join(missing)} under {release}: "
                             f"download {RELEASE_SOURCE} there, or give --release DIR")
        results.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="clutrr-reproduce-") as tmp:
            work = Path(args.work) if args.work else Path(tmp)
            for step in steps:
                start = time.perf_counter()
                if step == "verify":
                    doc = verify_released(release / RELEASED["released-k23"])
                    (results / "verify-data_089907f8.json").write_text(json.dumps(doc, indent=1) + "\n")
                elif step == "vocabulary":
                    doc = {key: unseen_words(release / RELEASED["released-k23"],
                                             data_folder(key, release, work, progress))
                           for key in ("ours-k23", "ours-v1-k23")}
                    (results / "vocabulary.json").write_text(json.dumps(doc, indent=1) + "\n")
                elif step == "robustness":
                    run_robustness(results, work, args.threads, progress)
                else:
                    run_experiment(step, release, work, results, args.threads, progress)
                print(f"{step}: done in {(time.perf_counter() - start) / 60:.1f} min", flush=True)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {results}; now: python -m clutrr.baselines.report --results {results} --out DIR")
    return 0


if __name__ == "__main__":
    sys.exit(main())
