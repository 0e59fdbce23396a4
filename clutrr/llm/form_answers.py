"""Read a model's answer to a question of another form than relation (docs/questions.md):
``read_form_answer(text, form, names, asked) -> answer | None``.

The reply is read under the answer protocol of :mod:`clutrr.llm.extract`: reasoning blocks
(``<think>`` …) are never read and one left open means no answer (``final_text``); the last
explicit final-answer marker decides: an ``<answer>…</answer>`` tag (an unclosed one runs to the
end), ``\\boxed{…}``, a JSON ``"answer"`` key, or a text marker ("Answer:", "the answer is",
"Final answer:"), of which only the first statement after it is read. Without a marker the
last sentence of the reply is read. Within the part read:

- ``person``: the one story name it mentions; the name asked about (X in "Who is X's aunt?")
  does not count when another is there. Two different names: no answer.
- ``people``: every story name it mentions, in order, X left out as above; "none", "nobody"
  or "no one" alone is the empty list.
- ``count``: its number, in digits or as a word from zero to twenty; two different numbers
  ("2 or 3") are no answer.
- ``yesno``: its "yes" or "no"; both ("yes or no") are no answer.

Names match whole words in any case. ``relation`` questions are read by
:func:`clutrr.llm.extract.extract_answer` with the query's names.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from clutrr.llm.extract import (ANSWER_MARKER, BOXED, TAG_CLOSE, TAG_OPEN, THINK_TAGS, ThinkTag, clean_text,
                                extract_answer, final_text, json_answer, plain_unicode)

NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen twenty").split()
NUMBER = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\b", re.I)
YES_NO = re.compile(r"\b(yes|no)\b", re.I)
NOBODY = re.compile(r"^\W*(?:none|nobody|no\s+one|no\s+people|no\s+person)\W*$", re.I)
STATEMENT_END = re.compile(r"(?<=[.!?])\s+|\n")


def marked_part(text: str, think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False) -> str | None:
    """The part of a reply that gives its answer: what the last final-answer marker holds (see
    the module docstring), else its last sentence; None when a reasoning block is left open
    or nothing is left. With ``think_open`` the reply starts inside a reasoning block."""
    if not text.isascii():
        text = plain_unicode(text)
    rest = final_text(text, think_tags, think_open)
    if not rest or not rest.strip():
        return None
    opens = list(TAG_OPEN.finditer(rest))
    if opens:
        content = rest[opens[-1].end():]
        close = TAG_CLOSE.search(content)
        return clean_text(content if close is None else content[: close.start()])
    boxes = list(BOXED.finditer(rest))
    if boxes:
        return clean_text(_braced(rest, boxes[-1].end()))
    keyed = json_answer(rest)
    if keyed is not None:
        return None if keyed[0] is None else clean_text(keyed[0])
    markers = list(ANSWER_MARKER.finditer(rest))
    if markers:
        after = [s for s in STATEMENT_END.split(rest[markers[-1].end():]) if s.strip()]
        return clean_text(after[0]) if after else None
    sentences = [s for s in STATEMENT_END.split(rest.strip()) if s.strip()]
    return clean_text(sentences[-1]) if sentences else None


def _braced(text: str, start: int) -> str:
    """The text from ``start`` to the brace closing the one opened just before it, with LaTeX
    commands such as ``\\text`` dropped."""
    depth = 1
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return re.sub(r"\\[A-Za-z]+|[{}]", " ", text[start:i])
    return re.sub(r"\\[A-Za-z]+|[{}]", " ", text[start:])


def _named(part: str, names: Sequence[str], asked: str | None) -> list[str]:
    """The story names ``part`` mentions, in order of first mention, ``asked`` left out when
    another is there."""
    found = []
    for name in dict.fromkeys(names):
        m = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", part, re.I)
        if m:
            found.append((m.start(), name))
    named = [n for _, n in sorted(found)]
    others = [n for n in named if n != asked]
    return others if others else named


def read_form_answer(text: str | None, form: str, names: Sequence[str], asked: Sequence[str] = (),
                     kb: str = "kinship", think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False):
    """The answer ``text`` gives to a ``form`` question, or None when it gives none.

    ``names`` are the story's people, ``asked`` the names the question asks about (X, or X
    and Y for yes/no; for ``relation``, (head, tail) as :func:`extract_answer` takes them).
    A name, a list of names, an int or ``"yes"``/``"no"``. With ``think_open`` the reply
    starts inside a reasoning block: without its closing tag it has no answer.
    """
    if not text:
        return None
    if form == "relation":
        return extract_answer(text, kb, think_tags, query=tuple(asked) or None, think_open=think_open)
    part = marked_part(text, think_tags, think_open)
    if part is None:
        return None
    x = asked[0] if asked else None
    if form == "person":
        named = _named(part, names, x)
        return named[0] if len(named) == 1 else None
    if form == "people":
        if NOBODY.match(part):
            return []
        return _named(part, names, x) or None
    if form == "count":
        counts = {int(w) if w.isdigit() else NUMBER_WORDS.index(w) for w in map(str.lower, NUMBER.findall(part))}
        return counts.pop() if len(counts) == 1 else None
    if form == "yesno":
        said = {w.lower() for w in YES_NO.findall(part)}
        return said.pop() if len(said) == 1 else None
    raise ValueError(f"unknown question form {form!r}")
