"""Permutation acceptance of a trained model on word-permute probes (Sinha, ch. 4).

The probes come from ``clutrr probe DIR --kind word-permute --out PROBES``: for each test
file, q word-level derangements of each story (q = 100 by default, as in the thesis), with
ids ``<story id>::perm<j>``. A model that reasons over the story text should reject them;
the metrics (:mod:`clutrr.diagnostics.permutation_metrics`) say how often it does not.
Only models that read the text can be probed this way: the graph model reads the story's
facts, which a word permutation leaves intact, so it is refused.

With an export path, the model's class probabilities on every original story and every
permutation are saved (``.npz``), from which the Ω_x curve and the confidence entropy of the
thesis can be computed (see :func:`load_export`).
"""
from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from clutrr.baselines.data import Dataset, Story, TestSplit, tokenize
from clutrr.baselines.registry import Model, predict_chunked
from clutrr.diagnostics.permutation_metrics import permutation_acceptance
from clutrr.diagnostics.probes import PERM_SEP, source_id
from clutrr.diagnostics.progress import bar
from clutrr.errors import UsageError


def check_probe(dataset: Dataset, probe_dir: str | Path, model: type[Model]) -> list[Path]:
    """The word-permute probe CSVs that match a test file of ``dataset``; UsageError when the
    model does not read the text, the folder is not a word-permute probe, or nothing matches."""
    if not model.reads_text:
        raise UsageError(f"--probe measures how a model treats word order, but {model.name} reads the story's "
                         "facts as a graph, which a word permutation leaves intact (its P^c would be about 1 by "
                         "construction); probe a text model such as bilstm-attn or bilstm-mean")
    root = Path(probe_dir)
    if not root.is_dir():
        raise UsageError(f"probe directory {root} does not exist")
    meta = root / "probe.json"
    kind = json.loads(meta.read_text(encoding="utf-8")).get("kind") if meta.is_file() else None
    if kind != "word-permute":
        raise UsageError(f"{root} holds no word-permute probes (probe.json says {kind!r}); "
                         "write them with `clutrr probe DATA --kind word-permute`")
    tests = {t.file for t in dataset.tests}
    found = sorted(p for p in root.glob("*.csv") if p.name in tests)
    if not found:
        raise UsageError(f"no probe CSV in {root} matches a test file of {dataset.root}")
    return found


def load_permutations(path: Path, split: TestSplit, progress: bool = True) -> list[Story]:
    """The permuted stories of a word-permute probe file of ``split``.

    A permutation changes only a row's id and story, so only those two columns are read; the
    rest (people, facts, query, label) is the original story's.
    """
    by_id = {s.id: s for s in split.stories}
    out = []
    with open(path, newline="", encoding="utf-8") as fh, \
            bar(desc=f"reading {path.name}", enabled=None if progress else False) as b:
        for n, rec in enumerate(csv.DictReader(fh)):
            pid, text = rec.get("id"), rec.get("story")
            original = by_id.get(source_id(pid or ""))
            if original is None or text is None or PERM_SEP not in (pid or ""):
                raise UsageError(f"{path}: row {n} is not a word permutation of a story of {split.file}")
            tokens, slots = tokenize(text, list(original.people))
            out.append(replace(original, id=pid, tokens=tokens, slots=slots))
            b.update()
    return out


def load_probes(dataset: Dataset, probe_dir: str | Path, model: type[Model],
                progress: bool = True) -> list[tuple[TestSplit, list[Story]]]:
    """Each test file of ``dataset`` that has word-permute probes, with its permuted stories
    (checked and read once, for every run; UsageError as :func:`check_probe`)."""
    out = []
    for path in check_probe(dataset, probe_dir, model):
        split = next(t for t in dataset.tests if t.file == path.name)
        out.append((split, load_permutations(path, split, progress)))
    return out


def permutation_metrics(model: Model, dataset: Dataset, probed: list[tuple[TestSplit, list[Story]]],
                        export: str | Path | None = None, progress: bool = True) -> dict[str, dict[str, Any]]:
    """Ω_max, Ω_rand, P^c and P^f (with their counts) per test file of ``probed`` (from
    :func:`load_probes`); with ``export``, also save the probabilities behind them to that ``.npz`` file."""
    words = dataset.labels.words
    out: dict[str, dict[str, Any]] = {}
    stories: dict[str, list] = {k: [] for k in ("file", "story", "gold", "original_probs")}
    perms: dict[str, list] = {k: [] for k in ("story_index", "perm", "probs")}
    for split, probes in probed:
        original = predict_chunked(model, split.stories, f"{split.file} originals", progress)
        probs = predict_chunked(model, probes, f"{split.file} permutations", progress)
        grouped: dict[str, list[int]] = {}
        for j, s in enumerate(probes):
            grouped.setdefault(source_id(s.id), []).append(j)
        kept = [i for i, s in enumerate(split.stories) if s.id in grouped]
        if not kept:
            continue
        result = permutation_acceptance(
            [words[split.stories[i].label] for i in kept], [words[int(original[i].argmax())] for i in kept],
            [[words[int(probs[j].argmax())] for j in grouped[split.stories[i].id]] for i in kept], len(words),
        )
        out[split.file] = result.as_dict()
        for i in kept:
            story = split.stories[i]
            for j in grouped[story.id]:
                perms["story_index"].append(len(stories["story"]))
                perms["perm"].append(int(probes[j].id.rsplit(PERM_SEP, 1)[1]))
                perms["probs"].append(probs[j])
            stories["file"].append(split.file)
            stories["story"].append(story.id)
            stories["gold"].append(story.label)
            stories["original_probs"].append(original[i])
    if export is not None and stories["story"]:
        export = Path(export)
        export.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(
            export, labels=np.array(words), test_file=np.array(stories["file"]), story=np.array(stories["story"]),
            gold=np.array(stories["gold"], dtype=np.int16),
            original_probs=np.stack(stories["original_probs"]).astype(np.float16),
            story_index=np.array(perms["story_index"], dtype=np.int32), perm=np.array(perms["perm"], dtype=np.int32),
            probs=np.stack(perms["probs"]).astype(np.float16),
        )
    return out


def load_export(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays saved by :func:`permutation_metrics`. Per story: ``test_file``, ``story`` id,
    ``gold`` label id and ``original_probs`` (class probabilities on the original story); per
    permutation: ``story_index`` (its story's row), ``perm`` index and class ``probs``;
    ``labels`` names the classes."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}
