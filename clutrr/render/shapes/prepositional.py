"""Shapes whose owner follows the relation noun: "the R of X", "R to X", "the father of both {A}
and {C}" (each one's), "the daughter of the blacksmith {A}" (a title before the name). A noun of
someone unnamed ("the father of the bride") states nothing."""
from __future__ import annotations

from clutrr.render.shapes.phrase import Phrase
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import FUNCTION


def _owner_at(r: Reader, m: int) -> int:
    """The token of the person after "of"/"to" at m: over "both", a title noun ("of Uncle
    {A}") or a title phrase ("of the blacksmith {A}")."""
    toks = r.toks
    n = m + 1
    if toks[n].low == "both" and n + 1 < len(toks):
        n += 1
    if r.is_relation(n) and r.is_title(n):
        n += 1
    elif toks[n].low in ("the", "a") and n + 3 < len(toks):
        q = n + 1
        while q < min(n + 4, len(toks)) and toks[q].kind == "word" and toks[q].low not in FUNCTION \
                and toks[q].low not in r.lex:
            q += 1
        if q < len(toks) and toks[q].kind == "ent" and q > n + 1:
            n = q
    return n


def of_owner(r: Reader, p: Phrase) -> None:
    """"the R of X", "R to X": X's; "of both X and Z": each one's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B}, the brother of {A}, came.", "brother")
    {B} is {A}'s brother (apposition)
    >>> show("{B} is the father of both {A} and {C}.", "father-son")
    {B} is {A}'s father (copula)
    {B} is {C}'s father (copula)
    >>> show("{B} is the father of the bride.", "father")
    nothing
    """
    toks, m = r.toks, p.m
    if p.possessors or not (m + 1 < len(toks) and toks[m].low in ("of", "to")):
        return
    n = _owner_at(r, m)
    who = r.person_at(n, poss=False)
    if who < 0 or not (toks[n].kind == "ent" or toks[n].form == "him"):
        p.done = []
        return
    p.possessors, p.m = (who,), n + 1
    m = p.m
    if toks[n - 1].low == "both" and m + 1 < len(toks) and toks[m].low == "and" and r.person_at(m + 1, False) >= 0:
        p.possessors, p.m, p.each = (who, r.person_at(m + 1)), m + 2, True
