"""Where a story's sentences go in a long context, and how long a text is.

Lengths are counted in words (whitespace-separated tokens): a measure every reader can
reproduce without a tokenizer.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

SPREAD = "spread"


def count_words(text: str) -> int:
    """Whitespace-separated tokens of ``text``."""
    return len(text.split())


def parse_depth(text: str) -> str:
    """A depth as the canonical string the records carry: ``spread``, or a number in [0, 1]
    (``0`` = the story's sentences first, ``1`` = last). Raises ValueError otherwise."""
    if text == SPREAD:
        return SPREAD
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"depth must be a number in [0, 1] or {SPREAD!r}, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"depth must be a number in [0, 1] or {SPREAD!r}, got {text!r}")
    return repr(value)


@dataclass(frozen=True)
class Placed:
    """A padded text's pieces in order, and where the chain's sentences ended up."""

    texts: list[str]
    words: int
    chain_first_word: int  # index of the first word of the first chain sentence
    chain_last_word: int  # index of the last word of the last chain sentence


def _slots(padding_words: list[int], offsets: list[float]) -> list[int]:
    """For each word offset, the boundary between padding pieces whose offset is nearest (the earlier on a tie)."""
    starts = [0]
    for n in padding_words:
        starts.append(starts[-1] + n)
    out = []
    for x in offsets:
        j = bisect_left(starts, x)
        if j == len(starts) or (j > 0 and x - starts[j - 1] <= starts[j] - x):
            j -= 1
        out.append(j)
    return out


def place(story: list[str], chain: list[bool], padding: list[str], depth: str) -> Placed:
    """Put the story's pieces (in their order; ``chain[i]`` marks a chain sentence) among the
    padding pieces: together, starting at the share ``depth`` of the padding's words, or with
    ``depth == "spread"`` one at a time at evenly spaced offsets ((i + 1/2) / n of the padding)."""
    padding_words = [count_words(t) for t in padding]
    total_padding = sum(padding_words)
    n = len(story)
    if depth == SPREAD:
        slots = _slots(padding_words, [(i + 0.5) / n * total_padding for i in range(n)])
    else:
        slots = _slots(padding_words, [float(depth) * total_padding]) * n
    texts: list[str] = []
    first = last = -1
    words = 0
    s = 0
    for j in range(len(padding) + 1):
        while s < n and slots[s] == j:
            w = count_words(story[s])
            if chain[s]:
                first = words if first < 0 else first
                last = words + w - 1
            texts.append(story[s])
            words += w
            s += 1
        if j < len(padding):
            texts.append(padding[j])
            words += padding_words[j]
    return Placed(texts, words, first, last)
