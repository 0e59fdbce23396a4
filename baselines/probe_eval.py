"""Permutation acceptance of a trained model on word-permute probes (Sinha, ch. 4).

The probes come from ``clutrr probe DIR --kind word-permute --out PROBES``: for each test
file, q word-level derangements of each story, with ids ``<story id>::perm<j>``. A model
that reasons over the story should reject them; the metrics say how often it does not.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from clutrr.baselines.data import Dataset, load_stories
from clutrr.baselines.registry import Model, predict_chunked
from clutrr.errors import UsageError
from clutrr.diagnostics.permutation_metrics import group_by_story, permutation_acceptance


def probe_files(dataset: Dataset, probe_dir: str | Path) -> list[Path]:
    """The probe CSVs that match a test file of ``dataset`` by name; UsageError if none does."""
    root = Path(probe_dir)
    if not root.is_dir():
        raise UsageError(f"probe directory {root} does not exist")
    tests = {t.file for t in dataset.tests}
    found = sorted(p for p in root.glob("*.csv") if p.name in tests)
    if not found:
        raise UsageError(f"no probe CSV in {root} matches a test file of {dataset.root}")
    return found


def permutation_metrics(model: Model, dataset: Dataset, probe_dir: str | Path,
                        progress: bool = False) -> dict[str, dict[str, Any]]:
    """Ω_max, Ω_rand, P^c and P^f per test file that has word-permute probes."""
    words = dataset.labels.words
    out = {}
    for path in tqdm(probe_files(dataset, probe_dir), desc="probe files", unit="file", disable=not progress,
                     file=sys.stderr):
        split = next(t for t in dataset.tests if t.file == path.name)
        original = model.predict(split.stories)
        probes = load_stories(path, dataset.labels)
        predicted = predict_chunked(model, probes, f"probes {path.name}", progress).argmax(axis=1)
        grouped = group_by_story([s.id for s in probes], [words[p] for p in predicted])
        kept = [i for i, s in enumerate(split.stories) if s.id in grouped]
        if not kept:
            continue
        result = permutation_acceptance(
            [words[split.stories[i].label] for i in kept], [original[i] for i in kept],
            [grouped[split.stories[i].id] for i in kept], len(words),
        )
        out[split.file] = result.as_dict()
    return out
