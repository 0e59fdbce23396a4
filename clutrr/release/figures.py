"""The figures a release's card states about each configuration, measured on its files.

- verification: every row of every CSV file re-derived by ``clutrr verify`` (the closure of
  its typed facts under the KB); a release is written only when every row is uniquely entailed;
- leakage: stories that appear in two splits, training rows whose pattern is held out for
  test, and templates of test stories that training stories use;
- the artifact audit (``clutrr audit``): majority, query-only and story-bag baselines on the
  test split, trained on the training split (none without one);
- sizes: rows per split and bytes per format;
- comparability with published CLUTRR figures: target words the original never asks, rows
  entailed only when uncle, aunt, nephew and niece include relations by marriage, test rows per
  file, and rows whose ``edge_types`` types noise facts.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

from clutrr.core.kb import KB, load_kb
from clutrr.diagnostics.audit import audit_dataset
from clutrr.diagnostics.verify import summarize, verify_file
from clutrr.io.csv_format import read_csv
from clutrr.io.datadir import Split
from clutrr.release.build import SplitFile

SPLITS = ("train", "validation", "test")
NEVER_ASKED = ("husband", "wife", "brother-in-law", "sister-in-law")  # never a target in the original release
BLOOD_KB = "kinship-blood"  # uncle, aunt, nephew and niece as blood relatives only


def _by_split(files: list[SplitFile]) -> dict[str, list[SplitFile]]:
    return {s: [f for f in files if f.split == s] for s in SPLITS}


def verification(kb: KB, folder: Path, files: list[SplitFile]) -> dict:
    """Verdict counts over every CSV file; AssertionError naming a file with a row that is not uniquely entailed."""
    total: dict[str, int] = {}
    for f in files:
        counts = summarize(verify_file(kb, folder / f"{f.stem}.csv"))
        if counts["entailed"] != f.rows or sum(counts.values()) != f.rows:
            raise AssertionError(f"{folder.name}/{f.stem}.csv: rows not uniquely entailed: {counts}")
        for verdict, n in counts.items():
            total[verdict] = total.get(verdict, 0) + n
    return total


def leakage(folder: Path, files: list[SplitFile]) -> dict:
    """Stories shared by two splits, held-out patterns in training rows, test templates in training stories."""
    import pyarrow.parquet as pq

    stories: dict[str, set[bytes]] = {}
    templates: dict[str, set[str]] = {}
    heldout_in_training = 0
    for split, group in _by_split(files).items():
        stories[split], templates[split] = set(), set()
        for f in group:
            table = pq.read_table(folder / f"{f.stem}.parquet", columns=["story", "pattern_heldout", "pieces"])
            stories[split] |= {hashlib.blake2b(s.encode(), digest_size=16).digest()
                               for s in table.column("story").to_pylist()}
            templates[split] |= {p["template"] for pieces in table.column("pieces").to_pylist() for p in pieces}
            if split != "test":
                heldout_in_training += sum(table.column("pattern_heldout").to_pylist())
    shared = sum(len(stories[a] & stories[b]) for i, a in enumerate(SPLITS) for b in SPLITS[i + 1:])
    training = templates["train"] | templates["validation"]
    return {"stories_in_two_splits": shared, "heldout_patterns_in_training": heldout_in_training,
            "test_templates": len(templates["test"]), "test_templates_in_training": len(templates["test"] & training)}


def audit(kb: KB, folder: Path, files: list[SplitFile]) -> dict | None:
    """The artifact audit's figures on the pooled test split (all k), its baselines trained on the
    training split; None for a configuration without one (cross-validating its test files, which
    repeat each story at several lengths or depths, would measure the repetition)."""
    groups = _by_split(files)
    if not groups["train"]:
        return None
    train = [r for f in groups["train"] for r in read_csv(folder / f"{f.stem}.csv")]
    test = [r for f in groups["test"] for r in read_csv(folder / f"{f.stem}.csv")]
    report = audit_dataset([Split("release_train", folder, train), Split("release_test", folder, test)], kb).report
    group = report["splits"][-1]["groups"][0]
    return {
        "evaluation": report["splits"][-1]["evaluation"],
        "majority": group["majority"]["accuracy"], "own_majority": group["majority"]["own_share"],
        "query_only": group["query_only"]["accuracy"], "gender_ceiling": group["gender_ceiling"],
        "story_bag": group["story_bag"]["accuracy"], "passes": report["summary"]["passes"],
    }


def sizes(folder: Path, files: list[SplitFile]) -> dict:
    """Rows per split, files and bytes per format, and each split's size in memory (Arrow bytes, the
    ``num_bytes`` of HuggingFace ``datasets``)."""
    import pyarrow.parquet as pq

    return {
        "rows": {s: sum(f.rows for f in g) for s, g in _by_split(files).items()},
        "files": len(files),
        "bytes": {fmt: sum((folder / f"{f.stem}.{fmt}").stat().st_size for f in files) for fmt in ("parquet", "csv")},
        "arrow_bytes": {s: sum(pq.read_table(folder / f"{f.stem}.parquet").nbytes for f in g)
                        for s, g in _by_split(files).items()},
    }


def comparability(folder: Path, files: list[SplitFile], blood: KB | None = None) -> dict:
    """What keeps a configuration's results from being compared with published CLUTRR figures,
    measured on its CSV files: target words used, rows whose target the original never asks
    (:data:`NEVER_ASKED`), rows not uniquely entailed when uncle, aunt, nephew and niece are blood
    relatives only (the ``kinship-blood`` KB), test rows per file, and rows whose ``edge_types``
    types more facts than the chain (noise facts that ctp-style loaders read as story facts)."""
    blood = blood or load_kb(BLOOD_KB)
    words: set[str] = set()
    rows = never = by_marriage = noise_typed = 0
    for f in files:
        path = folder / f"{f.stem}.csv"
        by_marriage += f.rows - summarize(verify_file(blood, path))["entailed"]
        for row in read_csv(path):
            rows += 1
            words.add(row.target)
            never += row.target in NEVER_ASKED
            noise_typed += len(row.edge_types) > int(row.task_name.rpartition(".")[2])  # task_T.k: k chain facts
    test = [f.rows for f in files if f.split == "test"]
    return {"rows": rows, "target_words": len(words), "never_asked_rows": never, "by_marriage_rows": by_marriage,
            "test_rows_per_file": [min(test), max(test)] if test else None, "noise_typed_rows": noise_typed}


def config_figures(kb: KB, folder: Path, files: list[SplitFile], blood: KB | None = None) -> dict:
    """Every figure of one configuration."""
    return {**sizes(folder, files), "verify": verification(kb, folder, files), "leakage": leakage(folder, files),
            "audit": audit(kb, folder, files), "comparability": comparability(folder, files, blood)}
