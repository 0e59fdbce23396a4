"""Template text as it is rendered: spacing, doubled punctuation, a capital first letter and
end punctuation repaired (:func:`normalise`)."""
from __future__ import annotations

import re

END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s*$")
_SPACE_BEFORE = re.compile(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b|\s+([,.;:!?])")
_AFTER_OPEN = re.compile(r"([(\[])\s+")
_BEFORE_CLOSE = re.compile(r"\s+([)\]])")
# Common misspellings of relation words, read and rendered as the word.
SPELLINGS = {"neice": "niece", "neices": "nieces", "grandaughter": "granddaughter", "grandaughters": "granddaughters",
             "daugther": "daughter", "daugter": "daughter", "daugthers": "daughters"}
MISSPELLED = re.compile(r"(?<![A-Za-z])(" + "|".join(SPELLINGS) + r")(?![A-Za-z])", re.I)
# "{B} 'daughter {C}", "{B}' son": a possessive typed without its s, before a kinship word
_BARE_POSSESSIVE = re.compile(r"(?<=[}\]\w])\s+'\s*(?=(?:grand)?(?:father|mother|son|daughter|brother|sister|husband|wife|uncle|aunt"
                              r"|nephew|niece|neice|child|children|kids?|parents?|sons|daughters|brothers|sisters|dad|mom|mum)\b)"
                              r"|(?<=[}\]])'\s*(?=(?:grand)?(?:father|mother|son|daughter|brother|sister|husband|wife)\b)")
_REPEATED = re.compile(r"([,;:])(?:\s*[,;:])+|,\s*([.!?])|(?<![.])\.(?:\s*\.)(?![.])")


def _respell(word: str) -> str:
    right = SPELLINGS[word.lower()]
    return right.capitalize() if word[:1].isupper() else right


def respell(text: str) -> str:
    """The text with common misspellings of relation words ("neice") written as the word."""
    return MISSPELLED.sub(lambda m: _respell(m.group(1)), text)


def repairs(text: str) -> list[tuple[str, str]]:
    """(what is repaired, the span) for each repair of :func:`normalise` that changes words:
    a misspelled relation word, a possessive typed without its s."""
    out = [("misspelled relation word", m.group(0)) for m in MISSPELLED.finditer(text)]
    out += [("possessive without its s", text[max(m.start() - 4, 0):m.end() + 8]) for m in _BARE_POSSESSIVE.finditer(text)]
    return out


def normalise(text: str) -> str:
    """Text as it is rendered: single spaces, no tokenised spacing (``does n't`` -> ``doesn't``,
    `` ,`` -> ``,``), no doubled punctuation, a capital first letter and end punctuation."""
    t = " ".join(text.split())
    if not t:
        return t
    t = respell(t)
    t = _BARE_POSSESSIVE.sub("'s ", t)
    t = _SPACE_BEFORE.sub(lambda m: m.group(1) or m.group(2), t)
    t = _AFTER_OPEN.sub(r"\1", _BEFORE_CLOSE.sub(r"\1", t))
    t = _REPEATED.sub(lambda m: m.group(1) or m.group(2) or ".", t)
    if t[0].islower():
        t = t[0].upper() + t[1:]
    if not END.search(t):
        t = t.rstrip(",;:-\u2013\u2014 ") + "."
    return t
