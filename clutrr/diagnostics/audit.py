"""Artifact audit of a CLUTRR-style dataset: can the label be guessed without reasoning?

For each split (CSV file) and each chain length k the audit reports:

- the label distribution and its skew, and two majority baselines: the training split's
  majority label (what a model could learn) and the split's own majority share (what
  always answering its most common label scores); the stronger of the two is the bar;
- a query-only baseline (multinomial Naive Bayes on the two query entities' genders, name
  tokens and first-mention ranks), compared with the stronger majority baseline by a
  one-sided exact sign test on the items where exactly one of the two is right (an
  informative query is flagged at p < 0.01);
- the gender-prior ceiling: the best accuracy of any rule that sees only the genders of the
  query's two entities, and whether the query-only baseline exceeds it. The tail's gender is
  the answer's gender; the head's adds what the world model implies (a husband's spouse is a
  woman), so both belong to the prior. The answer-gender-only ceiling is reported beside it;
- a story-bag baseline (Naive Bayes on the story's unigrams, no structure);
- give-away words: p(label | word) for words in at least ``min_count`` stories, the top list,
  and the coverage curve (share of stories holding a word with p(gold label | word) >= x).

Baselines for a test split are trained on the folder's training split(s); a training split
(or any split when the folder has none) is scored by k-fold cross-validation. Every
baseline's per-item predictions are kept (:class:`Predictions`), so the items a biased
model gets right and wrong (Tsuchiya's easy and hard subsets) can be written out.
"""
from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import Split
from clutrr.core.kb import KB
from clutrr.diagnostics.naive_bayes import MultinomialNB
from clutrr.diagnostics.stats import entropy_bits, sign_test

ALPHA = 0.01
FOLDS = 5
MIN_WORD_COUNT = 5
TOP_WORDS = 15
COVERAGE_XS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MAX_RANK = 9

_WORD_RE = re.compile(r"[a-z]+(?:[-'][a-z]+)*")


def story_tokens(story: str) -> list[str]:
    """Lower-cased word tokens of a story: names lose their brackets and possessive 's,
    hyphenated words stay whole."""
    text = story.lower().replace("[", "").replace("]", "")
    return [t[:-2] if t.endswith("'s") else t for t in _WORD_RE.findall(text)]


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


Featurizer = Callable[[Any], list[str]]


@dataclass
class Predictions:
    """Per-item predictions of each baseline for one split (``None`` featurizer: majority)."""

    by_model: dict[str, list[str]]
    evaluation: str

    def subset(self, idx: Sequence[int]) -> "Predictions":
        """The predictions of the items ``idx``."""
        return Predictions({m: [p[i] for i in idx] for m, p in self.by_model.items()}, self.evaluation)


def majority_label(labels: Sequence[str]) -> str:
    """The most common label; ties go to the first in sorted order."""
    counts = Counter(labels)
    return min(counts, key=lambda lab: (-counts[lab], lab))


def _fit_predict(train: Sequence, test: Sequence, label: Callable[[Any], str],
                 models: dict[str, Featurizer | None]) -> dict[str, list[str]]:
    gold = [label(r) for r in train]
    out = {}
    for name, featurize in models.items():
        if featurize is None:
            out[name] = [majority_label(gold)] * len(test)
        else:
            model = MultinomialNB().fit([featurize(r) for r in train], gold)
            out[name] = model.predict([featurize(r) for r in test])
    return out


def predict_items(items: Sequence, train_items: Sequence, is_train: bool, label: Callable[[Any], str],
                  models: dict[str, Featurizer | None], seed: int = 0,
                  group: Callable[[Any], object] | None = None) -> Predictions:
    """Each model's predictions for ``items``: trained on ``train_items``, or cross-validated
    when the items are a training split or no training items are given. Items of one
    ``group`` (e.g. the two hypotheses of one story) always share a fold."""
    if train_items and not is_train:
        return Predictions(_fit_predict(train_items, items, label, models), "trained on the training split")
    keys = [group(it) for it in items] if group is not None else list(range(len(items)))
    order = list(dict.fromkeys(keys))
    folds = min(FOLDS, len(order))
    random.Random(seed).shuffle(order)
    fold_of_key = {key: n % folds for n, key in enumerate(order)}
    fold_of = [fold_of_key[key] for key in keys]
    out = {name: [""] * len(items) for name in models}
    for f in range(folds):
        test_ids = [i for i in range(len(items)) if fold_of[i] == f]
        train = [items[i] for i in range(len(items)) if fold_of[i] != f] or [items[i] for i in test_ids]
        for name, preds in _fit_predict(train, [items[i] for i in test_ids], label, models).items():
            for i, lab in zip(test_ids, preds):
                out[name][i] = lab
    return Predictions(out, f"{folds}-fold cross-validation" + (" by story" if group is not None else ""))


def memoized(featurize: Featurizer) -> Featurizer:
    """``featurize`` computed once per item object (the audit asks several times)."""
    cache: dict[int, tuple[Any, list[str]]] = {}

    def run(item: Any) -> list[str]:
        hit = cache.get(id(item))
        if hit is None:  # the entry keeps the item alive, so its id is never reused
            hit = cache[id(item)] = (item, featurize(item))
        return hit[1]

    return run


def clutrr_models() -> dict[str, Featurizer | None]:
    """The baselines of a CLUTRR split: majority, query-only and story-bag."""
    return {"majority": None, "query_only": query_features, "story_bag": memoized(lambda r: story_tokens(r.story))}


def predict_split(split: Split, train_rows: Sequence[StoryRow], seed: int = 0,
                  models: dict[str, Featurizer | None] | None = None) -> Predictions:
    """Baseline predictions for ``split`` (see :func:`predict_items`)."""
    return predict_items(split.rows, train_rows, split.is_train, lambda r: r.target, models or clutrr_models(), seed)


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


def paired_test(a: Sequence[str], b: Sequence[str], gold: Sequence[str], alpha: float) -> dict:
    """The sign test of predictions ``a`` against ``b`` (see :func:`clutrr.diagnostics.stats.sign_test`)."""
    t = sign_test([p == g for p, g in zip(a, gold)], [p == g for p, g in zip(b, gold)])
    return {"wins": t.wins, "losses": t.losses, "discordant": t.discordant, "p_value": t.p_value,
            "significant": t.p_value < alpha}


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


def audit_group(rows: Sequence[StoryRow], preds: Predictions, vocab_size: int, alpha: float = ALPHA) -> dict:
    """Every statistic of one group of items (a split, or one k within it)."""
    gold = [r.target for r in rows]
    ceiling, prior_preds = gender_prior(rows)
    query_only, story_bag = preds.by_model["query_only"], preds.by_model["story_bag"]
    majority, bar_preds = majority_baselines(preds.by_model["majority"], gold)
    q_acc = accuracy(query_only, gold)
    vs_prior = paired_test(query_only, prior_preds, gold, alpha)
    return {
        "n": len(rows),
        "labels": label_skew(gold, vocab_size),
        "majority": majority,
        "query_only": {
            "accuracy": q_acc,
            "vs_majority": paired_test(query_only, bar_preds, gold, alpha),
            "vs_gender_prior": vs_prior,
        },
        "gender_ceiling": ceiling,
        "answer_gender_ceiling": gender_prior(rows, key=lambda r: query_genders(r)[1])[0],
        "exceeds_gender_ceiling": q_acc > ceiling and vs_prior["significant"],
        "story_bag": {
            "accuracy": accuracy(story_bag, gold),
            "vs_majority": paired_test(story_bag, bar_preds, gold, alpha),
        },
    }


def giveaway_words(rows: Sequence[StoryRow], min_count: int = MIN_WORD_COUNT, top: int = TOP_WORDS,
                   xs: Sequence[float] = COVERAGE_XS, tokens: Featurizer | None = None) -> dict:
    """p(label | word) for words in at least ``min_count`` stories: the top list and coverage curve.
    ``tokens`` gives a row's story tokens (default :func:`story_tokens` of its story)."""
    tokens = tokens or (lambda r: story_tokens(r.story))
    doc_words = [set(tokens(r)) for r in rows]
    df: Counter = Counter()
    joint: dict[str, Counter] = defaultdict(Counter)
    for words, r in zip(doc_words, rows):
        for w in words:
            df[w] += 1
            joint[w][r.target] += 1
    kept = {w for w, n in df.items() if n >= min_count}
    scored = []
    for w in kept:
        lab, n = min(joint[w].items(), key=lambda kv: (-kv[1], kv[0]))
        scored.append({"word": w, "label": lab, "p": n / df[w], "count": df[w]})
    scored.sort(key=lambda d: (-d["p"], -d["count"], d["word"]))
    best = [max((joint[w][r.target] / df[w] for w in words if w in kept), default=-1.0)
            for words, r in zip(doc_words, rows)]  # each story's strongest word for its gold label
    coverage = [{"x": x, "share": sum(b >= x for b in best) / len(rows) if rows else 0.0} for x in xs]
    return {"min_count": min_count, "n_words": len(kept), "top": scored[:top], "coverage": coverage}


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
                  min_count: int = MIN_WORD_COUNT, step: Callable[[int], object] | None = None) -> AuditResult:
    """The full audit of a dataset's splits. ``step(n)`` is called as each split of n rows is done."""
    train_rows = [r for s in splits if s.is_train for r in s.rows]
    vocab_size = len(kb.words)
    models = clutrr_models()
    report_splits, predictions = [], {}
    for split in splits:
        if not split.rows:
            continue
        preds = predictions[split.name] = predict_split(split, train_rows, seed, models)
        by_k: dict[int, list[int]] = defaultdict(list)
        for i, r in enumerate(split.rows):
            by_k[r.k].append(i)
        groups = [{"k": "all", **audit_group(split.rows, preds, vocab_size, alpha)}]
        if len(by_k) > 1:
            for k in sorted(by_k):
                idx = by_k[k]
                groups.append({"k": k, **audit_group([split.rows[i] for i in idx], preds.subset(idx), vocab_size, alpha)})
        else:
            groups[0]["k"] = next(iter(by_k))
        report_splits.append({
            "split": split.name,
            "role": "train" if split.is_train else "test",
            "evaluation": preds.evaluation,
            "groups": groups,
            "giveaway": giveaway_words(split.rows, min_count, tokens=models["story_bag"]),
            "train_query_overlap": None if split.is_train or not train_rows
            else train_query_overlap(split.rows, train_rows),
        })
        if step is not None:
            step(len(split.rows))
    flagged = [s["split"] for s in report_splits if any(g["exceeds_gender_ceiling"] for g in s["groups"])]
    biased = [s["split"] for s in report_splits if any(g["query_only"]["vs_majority"]["significant"] for g in s["groups"])]
    report = {
        "kb": kb.name,
        "seed": seed,
        "alpha": alpha,
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
    """A p-value in two significant digits."""
    return f"{x:.2g}" if x >= 1e-4 else f"{x:.1e}"


def majority_cells(maj: dict, model: dict) -> str:
    """Four table cells: majority, own majority (``^`` when the stronger), the model's accuracy and
    its sign-test p-value against the stronger majority (``*`` when significant)."""
    own = "^" if maj["stronger"] == "own" else ""
    flag = "*" if model["vs_majority"]["significant"] else ""
    return (f"{pct(maj['accuracy'])} | {pct(maj['own_share'])}{own} | "
            f"{pct(model['accuracy'])} | {fmt_p(model['vs_majority']['p_value'])}{flag}")


def render_markdown(report: dict, title: str) -> str:
    """The audit report as markdown."""
    out = [f"# Artifact audit: {title}", ""]
    s = report["summary"]
    out.append(
        f"KB `{report['kb']}`, seed {report['seed']}, significance level {report['alpha']}. "
        f"Training split(s): {', '.join(report['train_splits']) or 'none (every split cross-validated)'}."
    )
    out.append("")
    verdict = "no split exceeds the gender-prior ceiling" if s["passes"] else \
        f"query-only baseline exceeds the gender-prior ceiling in: {', '.join(s['exceeds_gender_ceiling'])}"
    out += [f"**Verdict:** {verdict}.", ""]
    out += [
        "Accuracies in %. *majority* = the training split's majority label; *own maj.* = the split's own "
        "majority share; *q-only* = query-only Naive Bayes; *p(q>maj)* = one-sided exact sign test of q-only "
        "against the stronger of the two majority baselines (marked `^` when that is the split's own) on the "
        f"items where exactly one is right (an informative query is flagged `*` when p < {report['alpha']}); "
        "*ceiling* = gender-prior ceiling (best rule on the two query genders; *ans-g* = on the answer's gender "
        "alone); *exceeds* = q-only above the ceiling and significantly better than the gender-prior rule; "
        "*bag* = story-bag Naive Bayes.",
        "",
        "| split | k | n | labels | majority | own maj. | q-only | p(q>maj) | ceiling | ans-g | exceeds | bag |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sp in report["splits"]:
        for g in sp["groups"]:
            q, maj = g["query_only"], g["majority"]
            out.append(
                f"| {sp['split']} | {g['k']} | {g['n']} | {g['labels']['n_labels']} | "
                f"{majority_cells(maj, q)} | {pct(g['gender_ceiling'])} | "
                f"{pct(g['answer_gender_ceiling'])} | {'yes' if g['exceeds_gender_ceiling'] else 'no'} | "
                f"{pct(g['story_bag']['accuracy'])} |"
            )
    overlaps = [(sp["split"], sp["train_query_overlap"]) for sp in report["splits"] if sp["train_query_overlap"]]
    if overlaps:
        out += ["", "## Query pairs seen in training", "",
                "Share of a test split's items whose (head, tail) names are also a training query, and "
                "with the same label: name memorization beats reasoning there.", ""]
        out += [f"- {name}: {pct(o['seen'])}% seen, {pct(o['same_label'])}% with the same label"
                for name, o in overlaps]
    out += ["", "## Give-away words", "",
            f"Words in at least {report['splits'][0]['giveaway']['min_count'] if report['splits'] else MIN_WORD_COUNT} "
            "stories of a split, with max p(label | word); coverage = share of stories holding a word with "
            "p(gold label | word) >= x.", ""]
    for sp in report["splits"]:
        gw = sp["giveaway"]
        top = ", ".join(f"{d['word']}→{d['label']} {d['p']:.2f} ({d['count']})" for d in gw["top"][:8])
        curve = " ".join(f"{c['x']:.1f}:{pct(c['share'])}" for c in gw["coverage"])
        out.append(f"- **{sp['split']}** ({gw['n_words']} words; {sp['evaluation']}): {top or '—'}  ")
        out.append(f"  coverage x:% {curve}")
    out.append("")
    return "\n".join(out)
