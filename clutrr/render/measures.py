"""Measures of generated text, from the JSON records of stories (``*.jsonl`` or
``Example.record``): how much of each chain the bank's own templates cover, the share of
pieces filled from the fallback bank, the share of chain facts told inside multi-fact
pieces, self-possessives ("[X] ... [X]'s" in one sentence) and templates used twice.

A story is a sequence of pieces, each a rendering of one template whose slots name
distinct people and which ends a sentence, so a story has a self-possessive exactly when
one of its templates does. That is worked out once per template (from the template's own
tokens), not by tokenising every story; only a record naming a template the banks lack is
tokenised whole.
"""
from __future__ import annotations

from typing import Final

from clutrr.render.stitching import Clause, Piece, clause, clause_roots
from clutrr.render.templates import Bank, Template

MULTI_FACT_KS = range(4, 11)
_MULTI_FIRST: Final = MULTI_FACT_KS[0]  # Final: compiled, a constant read, not a module dict lookup
_MULTI_LAST: Final = MULTI_FACT_KS[-1]
# the additive counts of a TextTally (what a worker sends back), in this order (the two by span length last)
COUNTS = ("stories", "self_possessive", "reused", "pieces", "fallback_pieces", "chain_facts", "multi_facts", "spans",
          "covered")
SPAN_LENGTHS: Final = 3  # the coverage measures count a chain's spans of 1..3 facts


def _by_length(counts: dict[int, int]) -> list[int]:
    """Counts by span length as a list indexed by the length (1..SPAN_LENGTHS)."""
    return [0] + [counts.get(n, 0) for n in range(1, SPAN_LENGTHS + 1)]


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


_SELF_POSSESSIVE: Final[dict[str, bool]] = {}  # template id (a hash of its text) -> its flag


def template_self_possessive(t: Template) -> bool:
    """Whether the template, rendered with one distinct name per slot, names someone and then
    that person's possessive in one sentence ("[X] lent [X]'s car")."""
    hit = _SELF_POSSESSIVE.get(t.id)
    if hit is None:
        from clutrr.render.statements import self_possessives, tokenize  # the reader: only for a template not flagged

        names = [f"[P{i}]" for i in range(4)]
        text = t.render(names, [0] * 4)
        hit = _SELF_POSSESSIVE[t.id] = bool(self_possessives(tokenize(text, [0] * 4, {n[1:-1]: i for i, n in
                                                                                       enumerate(names)}), text))
    return hit


def known_self_possessives(flags: dict[str, bool]) -> None:
    """Take template flags worked out before (by another process, kept in the compiled bank cache)."""
    _SELF_POSSESSIVE.update(flags)


def story_self_possessive(rec: dict) -> bool:
    """Whether a story record's text has a self-possessive, by tokenising the whole story."""
    return _text_self_possessive(rec["story"], [p["name"] for p in rec["people"]])


def _text_self_possessive(story: str, people: list[str]) -> bool:
    from clutrr.render.statements import self_possessives, tokenize  # the reader: loaded only when a story is read

    names = {n: i for i, n in enumerate(people)}
    return bool(self_possessives(tokenize(story, [0] * len(names), names), story))


class TextTally:
    """Counts over records; ``banks`` maps a split name to the bank its stories drew from."""

    def __init__(self, banks: dict[str, Bank]) -> None:
        self.banks = banks
        self.stories = self.self_possessive = self.reused = 0
        self.pieces = self.fallback_pieces = 0
        self.chain_facts = self.multi_facts = 0
        # [n]: the chains' spans of n facts (1..SPAN_LENGTHS), and how many of them the bank itself covers
        self._spans = [0] * (SPAN_LENGTHS + 1)
        self._covered = [0] * (SPAN_LENGTHS + 1)

    @property
    def spans(self) -> dict[int, int]:
        """Span length n -> the chains' spans of n facts counted."""
        return {n: self._spans[n] for n in range(1, SPAN_LENGTHS + 1)}

    @property
    def covered(self) -> dict[int, int]:
        """Span length n -> how many of :attr:`spans` a template of the bank itself covers."""
        return {n: self._covered[n] for n in range(1, SPAN_LENGTHS + 1)}

    def counts(self) -> dict:
        """The additive counts (:data:`COUNTS`) as plain data: what a worker sends back."""
        return {name: getattr(self, name) for name in COUNTS}

    def take(self, counts: dict) -> None:
        """Set the tally's counts from :meth:`counts` summed (other keys are left alone)."""
        for name in COUNTS[:-2]:
            if name in counts:
                setattr(self, name, counts[name])
        if "spans" in counts:
            self._spans = _by_length(counts["spans"])
        if "covered" in counts:
            self._covered = _by_length(counts["covered"])

    def _self_possessive(self, split: str, ids: list[str], story: str, people: list[str]) -> bool:
        flags = _SELF_POSSESSIVE
        by_id = None
        for i in ids:
            hit = flags.get(i)
            if hit is None:
                by_id = by_id or self.banks[split].by_id()
                if i not in by_id:  # a template the banks lack: read the story itself
                    return _text_self_possessive(story, people)
                hit = template_self_possessive(by_id[i])
            if hit:
                return True
        return False

    def add(self, rec: dict) -> None:
        """Count one story record."""
        k, people, edges = rec["k"], rec["people"], rec["edges"]
        pieces = [Piece("", p["template"], tuple(p["edges"])) for p in rec["pieces"]]
        self.add_story(rec["split"], k, pieces, tuple(edges[i]["relation"] for i in range(k)),
                       tuple(people[edges[i]["head"]]["gender"] for i in range(k)),
                       rec["story"], [p["name"] for p in people])

    def add_story(self, split: str, k: int, pieces: list[Piece], words: tuple[str, ...], heads: tuple[str, ...],
                  story: str, people: list[str]) -> None:
        """Count one story: its pieces (story order; their text is not read), its chain's
        relation words and the genders of each chain fact's first person, its text and its
        people's names (read only for a template the banks lack)."""
        bank = self.banks[split]
        ids = [p[1] for p in pieces]
        self.stories += 1
        flags = _SELF_POSSESSIVE
        for i in ids:
            flag = flags.get(i)
            if flag is None:  # a template not yet flagged (or unknown to the banks)
                self.self_possessive += self._self_possessive(split, ids, story, people)
                break
            if flag:
                self.self_possessive += 1
                break
        if _repeats(ids):
            self.reused += 1
        self.pieces += len(ids)
        fallback = bank.fallback_ids
        if fallback:
            self.fallback_pieces += sum(i in fallback for i in ids)
        if _MULTI_FIRST <= k <= _MULTI_LAST:
            for piece in pieces:
                edges: tuple[int, ...] = piece[2]
                chain = 0
                for e in edges:
                    chain += e < k
                self.chain_facts += chain
                if len(edges) > 1:
                    self.multi_facts += chain
        own = own_counts(bank, words, heads)
        spans, covered = self._spans, self._covered
        for n in range(1, min(SPAN_LENGTHS, k) + 1):
            spans[n] = spans[n] + k - n + 1
            covered[n] = covered[n] + own[n]

    def summary(self) -> dict:
        """The measures as plain data (shares rounded to 4 places; None when nothing was counted)."""
        return {
            "stories": self.stories,
            "coverage": {str(n): _share(self.covered[n], self.spans[n]) for n in self.spans},
            "fallback_share": _share(self.fallback_pieces, self.pieces),
            "multi_fact_share": _share(self.multi_facts, self.chain_facts),
            "self_possessive_share": _share(self.self_possessive, self.stories),
            "reused_template_share": _share(self.reused, self.stories),
        }


def _repeats(ids: list[str]) -> bool:
    """Whether an id occurs twice (a short story's few ids compared pairwise: no set built)."""
    n = len(ids)
    if n > 8:
        return len(set(ids)) < n
    for j in range(1, n):
        later = ids[j]
        for i in range(j):
            if ids[i] == later:
                return True
    return False


def has_own(bank: Bank, words: tuple[str, ...], head_gender: str) -> bool:
    """Whether a template of the bank itself (not one filled from a fallback) fits."""
    return clause(bank, words, head_gender).own


def own_counts(bank: Bank, words: tuple[str, ...], heads: tuple[str, ...]) -> list[int]:
    """``[n]``: how many of the chain's spans of n facts (1..SPAN_LENGTHS) a template of the bank itself
    covers (``[0]`` is 0); ``heads`` are the genders of the facts' first people. Short chains repeat:
    their counts are kept on the bank (``bank.chain_own[words + heads]``: one lookup a story, where
    reaching the clause of the chain word by word took one for each word and two more)."""
    if not 0 < len(words) <= SPAN_LENGTHS:
        return _walk_counts(bank, words, heads)
    kept: dict[tuple[str, ...], list[int]] = bank.chain_own
    key = words + heads
    hit = kept.get(key)
    if hit is None:
        hit = kept[key] = _walk_counts(bank, words, heads)
    return hit


def _walk_counts(bank: Bank, words: tuple[str, ...], heads: tuple[str, ...]) -> list[int]:
    roots = clause_roots(bank)
    own = [0] * (SPAN_LENGTHS + 1)
    k = len(words)
    for i in range(k):
        node: Clause = roots[heads[i]]
        for j in range(i, min(i + SPAN_LENGTHS, k)):
            node = node.then(bank, words[j])
            if node.own:
                own[j - i + 1] += 1
            if not node.further:  # no longer span from i has a template
                break
    return own


def filled_clauses(bank: Bank) -> list[str]:
    """The one-fact clauses a bank had filled from its fallback, as ``word (A gender)``."""
    by_clause = {(t.clause[0], t.gender) for t in bank.templates() if t.id in bank.fallback_ids}
    return [f"{w} (A {g})" for w, g in sorted(by_clause)]
