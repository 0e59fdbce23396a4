"""Shapes whose owner has the relation noun: "{B} has a son, {C}", "They had a son", "{B} has two
sons, {C} and {D}", and the named child of "gave birth to a daughter named {A}", "the father of a
daughter named {A}", "a woman with a daughter named {A}". The owner rules of an article ("a",
"the" ...) are tried in order; the first that applies decides."""
from __future__ import annotations

from typing import Callable

from clutrr.render.shapes.phrase import Phrase
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import ARTICLES, HAVING, PERSON_NOUNS, Tok

ONE = ("a", "an", "one", "another")  # an article that introduces one new person


def _owned(r: Reader, p: Phrase, owner: int) -> None:
    """The noun after "a" is ``owner``'s ("{B} has a son, {C}"); after "has", the name may follow
    the noun directly ("{B} has a second son {C}")."""
    k = p.k
    if owner >= 0 and r.toks[k].low in ONE:
        p.possessors, p.start = (owner,), k - 2
        p.had = r.toks[k - 1].low in HAVING


def _owned_by_subject(r: Reader, p: Phrase, at: int) -> None:
    """The noun after "a" is the subject's of the clause holding token ``at``."""
    _owned(r, p, r.subject(r.clause_start(at), at))


def they_had(r: Reader, p: Phrase) -> bool:
    """"They had a son, {C}": the couple's (or the two people named so far).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} and {A} married. They had a son, {C}.", "husband-son")
    {A} married {B} (marry)
    {C} is {A} and {B}'s son (after)
    """
    toks, k = r.toks, p.k
    if not (k >= 2 and toks[k - 1].low in HAVING and toks[k - 2].low == "they"):
        return False
    couple = r.couple(list(dict.fromkeys(t.ent for t in toks[:k] if t.kind == "ent" and t.ent >= 0)))
    if couple and toks[k].low in ONE:
        p.possessors, p.start = couple, k - 2
    return True


def has_a(r: Reader, p: Phrase) -> bool:
    """"{B} has a son, {C}", "{B}, brother of {A}, has a son": whoever has.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} has a brother, {B}.", "brother")
    {B} is {A}'s brother (after)
    """
    if not (p.k >= 2 and r.toks[p.k - 1].low in HAVING):
        return False
    _owned(r, p, r.haver(p.k - 1))
    return True


def gave_birth_to_a(r: Reader, p: Phrase) -> bool:
    """"{B} gave birth to a daughter named {A}": the subject's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} gave birth to a son named {A}.", "mother")
    {A} is {B}'s son (after)
    """
    toks, k = r.toks, p.k
    if not (k >= 3 and toks[k - 1].low == "to" and toks[k - 2].low == "birth"):
        return False
    _owned_by_subject(r, p, k - 2)
    return True


def relation_of_a(r: Reader, p: Phrase) -> bool:
    """"{B} is the father of a daughter named {A}": the subject's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is the father of a son named {A}.", "father")
    {A} is {B}'s son (after)
    """
    toks, k = r.toks, p.k
    if not (k >= 3 and toks[k - 1].low == "of" and r.is_relation(k - 2) and not toks[k - 2].poss
            and any(toks[q].low in ARTICLES for q in range(max(k - 5, 0), k - 2))):
        return False
    _owned_by_subject(r, p, k - 3)
    return True


def person_with_a(r: Reader, p: Phrase) -> bool:
    """"{B} is a woman with a daughter named {A}": the subject's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is a man with a son named {A}.", "father")
    {A} is {B}'s son (after)
    """
    toks, k = r.toks, p.k
    if not (k >= 3 and toks[k - 1].low == "with" and (toks[k - 2].low in PERSON_NOUNS or r.is_relation(k - 2))
            and any(toks[q].low in ("a", "an") for q in range(max(k - 5, 0), k - 2))):
        return False
    _owned_by_subject(r, p, k - 2)
    return True


ARTICLE_OWNERS: tuple[Callable[[Reader, Phrase], bool], ...] = (they_had, has_a, gave_birth_to_a, relation_of_a,
                                                                 person_with_a)


def article_owner(r: Reader, p: Phrase, pk: Tok) -> bool:
    """A noun after an article: owned only by the first of :data:`ARTICLE_OWNERS` that applies,
    else by no one written before it ("the father of {A}" is read by the "of" shapes).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} is the brother of {A}.", "brother")
    {B} is {A}'s brother (copula)
    """
    if not (pk.kind == "word" and pk.low in ARTICLES):
        return False
    p.start, p.article = p.k, True
    for rule in ARTICLE_OWNERS:
        if rule(r, p):
            break
    return True


def has_plural(r: Reader, p: Phrase, pk: Tok) -> bool:
    """"{B} has two sons, {C} and {D}": whoever has.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{B} has sons, {A} and {C}.", "son-brother")
    {A} is {B}'s sons (after)
    {C} is {B}'s sons (after)
    """
    if not (pk.low in HAVING and p.plural and p.k >= 1 and r.haver(p.k) >= 0):
        return False
    p.possessors, p.start = (r.haver(p.k),), p.k - 1
    return True
