"""The stories behind ``clutrr eval``'s per-item results, each with the models' answers.

``items.jsonl`` (in the eval ``--out`` folder) holds one JSON object per (model, item, sample)
with at least ``model``, ``id``, ``file`` (the test file's stem, e.g. ``1.4_test``), ``gold``,
``answer`` (the relation word read from the reply, or null) and ``correct``; ``sample``,
``k`` and ``noise`` are used when present. The stories themselves are read from the dataset
folder the evaluation ran on, by file and id.
"""
from __future__ import annotations

import random
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.bounded import loads as bounded_loads
from clutrr.graph.story import canonical_word, record_from_row
from clutrr.core.records import StoryRow
from clutrr.io.csv_format import RowParseError, read_csv
from clutrr.io.datadir import split_paths

REQUIRED = ("model", "id", "file", "gold", "answer", "correct")


def read_items(path: str | Path) -> list[dict]:
    """Every object of an ``items.jsonl``; UsageError naming the first bad line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    items = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = bounded_loads(line)
        except ValueError:
            raise UsageError(f"{path}: line {n} is not JSON") from None
        missing = [key for key in REQUIRED if not isinstance(item, dict) or key not in item]
        if missing:
            raise UsageError(f"{path}: line {n} has no {', '.join(missing)} (not clutrr eval's items.jsonl?)")
        items.append(item)
    if not items:
        raise UsageError(f"{path}: no items")
    return items


def _rows(data: str | Path, files: set[str]) -> dict[tuple[str, str], StoryRow]:
    """(file stem, id) -> row, for the named files of a dataset folder."""
    paths = {p.stem: p for p in split_paths(data)}
    absent = sorted(files - set(paths))
    if absent:
        raise UsageError(f"{data}: no file {absent[0]}.csv (was the evaluation run on this folder?)")
    out = {}
    for stem in sorted(files):
        try:
            rows = read_csv(paths[stem])
        except (RowParseError, UnicodeDecodeError) as exc:
            raise UsageError(f"{paths[stem]}: not a CLUTRR CSV ({str(exc).splitlines()[0][:100]})") from None
        out.update(((stem, r.id), r) for r in rows)
    return out


def item_stories(items_path: str | Path, data: str | Path, *, model: str | None = None, file: str | None = None,
                 wrong: bool = False, n: int | None = None, seed: int = 0) -> list[tuple[StoryRow, dict]]:
    """(row, typed record) of the stories of ``items.jsonl``, the record's ``answers`` holding
    each model's answer (``model``, ``answer``, ``correct``, ``sample``).

    ``model`` and ``file`` keep one model's answers or one test file's stories; ``wrong`` keeps
    stories some kept answer got wrong; ``n`` draws that many stories with ``seed``.
    """
    items = read_items(items_path)
    if model is not None:
        models = sorted({str(i["model"]) for i in items})
        items = [i for i in items if str(i["model"]) == model]
        if not items:
            raise UsageError(f"{items_path}: no answers of model {model!r} (models: {', '.join(models)})")
    if file is not None:
        items = [i for i in items if i["file"] == file]
        if not items:
            raise UsageError(f"{items_path}: no items of file {file!r}")
    groups: dict[tuple[str, str], list[dict]] = {}
    for i in items:
        groups.setdefault((str(i["file"]), str(i["id"])), []).append(i)
    keys = [key for key, answers in groups.items() if not wrong or not all(a["correct"] for a in answers)]
    if n is not None:
        keys = random.Random(seed).sample(keys, min(n, len(keys)))
    rows = _rows(data, {f for f, _ in keys})
    out = []
    for key in keys:
        row = rows.get(key)
        if row is None:
            raise UsageError(f"{data}: {key[0]} has no story {key[1]} (was the evaluation run on this folder?)")
        answers = groups[key]
        if canonical_word(str(answers[0]["gold"])) != canonical_word(row.target):
            raise UsageError(f"{items_path}: story {key[1]} has gold {answers[0]['gold']!r} but {data} says "
                             f"{row.target!r} (was the evaluation run on this folder?)")
        noise = answers[0].get("noise")
        record = record_from_row(row, noise=noise if isinstance(noise, str) else None)
        record["file"] = key[0]
        record["answers"] = [{"model": a["model"], "answer": a["answer"], "correct": bool(a["correct"]),
                              "sample": int(a.get("sample") or 0)} for a in answers]
        out.append((row, record))
    return out
