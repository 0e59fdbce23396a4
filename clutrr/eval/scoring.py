"""Score one model's answers against an EvalSet: ``evaluate(data, predictions) -> Report``."""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.data import EvalSet, load_eval_set
from clutrr.eval.metrics import Tally
from clutrr.eval.predictions import Prediction, read_predictions
from clutrr.eval.report import MISSING, UNPARSABLE, Report
from clutrr.llm.extract import extract_answer

_NO_ANSWER = object()
Predictions = str | Path | Iterable[Prediction] | Iterable[dict] | Mapping[str, str | None]


def _as_predictions(predictions: Predictions, data: EvalSet) -> list[Prediction]:
    if isinstance(predictions, (str, Path)):
        return read_predictions(predictions, data.splits)
    if isinstance(predictions, Mapping):
        return [Prediction(str(i), p) for i, p in predictions.items()]
    out = []
    for n, p in enumerate(predictions):
        if isinstance(p, Prediction):
            out.append(p)
        elif isinstance(p, dict) and "id" in p and "prediction" in p:
            out.append(Prediction(str(p["id"]), p["prediction"], p.get("split"), p.get("probabilities"), f"record {n}"))
        else:
            raise UsageError(f"prediction {n}: expected a dict with 'id' and 'prediction'")
    if not out:
        raise UsageError("no predictions given")
    return out


def _resolve(pred: Prediction, data: EvalSet) -> int | None:
    """The gold index of a prediction, None for a story of the folder left out of the
    evaluation; UsageError for an unknown or ambiguous id."""
    if pred.split is not None:
        i = data.by_key.get((pred.split, pred.id))
        if i is None:
            if (pred.split, pred.id) in data.others:
                return None
            raise UsageError(f"{pred.where}: unknown id {pred.id!r} in split {pred.split!r}")
        return i
    if pred.id not in data.by_id:
        if pred.id in data.other_ids:
            return None
        raise UsageError(f"{pred.where}: unknown id {pred.id!r} (not in {data.root})")
    i = data.by_id[pred.id]
    if i is None:
        raise UsageError(f"{pred.where}: id {pred.id!r} is in several test files; give its 'split'")
    return i


def evaluate(data: EvalSet | str | Path, predictions: Predictions, name: str = "model", strict: bool = False,
             kb: str | None = None) -> Report:
    """Score ``predictions`` (a file or folder path, Prediction objects, dicts, or an
    id -> answer mapping) on ``data`` (an EvalSet or a dataset folder).

    Every evaluated story without a prediction counts as wrong and is reported as missing;
    with ``strict`` a missing one is a UsageError, as are unknown and duplicate ids.
    Predictions for stories of the folder outside the evaluated splits are ignored.
    """
    if not isinstance(data, EvalSet):
        data = load_eval_set(data, kb=kb or "kinship")
    kb = kb or data.kb
    preds = _as_predictions(predictions, data)
    answers: list[object] = [_NO_ANSWER] * len(data.golds)
    for pred in preds:
        i = _resolve(pred, data)
        if i is None:
            continue
        if answers[i] is not _NO_ANSWER:
            raise UsageError(f"{pred.where}: duplicate prediction for id {pred.id!r}")
        answers[i] = pred.prediction
    missing = [g.id for g, a in zip(data.golds, answers) if a is _NO_ANSWER]
    if strict and missing:
        raise UsageError(f"{len(missing)} of {len(data.golds)} stories have no prediction (first: {missing[0]})")
    parsed: dict[object, str] = {_NO_ANSWER: MISSING, None: UNPARSABLE}
    labels = []
    for a in answers:
        label = parsed.get(a)
        if label is None:
            label = parsed[a] = extract_answer(a, kb) or UNPARSABLE
        labels.append(label)
    cells = Counter(zip(((g.split, g.heldout, g.target) for g in data.golds), labels))
    return _report(data, cells, name, missing)


def _report(data: EvalSet, cells: Counter, name: str, missing: list[str]) -> Report:
    info = {}
    for g in data.golds:
        info.setdefault(g.split, {"k": g.k, "noise": g.noise})
    report = Report(model=name, data=str(data.root), source=data.source, kb=data.kb, split_info=info,
                    missing_ids=missing[:10])
    for split in data.splits:
        report.by_split[split] = Tally()
    for ((split, heldout, gold), label), count in sorted(cells.items(), key=lambda kv: str(kv[0])):
        right = count if label == gold else 0
        k, noise = info[split]["k"], info[split]["noise"]
        for tally in (report.overall, report.by_split[split], report.by_k.setdefault(k, Tally()),
                      report.by_noise.setdefault(noise, Tally()), report.by_relation.setdefault(gold, Tally())):
            tally.add(count, right)
        if heldout is not None:
            report.by_pattern.setdefault("heldout" if heldout else "seen", Tally()).add(count, right)
        report.confusion.setdefault(gold, Counter())[label] += count
        report.unparsable += count if label == UNPARSABLE else 0
        report.missing += count if label == MISSING else 0
    report.by_k = dict(sorted(report.by_k.items()))
    report.by_relation = dict(sorted(report.by_relation.items()))
    return report
