"""``clutrr recast DIR --out NLI_DIR``: export a dataset as balanced NLI pairs (JSONL)."""
from __future__ import annotations

import argparse
import json

from clutrr.io.ownership import FORCE_HELP
from clutrr.core.kb import load_kb
from clutrr.diagnostics.progress import bar
from clutrr.diagnostics.recast import CONTRADICTION, LABEL_COUNTS, NEGATIVES, check_kb, recast_splits
from clutrr.errors import UsageError
from clutrr.io.datadir import load_splits
from clutrr.io.staging import StagedDir

NAME = "recast"
HELP = "recast a dataset as NLI pairs: one entailed and one not-entailed hypothesis per story, labelled by the KB"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``clutrr recast``."""
    parser.add_argument("directory", help="folder of CLUTRR CSV files (one split per file)")
    parser.add_argument("--out", required=True, help="folder for <split>.jsonl files and summary.json")
    parser.add_argument("--force", action="store_true", help=FORCE_HELP)
    parser.add_argument("--kb", default="kinship",
                        help="sound KB whose closure of each story gives the labels: kinship or kinship-blood "
                             "(default: kinship)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the negative relations (default: 0)")
    parser.add_argument("--negatives", choices=NEGATIVES, default=CONTRADICTION,
                        help="kind of the not-entailed hypotheses: contradiction (default: surely false), neutral "
                             "(neither entailed nor refuted, witnessed in worlds of the world model; stories without "
                             "one are dropped) or mixed (either, as the recasting papers' not-entailed class)")
    parser.add_argument("--labels", type=int, choices=LABEL_COUNTS, default=2,
                        help="2 (default): entailed / not-entailed; 3: entailed / neutral / contradiction, three "
                             "hypotheses per story (stories without both kinds of negative are dropped)")


def run(args: argparse.Namespace) -> int:
    """Recast every split and write one JSONL file per split plus a summary."""
    if args.labels == 3 and args.negatives != CONTRADICTION:
        raise UsageError("--negatives chooses the not-entailed class of two labels; --labels 3 has both kinds")
    kb = load_kb(args.kb)
    check_kb(kb)
    splits = load_splits(args.directory)
    with StagedDir(args.out, force=args.force) as out:
        with bar(sum(len(s.rows) for s in splits), desc="recasting", unit="story") as progress:
            results = recast_splits(splits, kb, seed=args.seed, step=progress.update, negatives=args.negatives,
                                    labels=args.labels)
        summary = {"source": args.directory, "kb": kb.name, "seed": args.seed, "negatives": args.negatives,
                   "splits": {}}
        if args.labels == 3:
            summary["labels"] = 3
        for split, records, info in results:
            with open(out.file(f"{split.name}.jsonl"), "w", encoding="utf-8") as fh:
                for rec in records:
                    fh.write(json.dumps(rec) + "\n")
            summary["splits"][split.name] = info.as_dict()
            print(info.line(split.name))
        out.file("summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return 0
