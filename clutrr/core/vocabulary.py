"""Relation vocabularies: which words a story may state (edges) and ask (targets).

Vocabularies are data, in ``kb_rules/vocabularies.yaml``; ``all`` (every word of the KB) is
built in. A word is a (predicate, gender) pair of the KB, the gender being that of the
person the fact is about. Which targets a restricted story of k facts can still prove
follows per k from the KB's rules (``reachable_targets``), as an upper bound: families
may have too few people for some of them (the generator probes for those).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import yaml

from clutrr.core.kb import KB
from clutrr.errors import UsageError
from clutrr.paths import data_dir

ALL = "all"
WordMask = tuple[tuple[bool, bool], ...]  # [predicate][gender]


@dataclass(frozen=True)
class Vocabulary:
    """A named restriction: allowed edge words and target words (None: every word)."""

    name: str
    edges: tuple[str, ...] | None
    targets: tuple[str, ...] | None
    description: str = ""


@lru_cache(maxsize=1)
def _file() -> dict:
    path = data_dir("kb_rules") / "vocabularies.yaml"
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}


def vocabulary_names() -> list[str]:
    """``all`` and the names defined in ``kb_rules/vocabularies.yaml``."""
    return [ALL, *_file()]


def load_vocabulary(name: str) -> Vocabulary:
    """The vocabulary called ``name``; UsageError naming the choices when unknown."""
    if name == ALL:
        return Vocabulary(ALL, None, None, "every relation word of the KB")
    spec = _file().get(name)
    if not isinstance(spec, dict):
        raise UsageError(f"unknown relation vocabulary {name!r} (choose from {', '.join(vocabulary_names())})")
    return Vocabulary(name, tuple(spec["edges"]), tuple(spec["targets"]), " ".join(str(spec.get("description", "")).split()))


def word_mask(kb: KB, words: tuple[str, ...] | None) -> WordMask:
    """``mask[p][g]``: whether the word of predicate p for gender g is among ``words`` (None: all).

    Raises UsageError for a word the KB does not have.
    """
    allowed = [[words is None] * 2 for _ in kb.predicates]
    for w in words or ():
        if w not in kb.word_index:
            raise UsageError(f"relation vocabulary word {w!r} is not a word of KB {kb.name!r}")
        canonical = kb.word(*kb.word_index[w])
        for p in kb.predicates:  # a terminology's word may name a term for each speaker sex
            for g in (0, 1):
                allowed[p.index][g] |= p.words[g] == canonical
    return tuple((a, b) for a, b in allowed)


@lru_cache(maxsize=256)
def _reachable(rules: frozenset, edges: WordMask, k: int) -> frozenset[tuple[int, int]]:
    """Words (p, g) of a fact that a path of k allowed facts can be proved to entail.

    A path of k facts splits into i facts then k - i facts; a rule ``r1 . r2 -> r`` joins
    them, and the whole fact is about the second part's last person (so keeps its gender).
    People are not tracked, so this over-approximates what families allow.
    """
    if k == 1:
        return frozenset((p, g) for p, gs in enumerate(edges) for g in (0, 1) if gs[g])
    out = set()
    for i in range(1, k):
        first = {p for p, _ in _reachable(rules, edges, i)}
        second = _reachable(rules, edges, k - i)
        for (r1, r2), r in rules:
            if r1 in first:
                out.update((r, g) for g in (0, 1) if (r2, g) in second)
    return frozenset(out)


def reachable_targets(kb: KB, vocabulary: Vocabulary, k: int) -> list[tuple[int, int]]:
    """Target words (predicate, gender), in KB word order, that stories of k facts can ask."""
    reach = _reachable(frozenset(kb.rules.items()), word_mask(kb, vocabulary.edges), k)
    targets = word_mask(kb, vocabulary.targets)
    return [(p, g) for p, g in kb.word_types() if (p, g) in reach and targets[p][g]]
