"""The question forms, the words of their questions, and which form a row asks.

A form's answer is typed: a name (``person``), a list of names (``people``), a count
(``count``) or ``"yes"``/``"no"`` (``yesno``). ``relation`` is the original question ("how is
Y related to X?", answered by a relation word) and ``mixed`` draws the five forms in equal
shares, each form's rows balanced on their own.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Union

RELATION = "relation"
FORMS = (RELATION, "person", "people", "count", "yesno")  # what one row asks
QUESTION_KINDS = (*FORMS, "mixed")  # what --question takes
Answer = Union[str, list, int]

_IRREGULAR = {"wife": "wives"}


def plural(word: str) -> str:
    """The plural of a relation word: ``nieces``, ``wives``, ``sons-in-law``."""
    head, sep, rest = word.partition("-")
    if sep:
        return f"{plural(head)}-{rest}"
    return _IRREGULAR.get(word, word + "s")


def _person(names, query, word):
    return f"Who is {names[query[0]]}'s {word}?"


def _people(names, query, word):
    return f"Which people in the story are {names[query[0]]}'s {plural(word)}?"


def _count(names, query, word):
    return f"How many people in the story are {names[query[0]]}'s {plural(word)}?"


def _yesno(names, query, word):
    return f"Is {names[query[1]]} {names[query[0]]}'s {word}?"


def _relation(names, query, word):
    return f"How is {names[query[1]]} related to {names[query[0]]}?"


QUESTION_TEXT = {RELATION: _relation, "person": _person, "people": _people, "count": _count, "yesno": _yesno}


@dataclass(frozen=True)
class Question:
    """One question of a story: its form, the people it names (story indices: [X] or [X, Y]),
    the relation word asked about or answered, and the answer; ``about`` lists the story people
    the answer is about (the person or people named or counted, Y of a yes/no question; empty
    when not recorded)."""

    form: str
    query: tuple[int, ...]
    target: str
    answer: Answer
    about: tuple[int, ...] = ()

    def text(self, names: list[str]) -> str:
        """The question in words, with the story's names."""
        return QUESTION_TEXT[self.form](names, self.query, self.target)


def check_kind(kind: str) -> None:
    """Raise ValueError unless ``kind`` is a --question value."""
    if kind not in QUESTION_KINDS:
        raise ValueError(f"unknown question form {kind!r} (choose from {', '.join(QUESTION_KINDS)})")


def form_of(kind: str, index: int, shuffle_seed: int) -> tuple[str, int]:
    """(the form row ``index`` asks, its number among that form's rows).

    For one form, every row asks it. For ``mixed``, each block of five rows asks the five
    forms once, in an order seeded by ``shuffle_seed`` (one per block); a row is its form's
    row ``index // 5``.
    """
    if kind != "mixed":
        return kind, index
    block, slot = divmod(index, len(FORMS))
    order = list(FORMS)
    random.Random(shuffle_seed).shuffle(order)
    return order[slot], block


def yes_of(nth: int, coin: int) -> bool:
    """Whether a yes/no form's row ``nth`` is answered yes: in each pair of rows (2j, 2j+1) one
    yes and one no, ``coin`` (0 or 1, seeded per pair) saying which."""
    return nth % 2 == coin


def answer_text(answer: Answer) -> str:
    """An answer as a reply writes it: a name, names joined by ", ", a count in digits, yes or no."""
    return ", ".join(answer) if isinstance(answer, list) else str(answer)


def typed_answer(form: str, answer: Answer) -> Answer:
    """The typed answer of a ``form`` question from the answer or its :func:`answer_text`
    (a table column holds every form's answer as text): a list of names for ``people``, an
    int for ``count``, else the string."""
    if not isinstance(answer, str):
        return answer
    if form == "people":
        return [name for name in answer.split(", ") if name]
    if form == "count":
        return int(answer)
    return answer
