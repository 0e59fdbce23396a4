"""The hypothesis-only audit of a recast (NLI) folder, after Poliak et al. (2018).

A folder written by ``clutrr recast`` holds one ``<split>.jsonl`` file of premise /
hypothesis / label records per split. A model that never reads the premise should do no
better than the majority baseline; when it does, the hypotheses carry the label. As the
Diverse NLI Collection reports its recast datasets, each split gets the majority baseline,
a hypothesis-only baseline (multinomial Naive Bayes on the hypothesis's words) and the bar
a real NLI model has to clear: max(majority, hypothesis-only). The majority baseline is the
stronger of the training split's majority label and the split's own majority share, and
the hypothesis-only model is tested against it with the exact sign test.
"""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from clutrr.diagnostics.audit import (
    ALPHA, AuditResult, Predictions, accuracy, majority_baselines, majority_cells, memoized, paired_test, pct,
    predict_items, story_tokens,
)
from clutrr.errors import UsageError
from clutrr.io.datadir import split_key

FIELDS = ("premise", "hypothesis", "label")
BIASED_MODEL = "hypothesis_only"


@dataclass
class NliSplit:
    """One ``<split>.jsonl`` file of a recast folder."""

    name: str
    path: Path
    records: list[dict]

    @property
    def is_train(self) -> bool:
        """True for a training split (its name ends in ``_train``)."""
        return self.name.endswith("_train")


def _k(rec: dict) -> object:
    return rec.get("k", "all")


def is_recast_folder(directory: str | Path) -> bool:
    """Whether ``directory`` holds no CSV file and a JSONL file of NLI records."""
    root = Path(directory)
    if not root.is_dir() or any(root.glob("*.csv")):
        return False
    path = next(iter(sorted(root.glob("*.jsonl"))), None)  # the first file decides
    if path is None:
        return False
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline()
        rec = json.loads(first) if first.strip() else None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (audit reads CLUTRR CSV files or recast JSONL files)") from None
    except json.JSONDecodeError:
        return False
    return isinstance(rec, dict) and all(f in rec for f in FIELDS)


def _lines(path: Path, fh) -> Iterator[tuple[int, str]]:
    """(line number, line) of an open text file; UsageError at the first bytes that are not UTF-8."""
    n = 0
    try:
        for n, line in enumerate(fh, 1):
            yield n, line
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text (after line {n})") from None


def load_recast(directory: str | Path, step: Callable[[], object] | None = None) -> list[NliSplit]:
    """Read every ``*.jsonl`` of a recast folder; UsageError naming the first bad line."""
    root = Path(directory)
    splits = []
    for path in sorted(root.glob("*.jsonl"), key=lambda p: split_key(p.stem)):
        records = []
        with open(path, encoding="utf-8") as fh:
            for n, line in _lines(path, fh):
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise UsageError(f"{path}:{n}: not a JSON record ({exc.msg})") from None
                if not isinstance(rec, dict) or any(f not in rec for f in FIELDS):
                    raise UsageError(f"{path}:{n}: an NLI record needs {', '.join(FIELDS)}")
                records.append(rec)
                if step is not None:
                    step()
        splits.append(NliSplit(path.stem, path, records))
    if not any(s.records for s in splits):
        raise UsageError(f"{root}: the JSONL files hold no records")
    return splits


def nli_models() -> dict:
    """The baselines of a recast split: majority and hypothesis-only."""
    return {"majority": None, BIASED_MODEL: memoized(lambda r: story_tokens(r["hypothesis"]))}


def nli_group(records: Sequence[dict], preds: Predictions, alpha: float = ALPHA) -> dict:
    """The statistics of one group of records (a split, or one k within it)."""
    gold = [r["label"] for r in records]
    hyp = preds.by_model[BIASED_MODEL]
    majority, bar_preds = majority_baselines(preds.by_model["majority"], gold)
    hyp_acc = accuracy(hyp, gold)
    return {
        "n": len(records),
        "labels": {lab: gold.count(lab) / len(gold) for lab in sorted(set(gold))},
        "majority": majority,
        BIASED_MODEL: {"accuracy": hyp_acc, "vs_majority": paired_test(hyp, bar_preds, gold, alpha)},
        "to_beat": max(majority["bar"], hyp_acc),
        "to_beat_by": BIASED_MODEL if hyp_acc > majority["bar"] else "majority",
    }


def audit_recast(splits: Sequence[NliSplit], seed: int = 0, alpha: float = ALPHA,
                 step: Callable[[int], object] | None = None) -> AuditResult:
    """The hypothesis-only audit of a recast folder. ``step(n)`` is called as each split of n records is done."""
    train = [r for s in splits if s.is_train for r in s.records]
    models = nli_models()
    report_splits, predictions = [], {}
    for split in splits:
        if not split.records:
            continue
        # the pairs of one story share a fold; records that do not name their story are each their own group
        by_story = all("source_id" in r for r in split.records)
        preds = predictions[split.name] = predict_items(
            split.records, train, split.is_train, lambda r: r["label"], models, seed,
            group=(lambda r: r["source_id"]) if by_story else None)
        by_k: dict[object, list[int]] = defaultdict(list)
        for i, rec in enumerate(split.records):
            by_k[_k(rec)].append(i)
        groups = [{"k": "all", **nli_group(split.records, preds, alpha)}]
        if len(by_k) > 1:
            groups += [{"k": k, **nli_group([split.records[i] for i in idx], preds.subset(idx), alpha)}
                       for k, idx in sorted(by_k.items(), key=lambda kv: str(kv[0]).zfill(4))]
        else:
            groups[0]["k"] = next(iter(by_k))
        report_splits.append({"split": split.name, "role": "train" if split.is_train else "test",
                              "evaluation": preds.evaluation, "groups": groups})
        if step is not None:
            step(len(split.records))
    biased = [s["split"] for s in report_splits
              if any(g[BIASED_MODEL]["vs_majority"]["significant"] for g in s["groups"])]
    report = {
        "kind": "recast",
        "seed": seed,
        "alpha": alpha,
        "train_splits": [s.name for s in splits if s.is_train],
        "splits": report_splits,
        "summary": {"hypothesis_only_beats_majority": biased, "passes": not biased},
    }
    return AuditResult(report, predictions)


def render_recast_markdown(report: dict, title: str) -> str:
    """The hypothesis-only audit as markdown."""
    out = [f"# Hypothesis-only audit: {title}", ""]
    out.append(f"Seed {report['seed']}, significance level {report['alpha']}. "
               f"Training split(s): {', '.join(report['train_splits']) or 'none (every split cross-validated)'}.")
    out.append("")
    biased = report["summary"]["hypothesis_only_beats_majority"]
    verdict = ("the hypothesis alone does not beat the majority baseline in any split" if not biased else
               f"the hypothesis alone beats the majority baseline in: {', '.join(biased)}")
    out += [f"**Verdict:** {verdict}.", ""]
    out += [
        "Accuracies in %. *majority* = the training split's majority label; *own maj.* = the split's own "
        "majority share; *hyp-only* = Naive Bayes on the hypothesis alone; *p(h>maj)* = one-sided exact sign "
        "test of hyp-only against the stronger majority baseline (marked `^` when that is the split's own), "
        f"flagged `*` when p < {report['alpha']}; *to beat* = max(majority, hyp-only), the score an NLI model "
        "must exceed to show it reads the premise.",
        "",
        "| split | k | n | entailed | majority | own maj. | hyp-only | p(h>maj) | to beat |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for sp in report["splits"]:
        for g in sp["groups"]:
            h, maj = g[BIASED_MODEL], g["majority"]
            out.append(
                f"| {sp['split']} | {g['k']} | {g['n']} | {pct(g['labels'].get('entailed', 0.0))} | "
                f"{majority_cells(maj, h)} | {pct(g['to_beat'])} |"
            )
    out.append("")
    return "\n".join(out)
