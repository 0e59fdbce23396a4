"""Run a generation: write a dataset folder of sharded CSV/JSONL/Parquet files, manifest.json and config.json.

The plan (:mod:`clutrr.pipeline.spec`) cuts the dataset into shards and tasks; an engine
(:mod:`clutrr.engines`) runs the tasks (:func:`clutrr.pipeline.tasks.run_task`) anywhere,
and the parent writes the finished rows in order. Then a partitioned pass
(:mod:`clutrr.io.dedupe`) replaces every story that repeats an earlier one, round after
round, and rewrites only the shards that changed. Work happens in a folder beside the
output that is renamed into place when everything is written; see ``docs/scale.md``.
"""
from __future__ import annotations

import bisect
import json
import shutil
import sys
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path

from clutrr import __version__
from clutrr.story.generator import GeneratorConfig, banks, relations_report
from clutrr.engines import Engine, create_engine
from clutrr.errors import UsageError
from clutrr.io import manifest as mf
from clutrr.io.dedupe import PatternCounts, StoryHashes, bucket_count, hash_records
from clutrr.io.formats import open_shard, rewrite_shard
from clutrr.io.rows import Task, TaskResult
from clutrr.io.shards import LogicalFile, Shard, blocks, plan_shards
from clutrr.io.staging import PARTIAL_STAMP, partial_dir, replace_dir, staging_dir
from clutrr.pipeline.spec import ROWS_PER_SHARD, DatasetSpec, RunOptions, task_size
from clutrr.pipeline.tasks import (RowFailure, TaskContext, add_counts, fault_from_env, prepare, run_task,
                                   text_measures)
from clutrr.render.measures import filled_clauses
from clutrr.render.usable import usable_bank

TOP_PATTERNS = 20
REPLACE_TASK = 64


def write_dataset(spec: DatasetSpec, out: str | Path, workers: int = 1, force: bool = False,
                  progress: bool = True, args: dict | None = None, formats: tuple[str, ...] = ("csv", "jsonl"),
                  rows_per_shard: int = ROWS_PER_SHARD, run: RunOptions | None = None) -> dict:
    """Generate the dataset into ``out``; returns config.json's content (for ``--shard``
    jobs, which write shards only, a short summary instead).

    The bytes do not depend on ``workers`` or ``run``. Raises UsageError on bad input,
    leaving nothing behind (with ``run.resume``, finished shards stay for the next run).
    """
    run = run or RunOptions(workers=workers, progress=progress)
    spec.validate()
    if run.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {run.workers}")
    if rows_per_shard < 1:
        raise UsageError(f"--rows-per-shard must be at least 1, got {rows_per_shard}")
    out = Path(out)
    files = spec.logical_files()
    shards = plan_shards(files, rows_per_shard)
    if run.shard is not None:
        i, n = run.shard
        if not 0 <= i < n:
            raise UsageError(f"--shard must be in 0..{n - 1}, got {i}")
    ctx = TaskContext(spec.config, spec.seed, tuple(files), formats, fault_from_env())
    fingerprint = {"version": __version__, "spec": _spec_dict(spec), "formats": list(formats),
                   "rows_per_shard": rows_per_shard}
    keep = run.resume or run.shard is not None
    if run.resume and run.shard is None and (out / "manifest.json").exists():
        done = _finished(out, fingerprint, shards, force)
        if done is not None:
            return done
    work = partial_dir(out, force, fingerprint) if keep else staging_dir(out, force)
    workers = min(run.workers, task_count(spec, shards))  # never more workers than tasks
    try:
        with create_engine(run.engine, workers=workers, address=run.address, prepare=prepare) as engine:
            engine.start(ctx)  # the KB and templates are loaded (in this process first, when workers are forked)
            check_feasible(spec, ctx, engine)
            mine = shards if run.shard is None else [s for s in shards if s.global_number % run.shard[1] == run.shard[0]]
            todo = [s for s in mine if mf.read_part(work, s, formats) is None]
            _generate(engine, ctx, todo, work, run.progress, len(mine))
            if run.shard is not None:
                return {"shards": len(mine), "generated": len(todo), "rows": sum(s.rows for s in mine), "work": str(work)}
            config = _assemble(engine, ctx, spec, shards, work)
        config["arguments"] = args or {}
        (work / "config.json").write_text(json.dumps(config, indent=1) + "\n", encoding="utf-8")
        shutil.rmtree(work / mf.PARTS)
        (work / PARTIAL_STAMP).unlink(missing_ok=True)
        replace_dir(work, out)
    except RowFailure as exc:
        _discard(work, keep)
        raise infeasible(spec, exc.k, exc.noise, exc.split) from None
    except BaseException:
        _discard(work, keep)
        raise
    return config


def write_unless_present(spec: DatasetSpec, out: str | Path, progress: bool = False) -> Path:
    """Generate ``spec`` into ``out`` unless it already holds a dataset (its config.json); the folder.

    The library entry of callers that need a dataset folder, such as the baselines' experiments.
    Raises UsageError on bad input, leaving nothing behind.
    """
    out = Path(out)
    if not (out / "config.json").is_file():
        write_dataset(spec, out, force=True, run=RunOptions(progress=progress))
    return out


def task_count(spec: DatasetSpec, shards: list[Shard]) -> int:
    """The tasks of a run: the feasibility check's rows, or the shards' blocks if more."""
    blocks_ = sum(-(-s.rows // task_size(max(s.file.ks))) for s in shards)
    return max(1, blocks_, sum(len(f.ks) for f in spec.logical_files()))


def _finished(out: Path, fingerprint: dict, shards: list[Shard], force: bool) -> dict | None:
    """--resume on a finished dataset: its config.json when every file matches the manifest;
    None when it must be generated again (it differs, and ``force`` allows replacing it)."""
    try:
        config = json.loads((out / "config.json").read_text(encoding="utf-8"))
        listed = {e["file"] for e in json.loads((out / "manifest.json").read_text(encoding="utf-8"))["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        config, listed = {}, set()
    planned = {name for s in shards for name in mf.shard_files(s, tuple(fingerprint["formats"])).values()}
    if config.get("spec") != fingerprint["spec"] or config.get("formats") != fingerprint["formats"] or planned != listed:
        if force:
            return None
        raise UsageError(f"{out} holds a dataset of other arguments; add --force to replace it")
    bad = mf.check_manifest(out)
    if bad:
        if force:
            return None
        raise UsageError(f"{out}/{bad[0]} differs from manifest.json ({len(bad)} files); add --force to regenerate")
    return config


def _discard(work: Path, keep: bool) -> None:
    """Remove the work folder, unless it is kept for --resume and holds finished shards."""
    if not keep or not any((work / mf.PARTS).glob("*.json")):
        shutil.rmtree(work, ignore_errors=True)


def check_feasible(spec: DatasetSpec, ctx: TaskContext, engine: Engine) -> None:
    """Build the first row of every (split, k, noise) before any work; RowFailure if one cannot be built
    (``write_dataset`` turns it into the one-line error of :func:`infeasible`).

    The rows are built by the engine's workers.
    """
    probe = replace(ctx, formats=(), fault=None)
    tasks = [Task(-1, f.number, (i * f.rows_per_k,)) for f in ctx.files for i in range(len(f.ks))]
    for _ in engine.imap(run_task, probe, tasks):
        pass


def infeasible(spec: DatasetSpec, k: int, noise: str, split: str) -> UsageError:
    """The one-line error for a (k, noise) the family settings cannot serve, with what to change."""
    fc = spec.config.family
    families = f"--generations {fc.generations} --max-children {fc.max_children} --p-marry {fc.p_marry}"
    hint = "raise --generations, --max-children or --p-marry"
    if noise != "none":
        hint += f", lower --noise-facts (now {spec.config.noise_facts})"
    flag = "--k" if split == "train" else "--test-k"
    return UsageError(f"cannot build k={k} stories with noise={noise} from families of {families}: "
                      f"{hint}, or drop k={k} from {flag}")


def _generate(engine: Engine, ctx: TaskContext, shards: list[Shard], work: Path, progress: bool, total: int) -> None:
    """Generate ``shards`` (pass one: attempt 0 everywhere) into ``work``, with their part files."""
    (work / mf.PARTS).mkdir(exist_ok=True)
    tasks = (Task(n, s.file.number, r) for n, (s, r) in
             enumerate((s, r) for s in shards for r in blocks(s, task_size(max(s.file.ks)))))
    done = total - len(shards)
    bar = _progress_bar(progress, sum(s.rows for s in shards), f"{engine.describe()}: shards {done}/{total}")
    results = engine.imap(run_task, ctx, tasks)
    try:
        for shard in shards:
            _write_shard(shard, ctx, work, results, bar)
            done += 1
            bar.set_description(f"{engine.describe()}: shards {done}/{total}")
    finally:
        bar.close()
        results.close()


class _NoBar:
    """What the writer calls on a progress bar, doing nothing (no terminal, or --quiet)."""

    def update(self, n: int) -> None:
        """Count ``n`` more rows."""

    def set_description(self, text: str) -> None:
        """Change the label."""

    def close(self) -> None:
        """Finish."""


def _progress_bar(progress: bool, total: int, desc: str):
    """A tqdm bar on a terminal, else a bar that does nothing (tqdm is then never imported: start-up time)."""
    if not progress or not sys.stderr.isatty():
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="story", desc=desc, smoothing=0.1)


def _write_shard(shard: Shard, ctx: TaskContext, work: Path, results, bar) -> None:
    files = mf.shard_files(shard, ctx.formats)
    writers = {fmt: open_shard(work / name, fmt) for fmt, name in files.items()}
    _, hash_path, pattern_path = mf.part_paths(work, shard)
    labels: Counter = Counter()
    heldout = heldout_in_train = 0
    text: dict = {}
    with open(hash_path, "wb") as fh_hash, open(pattern_path, "w", encoding="utf-8") as fh_pat:
        rows = 0
        while rows < shard.rows:
            result: TaskResult = next(results)
            for w in writers.values():
                w.write(result)
            fh_hash.write(b"".join(result.hashes))
            fh_pat.writelines(f"{p}\t{n}\n" for p, n in result.patterns.items())
            labels.update(result.labels)
            heldout += result.heldout
            heldout_in_train += result.heldout_in_train
            add_counts(text, result.text)
            rows += result.rows
            bar.update(result.rows)
    for w in writers.values():
        w.close()
    mf.write_part(work, shard, {fmt: w.sha256 for fmt, w in writers.items()}, labels, heldout, heldout_in_train, text)


def _assemble(engine: Engine, ctx: TaskContext, spec: DatasetSpec, shards: list[Shard], work: Path) -> dict:
    """Pass two: remove duplicate stories across the dataset, then write manifest.json; returns config.json's content."""
    files = list(ctx.files)
    total = sum(f.rows for f in files)
    scratch = work / mf.PARTS / "buckets"
    hashes = StoryHashes(scratch, bucket_count(total))
    patterns = PatternCounts(scratch, bucket_count(total))
    labels = {f.number: Counter() for f in files}
    heldout = Counter()
    heldout_in_train = 0
    text: dict = {}
    sha: dict[str, dict[str, str]] = {}
    for s in shards:
        part = mf.read_part(work, s, ctx.formats, verify=False)
        sha[s.name] = part["sha256"]
        add_counts(text, part["text"])
        labels[s.file.number].update(part["labels"])
        heldout[s.file.number] += part["heldout"]
        heldout_in_train += part["heldout_in_train"]
        _, hash_path, pattern_path = mf.part_paths(work, s)
        hashes.add(hash_records([hash_path.read_bytes()], s.file.offset + s.start))
        with open(pattern_path, encoding="utf-8") as fh:
            block: Counter = Counter()
            for line in fh:
                p, n = line.rstrip("\n").split("\t")
                block[p] += int(n)
                if len(block) >= 100_000:
                    patterns.add(s.file.number, block)
                    block = Counter()
            patterns.add(s.file.number, block)
    attempts, replaced = _resolve_duplicates(engine, ctx, hashes)
    # rows that changed: their final version replaces the first one in files and statistics
    by_shard: dict[Shard, dict[int, int]] = {}
    for g, attempt in sorted(attempts.items()):
        f = _file_of(files, g)
        pos = g - f.offset
        shard = next(s for s in shards if s.file is f and s.start <= pos < s.stop)
        by_shard.setdefault(shard, {})[pos] = attempt
    for shard, rows in by_shard.items():
        f = shard.file.number
        new = _regenerate(engine, ctx, f, rows)
        old = _regenerate(engine, replace(ctx, formats=()), f, {p: 0 for p in rows})
        for sign, version in ((1, new), (-1, old)):
            for r in version:
                labels[f].update({w: sign * n for w, n in r.labels.items()})
                heldout[f] += sign * r.heldout
                heldout_in_train += sign * r.heldout_in_train
                add_counts(text, r.text, sign)
                patterns.add(f, r.patterns, sign)
        for fmt, name in mf.shard_files(shard, ctx.formats).items():
            sha[shard.name][fmt] = rewrite_shard(work / name, fmt, shard.start, _by_row(new))
    entries = [e for s in shards for e in mf.manifest_entries(s, ctx.formats, sha[s.name])]
    (work / "manifest.json").write_text(json.dumps({"generator": "clutrr", "version": __version__, "seed": spec.seed,
                                                    "files": entries}, indent=1) + "\n", encoding="utf-8")
    file_patterns, split_patterns = patterns.summarise([f.split for f in files], TOP_PATTERNS)
    templates, bank_text = next(engine.imap(bank_summaries, ctx, [spec]))  # where the templates are loaded
    return _config(spec, ctx, files, shards, labels, heldout, file_patterns, split_patterns,
                   {"duplicate_stories": 0, "duplicates_replaced": replaced, "rows_replaced": len(attempts),
                    "heldout_patterns_in_train": heldout_in_train}, templates, {**bank_text, **text_measures(text)})


def _resolve_duplicates(engine: Engine, ctx: TaskContext, hashes: StoryHashes) -> tuple[dict[int, int], dict]:
    """Replace duplicates (the higher index of each repeated story) until none is left.

    Returns (global index -> final attempt) and the replacement counts.
    """
    files = list(ctx.files)
    attempts: dict[int, int] = {}
    replaced = {"within_split": 0, "across_splits": 0}
    dirty = set(range(hashes.buckets))
    while dirty:
        dups, keepers = hashes.take_duplicates(dirty)
        dirty = set()
        if not len(dups):
            break
        for g, keeper in zip(dups.tolist(), keepers.tolist()):
            same = _file_of(files, g).split == _file_of(files, keeper).split
            replaced["within_split" if same else "across_splits"] += 1
            attempts[g] = attempts.get(g, 0) + 1
        by_file: dict[int, dict[int, int]] = {}
        for g in dups.tolist():
            f = _file_of(files, g)
            by_file.setdefault(f.number, {})[g - f.offset] = attempts[g]
        for fno, rows in by_file.items():
            offset = files[fno].offset
            for r in _regenerate(engine, replace(ctx, formats=()), fno, rows):
                dirty |= hashes.add(hash_records(r.hashes, (offset + p for p in r.task.positions)))
    return attempts, replaced


def _regenerate(engine: Engine, ctx: TaskContext, file: int, attempts: dict[int, int]) -> list[TaskResult]:
    """Generate the rows at these positions of a file with these attempts (in position order)."""
    items = sorted(attempts.items())
    tasks = [Task(-1, file, tuple(p for p, _ in chunk), tuple(a for _, a in chunk))
             for chunk in (items[i:i + REPLACE_TASK] for i in range(0, len(items), REPLACE_TASK))]
    return list(engine.imap(run_task, ctx, tasks))


def _by_row(results: list[TaskResult]) -> dict[int, TaskResult]:
    """Position -> a one-row result holding that row's encodings and hash."""
    out = {}
    for r in results:
        for i, pos in enumerate(r.task.positions):
            out[pos] = TaskResult(None, csv=r.csv[i:i + 1], jsonl=r.jsonl[i:i + 1], records=r.records[i:i + 1],
                                  hashes=r.hashes[i:i + 1])
    return out


def _file_of(files: list[LogicalFile], g: int) -> LogicalFile:
    """The file holding global row ``g`` (the last file starting at or before it)."""
    return files[bisect.bisect_right([f.offset for f in files], g) - 1]


def _config(spec, ctx, files, shards, labels, heldout, file_patterns, split_patterns, checks, templates, text) -> dict:
    by_split: dict[str, dict] = {}
    out_files = {}
    for f in files:
        out_files[f.stem] = {
            "split": f.split, "rows": f.rows, "shards": sum(1 for s in shards if s.file is f),
            "labels": dict(sorted((w, n) for w, n in labels[f.number].items() if n)),
            "patterns": file_patterns[f.number], "rows_with_heldout_pattern": heldout[f.number],
        }
        agg = by_split.setdefault(f.split, {"rows": 0, "labels": Counter()})
        agg["rows"] += f.rows
        agg["labels"].update(labels[f.number])
    return {
        "generator": "clutrr", "version": __version__, "seed": spec.seed,
        "spec": _spec_dict(spec), "formats": list(ctx.formats),
        "files": out_files,
        "templates": templates,
        "relations": relations_report(spec.config, [*spec.train_k, *spec.test_k]),
        "text": text,
        "splits": {s: {"rows": a["rows"], "labels": dict(sorted((w, n) for w, n in a["labels"].items() if n)),
                       "distinct_patterns": split_patterns.get(s, 0)} for s, a in by_split.items()},
        "checks": checks,
    }


def bank_summaries(ctx: TaskContext, spec: DatasetSpec) -> tuple[dict, dict]:
    """The template holdout and the text section's bank facts (its measures come from the rows)."""
    return template_split(spec), bank_facts(spec.config, spec.seed)


def bank_facts(config: GeneratorConfig, seed: int) -> dict:
    """What ``config.json`` reports about the banks behind a dataset's text: the banks,
    templates dropped by the checker and clauses filled from the fallback (the measures of
    the stories themselves are summed from the workers' :class:`TextTally` counts)."""
    return {
        "templates": config.templates, "fallback_templates": config.fallback_templates,
        "dropped_templates": usable_bank(config.templates, config.kb).dropped,
        "filled_from_fallback": {split: filled_clauses(b) for split, b in banks(config, seed).items()},
    }


def template_split(spec: DatasetSpec) -> dict:
    """The template holdout: which templates each split may use (test ids listed)."""
    parts = banks(spec.config, spec.seed)
    return {
        "source": spec.config.templates, "template_split": spec.config.template_split,
        "train_templates": len(parts["train"]), "test_templates": len(parts["test"]),
        "test_template_ids": sorted(t.id for t in parts["test"].templates()) if spec.config.template_split else [],
    }


def _spec_dict(spec: DatasetSpec) -> dict:
    d = asdict(spec)
    d["train_k"], d["test_k"], d["test_noise"] = list(spec.train_k), list(spec.test_k), list(spec.test_noise)
    return d
