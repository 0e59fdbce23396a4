"""Recast CLUTRR stories as NLI pairs, in the style of the Diverse NLI Collection.

Each story gives one ``entailed`` pair (hypothesis "B is A's <true relation>.") and one
``not-entailed`` pair whose relation is drawn from the label prior among the words of B's
gender. The negatives of a split are a fixed-point-free rearrangement of the split's own
gold labels within each gender: items are laid on a circle grouped by label and each takes
the label of the item half a circle away. So the multiset of hypothesis relations is the
same under both labels and the hypothesis alone cannot give the label away. Only when one
label holds more than half of a gender's items (or a gender has a single item) does an item
fall back to a draw from the folder-wide prior of that gender; the summary counts those.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Sequence

from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import Split
from clutrr.errors import UsageError
from clutrr.core.kb import GENDERS, KB

ENTAILED = "entailed"
NOT_ENTAILED = "not-entailed"


def premise_text(story: str) -> str:
    """The story with the name brackets removed."""
    return story.replace("[", "").replace("]", "")


def hypothesis_text(head: str, tail: str, relation: str) -> str:
    """'B is A's relation.' for query (A, B)."""
    return f"{tail} is {head}'s {relation}."


@dataclass
class RecastSummary:
    """Counts of one split's recast."""

    stories: int
    pairs: Counter
    fallback_negatives: int


def _word_gender(kb: KB, word: str) -> int:
    return kb.parse_word(word)[1]


def _global_prior(rows: Sequence[StoryRow], kb: KB) -> dict[int, Counter]:
    """Label counts per answer gender over ``rows``, plus one for every KB word (smoothing)."""
    prior: dict[int, Counter] = {g: Counter() for g in range(len(GENDERS))}
    for word in kb.words:
        prior[_word_gender(kb, word)][word] += 1
    for r in rows:
        word = kb.word(*kb.parse_word(r.target))
        prior[_word_gender(kb, word)][word] += 1
    return prior


def _draw(prior: Counter, exclude: str, rng: random.Random) -> str:
    words = sorted(w for w in prior if w != exclude)
    return rng.choices(words, weights=[prior[w] for w in words])[0]


def negative_relations(rows: Sequence[StoryRow], kb: KB, prior: dict[int, Counter],
                       rng: random.Random) -> tuple[list[str], int]:
    """A not-entailed relation for each row, of the gold label's gender and never the gold label.

    Returns the relations and the number drawn from ``prior`` because the circle shift failed.
    """
    gold = [kb.word(*kb.parse_word(r.target)) for r in rows]
    by_gender: dict[int, list[int]] = defaultdict(list)
    for i, word in enumerate(gold):
        by_gender[_word_gender(kb, word)].append(i)
    out = [""] * len(rows)
    fallback = 0
    for g in sorted(by_gender):
        items = by_gender[g]
        labels = sorted({gold[i] for i in items})
        rng.shuffle(labels)
        rank = {lab: n for n, lab in enumerate(labels)}
        jitter = {i: rng.random() for i in items}
        circle = sorted(items, key=lambda i: (rank[gold[i]], jitter[i]))
        shift = len(circle) // 2
        for pos, i in enumerate(circle):
            other = gold[circle[(pos + shift) % len(circle)]]
            if other == gold[i]:
                other = _draw(prior[g], gold[i], rng)
                fallback += 1
            out[i] = other
    return out, fallback


def recast_split(split: Split, kb: KB, prior: dict[int, Counter], seed: int = 0) -> tuple[list[dict], RecastSummary]:
    """NLI records for every story of ``split``: one entailed and one not-entailed pair each."""
    rng = random.Random(f"recast:{seed}:{split.name}")
    negatives, fallback = negative_relations(split.rows, kb, prior, rng)
    records = []
    for row, neg in zip(split.rows, negatives):
        head, tail = row.query
        premise = premise_text(row.story)
        gold = kb.word(*kb.parse_word(row.target))
        for label, relation in ((ENTAILED, gold), (NOT_ENTAILED, neg)):
            records.append({
                "premise": premise,
                "hypothesis": hypothesis_text(head, tail, relation),
                "label": label,
                "source_id": row.id,
                "k": row.k,
                "split": split.name,
                "relation": relation,
            })
    summary = RecastSummary(len(split.rows), Counter(r["label"] for r in records), fallback)
    return records, summary


def check_labels(splits: Sequence[Split], kb: KB) -> None:
    """Raise UsageError naming the first row whose target is not a word of ``kb``."""
    for s in splits:
        for r in s.rows:
            if r.target.strip().lower() not in kb.word_index:
                raise UsageError(f"{s.path}: row {r.id}: target {r.target!r} is not a relation word of KB {kb.name!r}")


def recast_splits(splits: Sequence[Split], kb: KB, seed: int = 0) -> list[tuple[Split, list[dict], RecastSummary]]:
    """Recast every split; the fallback prior pools the labels of all splits."""
    check_labels(splits, kb)
    prior = _global_prior([r for s in splits for r in s.rows], kb)
    return [(s, *recast_split(s, kb, prior, seed)) for s in splits]
