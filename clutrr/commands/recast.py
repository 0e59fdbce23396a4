"""``clutrr recast DIR --out NLI_DIR``: export a dataset as balanced NLI pairs (JSONL)."""
from __future__ import annotations

import argparse
import json

from clutrr.io.datadir import load_splits
from clutrr.io.staging import StagedDir
from clutrr.core.kb import load_kb
from clutrr.diagnostics.recast import recast_splits

NAME = "recast"
HELP = "recast a dataset as NLI pairs: one entailed and one not-entailed hypothesis per story"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr recast``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files (one split per file)")
    parser.add_argument("--out", required=True, help="folder for <split>.jsonl files and summary.json")
    parser.add_argument("--force", action="store_true", help="overwrite files in a non-empty --out folder")
    parser.add_argument("--kb", default="kinship", help="KB giving the relation words (default: kinship)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the negative relations (default: 0)")


def run(args: argparse.Namespace) -> int:
    """Recast every split and write one JSONL file per split plus a summary."""
    kb = load_kb(args.kb)
    results = recast_splits(load_splits(args.directory), kb, seed=args.seed)
    summary = {"source": args.directory, "kb": kb.name, "seed": args.seed, "splits": {}}
    with StagedDir(args.out, force=args.force) as out:
        for split, records, info in results:
            with open(out.file(f"{split.name}.jsonl"), "w", encoding="utf-8") as fh:
                for rec in records:
                    fh.write(json.dumps(rec) + "\n")
            summary["splits"][split.name] = {"stories": info.stories, "pairs": dict(info.pairs),
                                             "fallback_negatives": info.fallback_negatives}
            print(f"{split.name}: {info.stories} stories -> {sum(info.pairs.values())} pairs "
                  f"({info.fallback_negatives} negatives from the fallback prior)")
        out.file("summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0
