"""``clutrr probe DIR --kind KIND``: write probe copies of a dataset's test files."""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from clutrr.io.csv_format import CsvWriter
from clutrr.io.datadir import load_splits
from clutrr.io.staging import StagedDir
from clutrr.errors import UsageError
from clutrr.core.kb import load_kb
from clutrr.diagnostics.probes import KINDS, Rerenderer, make_probe

NAME = "probe"
HELP = "write probe test sets: sentence-shuffle, word-permute, gender-swap or entity-rename"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr probe``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files; its test files are probed")
    parser.add_argument("--kind", required=True, help=f"probe kind: {' | '.join(KINDS)}")
    parser.add_argument("--out", help="output folder (default: probes/<folder name>/<kind> under the current directory)")
    parser.add_argument("--force", action="store_true", help="overwrite files in a non-empty --out folder")
    parser.add_argument("--q", type=int, default=5, help="permutations per story for word-permute (default: 5)")
    parser.add_argument("--seed", type=int, default=0, help="probe seed (default: 0)")
    parser.add_argument("--kb", default="kinship", help="KB giving the relation words (default: kinship)")


def run(args: argparse.Namespace) -> int:
    """Probe every test file of the folder into the output folder, one CSV per test file."""
    if args.kind not in KINDS:
        raise UsageError(f"unknown --kind {args.kind!r} (choose from {', '.join(KINDS)})")
    if args.q < 1:
        raise UsageError("--q must be at least 1")
    kb = load_kb(args.kb)
    splits = load_splits(args.directory)
    tests = [s for s in splits if not s.is_train]
    if not tests:
        raise UsageError(f"{args.directory}: no test files to probe")
    avoid = {n for s in splits if s.is_train for r in s.rows for n, _ in r.genders}
    probed, notes = [], []
    for s in tests:
        rerender = Rerenderer.beside(s.path, kb) if args.kind == "gender-swap" else None
        probed.append((s, make_probe(args.kind, s.rows, kb, seed=args.seed, q=args.q, avoid_names=avoid,
                                     rerender=rerender)))
        if args.kind == "gender-swap":
            done = rerender.rendered if rerender else 0
            how = "" if done == len(s.rows) else (
                " (no JSONL records and config.json beside it, as in released data)" if rerender is None
                else " (the others' records do not re-render to their text)")
            notes.append(f"{s.path.name}: {done} of {len(s.rows)} stories re-rendered through their templates, "
                         f"{len(s.rows) - done} rewritten word by word{how}")
    out_dir = Path(args.out) if args.out else Path("probes") / Path(args.directory).resolve().name / args.kind
    meta = {"kind": args.kind, "source": args.directory, "seed": args.seed, "kb": kb.name, "files": {}}
    if args.kind == "word-permute":
        meta["q"] = args.q
    if notes:
        meta["gender_swap"] = notes
    with StagedDir(out_dir, force=args.force) as out:
        for split, rows in probed:
            with open(out.file(split.path.name), "w", newline="", encoding="utf-8") as fh:
                writer = CsvWriter(fh)
                for row in rows:
                    writer.write(row)
            meta["files"][split.path.name] = {"stories": len(split.rows), "rows": len(rows)}
        out.file("probe.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    for note in notes:
        print(note)
    print(f"wrote {sum(len(r) for _, r in probed)} {args.kind} rows in {len(probed)} files to {out_dir}")
    return 0
