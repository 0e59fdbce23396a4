"""Shapes of a relation noun beside a person with no owner written before it: a title ("Aunt
{B}"), a role ("{B}, a daughter who ..."), a noun joined to a name ("{C} and granddaughter {B}":
{C}'s), a bare noun after a verb or preposition ("went fishing with son {B}": the subject's), and
a noun set off after something that is not a person (it attaches to no one: a dangling
appositive). A statement with no owner is a role: its person must be someone's R among the
clause's people."""
from __future__ import annotations

from clutrr.render.shapes.phrase import Phrase
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import FUNCTION, PREPOSITIONS


def joined_owner(r: Reader, p: Phrase, referents: list[tuple[int, int]]) -> None:
    """"{C} and granddaughter {B}", "{B} and Uncle {A}": the name joined by "and" owns the noun.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} and brother {B} came.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A} met Uncle {B}.", "uncle")
    {B} is someone's uncle (after)
    """
    toks, start = r.toks, p.start
    if not p.possessors and not p.article and referents and start >= 2 and toks[start - 1].low == "and" \
            and toks[start - 2].kind == "ent" and not toks[start - 2].poss \
            and all(toks[start - 2].ent != y for y, _ in referents):
        p.possessors = (toks[start - 2].ent,)


def bare_owner(r: Reader, p: Phrase, referents: list[tuple[int, int]]) -> None:
    """"{A} spent the day with daughter {C}": a bare noun after a verb or a preposition is the
    subject's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} went fishing with brother {B}.", "brother")
    {B} is {A}'s brother (after)
    """
    if not p.possessors and not p.article and referents and _bare(r, p.start, p.j):
        owner = r.subject(r.clause_start(p.start), p.start)
        if owner >= 0 and all(owner != y for y, _ in referents):
            p.possessors = (owner,)


def _bare(r: Reader, start: int, j: int) -> bool:
    """Whether the relation noun at j (its modifiers from start) stands bare, without an article
    or a possessive, after a verb or a preposition of its clause; a capitalised one is a title."""
    if start < 1 or not r.toks[j].text[:1].islower():
        return False
    prev = r.toks[start - 1]
    return prev.kind == "word" and not prev.poss and prev.low not in ("of", "and", "or", "to") and (
        prev.low in PREPOSITIONS or prev.low not in FUNCTION) and not r.is_relation(start - 1)


def dangling(r: Reader, j: int) -> None:
    """"..., a father-in-law's gift" or "texts from the night bus, a sister who worries": a noun
    set off after something that is not a person is recorded as attached to no one named (rule 9
    flags it).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} read the note, a brother who worries.", "brother")
    nothing
    """
    r.mark_dangling(j)
