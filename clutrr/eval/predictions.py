"""Prediction files: read, check and write them.

The format (JSONL, one object per line)::

    {"id": "...", "prediction": "aunt"}
    {"id": "...", "prediction": "Crystal is Howard's wife.", "split": "1.4_test",
     "probabilities": {"aunt": 0.7, "mother": 0.2}}

``prediction`` is a relation word or free text (read by ``extract_answer``; null counts as
unparsable). ``split`` (the test file's stem) is optional: it is needed only when an id
occurs in several files. ``probabilities`` is optional and kept as given. A CSV file with
the header ``id,prediction[,split]`` is read the same way. A folder of such files is one
model's predictions; a file without a split column inside it whose stem names a test
file (``1.4_test.jsonl``) takes its split from the name.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.data import split_name

SUFFIXES = (".jsonl", ".csv")


@dataclass
class Prediction:
    """One model answer for one story."""

    id: str
    prediction: str | None
    split: str | None = None
    probabilities: dict | None = None
    where: str = ""  # file and line, for messages


def _jsonl(path: Path, default_split: str | None) -> list[Prediction]:
    out = []
    loads = json.loads
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = loads(line)
            except json.JSONDecodeError:
                raise UsageError(f"{path}:{n}: not a JSON object") from None
            out.append(_record(rec, default_split, f"{path}:{n}"))
    return out


def _record(rec: object, default_split: str | None, where: str) -> Prediction:
    if not isinstance(rec, dict) or "id" not in rec or "prediction" not in rec:
        raise UsageError(f"{where}: a prediction needs 'id' and 'prediction' fields")
    pred = rec["prediction"]
    if pred is not None and not isinstance(pred, str):
        raise UsageError(f"{where}: 'prediction' must be a string or null")
    probs = rec.get("probabilities")
    if probs is not None and not isinstance(probs, dict):
        raise UsageError(f"{where}: 'probabilities' must be an object of word: probability")
    return Prediction(str(rec["id"]), pred, rec.get("split") or default_split, probs, where)


def _csv(path: Path, default_split: str | None) -> list[Prediction]:
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or not {"id", "prediction"} <= set(reader.fieldnames):
            raise UsageError(f"{path}: a predictions CSV needs the header id,prediction[,split]")
        return [Prediction(rec["id"], rec["prediction"], rec.get("split") or default_split, None, f"{path}:{n + 2}")
                for n, rec in enumerate(reader)]


def _read_file(path: Path, default_split: str | None = None) -> list[Prediction]:
    try:
        preds = _csv(path, default_split) if path.suffix == ".csv" else _jsonl(path, default_split)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    if not preds:
        raise UsageError(f"{path}: the file holds no predictions")
    return preds


def read_predictions(path: str | Path, splits: Iterable[str] = ()) -> list[Prediction]:
    """Read a predictions file, or every ``*.jsonl``/``*.csv`` in a folder.

    In a folder, a file named after one of ``splits`` gives that split to its rows that
    have none. Raises UsageError for a missing, empty or malformed file.
    """
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
        if not files:
            raise UsageError(f"{path}: no .jsonl or .csv prediction files")
        known = set(splits)
        out: list[Prediction] = []
        for f in files:
            stem = split_name(f.stem)
            out += _read_file(f, stem if stem in known else None)
        return out
    if not path.is_file():
        raise UsageError(f"{path}: no such predictions file")
    return _read_file(path)


def write_predictions(predictions: Iterable[dict], path: str | Path) -> Path:
    """Write prediction records (dicts with id, prediction and optional split, probabilities) as JSONL."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in predictions:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
