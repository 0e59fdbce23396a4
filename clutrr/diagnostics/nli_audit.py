"""The hypothesis-only audit of a recast (NLI) folder, after Poliak et al. (2018).

A folder written by ``clutrr recast`` holds one ``<split>.jsonl`` file of premise /
hypothesis / label records per split. A model that never reads the premise should do no
better than the majority baseline; when it does, the hypotheses carry the label. As the
Diverse NLI Collection reports its recast datasets, each split gets the majority baseline,
hypothesis-only baselines and the bar a real NLI model has to clear, their maximum:

- *hyp-NB*: multinomial Naive Bayes on the hypothesis's words (Tsuchiya's test);
- *hyp-enc*: a trained sentence encoder on the hypothesis alone, with a development split and
  early stopping (Poliak et al.'s baseline). It is a plug-in (``encoder``): this package never
  imports the baselines; ``clutrr audit`` passes the BiLSTM of ``clutrr.baselines`` when
  PyTorch is installed, and says in one line why it was skipped otherwise;
- *unk-prem*: the hypothesis-only Naive Bayes given the premise as unknown-word tokens, one
  per word (Tsuchiya's Table 4 check: the premise's length and nothing else);
- *overlap*: a heuristic that reads the premise only for one word: "entailed" when the
  hypothesis's relation word occurs in the premise. It is not a hypothesis-only model, but a
  bar an NLI model must clear as well.

The majority baseline is the stronger of the training split's majority label and the split's
own majority share; every model is tested against it with the exact sign test. Each split
also gets every model's per-class accuracy and confusion matrix, and, on request, the
give-away words of its hypotheses as in Poliak's dissertation, §5.5
(:func:`clutrr.diagnostics.giveaway.hypothesis_giveaway`).
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from clutrr.diagnostics.audit import (
    ALPHA, PREMISE_UNK, AuditResult, accuracy, majority_baselines, majority_cells, model_cells, paired_test,
    per_class_section, pct, sided_name, story_tokens, unknown_premise,
)
from clutrr.diagnostics.giveaway import HYPOTHESIS_TOP, MIN_COUNT, hypothesis_giveaway
from clutrr.diagnostics.confusion import model_classes
from clutrr.diagnostics.models import (
    Fitter, Predictions, majority, memoized, naive_bayes, predict_splits, rule, text_classifier,
)
from clutrr.diagnostics.recast import ENTAILED, NOT_ENTAILED
from clutrr.diagnostics.stats import TWO_SIDED
from clutrr.errors import UsageError
from clutrr.io.datadir import split_key

FIELDS = ("premise", "hypothesis", "label")
HYP_NB, HYP_ENCODER, OVERLAP = "hypothesis_nb", "hypothesis_encoder", "overlap"
HYPOTHESIS_ONLY = (HYP_NB, HYP_ENCODER)
COLUMNS = {HYP_NB: "hyp-NB", HYP_ENCODER: "hyp-enc", PREMISE_UNK: "unk-prem", OVERLAP: "overlap"}


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


@dataclass
class Encoder:
    """The hypothesis-only encoder the audit was given: its ``fit_predict`` function, or why not."""

    fit_predict: Callable[..., dict] | None
    skipped: str = ""  # the reason, when there is no encoder


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


def relation_word(rec: dict) -> str:
    """The relation a hypothesis names: the record's ``relation``, else the hypothesis's last word."""
    words = story_tokens(rec.get("relation") or rec["hypothesis"])
    return words[-1] if words else ""


def overlap_label(rec: dict) -> str:
    """The overlap heuristic: entailed when the hypothesis's relation word occurs in the premise."""
    return ENTAILED if relation_word(rec) in story_tokens(rec["premise"]) else NOT_ENTAILED


def nli_models(encoder: Encoder | None = None) -> dict[str, Fitter]:
    """The baselines of a recast split: majority, hypothesis-only Naive Bayes, the hypothesis-only
    encoder (when given) and the overlap heuristic."""
    models: dict[str, Fitter] = {"majority": majority(),
                                 HYP_NB: naive_bayes(memoized(lambda r: story_tokens(r["hypothesis"])))}
    if encoder is not None and encoder.fit_predict is not None:
        models[HYP_ENCODER] = text_classifier(encoder.fit_predict, lambda r: r["hypothesis"])
    models[PREMISE_UNK] = naive_bayes(memoized(lambda r: unknown_premise(r["premise"], story_tokens(r["hypothesis"]))))
    models[OVERLAP] = rule(overlap_label)
    return models


def nli_group(records: Sequence[dict], preds: Predictions, alpha: float = ALPHA,
              alternative: str = TWO_SIDED) -> dict:
    """The statistics of one group of records (a split, or one k within it)."""
    gold = [r["label"] for r in records]
    maj, bar_preds = majority_baselines(preds.by_model["majority"], gold)
    models = {name: {"accuracy": accuracy(p, gold), "vs_majority": paired_test(p, bar_preds, gold, alpha, alternative)}
              for name, p in preds.by_model.items() if name != "majority"}
    best = max([("majority", maj["bar"])] + [(name, m["accuracy"]) for name, m in models.items()],
               key=lambda kv: kv[1])
    return {
        "n": len(records),
        "labels": {lab: gold.count(lab) / len(gold) for lab in sorted(set(gold))},
        "negatives": dict(sorted(Counter(r["negative"] for r in records if r.get("negative")).items())),
        "majority": maj,
        **models,
        "to_beat": best[1],
        "to_beat_by": best[0],
    }


def audit_recast(splits: Sequence[NliSplit], seed: int = 0, alpha: float = ALPHA,
                 step: Callable[[int], object] | None = None, encoder: Encoder | None = None,
                 alternative: str = TWO_SIDED, giveaway: bool = False, min_count: int = MIN_COUNT) -> AuditResult:
    """The hypothesis-only audit of a recast folder. ``step(n)`` is called as each split of n
    records is done; ``encoder`` is the hypothesis-only encoder (None: not run); with
    ``giveaway``, each split's hypothesis give-away words (words seen ``min_count`` times)."""
    train = [r for s in splits if s.is_train for r in s.records]
    labels = {r["label"] for s in splits for r in s.records}
    models = nli_models(encoder)
    if not labels <= {ENTAILED, NOT_ENTAILED}:
        del models[OVERLAP]  # the heuristic answers with this project's two labels
    # the pairs of one story share a fold; records that do not name their story are each their own group
    by_story = all("source_id" in r for s in splits for r in s.records)
    predictions = predict_splits({s.name: (s.records, s.is_train) for s in splits}, train, lambda r: r["label"],
                                 models, seed, group=(lambda r: r["source_id"]) if by_story else None)
    report_splits = []
    for split in splits:
        if not split.records:
            continue
        preds = predictions[split.name]
        by_k: dict[object, list[int]] = defaultdict(list)
        for i, rec in enumerate(split.records):
            by_k[_k(rec)].append(i)
        groups = [{"k": "all", **nli_group(split.records, preds, alpha, alternative)}]
        if len(by_k) > 1:
            groups += [{"k": k, **nli_group([split.records[i] for i in idx], preds.subset(idx), alpha, alternative)}
                       for k, idx in sorted(by_k.items(), key=lambda kv: str(kv[0]).zfill(4))]
        else:
            groups[0]["k"] = next(iter(by_k))
        gold = [r["label"] for r in split.records]
        entry = {"split": split.name, "role": "train" if split.is_train else "test",
                 "evaluation": preds.evaluation, "groups": groups, "classes": model_classes(gold, preds.by_model)}
        if giveaway:
            entry["giveaway"] = hypothesis_giveaway([story_tokens(r["hypothesis"]) for r in split.records], gold,
                                                    min_count)
        report_splits.append(entry)
        if step is not None:
            step(len(split.records))
    biased = [s["split"] for s in report_splits
              if any(g[m]["vs_majority"]["better"] for g in s["groups"] for m in HYPOTHESIS_ONLY if m in g)]
    lexical = [s["split"] for s in report_splits
               if any(g[OVERLAP]["vs_majority"]["better"] for g in s["groups"] if OVERLAP in g)]
    report = {
        "kind": "recast",
        "seed": seed,
        "alpha": alpha,
        "sign_test": alternative,
        "train_splits": [s.name for s in splits if s.is_train],
        "models": [m for m in models if m != "majority"],
        "encoder": {"ran": HYP_ENCODER in models, "skipped": encoder.skipped if encoder else "not requested",
                    "trainings": _trainings(predictions)},
        "splits": report_splits,
        "summary": {"hypothesis_only_beats_majority": biased, "overlap_beats_majority": lexical,
                    "passes": not biased},
    }
    return AuditResult(report, predictions)


def _trainings(predictions: dict[str, Predictions]) -> list[dict]:
    """The encoder's trainings, each once: the cross-validation folds, and one on the training split."""
    seen, out = set(), []
    for preds in predictions.values():
        for info in preds.info.get(HYP_ENCODER, []):
            if id(info) not in seen:
                seen.add(id(info))
                out.append(info)
    return out


def hypothesis_giveaway_lines(report: dict) -> list[str]:
    """The give-away words section of a recast audit (Poliak's dissertation, §5.5)."""
    first = report["splits"][0]["giveaway"]
    out = ["", "## Give-away words of the hypotheses", "",
           f"Poliak's dissertation, §5.5: p(l | w) = count(w, l) / count(w) over each split's own hypotheses, for "
           f"words seen at least {first['min_count']} times; per label, the {HYPOTHESIS_TOP} most frequent "
           "words whose most likely label it is, as word p (count). Coverage = share of hypotheses holding a word "
           "with p(l | w) >= x for at least one label.", ""]
    for sp in report["splits"]:
        gw = sp["giveaway"]
        out.append(f"- **{sp['split']}** ({gw['n_words']} words in {gw['items']} hypotheses)  ")
        for lab, words in gw["per_label"].items():
            listed = ", ".join(f"{d['word']} {d['p']:.2f} ({d['count']})" for d in words[:HYPOTHESIS_TOP])
            out.append(f"  {lab}: {listed or '—'}  ")
        out.append("  coverage x:% " + " ".join(f"{c['x']:.1f}:{pct(c['share'])}" for c in gw["coverage"]))
    return out


def render_recast_markdown(report: dict, title: str, per_class: bool = False) -> str:
    """The hypothesis-only audit as markdown (with the per-class tables when ``per_class``)."""
    out = [f"# Hypothesis-only audit: {title}", ""]
    out.append(f"Seed {report['seed']}, significance level {report['alpha']}, "
               f"{sided_name(report.get('sign_test', TWO_SIDED))} sign tests. "
               f"Training split(s): {', '.join(report['train_splits']) or 'none (every split cross-validated)'}.")
    out.append("")
    s = report["summary"]
    biased, lexical = s["hypothesis_only_beats_majority"], s["overlap_beats_majority"]
    verdict = ("the hypothesis alone does not beat the majority baseline in any split" if not biased else
               f"the hypothesis alone beats the majority baseline in: {', '.join(biased)}")
    out += [f"**Verdict:** {verdict}.  "]
    if OVERLAP in report["models"]:
        out.append("**Overlap heuristic:** " + (f"beats the majority baseline in: {', '.join(lexical)}" if lexical
                                                else "does not beat the majority baseline in any split") + ".  ")
    kinds = Counter()
    for sp in report["splits"]:
        kinds.update(sp["groups"][0]["negatives"])
    if kinds:
        out.append("**Not-entailed hypotheses:** " + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + ".  ")
    enc = report["encoder"]
    if enc["ran"]:
        runs = enc["trainings"]
        out.append(f"**Hypothesis-only encoder:** BiLSTM trained {len(runs)} time(s) with a development split and "
                   f"early stopping (best epochs {', '.join(str(t['best_epoch']) for t in runs)}).")
    else:
        out.append(f"**Hypothesis-only encoder:** skipped ({enc['skipped']}).")
    out.append("")
    cols = [m for m in report["models"]]
    out += [
        "Accuracies in %. *majority* = the training split's majority label; *own maj.* = the split's own "
        "majority share (marked `^` when the stronger); *hyp-NB* = Naive Bayes on the hypothesis alone; "
        + ("*hyp-enc* = BiLSTM encoder on the hypothesis alone; " if HYP_ENCODER in cols else "")
        + "*unk-prem* = hyp-NB with the premise as unknown-word tokens (its length only; Tsuchiya's Table 4 "
        "check); "
        + ("*overlap* = entailed when the relation word occurs in the premise; " if OVERLAP in cols else "")
        + "*p* = exact sign test of the model before it against the stronger majority baseline, flagged `*` when "
        f"p < {report['alpha']} and the model is ahead; *to beat* = the maximum of them all, the score an NLI "
        "model must exceed to show it reads the premise.",
        "",
        "| split | k | n | entailed | majority | own maj. | " + " | ".join(f"{COLUMNS[m]} | p" for m in cols)
        + " | to beat |",
        "|---|---|---|---|---|---|" + "---|---|" * len(cols) + "---|",
    ]
    for sp in report["splits"]:
        for g in sp["groups"]:
            out.append(
                f"| {sp['split']} | {g['k']} | {g['n']} | {pct(g['labels'].get(ENTAILED, 0.0))} | "
                f"{majority_cells(g['majority'])} | " + " | ".join(model_cells(g[m]) for m in cols)
                + f" | {pct(g['to_beat'])} |"
            )
    if report["splits"] and "giveaway" in report["splits"][0]:
        out += hypothesis_giveaway_lines(report)
    if per_class:
        out += per_class_section(report, {**COLUMNS, "majority": "majority"})
    out.append("")
    return "\n".join(out)
