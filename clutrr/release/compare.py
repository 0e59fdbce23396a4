"""Comparability with published CLUTRR figures: the card's section and ``clutrr release --compare
DIR``, which measures the same figures again on a release's files and prints the table."""
from __future__ import annotations

import csv
from pathlib import Path

from clutrr.core.kb import load_kb
from clutrr.release.build import SplitFile
from clutrr.release.figures import BLOOD_KB, NEVER_ASKED, comparability
from clutrr.release.manifest import read_manifest

SPLIT_ORDER = {"train": 0, "validation": 1, "test": 2}


def _pct(n: int, of: int) -> str:
    return f"{100 * n / of:.1f}%" if of else "—"


def comparability_table(figures: dict[str, dict]) -> list[str]:
    """One row per configuration, then all rows: the four measured differences."""
    out = ["| configuration | rows | target words | target never asked in the original | entailed only with "
           "in-law uncles, aunts, nephews, nieces | test rows per file | edge_types types noise facts |",
           "|---|---|---|---|---|---|---|"]
    total = {"rows": 0, "never_asked_rows": 0, "by_marriage_rows": 0, "noise_typed_rows": 0}
    words = 0
    for name, fig in figures.items():
        c = fig["comparability"]
        per = c["test_rows_per_file"]
        span = "—" if per is None else f"{per[0]}" if per[0] == per[1] else f"{per[0]}–{per[1]}"
        out.append(f"| `{name}` | {c['rows']} | {c['target_words']} | {_pct(c['never_asked_rows'], c['rows'])} | "
                   f"{_pct(c['by_marriage_rows'], c['rows'])} | {span} | {_pct(c['noise_typed_rows'], c['rows'])} |")
        total = {key: total[key] + c[key] for key in total}
        words = max(words, c["target_words"])
    out.append(f"| all | {total['rows']} | | {_pct(total['never_asked_rows'], total['rows'])} | "
               f"{_pct(total['by_marriage_rows'], total['rows'])} | | {_pct(total['noise_typed_rows'], total['rows'])} |")
    return out


def comparability_section(figures: dict[str, dict]) -> list[str]:
    """The card's section: what differs from the original's setting, and how much (measured)."""
    never = ", ".join(f"`{w}`" for w in NEVER_ASKED)
    return ["## Comparability with published CLUTRR results", "",
            "Results on this release are not comparable with figures published on the original CLUTRR release, "
            "for four measured reasons (the table below; `clutrr release --compare DIR` measures it again on the "
            "files):", "",
            f"- **More target words.** The original asks 18 words; here up to 22 are asked: {never} were never "
            "targets there. Column *target never asked in the original*: the share of rows asking one of them. "
            "`v1_rob_train_clean_23_test_all_23` asks only the original's 18.",
            "- **Uncle, aunt, nephew and niece include relations by marriage** (an aunt's husband is an uncle). "
            f"Column *entailed only with in-law ...*: the share of rows whose label is not uniquely entailed when "
            f"these four words name blood relatives only (`clutrr verify --kb {BLOOD_KB}`).",
            "- **Test rows are spread evenly over k**; the original's test files hold 38 to 190 rows each, so its "
            "pooled test accuracy weighs chain lengths differently. Column *test rows per file*.",
            "- **`edge_types` types the noise facts too.** The original files typed only the chain's facts, so "
            "code such as ctp's loader, which pairs `story_edges` with `edge_types`, read only the chain; here it "
            "reads the noise facts as story facts and its robustness results are not those it published. Column "
            "*edge_types types noise facts*; `v1_rob_train_clean_23_test_all_23` types the chain only.", "",
            *comparability_table(figures), ""]


def release_files(folder: Path) -> list[SplitFile]:
    """A configuration folder's data files (stem, split, rows), read from its CSV files."""
    files = []
    for path in sorted(folder.glob("*.csv")):
        with open(path, newline="", encoding="utf-8") as fh:
            rows = sum(1 for _ in csv.reader(fh)) - 1
        files.append(SplitFile(path.stem, path.stem.rpartition("_")[2], rows))
    return sorted(files, key=lambda f: SPLIT_ORDER[f.split])


def measure_release(root: str | Path) -> dict[str, dict]:
    """Every configuration's comparability figures, measured on the files of release ``root``."""
    root = Path(root)
    blood = load_kb(BLOOD_KB)
    return {name: {"comparability": comparability(root / name, release_files(root / name), blood)}
            for name in read_manifest(root)["configs"]}
