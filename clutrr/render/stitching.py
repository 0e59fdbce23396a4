"""Render a path of facts as text by covering it with templates of 1..max_piece facts."""
from __future__ import annotations

import random
from typing import NamedTuple

from clutrr.core.kb import GENDERS
from clutrr.render.templates import Bank, Template


class Piece(NamedTuple):
    """Rendered text for consecutive facts ``facts`` (indices into the story's edges)."""

    text: str
    template_id: str
    facts: tuple[int, ...]


class NoCoverError(ValueError):
    """No cover of the path by templates exists (a relation word has no 1-fact template)."""


def _open(templates: list[Template], used: set[str] | frozenset[str]) -> bool:
    return any(t.id not in used for t in templates)


def _all_used(multi: list[frozenset[str]], used: set[str]) -> bool:
    """Whether every template of some multi-fact piece (its ids in ``multi``) is in ``used``."""
    for ids in multi:
        if ids <= used:
            return True
    return False


COVER_CACHE = 20_000  # cover tables kept per bank (one per words and head genders)


def _cover_table(bank: Bank, words: tuple[str, ...], head_genders: tuple[str, ...], longest: int,
                 used: set[str] | frozenset[str] = frozenset()) -> tuple:
    """(valid piece lengths at each position, the weighted count of covers from each
    position, the template ids of every valid multi-fact piece)."""
    n = len(words)
    choices = bank.choices
    valid = []
    multi = []
    for i in range(n):
        ls = []
        for L in range(1, min(longest, n - i) + 1):
            ts = choices(words[i:i + L], head_genders[i])
            if ts and (L == 1 or not used or _open(ts, used)):
                ls.append(L)
                if L > 1:
                    multi.append(bank.choice_ids(words[i:i + L], head_genders[i]))
        valid.append(ls)
    count = [0] * (n + 1)
    count[n] = 1
    for i in range(n - 1, -1, -1):
        count[i] = sum(L * count[i + L] for L in valid[i])
    return valid, count, multi


def sample_cover(bank: Bank, words: list[str], head_genders: list[str], max_piece: int, rng: random.Random,
                 used: set[str] | frozenset[str] = frozenset()) -> list[int]:
    """Piece lengths covering ``words``, drawn among all valid covers with probability
    proportional to the product of their piece lengths.

    Weighting a piece by its length favours multi-fact pieces: with every piece valid,
    about 73% of a long chain's facts land in multi-fact pieces, against about 62% when
    every cover is equally likely. A piece of length L at position i is valid when the bank has a template for
    ``words[i:i+L]`` that fits the gender of the piece's first entity and is not in
    ``used`` (a one-fact piece is always valid when it has a template at all).
    The table of valid pieces is kept per bank for each (words, head genders); it is
    worked out again only when ``used`` holds every template of one of its multi-fact pieces.
    """
    words, head_genders = tuple(words), tuple(head_genders)
    n = len(words)
    longest = min(max_piece, bank.max_len)
    key = (words, head_genders, longest)
    cache = bank.covers
    table = cache.get(key)
    if table is None:
        if len(cache) >= COVER_CACHE:
            cache.clear()
        table = cache[key] = _cover_table(bank, words, head_genders, longest)
    valid, count, multi = table
    if used and multi and _all_used(multi, used):
        valid, count, _ = _cover_table(bank, words, head_genders, longest, used)
    if count[0] == 0:
        missing = [words[i] for i in range(n) if 1 not in valid[i]]
        raise NoCoverError(f"no template covers the relation word(s) {missing}")
    if count[0] == 1:  # the one cover of weight 1 is all one-fact pieces: nothing to draw
        return [1] * n
    lengths = []
    i = 0
    randrange = rng.randrange
    while i < n:
        pick = randrange(count[i])
        for L in valid[i]:
            if pick < L * count[i + L]:
                lengths.append(L)
                i += L
                break
            pick -= L * count[i + L]
    return lengths


def mention(name: str, brackets: bool) -> str:
    """How a name appears in a story."""
    return f"[{name}]" if brackets else name


def render_path(
    bank: Bank,
    edges: list[int],
    people: list[int],
    words: list[str],
    names: list[str],
    genders: list[int],
    rng: random.Random,
    max_piece: int = 3,
    brackets: bool = True,
    used: set[str] | None = None,
) -> list[Piece]:
    """Render consecutive facts: fact i says "people[i+1] is people[i]'s words[i]".

    ``edges[i]`` is the story-edge index of fact i; ``names``/``genders`` are indexed by
    person (story index). Templates whose ids are in ``used`` are avoided (a one-fact
    clause reuses one only when all of its templates are used), and the ids chosen are
    added to it.
    """
    if used is None:
        used = set()
    words = tuple(words)
    head_genders = tuple([GENDERS[genders[p]] for p in people[:-1]])
    pieces = []
    i = 0
    choose = rng.choice
    choices = bank.choices
    # one fact has one cover, drawn without the random source: skip the cover table
    lengths = [1] if len(words) == 1 and choices(words, head_genders[0]) else \
        sample_cover(bank, words, head_genders, max_piece, rng, used)
    for L in lengths:
        options = choices(words[i:i + L], head_genders[i])
        template = choose(options)
        if template.id in used:
            fresh = [t for t in options if t.id not in used]
            if fresh:
                template = choose(fresh)
        used.add(template.id)
        ents = people[i:i + L + 1]
        marks = [f"[{names[e]}]" for e in ents] if brackets else [names[e] for e in ents]
        text = template.render(marks, [genders[e] for e in ents])
        pieces.append(Piece(text, template.id, tuple(edges[i:i + L])))
        i += L
    return pieces
