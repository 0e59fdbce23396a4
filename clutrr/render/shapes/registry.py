"""The registry of shapes, in the order the reader tries them, and the walk over a text.

A text is walked word by word: the first of :data:`WORD_SHAPES` that applies to a word reads its
statements. A relation noun heads a phrase, read in four stages, each a table of rules from the
family modules:

1. :data:`PHRASE_SHAPES`: a shape of the whole phrase (the first that applies decides);
2. :data:`OWNER_SHAPES`: the owner written before the noun's modifiers (the first that applies);
3. :data:`OWNER_STEPS`: each in turn, adjusting the owner ("one of X's Rs", "and daughter {D}",
   "the R of X");
4. the person named: after the noun, set off by commas, before it (an apposition or a copula's
   subject), after a relative clause or in the next sentence; then, for a noun with no owner,
   :data:`ROLE_OWNERS`.

Adding a shape: write it as a small function with its examples (doctests) in the module of its
family, and put it in the table of its stage here.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from clutrr.render.shapes import checks, groups, having, marriage, possessive, prepositional, roles
from clutrr.render.shapes.appositive import after_relative, framed, pairs_nouns, referents_after, referents_before
from clutrr.render.shapes.copular import named_next
from clutrr.render.shapes.phrase import OwnerRule, Phrase, PhraseRule, StepRule
from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import FUNCTION, MARRY, NOUN_MODIFIERS, Facts, Flag, Statement, Tok

PHRASE_SHAPES: tuple[PhraseRule, ...] = (groups.modifier, groups.pair_of_nouns, groups.respectively,
                                         groups.coordinated_nouns, groups.mutual_list, groups.mutual_pair)
OWNER_SHAPES: tuple[OwnerRule, ...] = (possessive.named_owner, possessive.chained_owner, possessive.speaker_owner,
                                       possessive.pronoun_owner, possessive.whose_owner, having.article_owner,
                                       having.has_plural)
OWNER_STEPS: tuple[StepRule, ...] = (possessive.one_of, possessive.continued_owner, prepositional.of_owner)
ROLE_OWNERS: tuple[Callable[[Reader, Phrase, list[tuple[int, int]]], None], ...] = (roles.joined_owner,
                                                                                    roles.bare_owner)


@dataclass(frozen=True)
class WordShape:
    """A shape found at one word: the words it may start at besides the KB's relation nouns,
    whether it applies there, how it is read, and whether what it reads is the statement a
    later "and R Y" continues."""

    name: str
    words: frozenset[str]
    applies: Callable[[Reader, int], bool]
    read: Callable[[Reader, int], list[Statement]]
    continued: bool = False


def _noun(r: Reader, j: int) -> bool:
    return r.toks[j].low in r.lex and not r.toks[j].poss


def _owned_noun(r: Reader, j: int) -> bool:
    return r.toks[j].low in r.lex and r.toks[j].poss


def _dangling(r: Reader, j: int) -> list[Statement]:
    roles.dangling(r, j)
    return []


def read(r: Reader) -> list[Statement]:
    """Every statement of the reader's text, walking :data:`WORD_SHAPES` at each word."""
    out: list[Statement] = []
    lex = r.lex
    for j, t in enumerate(r.toks):
        if t.kind != "word" or (t.low not in lex and t.low not in CUES):
            continue
        for shape in WORD_SHAPES:
            if shape.applies(r, j):
                found = shape.read(r, j)
                out += found
                if found and shape.continued:
                    r.last = found[-1]
                break
    return out


def read_noun(r: Reader, j: int) -> list[Statement]:
    """The statements of the phrase the relation noun at j heads."""
    toks = r.toks
    pred, gender, is_plural = r.lex[toks[j].low]
    p = Phrase(j, pred, gender, is_plural, pair=groups.pair_before(r, j))
    for whole in PHRASE_SHAPES:
        found = whole(r, p)
        if found is not None:
            return found
    k, mods = j - 1, 0  # the possessor before the noun, over at most three modifiers
    while (k >= 0 and mods < 3 and toks[k].kind == "word" and not toks[k].poss and toks[k].low not in FUNCTION
           and (toks[k].low not in r.lex or (k == j - 1 and toks[k].low in NOUN_MODIFIERS))):
        k -= 1
        mods += 1
    p.k, p.start, p.m = k, j - mods, j + 1
    if k >= 0:
        for owner in OWNER_SHAPES:
            if owner(r, p, toks[k]):
                break
    for step in OWNER_STEPS:
        if p.done is not None:
            break
        step(r, p)
    return p.done if p.done is not None else _named(r, p)


def _named(r: Reader, p: Phrase) -> list[Statement]:
    """The statements of a phrase whose owner is read: find the person it names."""
    toks, start, m, j = r.toks, p.start, p.m, p.j
    inside_of = start >= 1 and toks[start - 1].low == "of"
    referents, shape = referents_after(r, m, p.plural, direct=not p.article or p.had or r.is_title(j)), "after"
    for role in ROLE_OWNERS:
        role(r, p, referents)
    set_off = [] if inside_of and not p.possessors else referents_after(r, m, p.plural, comma=True)
    if framed(r, set_off):
        referents = referents or set_off
    if toks[start].low == "whose" or (p.possessors and toks[start + 1].low in ("whose", "who")):
        pass
    elif not referents:
        referents, shape = referents_before(r, start, p.pred, p.plural)
        if shape == "apposition" and not p.possessors and pairs_nouns(r, j):
            return []
    if not referents:
        referents, shape = set_off or after_relative(r, m) or named_next(r, j), "after"
    if not referents:
        if p.article and not p.possessors:
            roles.dangling(r, j)
        return []
    return _statements(r, p, referents, shape)


def _statements(r: Reader, p: Phrase, referents: list[tuple[int, int]], shape: str) -> list[Statement]:
    """One statement per person named (per owner, for "each one's"; per other person, for a
    mutual shape)."""
    word = r.toks[p.j].low
    span = (min(p.start, *(q for _, q in referents)), max(p.j, p.m - 1, *(q for _, q in referents)))
    out = []
    for ref, _ in referents:
        if shape == "mutual":
            out += [Statement((o,), ref, p.pred, p.gender, word, shape, span) for o, _ in referents if o != ref]
        elif p.each:
            out += [Statement((x,), ref, p.pred, p.gender, word, shape, span) for x in p.possessors]
        else:
            out.append(Statement(p.possessors, ref, p.pred, p.gender, word, shape, span))
    return out


WORD_SHAPES: tuple[WordShape, ...] = (
    WordShape("relation noun", frozenset(), _noun, read_noun, continued=True),
    WordShape("owned relation noun", frozenset(), _owned_noun, _dangling),
    WordShape("marriage", MARRY, marriage.is_marriage_word, marriage.marry),
    WordShape("birth", frozenset({"birth"}), marriage.is_birth_word, marriage.gave_birth),
)
CUES: frozenset[str] = frozenset().union(*(shape.words for shape in WORD_SHAPES))


def analyse(toks: list[Tok], facts: Facts, text: str, slot_bank: bool = True) -> tuple[list[Statement], list[Flag]]:
    """The statements of one reading and the flags of rules 4-7 and 9 they raise (a fact in
    a shape the parser does not read is dropped only from a bank written with slots)."""
    reader = Reader(toks, facts, text, slot_bank)
    found = read(reader)
    checks.check(reader, found)
    checks.ownership(reader, found)
    checks.step_contrast(reader, found)
    checks.parent_spouse(reader, found)
    return found, reader.flags
