"""Prediction files: read, check and write them.

The format (JSONL, one object per line)::

    {"id": "...", "prediction": "aunt"}
    {"id": "...", "prediction": "Crystal is Howard's wife.", "split": "1.4_test",
     "probabilities": {"aunt": 0.7, "mother": 0.2}}

``prediction`` is a relation word or free text (read by ``extract_answer``; null counts as
unparsable). ``split`` (the test file's stem) is optional: it is needed only when an id
occurs in several files. ``probabilities`` is optional and kept as given. ``sample``
(optional, 0-based, below :data:`MAX_SAMPLES`) numbers repeated answers to one story, for
pass@k and majority vote; ``reasoning``, ``finish_reason`` and ``usage`` (optional) are
what a server reported with the answer. A CSV file with the header
``id,prediction[,split]`` is read the same way. A folder of such files is one model's
predictions; a file without a split column inside it whose stem names a test file
(``1.4_test.jsonl``) takes its split from the name.

Files are read line by line, and a line longer than :data:`MAX_LINE` characters stops the
reading, so a huge or binary file is refused without being read into memory.
"""
from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.bounded import loads as bounded_loads
from clutrr.eval.data import split_name

SUFFIXES = (".jsonl", ".csv")
MAX_LINE = 4 << 20  # characters; a long reasoning reply fits many times over
MAX_SAMPLES = 1024


@dataclass
class Prediction:
    """One model answer for one story."""

    id: str
    prediction: str | None
    split: str | None = None
    probabilities: dict | None = None
    where: str = ""  # file and line, for messages
    sample: int = 0
    reasoning: str | None = None
    finish_reason: str | None = None
    usage: dict | None = None
    from_file: bool = False  # read from a predictions file (its reply is not repeated in items.jsonl)


def _lines(fh, path: Path):
    """(line number, line) of an open text file, refusing a line longer than MAX_LINE."""
    n = 0
    while line := fh.readline(MAX_LINE + 1):
        n += 1
        if len(line) > MAX_LINE:
            raise UsageError(f"{path}:{n}: a line longer than {MAX_LINE >> 20} Mi characters; not a predictions file")
        yield n, line


def _jsonl(path: Path, default_split: str | None):
    with open(path, encoding="utf-8") as fh:
        for n, line in _lines(fh, path):
            if not line.strip():
                continue
            try:
                rec = bounded_loads(line)
            except ValueError as exc:
                raise UsageError(f"{path}:{n}: not a JSON object ({exc})") from None
            yield record_prediction(rec, default_split, f"{path}:{n}", from_file=True)


def record_prediction(rec: object, default_split: str | None, where: str, from_file: bool = False) -> Prediction:
    """The Prediction of one record (a dict with ``id`` and ``prediction``); UsageError naming ``where``."""
    if not isinstance(rec, dict) or "id" not in rec or "prediction" not in rec:
        raise UsageError(f"{where}: a prediction needs 'id' and 'prediction' fields")
    pred = rec["prediction"]
    if pred is not None and not isinstance(pred, str):
        raise UsageError(f"{where}: 'prediction' must be a string or null")
    probs = rec.get("probabilities")
    if probs is not None and not isinstance(probs, dict):
        raise UsageError(f"{where}: 'probabilities' must be an object of word: probability")
    sample = rec.get("sample", 0)
    if isinstance(sample, bool) or not isinstance(sample, int) or not 0 <= sample < MAX_SAMPLES:
        raise UsageError(f"{where}: 'sample' must be an integer from 0 to {MAX_SAMPLES - 1}")
    reasoning, finish, usage = rec.get("reasoning"), rec.get("finish_reason"), rec.get("usage")
    return Prediction(str(rec["id"]), pred, rec.get("split") or default_split, probs, where, sample,
                      reasoning if isinstance(reasoning, str) else None, finish if isinstance(finish, str) else None,
                      usage if isinstance(usage, dict) else None, from_file)


def _csv(path: Path, default_split: str | None):
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(line for _, line in _lines(fh, path))
        try:
            if not reader.fieldnames or not {"id", "prediction"} <= set(reader.fieldnames):
                raise UsageError(f"{path}: a predictions CSV needs the header id,prediction[,split]")
            for rec in reader:
                yield Prediction(rec["id"], rec["prediction"], rec.get("split") or default_split, None,
                                 f"{path}:{reader.line_num}", from_file=True)
        except csv.Error as exc:
            raise UsageError(f"{path}:{reader.line_num}: not a predictions CSV ({exc})") from None


def _read_file(path: Path, default_split: str | None = None):
    """The predictions of one file, read as they are consumed."""
    empty = True
    try:
        for pred in _csv(path, default_split) if path.suffix == ".csv" else _jsonl(path, default_split):
            empty = False
            yield pred
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read ({exc.strerror})") from None
    if empty:
        raise UsageError(f"{path}: the file holds no predictions")


def iter_predictions(path: str | Path, splits: Iterable[str] = ()):
    """The predictions of a file, or of every ``*.jsonl``/``*.csv`` in a folder, one at a
    time (see :func:`read_predictions`)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES and p.is_file())
        if not files:
            raise UsageError(f"{path}: no .jsonl or .csv prediction files")
        known = set(splits)
        for f in files:
            stem = split_name(f.stem)
            yield from _read_file(f, stem if stem in known else None)
        return
    if not path.is_file():
        raise UsageError(f"{path}: no such predictions file")
    yield from _read_file(path)


def read_predictions(path: str | Path, splits: Iterable[str] = ()) -> list[Prediction]:
    """Read a predictions file, or every ``*.jsonl``/``*.csv`` in a folder.

    In a folder, a file named after one of ``splits`` gives that split to its rows that
    have none. Raises UsageError for a missing, empty or malformed file.
    """
    return list(iter_predictions(path, splits))


def write_predictions(predictions: Iterable[dict], path: str | Path) -> Path:
    """Write prediction records (dicts with id, prediction and optional split, probabilities) as JSONL."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in predictions:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
