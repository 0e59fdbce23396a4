"""Artifact audit of a CLUTRR-style dataset: can the label be guessed without reasoning?

For each split (CSV file) and each chain length k the audit reports:

- the label distribution and its skew, and two majority baselines: the training split's
  majority label (what a model could learn) and the split's own majority share (what
  always answering its most common label scores); the stronger of the two is the bar;
- a query-only baseline (multinomial Naive Bayes on the two query entities' genders, name
  tokens and first-mention ranks), compared with the stronger majority baseline by an exact
  sign test on the items where exactly one of the two is right: two-sided by default, as
  Tsuchiya's (2018) test of a significant difference (one-sided on request). A query is
  flagged informative when the test is significant and the query-only model is the better;
- the gender-prior ceiling (ours; no source defines it): the best accuracy of any rule that
  sees only the genders of the query's two entities, and whether the query-only baseline
  exceeds it. The tail's gender is the answer's gender; the head's adds what the world model
  implies (a husband's spouse is a woman), so both belong to the prior. The
  answer-gender-only ceiling is reported beside it;
- a story-bag baseline (Naive Bayes on the story's unigrams, no structure);
- the unknown-token premise check (after Tsuchiya's Table 4): the query-only model given the
  story as unknown-word tokens, one per word, so it sees the query and the story's length only;
- per-class accuracy and the confusion matrix of every model (:mod:`clutrr.diagnostics.confusion`);
- give-away words (:mod:`clutrr.diagnostics.giveaway`), scored out of sample.

Baselines for a test split are trained on the folder's training split(s); a training split
(or any split when the folder has none) is scored by k-fold cross-validation
(:mod:`clutrr.diagnostics.models`). Every baseline's per-item predictions are kept, so the
items a biased model gets right and wrong (Tsuchiya's easy and hard subsets) can be written out.
"""
from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from sys import intern
from typing import Callable, Sequence

from clutrr.core.kb import KB
from clutrr.diagnostics.confusion import model_classes, per_class_lines
from clutrr.diagnostics.giveaway import COVERAGE_XS, giveaway_words
from clutrr.diagnostics.models import (
    Fitter, Predictions, majority, majority_label, memoized, naive_bayes, predict_splits,
)
from clutrr.diagnostics.stats import TWO_SIDED, entropy_bits, sign_test
from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import Split

ALPHA = 0.01
MIN_WORD_COUNT = 5
TOP_WORDS = 15
MAX_RANK = 9

_WORD_RE = re.compile(r"[a-z]+(?:[-'][a-z]+)*")
UNKNOWN = "<unk>"
PREMISE_UNK = "premise_unk"


def story_tokens(story: str) -> list[str]:
    """Lower-cased word tokens of a story: names lose their brackets and possessive 's,
    hyphenated words stay whole."""
    text = story.lower().replace("[", "").replace("]", "")
    # interned: a long story's tokens are mostly repeats, kept once (the audit keeps every story's tokens)
    return [intern(t[:-2] if t.endswith("'s") else t) for t in _WORD_RE.findall(text)]


def first_mentions(row: StoryRow) -> dict[str, int]:
    """Rank (0 = first) of each person's first mention in the story; unmentioned people rank last."""
    pos = {}
    for name, _ in row.genders:
        i = row.story.find(f"[{name}]")
        if i < 0:
            m = re.search(rf"\b{re.escape(name)}\b", row.story)
            i = m.start() if m else len(row.story) + 1
        pos[name] = i
    order = sorted(pos, key=lambda n: (pos[n], n))
    return {name: rank for rank, name in enumerate(order)}


def query_features(row: StoryRow) -> list[str]:
    """Features of the query alone: each entity's gender, name token and first-mention rank."""
    gender = dict(row.genders)
    ranks = first_mentions(row)
    feats = []
    for role, name in zip(("head", "tail"), row.query):
        rank = ranks.get(name, MAX_RANK)
        feats += [
            f"{role}_gender={gender.get(name, 'unknown')}",
            f"{role}_name={name.lower()}",
            f"{role}_rank={min(rank, MAX_RANK)}",
        ]
    return feats


def query_genders(row: StoryRow) -> tuple[str, str]:
    """The genders of the query's head and tail; the tail's is the answer's gender."""
    gender = dict(row.genders)
    return gender.get(row.query[0], "unknown"), gender.get(row.query[1], "unknown")


def unknown_premise(premise: str, partial: list[str]) -> list[str]:
    """The features of the partial input with the premise as unknown-word tokens, one per word
    (Tsuchiya's Table 4 check: the model keeps the premise's length and nothing else)."""
    return partial + [UNKNOWN] * len(story_tokens(premise))


def clutrr_models() -> dict[str, Fitter]:
    """The baselines of a CLUTRR split: majority, query-only, story-bag and the query-only
    model with the story as unknown-word tokens."""
    return {"majority": majority(), "query_only": naive_bayes(query_features),
            "story_bag": naive_bayes(memoized(lambda r: story_tokens(r.story))),
            PREMISE_UNK: naive_bayes(memoized(lambda r: unknown_premise(r.story, query_features(r))))}


def label_skew(labels: Sequence[str], vocab_size: int) -> dict:
    """The label distribution with its skew measures."""
    counts = Counter(labels)
    n = len(labels)
    top, top_n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    h = entropy_bits(list(counts.values()))
    return {
        "distribution": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "n_labels": len(counts),
        "vocab_size": vocab_size,
        "majority_label": top,
        "majority_share": top_n / n,
        "entropy_bits": h,
        "evenness": h / math.log2(len(counts)) if len(counts) > 1 else 0.0,
    }


def gender_prior(rows: Sequence[StoryRow], key: Callable[[StoryRow], object] = query_genders) -> tuple[float, list[str]]:
    """The gender-prior ceiling and its predictions: for each value of ``key`` (by default the
    two query genders), predict that value's most common label; the ceiling is its accuracy."""
    by_key: dict[object, Counter] = defaultdict(Counter)
    for r in rows:
        by_key[key(r)][r.target] += 1
    best = {g: min(c, key=lambda lab: (-c[lab], lab)) for g, c in by_key.items()}
    preds = [best[key(r)] for r in rows]
    ceiling = sum(c[best[g]] for g, c in by_key.items()) / len(rows)
    return ceiling, preds


def accuracy(preds: Sequence[str], gold: Sequence[str]) -> float:
    """The share of ``preds`` equal to ``gold``."""
    return sum(p == g for p, g in zip(preds, gold)) / len(gold)


def paired_test(a: Sequence[str], b: Sequence[str], gold: Sequence[str], alpha: float,
                alternative: str = TWO_SIDED) -> dict:
    """The sign test of predictions ``a`` against ``b`` (see :func:`clutrr.diagnostics.stats.sign_test`).

    ``significant``: p < ``alpha``; ``better``: significant with ``a`` ahead (the flag of a
    biased model; a two-sided test is also significant when ``a`` is worse).
    """
    t = sign_test([p == g for p, g in zip(a, gold)], [p == g for p, g in zip(b, gold)], alternative)
    return {"wins": t.wins, "losses": t.losses, "discordant": t.discordant, "p_value": t.p_value,
            "alternative": t.alternative, "significant": t.p_value < alpha,
            "better": t.p_value < alpha and t.wins > t.losses}


def majority_baselines(trained: Sequence[str], gold: Sequence[str]) -> tuple[dict, list[str]]:
    """The training split's majority predictions ``trained`` beside the split's own majority
    label; returns the report block and the predictions of the stronger of the two."""
    own = majority_label(gold)
    own_preds = [own] * len(gold)
    train_acc, own_acc = accuracy(trained, gold), accuracy(own_preds, gold)
    stronger = "own" if own_acc > train_acc else "train"
    block = {"label": trained[0] if trained else None, "accuracy": train_acc,
             "own_label": own, "own_share": own_acc, "stronger": stronger,
             "bar": max(train_acc, own_acc)}
    return block, own_preds if stronger == "own" else list(trained)


def audit_group(rows: Sequence[StoryRow], preds: Predictions, vocab_size: int, alpha: float = ALPHA,
                alternative: str = TWO_SIDED) -> dict:
    """Every statistic of one group of items (a split, or one k within it)."""
    gold = [r.target for r in rows]
    ceiling, prior_preds = gender_prior(rows)
    query_only, story_bag = preds.by_model["query_only"], preds.by_model["story_bag"]
    maj, bar_preds = majority_baselines(preds.by_model["majority"], gold)
    q_acc = accuracy(query_only, gold)
    vs_prior = paired_test(query_only, prior_preds, gold, alpha, alternative)
    return {
        "n": len(rows),
        "labels": label_skew(gold, vocab_size),
        "majority": maj,
        "query_only": {
            "accuracy": q_acc,
            "vs_majority": paired_test(query_only, bar_preds, gold, alpha, alternative),
            "vs_gender_prior": vs_prior,
        },
        "gender_ceiling": ceiling,
        "answer_gender_ceiling": gender_prior(rows, key=lambda r: query_genders(r)[1])[0],
        "exceeds_gender_ceiling": q_acc > ceiling and vs_prior["better"],
        "story_bag": {
            "accuracy": accuracy(story_bag, gold),
            "vs_majority": paired_test(story_bag, bar_preds, gold, alpha, alternative),
        },
        PREMISE_UNK: {
            "accuracy": accuracy(preds.by_model[PREMISE_UNK], gold),
            "vs_majority": paired_test(preds.by_model[PREMISE_UNK], bar_preds, gold, alpha, alternative),
        },
    }


def train_query_overlap(rows: Sequence[StoryRow], train_rows: Sequence[StoryRow]) -> dict:
    """Share of ``rows`` whose (head, tail) names are a training query, and with the same label."""
    seen: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in train_rows:
        seen[tuple(r.query)].add(r.target)
    hits = [tuple(r.query) in seen for r in rows]
    same = [r.target in seen.get(tuple(r.query), ()) for r in rows]
    n = len(rows) or 1
    return {"seen": sum(hits) / n, "same_label": sum(same) / n}


@dataclass
class AuditResult:
    """The report (JSON-ready) and each split's per-item baseline predictions."""

    report: dict
    predictions: dict[str, Predictions]


def audit_dataset(splits: Sequence[Split], kb: KB, seed: int = 0, alpha: float = ALPHA,
                  min_count: int = MIN_WORD_COUNT, step: Callable[[int], object] | None = None,
                  alternative: str = TWO_SIDED, rank: str = "p") -> AuditResult:
    """The full audit of a dataset's splits. ``step(n)`` is called as each split of n rows is done;
    ``alternative`` is the sign tests' (two-sided or greater), ``rank`` the give-away words' order."""
    train_rows = [r for s in splits if s.is_train for r in s.rows]
    vocab_size = len(kb.words)
    models = clutrr_models()
    bag = memoized(lambda r: story_tokens(r.story))
    predictions = predict_splits({s.name: (s.rows, s.is_train) for s in splits}, train_rows, lambda r: r.target,
                                 models, seed)
    report_splits = []
    for split in splits:
        if not split.rows:
            continue
        preds = predictions[split.name]
        by_k: dict[int, list[int]] = defaultdict(list)
        for i, r in enumerate(split.rows):
            by_k[r.k].append(i)
        groups = [{"k": "all", **audit_group(split.rows, preds, vocab_size, alpha, alternative)}]
        if len(by_k) > 1:
            for k in sorted(by_k):
                idx = by_k[k]
                groups.append({"k": k, **audit_group([split.rows[i] for i in idx], preds.subset(idx), vocab_size,
                                                     alpha, alternative)})
        else:
            groups[0]["k"] = next(iter(by_k))
        scored_on = None if split.is_train else train_rows
        report_splits.append({
            "split": split.name,
            "role": "train" if split.is_train else "test",
            "evaluation": preds.evaluation,
            "groups": groups,
            "giveaway": giveaway_words(split.rows, lambda r: r.target, bag, scored_on, min_count, TOP_WORDS,
                                       COVERAGE_XS, rank, seed),
            "train_query_overlap": None if split.is_train or not train_rows
            else train_query_overlap(split.rows, train_rows),
            "classes": model_classes([r.target for r in split.rows], preds.by_model),
        })
        if step is not None:
            step(len(split.rows))
    flagged = [s["split"] for s in report_splits if any(g["exceeds_gender_ceiling"] for g in s["groups"])]
    biased = [s["split"] for s in report_splits if any(g["query_only"]["vs_majority"]["better"] for g in s["groups"])]
    report = {
        "kb": kb.name,
        "seed": seed,
        "alpha": alpha,
        "sign_test": alternative,
        "train_splits": [s.name for s in splits if s.is_train],
        "splits": report_splits,
        "summary": {
            "query_only_beats_majority": biased,
            "exceeds_gender_ceiling": flagged,
            "passes": not flagged,
        },
    }
    return AuditResult(report, predictions)


def audit_splits(splits: Sequence[Split], kb: KB, seed: int = 0, alpha: float = ALPHA,
                 min_count: int = MIN_WORD_COUNT) -> dict:
    """The audit report (JSON-ready) of a dataset's splits (see :func:`audit_dataset`)."""
    return audit_dataset(splits, kb, seed, alpha, min_count).report


def pct(x: float) -> str:
    """A share as a percentage with one decimal."""
    return f"{100 * x:.1f}"


def fmt_p(x: float) -> str:
    """A p-value in two significant digits (one too small for a float is shown as such)."""
    if x == 0:
        return "<1e-300"
    return f"{x:.2g}" if x >= 1e-4 else f"{x:.1e}"


def sided_name(alternative: str) -> str:
    """How a report names its sign test."""
    return "two-sided" if alternative == TWO_SIDED else "one-sided"


def model_cells(model: dict) -> str:
    """Two table cells: a model's accuracy and its sign-test p-value against the stronger majority
    (``*`` when the model is significantly better)."""
    flag = "*" if model["vs_majority"]["better"] else ""
    return f"{pct(model['accuracy'])} | {fmt_p(model['vs_majority']['p_value'])}{flag}"


def majority_cells(maj: dict) -> str:
    """Two table cells: majority, and own majority (``^`` when the stronger)."""
    own = "^" if maj["stronger"] == "own" else ""
    return f"{pct(maj['accuracy'])} | {pct(maj['own_share'])}{own}"


def giveaway_lines(report: dict) -> list[str]:
    """The give-away words section of a report."""
    first = report["splits"][0]["giveaway"] if report["splits"] else {"min_count": MIN_WORD_COUNT, "rank": "p"}
    order = "by p" if first["rank"] == "p" else "by frequency (as Poliak et al.)"
    out = ["", "## Give-away words", "",
           f"Words in at least {first['min_count']} stories, with max p(label | word), ranked {order}; a test "
           "split is scored with the training split's estimates (count = training stories, then the split's "
           "own), a training split out of fold. Coverage = share of stories holding a word with "
           "p(gold label | word) >= x.", ""]
    for sp in report["splits"]:
        gw = sp["giveaway"]
        top = ", ".join(f"{d['word']}→{d['label']} {d['p']:.2f} ({d['count']}"
                        + (f"/{d['in_split']}" if "in_split" in d else "") + ")" for d in gw["top"][:8])
        curve = " ".join(f"{c['x']:.1f}:{pct(c['share'])}" for c in gw["coverage"])
        out.append(f"- **{sp['split']}** ({gw['n_words']} words; {gw['estimate']}): {top or '—'}  ")
        out.append(f"  coverage x:% {curve}")
    return out


CLUTRR_COLUMNS = {"majority": "majority", "query_only": "q-only", "story_bag": "bag", PREMISE_UNK: "unk-prem"}


def per_class_section(report: dict, columns: dict[str, str]) -> list[str]:
    """The per-class accuracy section of a report: a table per split."""
    out = ["", "## Per-class accuracy", "",
           "Share (%) of each gold label's items that each model gets right (its recall); the confusion "
           "matrices are in audit.json (`classes`).", ""]
    for sp in report["splits"]:
        out += per_class_lines(sp["split"], sp["classes"], columns)
    return out


def render_markdown(report: dict, title: str, per_class: bool = False) -> str:
    """The audit report as markdown (with the per-class tables when ``per_class``)."""
    out = [f"# Artifact audit: {title}", ""]
    s = report["summary"]
    test = sided_name(report.get("sign_test", TWO_SIDED))
    out.append(
        f"KB `{report['kb']}`, seed {report['seed']}, significance level {report['alpha']}, {test} sign tests. "
        f"Training split(s): {', '.join(report['train_splits']) or 'none (every split cross-validated)'}."
    )
    out.append("")
    verdict = "no split exceeds the gender-prior ceiling" if s["passes"] else \
        f"query-only baseline exceeds the gender-prior ceiling in: {', '.join(s['exceeds_gender_ceiling'])}"
    biased = s["query_only_beats_majority"]
    tsuchiya = (f"the query-only model is significantly better than the majority baseline in: {', '.join(biased)}"
                if biased else "the query-only model is not significantly better than the majority baseline in any split")
    out += [f"**Verdict** (ours, the gender-prior ceiling): {verdict}.  ",
            f"**Bias test** (Tsuchiya's, query-only against majority): {tsuchiya}.", ""]
    out += [
        "Accuracies in %. *majority* = the training split's majority label; *own maj.* = the split's own "
        "majority share; *q-only* = query-only Naive Bayes; *p* = exact sign test "
        f"({test}) of q-only against the stronger of the two majority baselines (marked `^` when that is the "
        "split's own) on the items where exactly one is right (an informative query is flagged `*` when "
        f"p < {report['alpha']} and q-only is ahead); *ceiling* = gender-prior ceiling (ours: best rule on the "
        "two query genders; *ans-g* = on the answer's gender alone); *exceeds* = q-only above the ceiling and "
        "significantly better than the gender-prior rule; *bag* = story-bag Naive Bayes; *unk-prem* = q-only with "
        "the story as unknown-word tokens (its length only; Tsuchiya's Table 4 check).",
        "",
        "| split | k | n | labels | majority | own maj. | q-only | p | ceiling | ans-g | exceeds | bag | unk-prem |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sp in report["splits"]:
        for g in sp["groups"]:
            out.append(
                f"| {sp['split']} | {g['k']} | {g['n']} | {g['labels']['n_labels']} | "
                f"{majority_cells(g['majority'])} | {model_cells(g['query_only'])} | {pct(g['gender_ceiling'])} | "
                f"{pct(g['answer_gender_ceiling'])} | {'yes' if g['exceeds_gender_ceiling'] else 'no'} | "
                f"{pct(g['story_bag']['accuracy'])} | {pct(g[PREMISE_UNK]['accuracy'])} |"
            )
    overlaps = [(sp["split"], sp["train_query_overlap"]) for sp in report["splits"] if sp["train_query_overlap"]]
    if overlaps:
        out += ["", "## Query pairs seen in training", "",
                "Share of a test split's items whose (head, tail) names are also a training query, and "
                "with the same label: name memorization beats reasoning there.", ""]
        out += [f"- {name}: {pct(o['seen'])}% seen, {pct(o['same_label'])}% with the same label"
                for name, o in overlaps]
    out += giveaway_lines(report)
    if per_class:
        out += per_class_section(report, CLUTRR_COLUMNS)
    out.append("")
    return "\n".join(out)
