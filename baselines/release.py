"""Reference baselines on a release: the composer and the GAT trained on each configuration.

    python -m clutrr.baselines.release --release DIR

For each configuration of the release folder DIR (long-context ones excepted: these models read
a story's facts, and the padding is text, so their figures would repeat the unpadded ones), each
model is trained once (seed 0, one thread, 10% of the training split held out for validation by
``clutrr.baselines.train``) and scored on every test file. The accuracies, CPU seconds and the
configuration's data fingerprint go into ``clutrr/release/reference.json``, which the dataset
card of a release with the same data fingerprint shows, and ``baselines/RESULTS.md`` reports.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from clutrr.baselines.optional import require_torch
from clutrr.baselines.results import machine_description
from clutrr.errors import UsageError
from clutrr.release.manifest import read_manifest
from clutrr.release.reference import REFERENCE

MODELS = ("composer", "gat")
SKIPPED = "ctx_"
SKIP_REASON = ("long-context configurations: these models read a story's facts, and the padding is text, so "
               "their figures would repeat the unpadded stories'")
COMMAND = "python -m clutrr.baselines.release --release DIR"


def measure(model: str, folder: Path) -> dict:
    """Train ``model`` once on ``folder`` and score its test files: accuracy per file and overall, CPU seconds."""
    from clutrr.baselines.train import train_and_evaluate

    clock = time.process_time()
    doc = train_and_evaluate(model, folder, seed=0, runs=1, threads=1)
    cpu = time.process_time() - clock
    rows = doc["summary"][doc["folders"][0]["name"]]
    total = sum(r["n"] for r in rows.values())
    return {"by_file": {split: round(r["mean"], 4) for split, r in rows.items()},
            "all": round(sum(r["mean"] * r["n"] for r in rows.values()) / total, 4),
            "cpu_seconds": round(cpu, 1), "train_rows": doc["train_rows"], "valid_rows": doc["valid_rows"]}


def run(release: Path, models: tuple[str, ...], out: Path, progress: bool = True, fresh: bool = False) -> dict:
    """Measure every model on every configuration of ``release``; write and return the reference document.

    The document is rewritten after each measurement; a configuration and model already in ``out``
    with the same data fingerprint are kept (unless ``fresh``), so an interrupted run resumes.
    """
    manifest = read_manifest(release)
    if manifest["scale"] != 1.0:
        raise UsageError(f"{release} was built at scale {manifest['scale']}; reference figures need the full release")
    earlier = {} if fresh or not out.is_file() else json.loads(out.read_text(encoding="utf-8")).get("configs", {})
    configs: dict[str, dict] = {}
    for name in manifest["configs"]:
        if name.startswith(SKIPPED):
            continue
        fingerprint = manifest["config_fingerprints"][name]
        known = earlier.get(name, {}) if earlier.get(name, {}).get("fingerprint") == fingerprint else {}
        results = {}
        for model in models:
            if model in known.get("models", {}):
                results[model] = known["models"][model]
                continue
            if progress:
                print(f"{model} on {name}", file=sys.stderr, flush=True)
            results[model] = measure(model, release / name)
            configs[name] = {"fingerprint": fingerprint, "files": list(results[model]["by_file"]), "models": results}
            _write(out, _document(manifest, models, configs))
        configs[name] = {"fingerprint": fingerprint, "files": list(results[models[0]]["by_file"]), "models": results}
    return _write(out, _document(manifest, models, configs))


def _write(out: Path, doc: dict) -> dict:
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return doc


def _document(manifest: dict, models: tuple[str, ...], configs: dict[str, dict]) -> dict:
    """The reference document of the configurations measured so far."""
    cpu = {m: round(sum(c["models"][m]["cpu_seconds"] for c in configs.values() if m in c["models"]))
           for m in models}
    return {
        "command": COMMAND, "release_command": manifest["command"], "release_version": manifest["version"],
        "data_fingerprint": manifest["data_fingerprint"], "machine": machine_description(),
        "runs": "one run (seed 0, one thread; 10% of the training split held out for validation)",
        "cpu_seconds": cpu,
        "cost": "CPU time of training and scoring, all configurations: "
                + ", ".join(f"{m} {s:,} s" for m, s in cpu.items()) + f" ({machine_description()})",
        "skipped": SKIP_REASON, "notes": notes(models), "configs": configs,
    }


def notes(models: tuple[str, ...]) -> list[str]:
    """What a reader must know to read the models' figures."""
    out = []
    if "composer" in models:
        from clutrr.baselines.composer import ComposerConfig

        longest = ComposerConfig().max_path_length
        out.append(f"The composer follows paths of at most {longest} facts (its `max_path_length`): on longer "
                   "chains it finds no path and answers with its most likely label.")
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    require_torch(main=True)
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.release", description=__doc__.splitlines()[0])
    p.add_argument("--release", required=True, help="a release folder built by `clutrr release` (scale 1)")
    p.add_argument("--models", default=",".join(MODELS), help=f"comma-separated models (default {','.join(MODELS)})")
    p.add_argument("--fresh", action="store_true", help="measure everything again (default: keep the figures of "
                                                      "--out whose configuration has the same data fingerprint)")
    p.add_argument("--out", default=str(REFERENCE), help="where to write the reference figures (default: the "
                                                         "package's clutrr/release/reference.json)")
    args = p.parse_args(argv)
    try:
        doc = run(Path(args.release), tuple(m for m in args.models.split(",") if m), Path(args.out),
                  fresh=args.fresh)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {len(doc['configs'])} configurations; {doc['cost']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
