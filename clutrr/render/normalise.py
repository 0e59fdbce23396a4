"""Template text as it is rendered: spacing, doubled punctuation, a capital first letter and
end punctuation repaired (:func:`normalise`)."""
from __future__ import annotations

import re

END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*\s*$")
_SPACE_BEFORE = re.compile(r"\s+(n't|'s|'re|'ve|'ll|'d|'m)\b|\s+([,.;:!?])")
_AFTER_OPEN = re.compile(r"([(\[])\s+")
_BEFORE_CLOSE = re.compile(r"\s+([)\]])")
_REPEATED = re.compile(r"([,;:])(?:\s*[,;:])+|,\s*([.!?])|(?<![.])\.(?:\s*\.)(?![.])")


def normalise(text: str) -> str:
    """Text as it is rendered: single spaces, no tokenised spacing (``does n't`` -> ``doesn't``,
    `` ,`` -> ``,``), no doubled punctuation, a capital first letter and end punctuation."""
    t = " ".join(text.split())
    if not t:
        return t
    t = _SPACE_BEFORE.sub(lambda m: m.group(1) or m.group(2), t)
    t = _AFTER_OPEN.sub(r"\1", _BEFORE_CLOSE.sub(r"\1", t))
    t = _REPEATED.sub(lambda m: m.group(1) or m.group(2) or ".", t)
    if t[0].islower():
        t = t[0].upper() + t[1:]
    if not END.search(t):
        t = t.rstrip(",;:-\u2013\u2014 ") + "."
    return t
