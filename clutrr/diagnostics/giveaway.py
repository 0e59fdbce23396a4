"""Give-away words: words whose presence in a story predicts its label.

For a word w seen in at least ``min_count`` stories, p(label | w) is the share of those
stories with that label. The estimates always come from stories other than the ones scored:

- a test split is scored with the training split's estimates (a word must occur in at
  least ``min_count`` training stories); its top list shows those estimates for the words the
  split holds, with the training count and the split's own count;
- a training split (or a folder without one) is scored out of fold: each story's words are
  estimated from the other folds, as the audit's cross-validated models are. Its top list
  describes the whole split.

The coverage curve gives, for each x, the share of scored stories holding a word with
p(gold label | w) >= x. The top list is ranked by p (ours) or, as in Poliak et al.'s analysis
of give-away words, by how often the word occurs (``rank="frequency"``).
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from typing import Any, Callable, Sequence

RANKS = ("p", "frequency")
COVERAGE_XS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MIN_COUNT = 5
FOLDS = 5


def word_counts(docs: Sequence[set[str]], gold: Sequence[str]) -> tuple[Counter, dict[str, Counter]]:
    """Stories per word, and stories per (word, label)."""
    df: Counter = Counter()
    joint: dict[str, Counter] = defaultdict(Counter)
    for words, label in zip(docs, gold):
        for w in words:
            df[w] += 1
            joint[w][label] += 1
    return df, joint


def top_words(df: Counter, joint: dict[str, Counter], words: set[str] | None, min_count: int, top: int,
              rank: str, in_split: Counter | None = None) -> tuple[int, list[dict]]:
    """The number of words with at least ``min_count`` stories (among ``words`` when given) and
    the ``top`` of them, each with its most likely label and p."""
    if rank not in RANKS:
        raise ValueError(f"rank must be one of {RANKS}, not {rank!r}")
    scored = []
    for w, n in df.items():
        if n < min_count or (words is not None and w not in words):
            continue
        label, hits = min(joint[w].items(), key=lambda kv: (-kv[1], kv[0]))
        entry = {"word": w, "label": label, "p": hits / n, "count": n}
        if in_split is not None:
            entry["in_split"] = in_split[w]
        scored.append(entry)
    key = (lambda d: (-d["p"], -d["count"], d["word"])) if rank == "p" else (lambda d: (-d["count"], -d["p"], d["word"]))
    scored.sort(key=key)
    return len(scored), scored[:top]


def _best(words: set[str], label: str, df: Counter, joint: dict[str, Counter], min_count: int) -> float:
    """The story's strongest word for its gold label: max p(label | w) over its counted words."""
    return max((joint[w][label] / df[w] for w in words if df[w] >= min_count), default=-1.0)


def _out_of_fold(docs: list[set[str]], gold: Sequence[str], min_count: int, seed: int) -> list[float]:
    order = list(range(len(docs)))
    random.Random(seed).shuffle(order)
    folds = max(1, min(FOLDS, len(docs)))
    fold_of = {i: n % folds for n, i in enumerate(order)}
    df, joint = word_counts(docs, gold)
    best = [0.0] * len(docs)
    for f in range(folds):
        ids = [i for i in range(len(docs)) if fold_of[i] == f]
        f_df, f_joint = word_counts([docs[i] for i in ids], [gold[i] for i in ids])
        rest_df = df - f_df
        rest_joint = {w: joint[w] - f_joint.get(w, Counter()) for w in f_df}
        for i in ids:
            best[i] = _best(docs[i], gold[i], rest_df, rest_joint, min_count)
    return best


def giveaway_words(rows: Sequence[Any], label: Callable[[Any], str], tokens: Callable[[Any], list[str]],
                   train_rows: Sequence[Any] | None = None, min_count: int = 5, top: int = 15,
                   xs: Sequence[float] = COVERAGE_XS, rank: str = "p", seed: int = 0) -> dict:
    """The give-away words of ``rows`` and their coverage curve (see the module docstring):
    estimated on ``train_rows`` when given, else on ``rows`` with the coverage out of fold."""
    docs = [set(tokens(r)) for r in rows]
    gold = [label(r) for r in rows]
    if train_rows:
        df, joint = word_counts([set(tokens(r)) for r in train_rows], [label(r) for r in train_rows])
        n_words, listed = top_words(df, joint, set().union(*docs) if docs else set(), min_count, top, rank,
                                    in_split=word_counts(docs, gold)[0])
        best = [_best(d, g, df, joint, min_count) for d, g in zip(docs, gold)]
        estimate = "p from the training split"
    else:
        df, joint = word_counts(docs, gold)
        n_words, listed = top_words(df, joint, None, min_count, top, rank)
        best = _out_of_fold(docs, gold, min_count, seed)
        estimate = f"p from this split, coverage out of {max(1, min(FOLDS, len(docs)))} folds"
    coverage = [{"x": x, "share": sum(b >= x for b in best) / len(rows) if rows else 0.0} for x in xs]
    return {"min_count": min_count, "rank": rank, "estimate": estimate, "n_words": n_words, "top": listed,
            "coverage": coverage}


HYPOTHESIS_TOP = 10


def label_given_word(docs: Sequence[Sequence[str]], gold: Sequence[str]) -> tuple[Counter, dict[str, Counter]]:
    """Occurrences of each word, and of each (word, label), over tokenised texts: the counts
    behind p(l | w) = count(w, l) / count(w) (Poliak's dissertation, eq. 5.1)."""
    count: Counter = Counter()
    joint: dict[str, Counter] = defaultdict(Counter)
    for words, label in zip(docs, gold, strict=True):
        for w in words:
            count[w] += 1
            joint[w][label] += 1
    return count, joint


def hypothesis_giveaway(docs: Sequence[Sequence[str]], gold: Sequence[str], min_count: int = MIN_COUNT,
                        top: int = HYPOTHESIS_TOP, xs: Sequence[float] = COVERAGE_XS) -> dict:
    """Give-away words of NLI hypotheses as in Poliak's dissertation (§5.5), on one split's own
    statistics (the dissertation uses the development set's).

    p(l | w) is computed for words seen at least ``min_count`` times. ``per_label[l]`` lists the
    ``top`` most frequent words whose most likely label is l alone (a word whose likeliest labels
    tie leans to none), each with p(l | w) and its count;
    ``coverage`` gives, for each x, the share of hypotheses holding a counted word w with
    p(l | w) >= x for at least one label l.
    """
    count, joint = label_given_word(docs, gold)
    best: dict[str, tuple[str | None, float]] = {}
    for w, n in count.items():
        if n >= min_count:
            ranked = sorted(joint[w].items(), key=lambda kv: (-kv[1], kv[0]))
            tied = len(ranked) > 1 and ranked[1][1] == ranked[0][1]
            best[w] = (None if tied else ranked[0][0], ranked[0][1] / n)
    per_label: dict[str, list[dict]] = {lab: [] for lab in sorted(set(gold))}
    for w in sorted(best, key=lambda w: (-count[w], -best[w][1], w)):
        label, p = best[w]
        if label is not None and len(per_label[label]) < top:
            per_label[label].append({"word": w, "p": p, "count": count[w]})
    strongest = [max((best[w][1] for w in set(d) if w in best), default=-1.0) for d in docs]
    coverage = [{"x": x, "share": sum(s >= x for s in strongest) / len(docs) if docs else 0.0} for x in xs]
    return {"min_count": min_count, "n_words": len(best), "items": len(docs), "per_label": per_label,
            "coverage": coverage}
