"""``clutrr verify PATH...``: re-derive every row's target under a KB and report per file."""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from clutrr.core.kb import load_kb
from clutrr.diagnostics.progress import bar
from clutrr.diagnostics.verify import VERDICTS, summarize, verify_file
from clutrr.io.bounded import loads as bounded_loads
from clutrr.io.datadir import count_rows
from clutrr.io.staging import write_file
from clutrr.commands.kinship import kb_argument, recorded_kinship
from clutrr.errors import UsageError

NAME = "verify"
HELP = "re-derive each row's target from its edges and genders with a KB and report per file"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the verify command."""
    p.add_argument("paths", nargs="+", help="CSV files or directories holding them")
    p.add_argument("--kb", default="kinship", help="kinship, kinship-blood, clutrr_v1 or a rules file (default kinship)")
    p.add_argument("--kinship", default=None, metavar="NAME|PATH",
                   help="verify under a kinship system's derived rules (as clutrr generate --kinship; default: the "
                        "system the dataset's config.json records, if any)")
    p.add_argument("--show", type=int, default=3, help="rows to list per file and verdict (default 3)")
    p.add_argument("--json", dest="json_out", default=None, help="also write the full report to this JSON file")


def _csv_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for text in paths:
        p = Path(text)
        if p.is_dir():
            found = sorted(p.rglob("*.csv"))
            if not found:
                raise UsageError(f"no CSV files under {p}")
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise UsageError(f"no such file or directory: {p}")
    return files


def _check_report_path(path: Path) -> None:
    """UsageError unless ``path`` is absent or a report an earlier ``verify --json`` wrote."""
    if not path.exists():
        return
    try:
        doc = bounded_loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    except (OSError, ValueError):
        doc = None
    if not (isinstance(doc, dict) and {"kb", "total", "files"} <= set(doc)):
        raise UsageError(f"--json {path} exists and is not a report of clutrr verify; refusing to replace it")


def display_name(path: Path) -> str:
    """The path relative to the working directory when it lies below it, else as given; never cut."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


def _table_line(name: str, width: int, rows: int, counts: dict[str, int]) -> str:
    return f"{name:{width}s} {rows:6d} " + " ".join(f"{counts[v]:12d}" for v in VERDICTS)


def run(args: argparse.Namespace) -> int:
    """Verify each file, print a table and examples; exit 1 if any row is not entailed."""
    recorded = None
    if args.kinship is None and args.kb == "kinship":
        args.kinship = recorded = recorded_kinship(args.paths)
    kb = load_kb(kb_argument(args))
    if args.json_out:
        _check_report_path(Path(args.json_out))
    files = _csv_files(args.paths)
    sizes = [count_rows(f) for f in files]  # every file is checked to be a CLUTRR CSV before any output
    if not sum(sizes):
        raise UsageError(f"no rows to verify in {', '.join(map(str, files))}")
    names = [display_name(f) for f in files]
    width = max(len("TOTAL"), *map(len, names))
    report = {}
    total = dict.fromkeys(VERDICTS, 0)
    print(f"KB: {kb.name} ({'sound' if kb.sound else 'UNSOUND'})"
          + (f", the kinship system config.json records (--kinship {recorded})" if recorded else ""))
    print(f"{'file':{width}s} {'rows':>6s} " + " ".join(f"{v:>12s}" for v in VERDICTS))
    with bar(sum(sizes), desc="verifying") as progress:
        for f, name in zip(files, names):
            verdicts = verify_file(kb, f, progress.update)
            counts = summarize(verdicts)
            for k, v in counts.items():
                total[k] += v
            report[str(f)] = {"counts": counts, "rows": [vars(v) for v in verdicts if v.verdict != "entailed"]}
            progress.clear()
            print(_table_line(name, width, len(verdicts), counts))
            for verdict in VERDICTS[1:]:
                shown = [v for v in verdicts if v.verdict == verdict][: args.show]
                for v in shown:
                    extra = f" derived {v.derived}" if v.derived else ""
                    print(f"    {verdict}: row {v.row} target {v.target!r}{extra}{' ' + v.detail if v.detail else ''}")
    n = sum(total.values())
    print(_table_line("TOTAL", width, n, total))
    derivable = total["entailed"] + total["ambiguous"]
    if n:
        print(f"target derivable: {derivable}/{n} ({derivable / n:.1%}); uniquely entailed: "
              f"{total['entailed']}/{n} ({total['entailed'] / n:.1%})")
    if args.json_out:
        write_file(args.json_out, json.dumps({"generator": "clutrr", "kb": kb.name, "total": total, "files": report},
                                             indent=1))
    return 0 if total["entailed"] == n else 1
