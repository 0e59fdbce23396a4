"""Shapes whose owner is written before the relation noun: "X's R", "X and Z's R", "X's R1's R2",
"my R" in a quotation, "{X.his} R" and "their R", "whose R". Each owner rule looks at the token
before the noun's modifiers and says whether it applies; the steps after them adjust the owner."""
from __future__ import annotations

from clutrr.render.shapes.appositive import referents_after, referents_before
from clutrr.render.shapes.phrase import Phrase
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import MEMBER_OF, Statement, Tok


def named_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"X's R Y", and a couple's "X and Z's R Y" (not "{B}'s brother {A} and {C}'s son {D}").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A}'s brother {B} came.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A} and {B}'s son {C} came.", "wife-son")
    {C} is {A} and {B}'s son (after)
    """
    if not (pk.kind == "ent" and pk.poss and pk.ent >= 0):
        return False
    toks, k = r.toks, p.k
    p.possessors, p.start = (pk.ent,), k
    if k >= 2 and toks[k - 1].low == "and" and toks[k - 2].kind == "ent" and not toks[k - 2].poss \
            and not (r.is_relation(k - 3) and not toks[k - 3].poss):
        p.possessors, p.start = (toks[k - 2].ent, pk.ent), k - 2
    return True


def chained_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"X's R1's R2 Y": Y is the R2 of X's R1, read as one statement whose predicate is the pair
    (R1, R2); a chain of more links, or one without a named end, says nothing.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A}'s daughter's husband {C} came.", "daughter-husband")
    {C} is {A}'s daughter's husband (chain)
    """
    if not (pk.kind == "word" and pk.poss and pk.low != "who"):
        return False
    p.done = _chain(r, p.k, p.j)
    return True


def speaker_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"my R" or "our R" inside a quotation: the speaker's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("\\"My brother {B} is late,\\" {A} said.", "brother")
    {B} is {A}'s brother (after)
    """
    if not (pk.low in ("my", "our") and r.speaker(p.k) >= 0):
        return False
    p.possessors, p.start = (r.speaker(p.k),), p.k
    return True


def pronoun_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"{X.his} R Y", "their R Y": the person(s) the pronoun refers to; an unresolved pronoun
    states nothing.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} called {A.his} brother {B}.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A} married {B}. Their son {C} came.", "wife-son")
    {A} married {B} (marry)
    {C} is {A} and {B}'s son (after)
    """
    if not (pk.kind == "pron" and pk.form in ("his", "their")):
        return False
    if p.k not in r.referent:
        p.done = []
    else:
        p.possessors, p.start = r.referent[p.k], p.k
    return True


def whose_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"Y, whose R ...": the person before "whose" (or "who's" typed for it); "whose R he is"
    states it of the pronoun.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A}, whose brother {B} sings, came.", "brother")
    {B} is {A}'s brother (after)
    """
    if not (pk.low == "whose" or (pk.low == "who" and pk.poss)):
        return False
    toks, k, j = r.toks, p.k, p.j
    owner = k - 2 if k >= 2 and toks[k - 1].text == "," else k - 1
    who = r.person_at(owner, poss=False)
    if who < 0:
        p.done = []
        return True
    p.possessors, p.start = (who,), owner
    if (j + 2 < len(toks) and toks[j + 1].kind == "pron" and toks[j + 1].form == "he"
            and toks[j + 2].low in ("is", "was") and r.person_at(j + 1) >= 0):
        p.done = [Statement(p.possessors, r.person_at(j + 1), p.pred, p.gender, toks[j].low, "whose", (owner, j + 2))]
    return True


def one_of(r: Reader, p: Phrase) -> None:
    """"one of {C}'s brothers": one member, told as one person.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is one of {A}'s brothers.", "brother")
    {B} is {A}'s brothers (copula)
    """
    toks = r.toks
    if p.plural and p.possessors and p.start >= 2 and toks[p.start - 1].low == "of" \
            and toks[p.start - 2].low in MEMBER_OF:
        p.plural, p.start = False, p.start - 2


def continued_owner(r: Reader, p: Phrase) -> None:
    """"his son {C} and daughter {D}", "had a son {C} and a daughter {D}": a noun after "and"
    keeps the owner of the statement just read.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} called {B.his} son {A} and daughter {C}.", "son-sister")
    {A} is {B}'s son (after)
    {C} is {B}'s daughter (after)
    """
    toks, last, start, m = r.toks, r.last, p.start, p.j + 1
    if not p.possessors and (not p.article or toks[start].low in ("a", "an", "another")) and last is not None \
            and last.possessors and start >= 2 and toks[start - 1].low in ("and", ",") \
            and last.span[1] in (start - 2, start - 3) and last.shape == "after" \
            and not (m < len(toks) and toks[m].low in ("of", "to")):
        p.possessors = last.possessors


def _chain(r: Reader, k: int, j: int) -> list[Statement]:
    """The statement of "X's R1's R2 Y" (R1 at k, R2 at j), or none."""
    toks = r.toks
    if toks[k].low not in r.lex or k < 1:
        return []
    x = r.person_at(k - 1, poss=True) if toks[k - 1].kind == "ent" else (
        r.referent[k - 1][0] if toks[k - 1].kind == "pron" and toks[k - 1].form == "his"
        and k - 1 in r.referent else -1)
    if x < 0:
        return []
    ys = referents_after(r, j + 1, False) or referents_after(r, j + 1, False, comma=True)
    if not ys:
        before, _ = referents_before(r, k - 1, -1, False)
        ys = before
    if not ys:
        return []
    first, second = r.lex[toks[k].low], r.lex[toks[j].low]
    span = (k - 1, max(j, ys[0][1]))
    return [Statement((x,), ys[0][0], -3, second[1], f"{toks[k].low}'s {toks[j].low}", "chain", span,
                      (first[0], second[0], -1 if first[1] is None else first[1]))]
