"""A question's answer derived from a story's stated facts alone, under the KB's sound rules.

The facts are ``(a, predicate, b)`` over story people ("b is a's predicate"), closed under
the KB's composition, inverse and symmetry rules (:func:`clutrr.core.entailment.story_closure`,
what ``clutrr verify`` proves). "X's aunts" are the story people the closure makes X's aunt;
nobody else counts, whatever the family may hold beyond the story.

A question names a relation word. In the built-in KBs a word is one predicate of one gender; a
kinship system's term may name relatives of both sexes (*cousin*) and, where the system depends
on who speaks, one predicate per speaker sex, so a word stands for every (predicate, gender)
pair it names (:func:`term_pairs`).
"""
from __future__ import annotations

from clutrr.core.entailment import story_closure
from clutrr.core.kb import KB
from clutrr.questions.forms import Answer

Closure = dict[tuple[int, int], int]
Word = tuple[int, int]  # (predicate, gender)
_PAIRS: dict[tuple[str, str], dict[str, tuple[Word, ...]]] = {}


class Unproved(ValueError):
    """The facts do not decide the question (the reason is the message)."""


def closure_of(kb: KB, facts: list[tuple[int, int, int]]) -> Closure:
    """What the facts entail: (a, b) -> bitmask of predicates b is to a."""
    return story_closure(kb, facts)


def term_pairs(kb: KB) -> dict[str, tuple[Word, ...]]:
    """Every relation word and the (predicate, gender) pairs it names, words and pairs in
    (predicate, gender) order."""
    key = (kb.name, kb.path)
    if key not in _PAIRS:
        out: dict[str, list[Word]] = {}
        for p in kb.predicates:
            for g, word in enumerate(p.words):
                if word is not None:
                    out.setdefault(word, []).append((p.index, g))
        _PAIRS[key] = {w: tuple(pairs) for w, pairs in out.items()}
    return _PAIRS[key]


def sexes_of(pairs: tuple[Word, ...]) -> tuple[int, ...]:
    """The genders (0 male, 1 female) of the people a word's pairs name, in order."""
    return tuple(sorted({g for _, g in pairs}))


def holds(held: int, pairs: tuple[Word, ...], gender: int) -> bool:
    """Whether a person of ``gender`` related by the predicate bits ``held`` is the word of ``pairs``."""
    return any(held >> p & 1 for p, g in pairs if g == gender)


def entailed_people(closure: Closure, genders: list[int], x: int, pairs: tuple[Word, ...]) -> list[int]:
    """The story people (indices, in story order) the facts make X's word of ``pairs``."""
    return [b for b, g in enumerate(genders) if b != x and holds(closure.get((x, b), 0), pairs, g)]


def all_placed(closure: Closure, genders: list[int], x: int, gender: int) -> bool:
    """Whether the facts give every other story person of ``gender`` some relation to X (so a
    relation none of them is entailed to hold is held by nobody in the story)."""
    return all(closure.get((x, b), 0) for b, g in enumerate(genders) if b != x and g == gender)


def prove(kb: KB, closure: Closure, genders: list[int], names: list[str], form: str, query: tuple[int, ...],
          word: str) -> Answer:
    """The answer of a ``form`` question about relation ``word`` and story people ``query``,
    from the closure of the story's facts. Raises :class:`Unproved` when the facts do not
    decide it, KeyError for a word the KB does not know."""
    pairs = term_pairs(kb)[word.strip().lower()]
    x = query[0]
    if form == "yesno":
        y = query[1]
        if genders[y] not in sexes_of(pairs):
            raise Unproved(f"{word!r} does not fit the gender of {names[y]}")
        held = closure.get((x, y), 0)
        if holds(held, pairs, genders[y]):
            return "yes"
        if held:
            return "no"
        raise Unproved(f"the facts relate {names[y]} to {names[x]} in no way")
    found = entailed_people(closure, genders, x, pairs)
    if form == "person":
        if len(found) != 1:
            raise Unproved(f"the facts make {len(found)} people {names[x]}'s {word}, not one")
        return names[found[0]]
    if form == "people":
        if not found:
            raise Unproved(f"the facts make nobody {names[x]}'s {word}")
        return [names[b] for b in found]
    if form == "count":
        if not found and not all(all_placed(closure, genders, x, g) for g in sexes_of(pairs)):
            raise Unproved(f"nobody is entailed to be {names[x]}'s {word}, and someone's relation is open")
        return len(found)
    raise ValueError(f"no proof for question form {form!r}")
