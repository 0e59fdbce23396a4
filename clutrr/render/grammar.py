"""Rule 8, grammar: a template read as it is rendered, with real names in every gender it may take.

No parser is installed offline, so the checks are rules, each for a way a template's sentence
breaks once names and slot words are filled in:

- a relation noun owned twice: a possessive before it and "of ..." after it ("Sean, Wallace's
  brother of the coach", "her sister-in-law of the first author");
- a measure clipped of its preposition or number ("timed it minutes");
- a word written twice in a row ("the the", "to to");
- an article or a possessive pronoun right before a name ("the Alice", "his Bernard");
- a possessive name with nothing owned after it ("Alice's.", a sentence ending on it);
- a sentence that starts in lower case after a full stop.
"""
from __future__ import annotations

import re
from functools import lru_cache

from clutrr.core.kb import KB
from clutrr.core.names import load_names
from clutrr.render.statements import Flag
from clutrr.render.templates import Template

_MEASURE = r"(?:seconds|minutes|hours|days|weeks|months|years|miles|metres|meters|kilometres|inches|feet|pounds)"
_OWNER = r"(?:[A-Z][a-z]+'s|his|her|their)"


@lru_cache(maxsize=1)
def sample_names() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Four real first names of each gender (from the generator's lists) to render templates with."""
    names = load_names()
    return tuple(names["male"][:4]), tuple(names["female"][:4])


def renderings(kb: KB, t: Template) -> list[tuple[str, tuple[str, ...]]]:
    """The template rendered with real names for each gender its first person may take
    (the others have the genders of their relation words), with the names used."""
    heads = (0, 1) if t.gender == "any" else ((1,) if t.gender == "female" else (0,))
    tails = [kb.parse_word(w)[1] for w in t.clause]
    male, female = sample_names()
    out = []
    for g in heads:
        genders = [g, *tails]
        names = tuple((male, female)[gg][i] for i, gg in enumerate(genders))
        out.append((t.render(list(names), genders), names))
    return out


def grammar_flags(kb: KB, t: Template, relation_words: frozenset[str]) -> list[Flag]:
    """Rule 8 flags of the template as rendered (one per kind of break)."""
    found: dict[str, str] = {}
    for text, names in renderings(kb, t):
        name = "(?:" + "|".join(re.escape(n) for n in names) + ")"
        for m in re.finditer(rf"\b{_OWNER} ((?:[a-z]+-)*[a-z]+) of (?:the|a|an|{name})\b", text):
            if m.group(1) in relation_words:
                found.setdefault("a relation noun owned twice (a possessive and 'of')", m.group(0))
        for m in re.finditer(rf"\b(?:it|them|him|her) {_MEASURE}\b(?! (?:later|ago|earlier|before|after|on|apart|long))", text):
            found.setdefault("a measure without its number or preposition", m.group(0))
        for m in re.finditer(r"\b([A-Za-z]+) \1\b", text):
            if m.group(1).lower() not in ("had", "that", "very", "ha", "no", "bye", "so", "knock", "tut"):
                found.setdefault("a word written twice", m.group(0))
        for m in re.finditer(rf"\b(?:the|a|an|his|her|their|its|my|your|our) {name}\b(?!'s)", text):
            found.setdefault("an article or a possessive before a name", m.group(0))
        for m in re.finditer(rf"\b{name}'s(?=\s*(?:[.;:!?]|$))", text):
            found.setdefault("a possessive with nothing owned", m.group(0))
        for m in re.finditer(r"[.!?] [a-z]+", text):
            found.setdefault("a sentence starting in lower case", m.group(0))
    return [Flag("8", f"grammar as rendered: {what}", span) for what, span in found.items()]
