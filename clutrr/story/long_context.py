"""Long contexts: a story padded to about N words with true facts about other families.

The story's own sentences (chain and noise, in the story's order) are placed at a depth of
the padding (:mod:`clutrr.render.placement`); the padding is rendered from the same template
bank as the story. The answer is checked again on the whole padded text: the closure of
every stated fact, the padding's included, must give the query pair exactly the target.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from clutrr.core.family import FamilyConfig
from clutrr.core.kb import KB
from clutrr.core.padding import NameAllocator, padding_paths, query_closure
from clutrr.core.vocabulary import WordMask
from clutrr.render.placement import count_words, place
from clutrr.render.stitching import Piece, render_path
from clutrr.render.templates import Bank

MAX_CONTEXT_WORDS = 200_000


@dataclass(frozen=True)
class Padding:
    """How to pad: the words asked for, the depth, and what the padding is drawn from."""

    words: int
    depth: str
    family: FamilyConfig
    allowed: WordMask | None
    max_piece: int
    brackets: bool


def padding_pieces(kb: KB, bank: Bank, padding: Padding, pieces: list[Piece], names: list[str],
                   rng: random.Random) -> tuple[list[Piece], list[tuple[str, int, str]], int]:
    """The padding for a story told by ``pieces`` whose people are ``names``: its pieces (about
    ``padding.words`` words with the story's), the facts they state between named people, and the
    number of families they come from. No padding piece uses a template of the story or of an
    earlier padding piece while its clause has another left."""
    need = padding.words - sum(count_words(p.text) for p in pieces)
    out: list[Piece] = []
    said: list[tuple[str, int, str]] = []
    families = have = 0
    if need <= 0:
        return out, said, families
    allocator = NameAllocator(names, rng)
    used = {p.template_id for p in pieces}
    current = -1
    for path in padding_paths(padding.family, kb, padding.allowed, allocator, rng):
        if path.family_number != current:
            current = path.family_number
            families += 1
        people = list(range(len(path.names)))
        words = [kb.word(p, path.genders[i + 1]) for i, (_, p, _) in enumerate(path.facts)]
        for piece in render_path(bank, people[:-1], people, words, path.names, path.genders, rng,
                                 padding.max_piece, padding.brackets, used):
            out.append(piece)
            said += [(path.names[i], path.facts[i][1], path.names[i + 1]) for i in piece.facts]
            have += count_words(piece.text)
            if have >= need:
                return out, said, families
    return out, said, families


def pad_story(kb: KB, bank: Bank, padding: Padding, pieces: list[Piece], chain_edges: int,
              names: list[str], facts: list[tuple[int, int, int]], query: tuple[int, int], target: int,
              rng: random.Random) -> tuple[str, dict]:
    """The padded story text and its ``context`` record.

    ``pieces`` are the story's sentences in order, ``chain_edges`` the number of chain facts
    (edges ``0..chain_edges-1``), ``facts`` the story's facts ``(a, predicate, b)`` over its
    people (named by ``names``), ``query`` the asked pair and ``target`` its predicate.
    Raises AssertionError when the padded text entails anything else for the query pair.
    """
    story_texts = [p.text for p in pieces]
    extra, said, families = padding_pieces(kb, bank, padding, pieces, names, rng)
    texts = [p.text for p in extra]
    have = sum(count_words(t) for t in texts)
    story_facts = [(names[a], p, names[b]) for a, p, b in facts]
    if query_closure(kb, story_facts + said, names[query[0]], names[query[1]]) != 1 << target:
        raise AssertionError("the padded story entails more than the target for the query pair")
    placed = place(story_texts, [any(e < chain_edges for e in p.facts) for p in pieces], texts, padding.depth)
    context = {
        "words": placed.words, "asked_words": padding.words, "depth": padding.depth,
        "story_words": placed.words - have, "chain_first_word": placed.chain_first_word,
        "chain_last_word": placed.chain_last_word, "padding_facts": len(said),
        "padding_people": len({n for a, _, b in said for n in (a, b)}), "padding_families": families,
    }
    return " ".join(placed.texts), context


POSITION_BINS = 10


def context_counts(context: dict) -> dict:
    """Additive counts of one padded story's ``context`` record, summed over a dataset (config.json)."""
    share = POSITION_BINS * context["chain_first_word"] // max(1, context["words"])
    return {"context_stories": 1, "context_words": context["words"], "context_story_words": context["story_words"],
            "context_padding_facts": context["padding_facts"],
            "context_chain_position": {min(POSITION_BINS - 1, share): 1}}


def context_measures(counts: dict, words: int, depth: str) -> dict:
    """config.json's ``context`` entry from summed :func:`context_counts` (empty without padded stories):
    the words asked and the depth, the mean length in words, and how many stories' chains start in
    each tenth of their text."""
    n = counts.get("context_stories", 0)
    if not n:
        return {}
    position = counts["context_chain_position"]
    return {"context": {
        "asked_words": words, "depth": depth, "stories": n, "mean_words": round(counts["context_words"] / n, 1),
        "mean_story_words": round(counts["context_story_words"] / n, 1),
        "mean_padding_facts": round(counts["context_padding_facts"] / n, 1),
        "chain_start_by_tenth": [position.get(i, 0) for i in range(POSITION_BINS)],
    }}
