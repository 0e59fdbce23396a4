"""Memory tasks: a query about a relation the story states (task 6), and files mixing such
queries with reasoning ones (task 7).

A story of a memory task is an ordinary story (a chain of k facts, and noise facts when
asked); only its query changes: it names the two people of one stated fact, so the answer is
retrieved rather than composed. A stated fact may be queried only when the story entails
nothing else for its pair (the closure of the story's facts holds exactly that relation) and
the family holds exactly that one relation between them.
"""
from __future__ import annotations

import random

from clutrr.core.entailment import story_closure
from clutrr.core.family import Family
from clutrr.core.kb import KB
from clutrr.core.noise import TASK_OF_NOISE
from clutrr.core.vocabulary import WordMask

QUERY_KINDS = ("reasoning", "memory", "mixed")
MEMORY_TASK = 6
MIXED_TASK = 7

Fact = tuple[int, int, int]


def task_of(noise: str, query: str) -> int:
    """The task number of a file: 1-5 by noise for reasoning, 6 for memory, 7 for mixed."""
    if query not in QUERY_KINDS:
        raise ValueError(f"unknown query kind {query!r} (choose from {', '.join(QUERY_KINDS)})")
    return {"memory": MEMORY_TASK, "mixed": MIXED_TASK}.get(query, TASK_OF_NOISE[noise])


def row_kind(query: str, index: int, coin: int) -> tuple[bool, int]:
    """(whether row ``index`` asks a memory query, its index within its kind's rows).

    In a mixed file rows come in pairs (2j, 2j+1): one asks a memory query, the other a
    reasoning one, ``coin`` (0 or 1, seeded per pair) saying which; both are row j of their kind,
    so each kind's target words are balanced on their own.
    """
    if query == "reasoning":
        return False, index
    if query == "memory":
        return True, index
    pair, slot = divmod(index, 2)
    return slot == coin, pair


def chain_targets(kb: KB, pred: int, k: int) -> frozenset[int]:
    """The chain targets whose chains of k facts are the likeliest to state ``pred`` (a memory
    query's word): ``pred`` itself for one fact, else what some rule derives from ``pred`` and
    another fact."""
    if k == 1:
        return frozenset((pred,))
    return frozenset(head for (r1, r2), head in kb.rules.items() if pred in (r1, r2))


def story_facts(chain_facts: list[Fact], noise_paths: list[tuple[str, list[Fact]]]) -> list[Fact]:
    """The story's facts in edge order: the chain's, then each noise path's."""
    return [*chain_facts, *(f for _, facts in noise_paths for f in facts)]


def retrievable(kb: KB, family: Family, facts: list[Fact], wanted) -> list[int]:
    """Indices of the facts ``(a, p, b)`` a memory query may ask, among those ``wanted(p, gender of b)``
    accepts: b is a's p and nothing else in the family, and the story entails exactly p for (a, b)."""
    genders = family.genders
    candidates = [i for i, (a, p, b) in enumerate(facts)
                  if wanted(p, genders[b]) and family.single[a] >> b & 1]
    if not candidates:
        return []
    closure = story_closure(kb, facts)
    return [i for i in candidates if closure.get((facts[i][0], facts[i][2])) == 1 << facts[i][1]]


def pick_stated(kb: KB, family: Family, facts: list[Fact], want: tuple[int, int] | None,
                target_ok: WordMask, rng: random.Random) -> Fact | None:
    """A stated fact to query: one stating the word ``want`` (predicate, gender), or with ``want``
    None any askable one (``target_ok``); None when the story has none."""
    if want is None:
        ok = retrievable(kb, family, facts, lambda p, g: target_ok[p][g])
    else:
        ok = retrievable(kb, family, facts, lambda p, g: (p, g) == want)
    return facts[rng.choice(ok)] if ok else None


def check_retrieval(kb: KB, facts: list[Fact], query: Fact) -> None:
    """Assert that the story's facts entail exactly the queried fact's relation for its pair."""
    a, p, b = query
    if query not in facts:
        raise AssertionError("a memory query must ask a stated fact")
    if story_closure(kb, facts).get((a, b)) != 1 << p:
        raise AssertionError("the story entails more than the stated fact for the queried pair")
