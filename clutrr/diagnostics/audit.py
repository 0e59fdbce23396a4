"""Artifact audit of a CLUTRR-style dataset: can the label be guessed without reasoning?

For each split (CSV file) and each chain length k the audit reports:

- the label distribution and its skew, and the majority-class baseline;
- a query-only baseline (multinomial Naive Bayes on the two query entities' genders, name
  tokens and first-mention ranks), compared with the majority baseline by a one-sided exact
  sign test on the items where exactly one of the two is right (bias flagged at p < 0.01);
- the gender-prior ceiling: the best accuracy of any rule that sees only the genders of the
  query's two entities, and whether the query-only baseline exceeds it. The tail's gender is
  the answer's gender; the head's adds what the world model implies (a husband's spouse is a
  woman), so both belong to the prior. The answer-gender-only ceiling is reported beside it;
- a story-bag baseline (Naive Bayes on the story's unigrams, no structure);
- give-away words: p(label | word) for words in at least ``min_count`` stories, the top list,
  and the coverage curve (share of stories holding a word with p(gold label | word) >= x).

Baselines for a test split are trained on the folder's training split(s); a training split
(or any split when the folder has none) is scored by k-fold cross-validation.
"""
from __future__ import annotations

import math
import random
import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Sequence

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


@dataclass
class Predictions:
    """Per-item predictions of the three baselines for one split."""

    majority: list[str]
    query_only: list[str]
    story_bag: list[str]
    evaluation: str


def _fit_predict(train: Sequence[StoryRow], test: Sequence[StoryRow],
                 featurize: Callable[[StoryRow], list[str]]) -> list[str]:
    model = MultinomialNB().fit([featurize(r) for r in train], [r.target for r in train])
    return model.predict([featurize(r) for r in test])


def _majority_label(rows: Sequence[StoryRow]) -> str:
    counts = Counter(r.target for r in rows)
    return min(counts, key=lambda lab: (-counts[lab], lab))


def _predict_all(train: Sequence[StoryRow], test: Sequence[StoryRow]) -> tuple[list[str], list[str], list[str]]:
    maj = [_majority_label(train)] * len(test)
    return maj, _fit_predict(train, test, query_features), _fit_predict(train, test, lambda r: story_tokens(r.story))


def predict_split(split: Split, train_rows: Sequence[StoryRow], seed: int = 0) -> Predictions:
    """Baseline predictions for ``split``: trained on ``train_rows``, or cross-validated when
    ``split`` is a training split or no training rows are given."""
    rows = split.rows
    if train_rows and not split.is_train:
        return Predictions(*_predict_all(train_rows, rows), evaluation="trained on the training split")
    folds = min(FOLDS, len(rows))
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    fold_of = {i: n % folds for n, i in enumerate(order)}
    out: list[list[str]] = [[""] * len(rows) for _ in range(3)]
    for f in range(folds):
        test_ids = [i for i in range(len(rows)) if fold_of[i] == f]
        train = [rows[i] for i in range(len(rows)) if fold_of[i] != f]
        if not train:
            train = [rows[i] for i in test_ids]
        preds = _predict_all(train, [rows[i] for i in test_ids])
        for which, p in enumerate(preds):
            for i, lab in zip(test_ids, p):
                out[which][i] = lab
    return Predictions(*out, evaluation=f"{folds}-fold cross-validation")


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


def _accuracy(preds: Sequence[str], gold: Sequence[str]) -> float:
    return sum(p == g for p, g in zip(preds, gold)) / len(gold)


def _test_dict(a: Sequence[str], b: Sequence[str], gold: Sequence[str], alpha: float) -> dict:
    t = sign_test([p == g for p, g in zip(a, gold)], [p == g for p, g in zip(b, gold)])
    return {"wins": t.wins, "losses": t.losses, "discordant": t.discordant, "p_value": t.p_value,
            "significant": t.p_value < alpha}


def audit_group(rows: Sequence[StoryRow], preds: Predictions, vocab_size: int, alpha: float = ALPHA) -> dict:
    """Every statistic of one group of items (a split, or one k within it)."""
    gold = [r.target for r in rows]
    ceiling, prior_preds = gender_prior(rows)
    q_acc = _accuracy(preds.query_only, gold)
    vs_prior = _test_dict(preds.query_only, prior_preds, gold, alpha)
    return {
        "n": len(rows),
        "labels": label_skew(gold, vocab_size),
        "majority": {"label": preds.majority[0] if preds.majority else None,
                     "accuracy": _accuracy(preds.majority, gold)},
        "query_only": {
            "accuracy": q_acc,
            "vs_majority": _test_dict(preds.query_only, preds.majority, gold, alpha),
            "vs_gender_prior": vs_prior,
        },
        "gender_ceiling": ceiling,
        "answer_gender_ceiling": gender_prior(rows, key=lambda r: query_genders(r)[1])[0],
        "exceeds_gender_ceiling": q_acc > ceiling and vs_prior["significant"],
        "story_bag": {
            "accuracy": _accuracy(preds.story_bag, gold),
            "vs_majority": _test_dict(preds.story_bag, preds.majority, gold, alpha),
        },
    }


def giveaway_words(rows: Sequence[StoryRow], min_count: int = MIN_WORD_COUNT, top: int = TOP_WORDS,
                   xs: Sequence[float] = COVERAGE_XS) -> dict:
    """p(label | word) for words in at least ``min_count`` stories: the top list and coverage curve."""
    doc_words = [set(story_tokens(r.story)) for r in rows]
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
    coverage = []
    for x in xs:
        hit = sum(
            1 for words, r in zip(doc_words, rows)
            if any(joint[w][r.target] / df[w] >= x for w in words if w in kept)
        )
        coverage.append({"x": x, "share": hit / len(rows) if rows else 0.0})
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


def audit_splits(splits: Sequence[Split], kb: KB, seed: int = 0, alpha: float = ALPHA,
                 min_count: int = MIN_WORD_COUNT) -> dict:
    """The full audit report (JSON-ready) of a dataset's splits."""
    train_rows = [r for s in splits if s.is_train for r in s.rows]
    vocab_size = len(kb.words)
    report_splits = []
    for split in splits:
        if not split.rows:
            continue
        preds = predict_split(split, train_rows, seed)
        by_k: dict[int, list[int]] = defaultdict(list)
        for i, r in enumerate(split.rows):
            by_k[r.k].append(i)
        groups = [{"k": "all", **audit_group(split.rows, preds, vocab_size, alpha)}]
        if len(by_k) > 1:
            for k in sorted(by_k):
                idx = by_k[k]
                sub = Predictions(*([p[i] for i in idx] for p in (preds.majority, preds.query_only, preds.story_bag)),
                                  evaluation=preds.evaluation)
                groups.append({"k": k, **audit_group([split.rows[i] for i in idx], sub, vocab_size, alpha)})
        else:
            groups[0]["k"] = next(iter(by_k))
        report_splits.append({
            "split": split.name,
            "role": "train" if split.is_train else "test",
            "evaluation": preds.evaluation,
            "groups": groups,
            "giveaway": giveaway_words(split.rows, min_count),
            "train_query_overlap": None if split.is_train or not train_rows
            else train_query_overlap(split.rows, train_rows),
        })
    flagged = [s["split"] for s in report_splits if any(g["exceeds_gender_ceiling"] for g in s["groups"])]
    biased = [s["split"] for s in report_splits if any(g["query_only"]["vs_majority"]["significant"] for g in s["groups"])]
    return {
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


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _p(x: float) -> str:
    return f"{x:.2g}" if x >= 1e-4 else f"{x:.1e}"


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
        "Accuracies in %. *q-only* = query-only Naive Bayes; *p(q>maj)* = one-sided exact sign test of "
        "q-only against the majority baseline on the items where exactly one is right (bias flagged `*` "
        f"when p < {report['alpha']}); *ceiling* = gender-prior ceiling (best rule on the two query genders; "
        "*ans-g* = on the answer's gender alone); *exceeds* = q-only above the ceiling and significantly "
        "better than the gender-prior rule; *bag* = story-bag Naive Bayes.",
        "",
        "| split | k | n | labels | top share | majority | q-only | p(q>maj) | ceiling | ans-g | exceeds | bag |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for sp in report["splits"]:
        for g in sp["groups"]:
            q = g["query_only"]
            flag = "*" if q["vs_majority"]["significant"] else ""
            out.append(
                f"| {sp['split']} | {g['k']} | {g['n']} | {g['labels']['n_labels']} | "
                f"{_pct(g['labels']['majority_share'])} | {_pct(g['majority']['accuracy'])} | "
                f"{_pct(q['accuracy'])} | {_p(q['vs_majority']['p_value'])}{flag} | {_pct(g['gender_ceiling'])} | {_pct(g['answer_gender_ceiling'])} | "
                f"{'yes' if g['exceeds_gender_ceiling'] else 'no'} | {_pct(g['story_bag']['accuracy'])} |"
            )
    overlaps = [(sp["split"], sp["train_query_overlap"]) for sp in report["splits"] if sp["train_query_overlap"]]
    if overlaps:
        out += ["", "## Query pairs seen in training", "",
                "Share of a test split's items whose (head, tail) names are also a training query, and "
                "with the same label: name memorization beats reasoning there.", ""]
        out += [f"- {name}: {_pct(o['seen'])}% seen, {_pct(o['same_label'])}% with the same label"
                for name, o in overlaps]
    out += ["", "## Give-away words", "",
            f"Words in at least {report['splits'][0]['giveaway']['min_count'] if report['splits'] else MIN_WORD_COUNT} "
            "stories of a split, with max p(label | word); coverage = share of stories holding a word with "
            "p(gold label | word) >= x.", ""]
    for sp in report["splits"]:
        gw = sp["giveaway"]
        top = ", ".join(f"{d['word']}→{d['label']} {d['p']:.2f} ({d['count']})" for d in gw["top"][:8])
        curve = " ".join(f"{c['x']:.1f}:{_pct(c['share'])}" for c in gw["coverage"])
        out.append(f"- **{sp['split']}** ({gw['n_words']} words; {sp['evaluation']}): {top or '—'}  ")
        out.append(f"  coverage x:% {curve}")
    out.append("")
    return "\n".join(out)
