"""Run a generation: write a dataset folder of sharded CSV/JSONL/Parquet files, manifest.json and config.json.

The plan (:mod:`clutrr.pipeline.spec`) cuts the dataset into shards and pieces; an engine
(:mod:`clutrr.engines`) runs the tasks anywhere, and its workers write the files into the
run's work store themselves (:mod:`clutrr.pipeline.parts`), sending back only part records.
Then a partitioned pass (:mod:`clutrr.io.dedupe`) replaces every story that repeats an
earlier one, round after round, and workers rewrite only the shards that changed. Work
happens in a folder (or object-store prefix) beside the output that is moved into place
when everything is written; see ``docs/scale.md``.
"""
from __future__ import annotations

import bisect
import json
import shutil
import sys
import tempfile
from collections import Counter
from contextlib import contextmanager
from dataclasses import asdict, replace
from pathlib import Path
from typing import Iterator

from clutrr import __version__
from clutrr.story.generator import GeneratorConfig, banks, relations_report
from clutrr.engines import Engine, create_engine
from clutrr.errors import UsageError
from clutrr.io import manifest as mf
from clutrr.io.dedupe import PatternCounts, StoryHashes, bucket_count, hash_records
from clutrr.io.prefixes import commit_prefix, partial_prefix, staging_prefix
from clutrr.io.rows import Task, TaskResult
from clutrr.io.shards import LogicalFile, Shard, plan_shards
from clutrr.io.lock import unlock_output
from clutrr.io.ownership import DATASET
from clutrr.io.staging import PARTIAL_STAMP, partial_dir, real_target, replace_dir, staging_dir
from clutrr.io.store import LocalStore, Store, local_path, open_store
from clutrr.kinship.derive import shown_source
from clutrr.pipeline.joins import PieceJoiner
from clutrr.pipeline.parts import join_file, rewrite_rows, seal_shard, write_piece
from clutrr.pipeline.spec import MAX_SHARDS, ROWS_PER_SHARD, DatasetSpec, RunOptions, plan_pieces, task_size
from clutrr.pipeline.tasks import RowFailure, TaskContext, add_counts, prepare, run_task, text_measures
from clutrr.render.measures import filled_clauses
from clutrr.render.usable import usable_bank
from clutrr.story.long_context import context_measures

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
    target = open_store(out)
    files = spec.logical_files()
    count = sum(max(1, -(-f.rows // rows_per_shard)) for f in files)
    if count > MAX_SHARDS:
        raise UsageError(f"--rows-per-shard {rows_per_shard} cuts the files into {count:,} shards, more than the "
                         f"{MAX_SHARDS:,} supported: raise --rows-per-shard")
    shards = plan_shards(files, rows_per_shard)
    if run.shard is not None:
        i, n = run.shard
        if not 0 <= i < n:
            raise UsageError(f"--shard must be in 0..{n - 1}, got {i}")
    fingerprint = {"version": __version__, "spec": _spec_dict(spec), "formats": list(formats),
                   "rows_per_shard": rows_per_shard}
    keep = run.resume or run.shard is not None
    if run.resume and run.shard is None and target.exists("manifest.json"):
        done = _finished(target, fingerprint, shards, force)
        if done is not None:
            return done
    work = _work_store(target, force, keep, fingerprint, run.discard_edits, lock=run.shard is None)
    ctx = TaskContext(spec.config, spec.seed, tuple(files), formats, work.location)
    workers = min(run.workers, task_count(spec, shards))  # never more workers than tasks
    try:
        with create_engine(run.engine, workers=workers, address=run.address, prepare=prepare,
                           stall=run.stall) as engine:
            engine.start(ctx)  # the KB and templates are loaded (in this process first, when workers are forked)
            check_feasible(spec, ctx, engine)
            mine = shards if run.shard is None else [s for s in shards if s.global_number % run.shard[1] == run.shard[0]]
            todo = [s for s in mine if mf.read_part(work, s, formats) is None]
            _generate(engine, ctx, todo, work, run.progress, len(mine))
            if run.shard is not None:
                return {"shards": len(mine), "generated": len(todo), "rows": sum(s.rows for s in mine),
                        "work": work.shown}
            config = _assemble(engine, ctx, spec, shards, work)
        config["arguments"] = args or {}
        work.write_text("config.json", json.dumps(config, indent=1) + "\n")
        work.remove_tree(mf.PARTS)
        work.remove(PARTIAL_STAMP)
        if isinstance(work, LocalStore):
            replace_dir(work.root, local_path(out), force, DATASET, run.discard_edits)
        else:
            commit_prefix(work, target, force)
    except RowFailure as exc:
        _discard(work, keep)
        raise infeasible(spec, exc.k, exc.noise, exc.split) from None
    except BaseException:
        _discard(work, keep)
        raise
    finally:
        if isinstance(target, LocalStore):
            unlock_output(real_target(target.root))
    return config


def _work_store(target: Store, force: bool, keep: bool, fingerprint: dict, discard_edits: bool = False,
                lock: bool = True) -> Store:
    """The run's work store beside the target, after checking the target may be written:
    a staging folder (or prefix), or the persistent ``.NAME.partial`` one for ``--resume`` and ``--shard``."""
    if isinstance(target, LocalStore):
        return LocalStore(partial_dir(target.root, force, fingerprint, discard_edits, lock) if keep
                          else staging_dir(target.root, force, DATASET, discard_edits))
    return partial_prefix(target, force, fingerprint, PARTIAL_STAMP) if keep else staging_prefix(target, force, PARTIAL_STAMP)


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


def _finished(target: Store, fingerprint: dict, shards: list[Shard], force: bool) -> dict | None:
    """--resume on a finished dataset: its config.json when every file matches the manifest;
    None when it must be generated again (it differs, and ``force`` allows replacing it)."""
    try:
        config = json.loads(target.read_text("config.json"))
        listed = {e["file"] for e in json.loads(target.read_text("manifest.json"))["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        config, listed = {}, set()
    planned = {name for s in shards for name in mf.shard_files(s, tuple(fingerprint["formats"])).values()}
    if config.get("spec") != fingerprint["spec"] or config.get("formats") != fingerprint["formats"] or planned != listed:
        if force:
            return None
        raise UsageError(f"{target.shown} holds a dataset of other arguments; add --force to replace it")
    bad = mf.check_manifest(target)
    if bad:
        if force:
            return None
        raise UsageError(f"{target.shown}/{bad[0]} differs from manifest.json ({len(bad)} files); "
                         f"add --force to regenerate")
    return config


def _discard(work: Store, keep: bool) -> None:
    """Remove the work store, unless it is kept for --resume and holds finished shards
    (quietly: the store may be what failed)."""
    try:
        if not keep or not any(n.startswith(mf.PARTS + "/") and n.endswith(".json") for n in work.files()):
            work.remove_tree()
    except OSError:
        pass


def check_feasible(spec: DatasetSpec, ctx: TaskContext, engine: Engine) -> None:
    """Build the first row of every (split, k, noise) before any work; RowFailure if one cannot be built
    (``write_dataset`` turns it into the one-line error of :func:`infeasible`).

    The rows are built by the engine's workers.
    """
    probe = replace(ctx, formats=())
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


def _generate(engine: Engine, ctx: TaskContext, shards: list[Shard], work: Store, progress: bool, total: int) -> None:
    """Generate ``shards`` (pass one: attempt 0 everywhere): workers write them into ``work``
    with their part records, a shard cut into pieces is joined afterwards: by this process as
    the pieces come back when it shares the workers' disk (CSV, JSONL), else by worker tasks."""
    pieces = plan_pieces(shards, engine.workers, ctx.config.context_words)
    done = total - len(shards)
    bar = _progress_bar(progress, sum(s.rows for s in shards), f"{engine.describe()}: shards {done}/{total}")
    cut: dict[Shard, list[dict]] = {}
    sha: dict[Shard, dict[str, str]] = {}
    joiner = PieceJoiner(work if engine.local_files and isinstance(work, LocalStore) else None, ctx.formats, pieces)

    def joined(shard: Shard, digests: dict[str, str]) -> None:
        nonlocal done
        sha.setdefault(shard, {}).update(digests)
        if len(sha[shard]) == len(ctx.formats):
            seal_shard(work, shard, ctx.formats, cut[shard], sha[shard])
            done += 1
            bar.set_description(f"{engine.describe()}: shards {done}/{total}")

    results = engine.imap(write_piece, replace(ctx, join_in_place=bool(joiner.formats)), pieces)
    try:
        for piece, record in zip(pieces, results):
            bar.update(piece.rows)
            if piece.count == 1:
                done += 1
                bar.set_description(f"{engine.describe()}: shards {done}/{total}")
                continue
            cut.setdefault(piece.shard, []).append(record)
            digests = joiner.add(piece, record) if joiner.formats else None
            if digests is not None:
                joined(piece.shard, digests)
        joins = [(shard, fmt, len(records)) for shard, records in cut.items() for fmt in ctx.formats
                 if fmt not in joiner.formats]
        for (shard, fmt, _), digest in zip(joins, engine.imap(join_file, ctx, joins)):
            joined(shard, {fmt: digest})
    finally:
        joiner.close()
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


@contextmanager
def _scratch(work: Store) -> Iterator[Path]:
    """A local folder for the de-duplication buckets: in the work folder when it is local
    (same disk as the output), else a temporary folder of this machine."""
    if isinstance(work, LocalStore):
        yield work.path(f"{mf.PARTS}/buckets")
        return
    folder = Path(tempfile.mkdtemp(prefix="clutrr-dedupe-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _assemble(engine: Engine, ctx: TaskContext, spec: DatasetSpec, shards: list[Shard], work: Store) -> dict:
    """Pass two: remove duplicate stories across the dataset, then write manifest.json; returns config.json's content."""
    with _scratch(work) as scratch:
        return _deduplicate(engine, ctx, spec, shards, work, scratch)


def _deduplicate(engine: Engine, ctx: TaskContext, spec: DatasetSpec, shards: list[Shard], work: Store,
                 scratch: Path) -> dict:
    files = list(ctx.files)
    total = sum(f.rows for f in files)
    hashes = StoryHashes(scratch, bucket_count(total))
    patterns = PatternCounts(scratch, bucket_count(total))
    labels = {f.number: Counter() for f in files}
    heldout = Counter()
    heldout_in_train = 0
    text: dict = {}
    sha: dict[str, dict[str, str]] = {}
    for s in shards:
        part = mf.read_part(work, s, ctx.formats, verify=False)
        if part is None:
            raise UsageError(f"shard {s.name}, written by a worker, is missing from {work.shown}: with workers on "
                             f"other machines, --out must be a folder they all share or an object store URL")
        sha[s.name] = part["sha256"]
        add_counts(text, part["text"])
        labels[s.file.number].update(part["labels"])
        heldout[s.file.number] += part["heldout"]
        heldout_in_train += part["heldout_in_train"]
        _, hash_name, pattern_name = mf.part_names(s)
        hashes.add(hash_records([work.read_bytes(hash_name)], s.file.offset + s.start))
        block: Counter = Counter()
        for line in work.read_text(pattern_name).splitlines():
            p, n = line.split("\t")
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
    jobs = list(by_shard.items())
    for (shard, _), result in zip(jobs, engine.imap(rewrite_rows, ctx, jobs)):
        f = shard.file.number
        for sign, version in ((1, result["new"]), (-1, result["old"])):
            for r in version:
                labels[f].update({w: sign * n for w, n in r["labels"].items()})
                heldout[f] += sign * r["heldout"]
                heldout_in_train += sign * r["heldout_in_train"]
                add_counts(text, r["text"], sign)
                patterns.add(f, r["patterns"], sign)
        sha[shard.name].update(result["sha256"])
    entries = [e for s in shards for e in mf.manifest_entries(s, ctx.formats, sha[s.name])]
    work.write_text("manifest.json", json.dumps({"generator": "clutrr", "version": __version__, "seed": spec.seed,
                                                 "files": entries}, indent=1) + "\n")
    file_patterns, split_patterns = patterns.summarise([f.split for f in files], TOP_PATTERNS)
    templates, bank_text = next(engine.imap(bank_summaries, ctx, [spec]))  # where the templates are loaded
    text_section = {**bank_text, **text_measures(text),
                    **context_measures(text, spec.config.context_words, spec.config.depth)}
    return _config(spec, ctx, files, shards, labels, heldout, file_patterns, split_patterns,
                   {"duplicate_stories": 0, "duplicates_replaced": replaced, "rows_replaced": len(attempts),
                    "heldout_patterns_in_train": heldout_in_train}, templates, text_section)


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
        "templates": shown_source(config.templates), "fallback_templates": shown_source(config.fallback_templates),
        "dropped_templates": usable_bank(config.templates, config.kb).dropped,
        "filled_from_fallback": {split: filled_clauses(b) for split, b in banks(config, seed).items()},
    }


def template_split(spec: DatasetSpec) -> dict:
    """The template holdout: which templates each split may use (test ids listed)."""
    parts = banks(spec.config, spec.seed)
    return {
        "source": shown_source(spec.config.templates), "template_split": spec.config.template_split,
        "train_templates": len(parts["train"]), "test_templates": len(parts["test"]),
        "test_template_ids": sorted(t.id for t in parts["test"].templates()) if spec.config.template_split else [],
    }


def _spec_dict(spec: DatasetSpec) -> dict:
    d = asdict(spec)
    for key in ("kb", "templates", "fallback_templates"):
        d["config"][key] = shown_source(d["config"][key])
    if spec.config.question == "relation":  # a default run's config.json keeps the bytes it had before --question
        del d["config"]["question"]
    if not spec.config.difficulty:  # nor before --difficulty
        del d["config"]["difficulty"]
    d["train_k"], d["test_k"], d["test_noise"] = list(spec.train_k), list(spec.test_k), list(spec.test_noise)
    return d
