"""The noun phrase a relation noun heads, as the shapes fill it in, and the rule types of the registry."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from clutrr.render.shapes.reader import Reader
from clutrr.render.shapes.words import Statement, Tok


@dataclass
class Phrase:
    """What is known of the phrase around the relation noun at ``j``: its predicate, gender and
    number, where its modifiers start, its possessors, and how the possessor was told. A shape
    that reads the whole phrase sets ``done`` (an empty list: the phrase states nothing)."""

    j: int
    pred: int
    gender: int | None
    plural: bool
    k: int = -1  # the token before the modifiers
    start: int = 0  # the first token of the phrase
    m: int = 0  # the first token after the noun (after "of X" when the possessor follows)
    possessors: tuple[int, ...] = ()
    article: bool = False  # "a son", "the father"
    each: bool = False  # "the father of both {A} and {C}": each one's, not a couple's
    had: bool = False  # "{B} has a second son {C}": the name may follow directly
    pair: tuple[tuple[int, int], tuple[int, int]] | None = None  # "{X} and {Y}, ..." before the noun
    done: list[Statement] | None = field(default=None)

    def word(self, r: Reader) -> str:
        """The noun as written (lower case)."""
        return r.toks[self.j].low


# A rule reading a whole phrase: its statements, or None when the phrase is not of its shape.
PhraseRule = Callable[[Reader, Phrase], Optional[list[Statement]]]
# A rule telling the possessor from the token before the modifiers: whether it applies.
OwnerRule = Callable[[Reader, Phrase, Tok], bool]
# A rule applied in turn after the possessor rules (it may set or change the possessor).
StepRule = Callable[[Reader, Phrase], None]
