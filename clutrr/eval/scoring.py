"""Score one model's answers against an EvalSet: ``evaluate(data, predictions) -> Report``.

With several answers per story (``sample`` 0, 1, ...), the story-level tables score the
first answer (sample 0); :mod:`clutrr.eval.sampling` adds pass@k and majority vote over
all of them. Every answer is also kept as a per-item record (``Report.items``, written as
``items.jsonl``).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.data import EvalSet, load_eval_set
from clutrr.eval.items import make_item
from clutrr.eval.metrics import Tally
from clutrr.eval.predictions import MAX_SAMPLES, Prediction, iter_predictions, record_prediction
from clutrr.eval.replies import ReplyTally
from clutrr.eval.report import MISSING, UNPARSABLE, Report
from clutrr.eval.sampling import SampleTally, majority
from clutrr.llm.extract import extract_answer
from clutrr.llm.process import has_reasoning, process_reward

Predictions = str | Path | Iterable[Prediction] | Iterable[dict] | Mapping[str, str | None]
NO_VOTE = frozenset({UNPARSABLE, MISSING})


def _as_predictions(predictions: Predictions, data: EvalSet) -> Iterator[Prediction]:
    if isinstance(predictions, (str, Path)):
        yield from iter_predictions(predictions, data.splits)
        return
    if isinstance(predictions, Mapping):
        for i, p in predictions.items():
            yield Prediction(str(i), p)
        return
    empty = True
    for n, p in enumerate(predictions):
        empty = False
        if isinstance(p, Prediction):
            yield p
        elif isinstance(p, dict) and "id" in p and "prediction" in p:
            yield record_prediction(p, None, f"record {n}")
        else:
            raise UsageError(f"prediction {n}: expected a dict with 'id' and 'prediction'")
    if empty:
        raise UsageError("no predictions given")


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
             kb: str | None = None, think_open: bool = False) -> Report:
    """Score ``predictions`` (a file or folder path, Prediction objects, dicts, or an
    id -> answer mapping) on ``data`` (an EvalSet or a dataset folder).

    Every evaluated story without a prediction counts as wrong and is reported as missing;
    with ``strict`` a missing one is a UsageError, as are unknown and duplicate ids (a
    story may have one prediction per ``sample``). Predictions for stories of the folder
    outside the evaluated splits are ignored. A file is read one line at a time and only
    the answers to evaluated stories are kept, so memory grows with the test rows.

    A reply the server cut at the length limit (``finish_reason`` ``length``) has no
    answer: it counts as wrong (unparsable), whatever it says, and the replies table counts
    it as cut. With ``think_open`` every reply starts inside a reasoning block (the model's
    chat template opens ``<think>`` in the prompt): without its closing tag it has no answer.
    """
    if not isinstance(data, EvalSet):
        data = load_eval_set(data, kb=kb or "kinship")
    kb = kb or data.kb
    answers: dict[tuple[int, int], Prediction] = {}
    for pred in _as_predictions(predictions, data):
        i = _resolve(pred, data)
        if i is None:
            continue
        if not 0 <= pred.sample < MAX_SAMPLES:
            raise UsageError(f"{pred.where}: sample {pred.sample} is outside 0..{MAX_SAMPLES - 1}")
        if (i, pred.sample) in answers:
            what = f"sample {pred.sample} of id" if pred.sample else "id"
            raise UsageError(f"{pred.where}: duplicate prediction for {what} {pred.id!r}")
        answers[i, pred.sample] = pred
    samples = 1 + max((s for _, s in answers), default=0)
    first = [answers.get((i, 0)) for i in range(len(data.golds))]
    missing = [g.id for g, a in zip(data.golds, first) if a is None]
    if strict and missing:
        raise UsageError(f"{len(missing)} of {len(data.golds)} stories have no prediction (first: {missing[0]})")
    parsed: dict[object, str] = {}
    names = [tuple(n.strip("[]") for n in g.row.query) for g in data.golds]

    def label(pred: Prediction | None, i: int) -> str:
        """The answer of ``pred`` to story ``i``, read with the story's query names (as the rewards read it)."""
        if pred is None:
            return MISSING
        text = pred.prediction
        if text is None or pred.finish_reason == "length":
            return UNPARSABLE
        key = (text, names[i])
        got = parsed.get(key)
        if got is None:
            got = parsed[key] = extract_answer(text, kb, query=names[i], think_open=think_open) or UNPARSABLE
        return got

    labels = [label(a, i) for i, a in enumerate(first)]
    cells = Counter(zip(((g.split, g.heldout, g.target) for g in data.golds), labels))
    report = _report(data, cells, name, missing)
    report.samples = samples
    _add_replies(report, data, answers, label)
    if samples > 1:
        _add_sampling(report, data, answers, label, samples)
    return report


def _add_sampling(report: Report, data: EvalSet, answers: dict, label, samples: int) -> None:
    overall = report.sampling.setdefault("overall", {}).setdefault("all", SampleTally(samples))
    for i, g in enumerate(data.golds):
        given = [label(answers.get((i, s)), i) for s in range(samples)]
        correct = sum(x == g.target for x in given)
        right = majority(given, NO_VOTE) == g.target
        for group, key in (("by_k", str(g.k)), ("by_noise", g.noise)):
            report.sampling.setdefault(group, {}).setdefault(key, SampleTally(samples)).add(correct, right)
        overall.add(correct, right)


def _add_replies(report: Report, data: EvalSet, answers: dict, label) -> None:
    """The per-item records, and reply statistics per k when a server reported them."""
    replies: dict[int, ReplyTally] = {}
    for (i, sample), pred in sorted(answers.items()):
        g = data.golds[i]
        answer = label(pred, i)
        tally = replies.setdefault(g.k, ReplyTally())
        tally.add(pred.finish_reason, pred.usage)
        record = {"model": report.model, "id": g.id, "file": g.split, "k": g.k, "noise": g.noise, "gold": g.target,
                  "reply": None if pred.from_file else pred.prediction,
                  "answer": None if answer in NO_VOTE else answer, "correct": answer == g.target,
                  "finish_reason": pred.finish_reason, "tokens": pred.usage, "sample": sample}
        if has_reasoning(pred.prediction, pred.reasoning):
            judged = process_reward(pred.prediction, make_item(g.row, split=g.split, noise=g.noise), pred.reasoning,
                                    data.kb)
            record["faithfulness"] = judged.precision
            if judged.claims:
                tally.add_claims(judged.precision, judged.connected)
        report.items.append(record)
    if any(t.reported or t.tokens or t.judged for t in replies.values()):
        report.replies = {k: replies[k] for k in sorted(replies)}


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
