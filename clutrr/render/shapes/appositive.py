"""Shapes that name the person beside the relation noun: "R Y", "R is Y", "R named Y", "her
father, {A}, ..." (set off by commas), "Y, X's R" and "Y (X's R)" (an apposition before), "her
husband, who is a baker, {B}", "his grandmother, whose name is {A}"."""
from __future__ import annotations

from clutrr.render.shapes.copular import copula_subjects
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import FRAME_CLOSERS, MARRY, RELATIVES, SENTENCE_END


def referents_after(r: Reader, m: int, is_plural: bool, direct: bool = True,
                    comma: bool = False) -> list[tuple[int, int]]:
    """The person(s) after the noun (its phrase ends before token m): "R Y" and "R is Y"
    (``direct``), or "R, Y" (``comma``); "Rs Y and Z" gives two. A name that starts a clause
    ("whose son Y married") is none.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A}'s brother is named {B}.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A} has a brother who is {B}.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A.his} brother, whose name is {B}, came to see {A}.", "brother")
    {B} is {A}'s brother (after)
    """
    toks = r.toks
    q = m
    w = m + (m < len(toks) and toks[m].text == ",")
    if w + 3 < len(toks) and toks[w].low == "whose" and toks[w + 1].low == "name" and toks[w + 2].low in ("is", "was") \
            and toks[w + 3].kind == "ent" and toks[w + 3].ent >= 0 and not toks[w + 3].poss:
        return [(toks[w + 3].ent, w + 3)]
    if q < len(toks) and comma:
        if toks[q].text not in (",", ":") or q + 1 >= len(toks) or (
                toks[q + 1].poss and not (q + 2 < len(toks) and toks[q + 2].text == ",")):
            return []  # not "her son, {B}'s house"; but "her son, {B}'s, house" sets {B} off
        q += 1
    elif q + 2 < len(toks) and toks[q].low == "who" and toks[q + 1].low in ("is", "was") \
            and toks[q + 2].kind == "ent" and toks[q + 2].ent >= 0:
        return [(toks[q + 2].ent, q + 2)]
    elif q < len(toks) and toks[q].low in ("is", "was", "named", "called"):
        q += 1
        if q < len(toks) and toks[q - 1].low in ("is", "was") and toks[q].low in ("named", "called"):
            q += 1  # "{A}'s husband is named {B}"
        if q < len(toks) and toks[q].poss:
            return []
    elif not direct:
        return []
    return _names_from(r, m, q, is_plural)


def _names_from(r: Reader, m: int, q: int, is_plural: bool) -> list[tuple[int, int]]:
    """The name at token q (or of "His name is Y." after a full stop there), and for a plural
    noun the names listed after it."""
    toks = r.toks
    if q + 1 < len(toks) and toks[q].text == "." and toks[q + 1].kind == "pron" and r.named_after(q + 1) >= 0:
        return [(r.named_after(q + 1), q + 4)]
    if q >= len(toks) or toks[q].kind != "ent" or toks[q].ent < 0:
        return []
    if q + 1 < len(toks) and toks[q + 1].low in MARRY and any(t.low == "whose" for t in toks[max(m - 4, 0):m]):
        return []  # "whose son {B} married later": {B} starts a clause of its own
    out = [(toks[q].ent, q)]
    while is_plural:
        n = q + 1
        while n < len(toks) and toks[n].low in (",", "and"):
            n += 1
        if n == q + 1 or n >= len(toks) or toks[n].kind != "ent" or toks[n].ent < 0 or toks[n].poss:
            break
        q = n
        out.append((toks[q].ent, q))
    return out


def framed(r: Reader, found: list[tuple[int, int]]) -> bool:
    """Whether names read by ``referents_after(..., comma=True)`` are set off, closed by a comma,
    a bracket, a dash or the end of the sentence ("her father, {A}, drove").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A.his} brother, {B}, came to see {A}.", "brother")
    {B} is {A}'s brother (after)
    """
    toks = r.toks
    return bool(found) and (found[-1][1] + 1 == len(toks) or toks[found[-1][1] + 1].text in FRAME_CLOSERS)


def referents_before(r: Reader, s: int, pred: int, is_plural: bool) -> tuple[list[tuple[int, int]], str]:
    """The person named before the noun phrase starting at token s: "Y, X's R" and "Y (X's R)"
    (``apposition``), "left {A} her daughter to ..." (a name and then a pronoun's noun), or the
    subject of a copula (:func:`~clutrr.render.shapes.copular.copula_subjects`).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B}, {A}'s brother, came.", "brother")
    {B} is {A}'s brother (apposition)
    >>> show("{B} ({A}'s brother) came.", "brother")
    {B} is {A}'s brother (apposition)
    """
    toks = r.toks
    b = s - 1
    if b >= 2 and r.is_relation(b) and not toks[b].poss and (toks[b - 1].poss or toks[b - 1].form == "his") \
            and toks[s].kind == "ent" and toks[s].poss:
        b -= 2  # "{D}, her brother {C}'s wife": the apposition opens before "her brother"
    if b >= 1 and toks[b].text in (",", "(") and toks[b - 1].kind == "ent" and not toks[b - 1].poss \
            and toks[b - 1].ent >= 0:
        return [(toks[b - 1].ent, b - 1)], "apposition"
    if b >= 0 and toks[b].kind == "ent" and not toks[b].poss and toks[b].ent >= 0 and toks[s].kind == "pron" \
            and not toks[s].slot and s + 2 < len(toks) and toks[s + 2].kind != "ent":
        return [(toks[b].ent, b)], "apposition"
    return copula_subjects(r, b, pred, is_plural)


def after_relative(r: Reader, m: int) -> list[tuple[int, int]]:
    """The name set off by a comma after a relative clause that follows the noun, when the clause
    names nobody and no other relation noun.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A.his} brother, who is a baker, {B}, came to see {A}.", "brother")
    {B} is {A}'s brother (after)
    """
    toks = r.toks
    q = m + (m < len(toks) and toks[m].text == ",")
    if q >= len(toks) or toks[q].low not in RELATIVES:
        return []
    for c in range(q + 1, min(q + 12, len(toks) - 1)):
        t = toks[c]
        if t.kind == "ent" or t.text in SENTENCE_END or r.is_relation(c):
            return []
        if t.text == ",":
            y = toks[c + 1]
            end = c + 2
            if y.kind == "ent" and y.ent >= 0 and not y.poss and (end == len(toks) or toks[end].text in FRAME_CLOSERS):
                return [(y.ent, c + 1)]
            return []
    return []


def pairs_nouns(r: Reader, j: int) -> bool:
    """Whether another relation noun follows within four words ("{C}, father and newborn son":
    the noun describes a pair, not {C})."""
    for u in r.toks[j + 1:j + 5]:
        if u.kind != "word":
            return False
        if u.low in r.lex:
            return True
    return False
