"""Shapes that name the person with a copula: "Y is X's R", "Y, who is X's R", "X and Y are
Rs" (each the other's), and "His name is Y." after the noun's sentence."""
from __future__ import annotations

from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import AUXILIARIES, COPULA_ADVERBS, COPULAS, SENTENCE_END


def copula_subjects(r: Reader, b: int, pred: int, is_plural: bool) -> tuple[list[tuple[int, int]], str]:
    """The subject(s) of a copula ending at token b before the noun phrase: "Y is X's R" gives
    Y; "{B}, {C}, and {A} are all sisters" makes each the others' (``mutual``).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is {A}'s brother.", "brother")
    {B} is {A}'s brother (copula)
    >>> show("{B}, who is also {A}'s brother, came.", "brother")
    {B} is {A}'s brother (copula)
    >>> show("{A} and {B} are brothers.", "brother")
    {A} is {B}'s brothers (mutual)
    {B} is {A}'s brothers (mutual)
    """
    toks = r.toks
    while b >= 2 and toks[b].low in COPULA_ADVERBS and toks[b - 1].low in COPULAS:
        b -= 1
    if not (b >= 1 and toks[b].low in COPULAS):
        return [], ""
    c = b - 1
    if c >= 1 and toks[c].text == "," and toks[c - 1].kind == "ent":
        c -= 1  # "The captain, {B}, is {A}'s wife"
    while c >= 0 and toks[c].low in AUXILIARIES:
        c -= 1
    if c >= 2 and toks[c].low == "who" and toks[c - 1].text == ",":
        c -= 2
    elif c >= 1 and toks[c].low == "who" and toks[c - 1].kind == "ent" and not toks[c - 1].poss:
        c -= 1  # "{D} who is {C}'s grandfather" (no comma)
    who = r.person_at(c, poss=False)
    if who < 0:
        return [], ""
    subjects = [(who, c)]
    n = c - 1
    while n >= 1 and toks[n].low in ("and", ","):
        n -= 1 + (toks[n].low == "and" and toks[n - 1].text == "," and n >= 2)
        if toks[n].kind != "ent" or toks[n].poss or toks[n].ent < 0:
            break
        subjects.insert(0, (toks[n].ent, n))
        n -= 1
    if is_plural and len(subjects) >= 2 and r.facts.kb.predicates[pred].inverse == pred:
        return subjects, "mutual"
    return [subjects[-1]], "copula"


def named_next(r: Reader, j: int) -> list[tuple[int, int]]:
    """The person of "His name is {A}." opening the next sentence, for the last relation noun
    of that gender before it, or [].

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is proud that her son graduated. His name is {A}.", "mother", "male")
    {A} is {B}'s son (after)
    """
    toks = r.toks
    e = next((k for k in range(j + 1, len(toks)) if toks[k].text in SENTENCE_END), -1)
    if e < 0 or e + 4 >= len(toks) or any(r.is_relation(k) for k in range(j + 1, e)):
        return []
    pron, name, verb, y = toks[e + 1:e + 5]
    gender = r.lex[toks[j].low][1]
    if pron.kind != "pron" or pron.form != "his" or name.low != "name" or verb.low not in ("is", "was") \
            or y.kind != "ent" or y.ent < 0 or (gender is not None and pron.gender != gender):
        return []
    return [(y.ent, e + 4)]
