"""``clutrr probe DIR --kind KIND``: write probe copies of a dataset's test files."""
from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from clutrr.io.ownership import FORCE_HELP
from clutrr.io.csv_format import CsvWriter
from clutrr.io.staging import StagedDir
from clutrr.errors import UsageError
from clutrr.commands.kinship import kb_argument
from clutrr.core.kb import load_kb
from clutrr.diagnostics.acceptance import OMEGA_MAX, acceptance_lines, read_export, score_export
from clutrr.diagnostics.probes import KINDS, THESIS_MIN_WORDS, THESIS_Q, Rerenderer, iter_probe
from clutrr.diagnostics.progress import bar, read_splits

NAME = "probe"
MAX_Q = 10_000  # word-permute rows per story: the probe is q times its test files
HELP = ("write probe test sets: sentence-shuffle, word-permute, gender-swap or entity-rename; or, with --acceptance, "
        "score a model's saved word-permute predictions (Sinha's permutation acceptance)")
MEMORY_ADVICE = "a smaller --q, or a folder of fewer test rows"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr probe``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files; its test files are probed")
    parser.add_argument("--kind", help=f"probe kind: {' | '.join(KINDS)}")
    parser.add_argument("--acceptance", metavar="EXPORT.npz",
                        help="instead of writing probes, score a model's predictions on word-permute probes of this "
                             "folder's test files, as saved by the baselines' --probe ... --out "
                             "(<out>/permutations/seed<S>.npz)")
    parser.add_argument("--omega-max", choices=OMEGA_MAX, default="both",
                        help="with --acceptance: Omega_max by the thesis's formula (acceptance above 1/|D_test|), by "
                             "its prose (at least one accepted permutation) or both (default, with why they differ)")
    parser.add_argument("--figures", metavar="DIR",
                        help="with --acceptance: write acceptance_<test file>.png (entropy of accepted permutations "
                             "by D^c and D^f, acceptance by story length) into DIR; needs matplotlib")
    parser.add_argument("--out", help="output folder (default: probes/<folder name>/<kind> under the current directory)")
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument("--q", type=int, default=THESIS_Q,
                        help=f"permutations per story for word-permute (default: {THESIS_Q}, as in Sinha's thesis; "
                             "Omega_rand differs from Omega_max only when q is at least the number of labels)")
    parser.add_argument("--min-words", type=int, default=THESIS_MIN_WORDS,
                        help=f"word-permute drops stories of fewer words (default: {THESIS_MIN_WORDS}: Sinha's thesis "
                             "drops examples with a sentence of 5 words or fewer)")
    parser.add_argument("--seed", type=int, default=0, help="probe seed (default: 0)")
    parser.add_argument("--kb", default="kinship", help="KB giving the relation words (default: kinship)")
    parser.add_argument("--kinship", default=None, metavar="NAME|PATH",
                        help="the kinship system the stories were generated in (as clutrr generate --kinship)")


def run(args: argparse.Namespace) -> int:
    """Probe every test file of the folder into the output folder, one CSV per test file (or,
    with ``--acceptance``, score a model's export against the folder's stories)."""
    if args.acceptance:
        return _acceptance(args)
    if args.figures:
        raise UsageError("--figures goes with --acceptance")
    if args.kind not in KINDS:
        raise UsageError(f"unknown --kind {args.kind!r} (choose from {', '.join(KINDS)})")
    if not 1 <= args.q <= MAX_Q:
        raise UsageError(f"--q must be from 1 to {MAX_Q:,} (rows per story), got {args.q}")
    if args.min_words < 2:
        raise UsageError("--min-words must be at least 2 (a word permutation needs two words)")
    kb = load_kb(kb_argument(args))
    splits = read_splits(args.directory)
    tests = [s for s in splits if not s.is_train]
    if not tests:
        raise UsageError(f"{args.directory}: no test files to probe")
    avoid = {n for s in splits if s.is_train for r in s.rows for n, _ in r.genders}
    out_dir = Path(args.out) if args.out else Path("probes") / Path(args.directory).resolve().name / args.kind
    meta = {"kind": args.kind, "source": args.directory, "seed": args.seed, "kb": kb.name, "files": {}}
    if args.kind == "word-permute":
        meta["q"], meta["min_words"] = args.q, args.min_words
    notes, skips = [], []
    with StagedDir(out_dir, force=args.force) as out, \
            bar(sum(len(s.rows) for s in tests), desc=args.kind, unit="story") as progress:
        for s in tests:  # rows are written as they are made: a word-permute probe is q times its test file
            rerender = Rerenderer.beside(s.path, kb) if args.kind == "gender-swap" else None
            n, skipped = 0, Counter()
            with open(out.file(s.path.name), "w", newline="", encoding="utf-8") as fh:
                writer = CsvWriter(fh)
                for row in s.rows:
                    for probe in iter_probe(args.kind, [row], kb, seed=args.seed, q=args.q, avoid_names=avoid,
                                            rerender=rerender, min_words=args.min_words, skipped=skipped):
                        writer.write(probe)
                        n += 1
                    progress.update()
            meta["files"][s.path.name] = {"stories": len(s.rows), "rows": n, "skipped": dict(sorted(skipped.items()))}
            if skipped:
                skips.append(f"{s.path.name}: {sum(skipped.values())} of {len(s.rows)} stories skipped: "
                             + "; ".join(f"{k} {why}" for why, k in sorted(skipped.items())))
            if args.kind == "gender-swap":
                notes.append(_swap_note(s, rerender))
        if notes:
            meta["gender_swap"] = notes
        out.file("probe.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    for note in notes + skips:
        print(note)
    rows = sum(f["rows"] for f in meta["files"].values())
    print(f"wrote {rows} {args.kind} rows in {len(tests)} files to {out_dir}")
    if args.kind == "word-permute" and args.q < len(kb.words):
        print(f"note: with q={args.q} < {len(kb.words)} labels one accepted permutation is already above chance, "
              f"so Omega_rand will equal Omega_max (the thesis uses q={THESIS_Q})")
    return 0


def _acceptance(args: argparse.Namespace) -> int:
    """Print the permutation acceptance of an export, per test file; figures on request."""
    if args.kind:
        raise UsageError("--acceptance scores an export; it writes no probes (drop --kind)")
    if args.figures:
        from clutrr.diagnostics.figures import require

        require()
    export = read_export(args.acceptance)
    lengths = {r.id: len(r.story.split()) for s in read_splits(args.directory) if not s.is_train for r in s.rows}
    scores = score_export(export, lengths)
    if not scores:
        raise UsageError(f"{args.acceptance}: no story with permutations")
    if args.figures:
        from clutrr.diagnostics.figures import plot_acceptance

        with StagedDir(args.figures, force=args.force) as out:
            for file, entry in scores.items():
                plot_acceptance(entry["entropy"], entry["length"], out.file(f"acceptance_{Path(file).stem}.png"))
    print("\n".join(acceptance_lines(scores, args.omega_max)))
    return 0


def _swap_note(split, rerender: Rerenderer | None) -> str:
    done = rerender.rendered if rerender else 0
    how = "" if done == len(split.rows) else (
        " (no JSONL records and config.json beside it, as in released data)" if rerender is None
        else " (the others' records do not re-render to their text)")
    return (f"{split.path.name}: {done} of {len(split.rows)} stories re-rendered through their templates, "
            f"{len(split.rows) - done} rewritten word by word{how}")
