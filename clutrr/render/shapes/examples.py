"""How a shape's examples are shown: the statements the reader reads in a template, one line each."""
from __future__ import annotations

from clutrr.core.kb import GENDERS, load_kb
from clutrr.render.shapes.registry import analyse
from clutrr.render.shapes.words import Facts, Statement, tokenize


def describe(st: Statement) -> str:
    """A statement as a line: "{B} is {A}'s brother (after)"; a role has no owner ("{B} is
    someone's daughter (after)"), a marriage is symmetric ("{A} married {B} (marry)")."""
    def name(e: int) -> str:
        return "{" + chr(65 + e) + "}"

    if st.shape in ("marry", "married"):
        return f"{name(st.possessors[0])} married {name(st.referent)} ({st.shape})"
    owner = " and ".join(name(x) for x in st.possessors) + "'s" if st.possessors else "someone's"
    return f"{name(st.referent)} is {owner} {st.word} ({st.shape})"


def read(text: str, clause: str, gender: str = "male", kb_name: str = "kinship") -> list[str]:
    """The statements the reader reads in a template of ``clause`` ("brother-son") with {A} of
    ``gender``, as lines (see :func:`describe`)."""
    kb = load_kb(kb_name)
    facts = Facts.of(kb, tuple(clause.split("-")), GENDERS.index(gender))
    found, _ = analyse(tokenize(text, facts.genders), facts, text)
    return [describe(st) for st in found]


def show(text: str, clause: str, gender: str = "male") -> None:
    """Print the lines of :func:`read`, or "nothing" (the form a shape's examples take).

    >>> show("{A}'s brother {B} came.", "brother")
    {B} is {A}'s brother (after)
    >>> show("{A} came.", "brother")
    nothing
    """
    print("\n".join(read(text, clause, gender)) or "nothing")
