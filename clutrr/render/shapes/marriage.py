"""Shapes told by an event or a state: "X married Y", "X is married to Y", "X and Y chose to
marry each other", "{B} gave birth to {A}"."""
from __future__ import annotations

from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import AUXILIARIES, MARRY, MARRY_BEFORE, SENTENCE_END, SUBORDINATORS, Statement

GIVE = ("gave", "give", "gives", "giving", "given")


def _predicate(r: Reader, name: str) -> int:
    """The KB's predicate of that name, or -1."""
    return next((i for i, p in enumerate(r.facts.kb.predicates) if p.name == name), -1)


def marry(r: Reader, j: int) -> list[Statement]:
    """"X married Y" (an event), "X is married to Y" (a state, shape ``married``), "X and Y
    chose to marry each other"; the subject may come after an opening phrase ("Married to {B}
    for years, {A} ...") or be the clause's ("... since marrying {C}").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} married {B}.", "wife")
    {A} married {B} (marry)
    >>> show("{A} is married to {B}.", "wife")
    {A} married {B} (married)
    >>> show("{A} and {B} chose to marry each other.", "wife")
    {A} married {B} (marry)
    """
    toks = r.toks
    spouse = _predicate(r, "spouse")
    if spouse < 0:
        return []
    obj = j + 1
    if obj < len(toks) and toks[obj].low == "to":
        obj += 1
    if obj + 1 < len(toks) and (toks[obj].low, toks[obj + 1].low) in (("each", "other"), ("one", "another")):
        pair = r.subjects(r.clause_start(j), j)
        if len(pair) != 2 or pair[0] == pair[1]:
            return []
        return [Statement((pair[0],), pair[1], spouse, None, toks[j].low, "marry", (j, obj + 1))]
    b = r.person_at(obj, poss=False) if obj < len(toks) and (toks[obj].kind == "ent" or toks[obj].form == "him") else -1
    if b < 0 and obj + 2 < len(toks) and (toks[obj].poss or toks[obj].form == "his") and r.is_relation(obj + 1) \
            and toks[obj + 2].kind == "ent":
        b = toks[obj + 2].ent  # "married to {C.his} son {B}"
    c = j - 1
    while c >= 0 and (toks[c].low in AUXILIARIES or toks[c].low in MARRY_BEFORE):
        c -= 1
    state = j + 1 < len(toks) and toks[j + 1].low == "to"  # "married to": a state, not an event
    if c >= 0 and toks[c].text == "," and (any(t.low == "who" for t in toks[c:j]) or (c == j - 1 and state)):
        c -= 1
    a = r.person_at(c, poss=False) if c >= 0 and toks[c].kind in ("ent", "pron") else -1
    if a < 0 and c > 0 and (toks[c].low in SUBORDINATORS or toks[c].low == "and"):
        a = r.subject(r.clause_start(c), c)
    if a < 0 and (c < 0 or toks[c].text in SENTENCE_END) and b >= 0:
        comma = next((i for i in range(obj + 1, len(toks)) if toks[i].text in (",", ".", ";")), -1)
        if comma > 0 and toks[comma].text == "," and comma + 1 < len(toks):
            c = comma + 1
            a = r.person_at(c, poss=False) if toks[c].kind == "ent" else -1
    if a >= 0 and b < 0 and c >= 2 and toks[c - 1].low == "and":
        b = r.person_at(c - 2, poss=False)
    if a < 0 or b < 0 or a == b:
        return []
    return [Statement((a,), b, spouse, None, toks[j].low, "married" if state else "marry", (min(c, obj), max(c, obj)))]


def gave_birth(r: Reader, j: int) -> list[Statement]:
    """"{B} gave birth to {A}": {B} is {A}'s mother (also "{B}, who was giving birth to {A}",
    "... after giving birth to {A}").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} gave birth to {A}.", "mother")
    {B} is {A}'s gave birth (after)
    """
    toks = r.toks
    parent = _predicate(r, "parent")
    if parent < 0 or j < 2 or toks[j - 1].low not in GIVE or j + 2 >= len(toks) or toks[j + 1].low != "to":
        return []
    child = r.person_at(j + 2, poss=False)
    c = j - 2
    while c >= 0 and toks[c].low in AUXILIARIES | {"had", "just", "was", "is", "were"}:
        c -= 1
    if c >= 2 and toks[c].low == "who" and toks[c - 1].text == ",":
        c -= 2  # "{B}, who was giving birth to {A}"
    mother = r.person_at(c, poss=False) if c >= 0 and toks[c].kind in ("ent", "pron") else -1
    if mother < 0 and c >= 0 and toks[c].low in ("after", "before", "when", "while"):
        mother = r.subject(r.clause_start(c), c) if c else -1
    if child < 0 or mother < 0 or child == mother:
        return []
    return [Statement((child,), mother, parent, 1, "gave birth", "after", (c, j + 2))]


def is_marriage_word(r: Reader, j: int) -> bool:
    """Whether the word at j is a form of "marry" or "wed"."""
    return r.toks[j].low in MARRY


def is_birth_word(r: Reader, j: int) -> bool:
    """Whether the word at j is "birth"."""
    return r.toks[j].low == "birth"
