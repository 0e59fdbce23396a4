"""The baselines on each kinship system, and the composer's transfer between systems.

    python -m clutrr.baselines.kinship --results baselines/results --out baselines --docs docs/kinship_baselines.md

For every built-in kinship system (``kb_rules/systems``; or ``--systems``) it generates the data
of :data:`SPEC` in the system's terms (``clutrr generate --kinship NAME``, train k=2,3, test
k=2..10), trains each model of :data:`MODELS` once on it (seed 0, one thread, 10% of the
training stories held out for validation) and scores it on the system's test files. Then the
composer trained on each system answers every other system's test stories through the glossary
(:mod:`clutrr.baselines.kinship_transfer`). A system whose data cannot be generated gets one
line saying so, and takes no part in the transfer; one whose longest chains cannot be built is
scored on the shorter ones, with a line naming the lengths left out.

Writes ``<results>/kinship.json``, prints the tables, and (with ``--out``) rewrites
``<out>/RESULTS.md`` with :mod:`clutrr.baselines.report`, whose section (e) shows them, and
(with ``--docs``) the figures block of ``docs/kinship_baselines.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from clutrr.baselines.kinship_report import KINSHIP_FILE, kinship_lines, write_docs
from clutrr.baselines.optional import require_torch
from clutrr.core.kb import KBError
from clutrr.errors import UsageError
from clutrr.pipeline.spec import DatasetSpec
from clutrr.story.generator import GeneratorConfig

MODELS = ("composer", "gat")
TOO_LONG = re.compile(r"(?:cannot build k=|has a chain of )(\d+) (?:stories|facts)")
SPEC = {"train_k": (2, 3), "test_k": tuple(range(2, 11)), "noise": "none", "train_rows": 2000, "test_rows": 100,
        "seed": 0}
COMMAND = ("python -m clutrr.baselines.kinship --results baselines/results --out baselines "
           "--docs docs/kinship_baselines.md")


def generate_command(spec: dict[str, Any]) -> str:
    """The ``clutrr generate`` arguments of a system's data, NAME standing for the system."""
    ks = spec["test_k"]
    return (f"clutrr generate --kinship NAME --k {','.join(map(str, spec['train_k']))} --test-k {ks[0]}..{ks[-1]} "
            f"--train-rows {spec['train_rows']} --test-rows {spec['test_rows']}")


def system_spec(system: str, spec: dict[str, Any]) -> DatasetSpec:
    """The dataset of ``system``: ``spec`` (:data:`SPEC`) told in its terms (KBError when it is refused)."""
    from clutrr.story.systems import kinship_fields

    return DatasetSpec(config=GeneratorConfig(**kinship_fields(system)), **spec)


def build_data(system: str, spec: dict[str, Any], work: Path, progress: bool) -> tuple[Path | None, str, int | None]:
    """The system's data folder under ``work`` (generated unless present), the one-line reason
    when some of it cannot be generated (paths inside the installation shown from its root),
    and the first test length left out: when chains of some length k cannot be built, the test
    lengths below k are generated alone; when nothing can be, the folder is None."""
    from clutrr.paths import data_dir
    from clutrr.pipeline.run import write_unless_present

    test_k, reason, cut = tuple(spec["test_k"]), "", None
    while True:
        name = label(system) if cut is None else f"{label(system)}-k{test_k[0]}to{test_k[-1]}"
        try:
            return write_unless_present(system_spec(system, {**spec, "test_k": test_k}), work / name, progress), \
                reason, cut
        except (UsageError, KBError, ValueError, RuntimeError) as exc:
            why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            why = why.replace(f"{data_dir('kb_rules').parent}{os.sep}", "")
            m = TOO_LONG.search(why)
            shorter = tuple(k for k in test_k if m and k < int(m[1]))
            if m is None or int(m[1]) in spec["train_k"] or not shorter:
                return None, why, None
            test_k, reason, cut = shorter, why, int(m[1])


def measure(model: str, system: str, folder: Path, runs: Path) -> dict[str, Any]:
    """Train ``model`` once on ``folder`` (checkpoint under ``runs``); its accuracy by k and CPU seconds.
    The composer reads the sex of each fact's first person in a speaker-sensitive system."""
    from clutrr.baselines.results import by_k
    from clutrr.baselines.train import train_and_evaluate
    from clutrr.kinship.derive import kinship_kb_path
    from clutrr.kinship.terminology import load_terminology

    clock = time.process_time()
    sexed = model == "composer" and load_terminology(system).speaker_sensitive
    doc = train_and_evaluate(model, folder, seed=0, runs=1, threads=1, out=runs / f"{model}-{label(system)}",
                             force=True, kb=kinship_kb_path(system), overrides={"speaker_sex": True} if sexed else None)
    curve = by_k(doc, doc["folders"][0]["name"])
    return {"by_k": {str(k): {"accuracy": round(mean, 4), "n": n} for k, (mean, _, n) in curve.items()},
            "cpu_seconds": round(time.process_time() - clock, 1), "train_rows": doc["train_rows"],
            "valid_rows": doc["valid_rows"]}


def label(system: str) -> str:
    """How a system is named in the results: a built-in name, or a terminology file's stem."""
    return Path(system).stem


def transfer(systems: dict[str, Path], runs: Path) -> dict[str, dict]:
    """The composer trained on each system (name or file -> data folder), scored on every system's
    test files through the glossary (``"A -> B"``; the diagonal too: reading a system's stories
    through its own glossary changes nothing, so it repeats the system's own figures)."""
    from clutrr.baselines.kinship_transfer import transfer_scores
    from clutrr.baselines.registry import load_checkpoint
    from clutrr.kinship.terminology import load_terminology

    out = {}
    for train in systems:
        model = load_checkpoint(runs / f"composer-{label(train)}" / "checkpoints" / "seed0")
        for test, folder in systems.items():
            out[f"{label(train)} -> {label(test)}"] = transfer_scores(model, load_terminology(train),
                                                                    load_terminology(test), folder)
    return out


def run(systems: list[str], models: tuple[str, ...], work: Path, progress: bool = False,
        rows: tuple[int, int] | None = None, test_k: tuple[int, ...] | None = None) -> dict[str, Any]:
    """Build, train and score every system (``rows``: training and test rows per k, ``test_k``:
    test lengths, instead of :data:`SPEC`'s); the results document."""
    from clutrr.baselines.results import machine_description

    runs = work / "runs"
    spec = dict(SPEC) if rows is None else {**SPEC, "train_rows": rows[0], "test_rows": rows[1]}
    if test_k is not None:
        spec["test_k"] = test_k
    doc: dict[str, Any] = {"command": COMMAND, "generate": generate_command(spec),
                           "spec": {k: list(v) if isinstance(v, tuple) else v for k, v in spec.items()},
                           "machine": machine_description(),
                           "runs": "one run (seed 0, one thread; 10% of the training split held out for validation)",
                           "systems": {}}
    built: dict[str, Path] = {}
    for system in systems:
        if progress:
            print(f"{label(system)}: generating", file=sys.stderr, flush=True)
        folder, reason, cut = build_data(system, spec, work, progress)
        entry: dict[str, Any] = {"description": _first_sentence(system)}
        if folder is None:
            entry["cannot_generate"] = reason
            print(f"{label(system)}: cannot generate: {reason}", flush=True)
        else:
            if cut is not None:
                entry["cannot_generate_from_k"] = {"k": cut, "reason": reason}
                print(f"{label(system)}: cannot generate k={cut}..{spec['test_k'][-1]}: {reason}", flush=True)
            built[system] = folder
            entry["models"] = {}
            for model in models:
                if progress:
                    print(f"{label(system)}: training {model}", file=sys.stderr, flush=True)
                entry["models"][model] = measure(model, system, folder, runs)
        doc["systems"][label(system)] = entry
    doc["transfer"] = transfer(built, runs) if "composer" in models else {}
    return doc


def _first_sentence(system: str) -> str:
    """The first sentence of a system's description (empty when the file cannot be read)."""
    from clutrr.kinship.terminology import load_terminology

    try:
        text = " ".join(load_terminology(system).description.split())
    except KBError:
        return ""
    return text.split(". ")[0].rstrip(".") + "."


def lengths(text: str | None) -> tuple[int, ...] | None:
    """``LO..HI`` as the test lengths LO to HI (None: :data:`SPEC`'s); UsageError otherwise."""
    if text is None:
        return None
    m = re.fullmatch(r"(\d+)\.\.(\d+)", text.strip())
    if m is None or not 2 <= int(m[1]) <= int(m[2]):
        raise UsageError(f"--test-k takes LO..HI with 2 <= LO <= HI, got {text!r}")
    return tuple(range(int(m[1]), int(m[2]) + 1))


def systems(names: str) -> list[str]:
    """The systems of a comma-separated list: built-in names or terminology files (UsageError for
    an unknown name; a file that is refused is reported as a system that cannot generate)."""
    from clutrr.kinship.terminology import resolve_terminology

    out = [n.strip() for n in names.split(",") if n.strip()]
    for name in out:
        try:
            resolve_terminology(name)
        except KBError as exc:
            raise UsageError(str(exc)) from None
    if not out:
        raise UsageError("--systems names no kinship system")
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    from clutrr.kinship.terminology import builtin_terminologies

    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.kinship", description=__doc__.splitlines()[0])
    p.add_argument("--results", required=True, help=f"folder for {KINSHIP_FILE} (e.g. baselines/results)")
    p.add_argument("--out", default=None, help="also rewrite OUT/RESULTS.md from the results folder")
    p.add_argument("--docs", default=None, metavar="PAGE",
                   help="also fill the figures block of PAGE (docs/kinship_baselines.md)")
    p.add_argument("--systems", default=",".join(builtin_terminologies()),
                   help="comma-separated kinship systems (default: every built-in one)")
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated models (default {','.join(MODELS)})")
    p.add_argument("--train-rows", type=int, default=SPEC["train_rows"],
                   help=f"training rows per k (default {SPEC['train_rows']})")
    p.add_argument("--test-rows", type=int, default=SPEC["test_rows"],
                   help=f"test rows per k (default {SPEC['test_rows']})")
    p.add_argument("--test-k", default=None, metavar="LO..HI",
                   help="test lengths (default 2..10; a shorter range for a quick check)")
    p.add_argument("--work", default=None, help="folder for the generated data and checkpoints (default: temporary)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    require_torch(main=True)
    results = Path(args.results)
    try:
        with tempfile.TemporaryDirectory(prefix="clutrr-kinship-baselines-") as tmp:
            work = Path(args.work) if args.work else Path(tmp)
            doc = run(systems(args.systems), tuple(m for m in args.models.split(",") if m), work,
                      progress=not args.quiet, rows=(args.train_rows, args.test_rows), test_k=lengths(args.test_k))
        results.mkdir(parents=True, exist_ok=True)
        (results / KINSHIP_FILE).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print("\n".join(kinship_lines(doc)))
        print(f"wrote {results / KINSHIP_FILE}")
        if args.out:
            from clutrr.baselines.report import write_report

            print(f"wrote {write_report(results, args.out)}")
        if args.docs:
            print(f"wrote {write_docs(args.docs, doc)}")
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
