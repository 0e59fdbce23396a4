"""A question's answer derived from a story's stated facts alone, under the KB's sound rules.

The facts are ``(a, predicate, b)`` over story people ("b is a's predicate"), closed under
the KB's composition, inverse and symmetry rules (:func:`clutrr.core.entailment.story_closure`,
what ``clutrr verify`` proves). "X's aunts" are the story people the closure makes X's aunt;
nobody else counts, whatever the family may hold beyond the story.
"""
from __future__ import annotations

from clutrr.core.entailment import story_closure
from clutrr.core.kb import KB
from clutrr.questions.forms import Answer

Closure = dict[tuple[int, int], int]


class Unproved(ValueError):
    """The facts do not decide the question (the reason is the message)."""


def closure_of(kb: KB, facts: list[tuple[int, int, int]]) -> Closure:
    """What the facts entail: (a, b) -> bitmask of predicates b is to a."""
    return story_closure(kb, facts)


def entailed_people(closure: Closure, genders: list[int], x: int, pred: int, gender: int) -> list[int]:
    """The story people (indices, in story order) the facts make X's ``pred`` of ``gender``."""
    return [b for b, g in enumerate(genders)
            if b != x and g == gender and closure.get((x, b), 0) >> pred & 1]


def all_placed(closure: Closure, genders: list[int], x: int, gender: int) -> bool:
    """Whether the facts give every other story person of ``gender`` some relation to X (so a
    relation none of them is entailed to hold is held by nobody in the story)."""
    return all(closure.get((x, b), 0) for b, g in enumerate(genders) if b != x and g == gender)


def prove(kb: KB, closure: Closure, genders: list[int], names: list[str], form: str, query: tuple[int, ...],
          word: str) -> Answer:
    """The answer of a ``form`` question about relation ``word`` and story people ``query``,
    from the closure of the story's facts. Raises :class:`Unproved` when the facts do not
    decide it, KeyError for a word the KB does not know."""
    pred, gender = kb.parse_word(word)
    x = query[0]
    if form == "yesno":
        y = query[1]
        if genders[y] != gender:
            raise Unproved(f"{word!r} does not fit the gender of {names[y]}")
        held = closure.get((x, y), 0)
        if held >> pred & 1:
            return "yes"
        if held:
            return "no"
        raise Unproved(f"the facts relate {names[y]} to {names[x]} in no way")
    found = entailed_people(closure, genders, x, pred, gender)
    if form == "person":
        if len(found) != 1:
            raise Unproved(f"the facts make {len(found)} people {names[x]}'s {word}, not one")
        return names[found[0]]
    if form == "people":
        if not found:
            raise Unproved(f"the facts make nobody {names[x]}'s {word}")
        return [names[b] for b in found]
    if form == "count":
        if not found and not all_placed(closure, genders, x, gender):
            raise Unproved(f"nobody is entailed to be {names[x]}'s {word}, and someone's relation is open")
        return len(found)
    raise ValueError(f"no proof for question form {form!r}")
