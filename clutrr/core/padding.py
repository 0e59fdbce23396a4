"""Padding for long contexts: true facts about other families, told about new people.

A padded story holds the story's own facts and, around them, paths of facts from freshly
sampled families. Every person of a padded story has a full name (first name and surname),
unique in the story; padding people never share a first name with the story's people, so no
reader can take a padding person for one of the story's, nor with each other while the name
lists last (about 400 first names: a text of a few thousand words). The facts are produced lazily, a
family at a time, so a story of any length is built in memory proportional to its text.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from clutrr.core.entailment import story_closure
from clutrr.core.family import FamilyConfig
from clutrr.core.kb import GENDERS, KB
from clutrr.core.large_family import draw_family
from clutrr.core.names import load_names
from clutrr.core.noise import random_path
from clutrr.core.vocabulary import WordMask

_DATA = Path(__file__).resolve().parent / "data"
MAX_PATH = 4  # most facts in one padding path
NAME_TRIES = 64


@lru_cache(maxsize=1)
def load_surnames() -> tuple[str, ...]:
    """The surnames of padded stories: sorted, distinct, and none of them a first name."""
    first = {n for names in load_names().values() for n in names}
    return tuple(s for s in (_DATA / "surnames.txt").read_text(encoding="utf-8").split() if s not in first)


def with_surnames(names: list[str], rng: random.Random) -> list[str]:
    """The story's people's names, each with a surname of its own: surnames are drawn at random and
    never shared within a story, so they say nothing about who is whose relative."""
    return [f"{name} {surname}" for name, surname in zip(names, rng.sample(load_surnames(), len(names)))]


class NameAllocator:
    """Full names for padding people: neither the first name nor the surname of any story person,
    each full name once, and each first name once in the whole text while the name lists last
    (after that a first name comes back only in another family than the one being named)."""

    def __init__(self, story_names: list[str], rng: random.Random) -> None:
        first = {name.split(" ")[0] for name in story_names}
        last = {name.split(" ")[-1] for name in story_names}
        self.all_first = {g: [n for n in names if n not in first] for g, names in load_names().items()}
        self.free = {g: list(names) for g, names in self.all_first.items()}
        self.surnames = tuple(s for s in load_surnames() if s not in last)
        self.used = set(story_names)
        self.family: set[str] = set()  # first names given in the family being named
        self.rand = rng.random

    def capacity(self) -> int:
        """How many distinct full names the allocator can give."""
        return sum(len(v) for v in self.all_first.values()) * len(self.surnames)

    def start_family(self) -> None:
        """The next names are for a new family (a first name may come back only in another family)."""
        self.family = set()

    def _first(self, gender: str) -> str:
        free, rand = self.free[gender], self.rand
        if free:
            i = int(rand() * len(free))
            first = free[i]
            free[i] = free[-1]
            free.pop()
            return first
        pool = [n for n in self.all_first[gender] if n not in self.family]
        if not pool:
            raise ValueError("the name lists ran out of first names for one padding family")
        return pool[int(rand() * len(pool))]

    def name(self, gender: int) -> str:
        """A new full name for a person of ``gender``; ValueError when names run out."""
        surnames, rand = self.surnames, self.rand
        first = self._first(GENDERS[gender])
        for _ in range(NAME_TRIES):
            full = f"{first} {surnames[int(rand() * len(surnames))]}"
            if full not in self.used:
                self.used.add(full)
                self.family.add(first)
                return full
        raise ValueError("the name lists ran out of distinct full names for this story's padding")


@dataclass
class PaddingPath:
    """Consecutive facts "people[i+1] is people[i]'s preds[i]" of one padding family, with the
    people's names and genders (their index in ``people`` order)."""

    family_number: int
    facts: list[tuple[int, int, int]]  # (head, predicate, tail) as family ids
    names: list[str]  # of the path's people, in path order
    genders: list[int]


def padding_paths(family_config: FamilyConfig, kb: KB, allowed: WordMask | None, names: NameAllocator,
                  rng: random.Random) -> Iterator[PaddingPath]:
    """An endless supply of padding paths: families sampled one after another, a few paths
    through each (a person keeps one name in all of a family's paths).

    Each fact is a single, true relation of its family (``allowed`` words only, when given);
    this is asserted for every fact given out.
    """
    number = 0
    while True:
        family = draw_family(family_config, kb, rng)
        names.start_family()
        named: dict[int, str] = {}
        for _ in range(max(1, family.size // (MAX_PATH + 1))):
            steps = 1 + int(rng.random() * MAX_PATH)
            facts = random_path(family, int(rng.random() * family.size), steps, rng, allowed)
            if not facts:
                continue
            people = [facts[0][0], *(b for _, _, b in facts)]
            for a, p, b in facts:
                if family.relation(a, b) != p:
                    raise AssertionError("a padding fact is not the one true relation of its pair")
            for person in people:
                if person not in named:
                    named[person] = names.name(family.genders[person])
            yield PaddingPath(number, facts, [named[p] for p in people], [family.genders[p] for p in people])
        number += 1



def query_closure(kb: KB, facts: list[tuple[str, int, str]], head: str, tail: str) -> int:
    """What facts ``(a, predicate, b)`` between named people entail for (head, tail) (bitmask).

    Only the facts connected to ``head`` (people sharing a name are one person) can derive
    anything for it, so the closure is taken over that component alone: the check costs the
    story's size, not the padding's square.
    """
    parent: dict[str, str] = {}

    def root(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, _, b in facts:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[ra] = rb
    if root(head) != root(tail):
        return 0
    mine = root(head)
    component = [f for f in facts if root(f[0]) == mine]
    ids = {name: i for i, name in enumerate(sorted({n for a, _, b in component for n in (a, b)}))}
    closure = story_closure(kb, [(ids[a], p, ids[b]) for a, p, b in component])
    return closure.get((ids[head], ids[tail]), 0)
