"""Scores and rewards for a model's answer to an item (reasoning-gym's ``score_answer`` convention)."""
from __future__ import annotations

from clutrr.llm.extract import TAG_CLOSE, TAG_OPEN, extract_answer


def score_answer(answer: str | None, entry: dict, kb: str = "kinship") -> float:
    """1.0 if ``answer`` names the relation ``entry["answer"]``, else 0.0.

    ``answer`` may be a bare word in any case, spacing, hyphenation or number ("Son In
    Law", "sisters"), a KB alias, or free text read by :func:`clutrr.llm.extract.extract_answer`
    ("Crystal is Howard's wife", "<answer>wife</answer>"). Unparsable text scores 0.
    """
    if not answer:
        return 0.0
    got = extract_answer(answer, kb)
    return 1.0 if got is not None and got == extract_answer(entry["answer"], kb) else 0.0


def has_answer_tag(text: str | None) -> bool:
    """Whether ``text`` holds exactly one ``<answer>…</answer>`` pair."""
    return bool(text) and len(TAG_OPEN.findall(text)) == 1 and len(TAG_CLOSE.findall(text)) == 1


def reward(completion: str | None, entry: dict, format_bonus: float = 0.0, kb: str = "kinship") -> float:
    """The training reward: 1 for the right relation, 0 otherwise, plus ``format_bonus``
    when the completion holds exactly one ``<answer>…</answer>`` pair.

    With the default ``format_bonus=0`` this is :func:`score_answer`; a small bonus (e.g.
    0.1) rewards the answer format early in training without outweighing correctness.
    """
    if format_bonus < 0:
        raise ValueError("format_bonus must be non-negative")
    return score_answer(completion, entry, kb) + (format_bonus if has_answer_tag(completion) else 0.0)
