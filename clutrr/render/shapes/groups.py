"""Shapes of several people and one relation noun: a pair named before two nouns, two nouns
before two names, a group of siblings. Each rule reads the whole phrase, or returns None."""
from __future__ import annotations

from clutrr.render.shapes.phrase import Phrase
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import FUNCTION, Statement


def modifier(r: Reader, p: Phrase) -> list[Statement] | None:
    """A relation noun before another is a modifier and states nothing ("kid brother").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} met his kid brother {B}.", "brother")
    {B} is {A}'s brother (after)
    """
    return [] if r.is_relation(p.j + 1) and not r.is_title(p.j + 1) else None


def pair_of_nouns(r: Reader, p: Phrase) -> list[Statement] | None:
    """"{C} and {D}, son and father": {C} is {D}'s son and {D} is {C}'s father.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} and {B}, son and father, went out.", "father")
    {A} is {B}'s son (pair)
    {B} is {A}'s father (pair)
    """
    toks, j = r.toks, p.j
    if not (p.pair and j + 2 < len(toks) and toks[j + 1].low == "and" and r.is_relation(j + 2)
            and not r.lex[toks[j + 2].low][2] and not p.plural):
        return None
    (x, xi), (y, _) = p.pair
    other = r.lex[toks[j + 2].low]
    span = (xi, j + 2)
    return [Statement((y,), x, p.pred, p.gender, toks[j].low, "pair", span),
            Statement((x,), y, other[0], other[1], toks[j + 2].low, "pair", span)]


def respectively(r: Reader, p: Phrase) -> list[Statement] | None:
    """"X's R1 and R2, Y and Z": Y is X's R1 and Z is X's R2, in that order; without an owner
    ("Husband and wife, Y and Z"), Y is Z's R1 and Z is Y's R2 (the genders say who is who).

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A}'s son and daughter, {B} and {C}, came.", "son-sister")
    {B} is {A}'s son (after)
    {C} is {A}'s daughter (after)
    >>> show("Husband and wife, {B} and {A}, came.", "wife")
    {A} is {B}'s husband (pair)
    {B} is {A}'s wife (pair)
    """
    toks, j = r.toks, p.j
    if not (j + 6 < len(toks) and toks[j + 1].low == "and" and r.is_relation(j + 2) and toks[j + 3].text == ","
            and toks[j + 4].kind == "ent" and toks[j + 5].low == "and" and toks[j + 6].kind == "ent"):
        return None
    k = j - 1
    possessors: tuple[int, ...] = ()
    if k >= 0 and toks[k].kind == "ent" and toks[k].poss and toks[k].ent >= 0:
        possessors = (toks[k].ent,)
    elif k >= 0 and toks[k].kind == "pron" and toks[k].form == "his" and k in r.referent:
        possessors = r.referent[k]
    if not possessors:
        y, z = toks[j + 4].ent, toks[j + 6].ent
        if (k >= 0 and toks[k].kind == "word" and toks[k].low not in FUNCTION) or y < 0 or z < 0 or y == z:
            return []
        pred1, gender1, _ = r.lex[toks[j].low]
        pred2, gender2, _ = r.lex[toks[j + 2].low]
        g = r.facts.genders
        if gender1 is not None and g[y] != gender1 and g[z] == gender1 and g[y] == gender2:
            y, z = z, y  # "Husband and wife, Mary and John": the genders say who is who
        return [Statement((z,), y, pred1, gender1, toks[j].low, "pair", (j, j + 6)),
                Statement((y,), z, pred2, gender2, toks[j + 2].low, "pair", (j, j + 6))]
    out = []
    for noun, name in ((j, j + 4), (j + 2, j + 6)):
        pred, gender, _ = r.lex[toks[noun].low]
        out.append(Statement(possessors, toks[name].ent, pred, gender, toks[noun].low, "after", (k, j + 6)))
    return out


def coordinated_nouns(r: Reader, p: Phrase) -> list[Statement] | None:
    """Two nouns joined by "and"/"or" with no names after them state nothing ("husband and wife",
    "brother and sister").

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} and {B} live as husband and wife.", "wife")
    nothing
    """
    toks, j = r.toks, p.j
    if (j + 2 < len(toks) and toks[j + 1].low in ("and", "or") and r.is_relation(j + 2)) or \
            (j >= 2 and toks[j - 1].low in ("and", "or") and r.is_relation(j - 2)):
        return []
    return None


def mutual_list(r: Reader, p: Phrase) -> list[Statement] | None:
    """"the three sisters {C}, {B} and {D}": a symmetric plural noun before its people makes each
    the others' (not after a possessive: "her brothers {B} and {C}" are her brothers).

    >>> from clutrr.render.shapes.examples import show
    >>> show("The brothers {A} and {B} waved.", "brother")
    {B} is {A}'s brothers (mutual)
    {A} is {B}'s brothers (mutual)
    """
    j = p.j
    if not (p.plural and r.facts.kb.predicates[p.pred].inverse == p.pred):
        return None
    group = _group_after(r, j)
    if len(group) < 2 or _possessed(r, j):
        return None
    return [Statement((x,), y, p.pred, p.gender, r.toks[j].low, "mutual", (j, group[-1][1]))
            for x, _ in group for y, _ in group if x != y]


def mutual_pair(r: Reader, p: Phrase) -> list[Statement] | None:
    """"{B} and {C}, brothers who rarely agree": each is the other's.

    >>> from clutrr.render.shapes.examples import show
    >>> show("{A} and {B}, two brothers, waved.", "brother")
    {A} is {B}'s brothers (mutual)
    {B} is {A}'s brothers (mutual)
    """
    if not (p.pair and p.plural and r.facts.kb.predicates[p.pred].inverse == p.pred):
        return None
    (x, xi), (y, _) = p.pair
    return [Statement((y,), x, p.pred, p.gender, r.toks[p.j].low, "mutual", (xi, p.j)),
            Statement((x,), y, p.pred, p.gender, r.toks[p.j].low, "mutual", (xi, p.j))]


def pair_before(r: Reader, j: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """The two people of "{X} and {Y}, [the two | two | both] R..." before the noun at j."""
    toks = r.toks
    k = j - 1
    while k >= 0 and toks[k].low in ("the", "two", "both", "a", "pair", "of") or (
            k >= 0 and toks[k].kind == "word" and toks[k].low not in FUNCTION and toks[k].low not in r.lex
            and k == j - 1):
        k -= 1
    if k < 3 or toks[k].text != "," or toks[k - 2].low != "and":
        return None
    x, y = toks[k - 3], toks[k - 1]
    if x.kind != "ent" or y.kind != "ent" or x.poss or y.poss or x.ent < 0 or y.ent < 0 or x.ent == y.ent:
        return None
    return (x.ent, k - 3), (y.ent, k - 1)


def _group_after(r: Reader, j: int) -> list[tuple[int, int]]:
    """The people listed right after a plural noun: "brothers {C} and {D}", "{C}, {B}, and {D}"."""
    toks = r.toks
    out: list[tuple[int, int]] = []
    q = j + 1
    while q < len(toks) and toks[q].kind == "ent" and not toks[q].poss and toks[q].ent >= 0:
        out.append((toks[q].ent, q))
        q += 1
        while q < len(toks) and toks[q].low in (",", "and"):
            q += 1
    return out


def _possessed(r: Reader, j: int) -> bool:
    """Whether a possessive comes just before the noun at j ("her brothers {B} and {C}")."""
    k = j - 1
    while k >= 0 and r.toks[k].kind == "word" and r.toks[k].low in ("two", "three", "four", "older",
                                                                    "younger", "twin", "little", "big"):
        k -= 1
    return k >= 0 and (r.toks[k].poss or r.toks[k].form in ("his", "their"))
