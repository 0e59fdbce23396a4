"""Scores and rewards for a model's reply to an item (reasoning-gym's ``score_answer`` convention).

Every function here reads a reply by the answer protocol of :mod:`clutrr.llm.extract`:
reasoning blocks are never read, an unclosed one means no answer, an explicit answer
marker decides. A reply whose final answer is wrong earns nothing, whatever its format or
reasoning: the format bonus and the process part only shape the reward of a right answer.
"""
from __future__ import annotations

from collections.abc import Sequence

from clutrr.llm.extract import THINK_TAGS, answer_tags, extract_answer
from clutrr.llm.process import process_reward


def score_answer(answer: str | None, entry: dict, kb: str = "kinship", think_tags: Sequence[str] = THINK_TAGS) -> float:
    """1.0 if ``answer`` names the relation ``entry["answer"]``, else 0.0.

    ``answer`` may be a bare word in any case, spacing, hyphenation or number ("Son In
    Law", "sisters"), a KB alias or informal word ("grandma"), or a reply read by
    :func:`clutrr.llm.extract.extract_answer` ("Crystal is Howard's wife",
    "<think>…</think><answer>wife</answer>") with the item's query names, so a statement
    of the pair reversed or of other people is no answer. Unparsable text scores 0.
    """
    if not answer:
        return 0.0
    got = extract_answer(answer, kb, think_tags, query_names(entry))
    return 1.0 if got is not None and got == extract_answer(entry["answer"], kb) else 0.0


def query_names(entry: dict) -> tuple[str, str] | None:
    """The (head, tail) names an item asks about ("how is tail related to head?"): its
    ``query``, else the people of its ``metadata.query_edge``; None when it has neither."""
    query = entry.get("query")
    if query and len(query) == 2:
        return str(query[0]).strip("[]"), str(query[1]).strip("[]")
    meta = entry.get("metadata") or {}
    edge, people = meta.get("query_edge"), meta.get("people")
    if edge and people:
        return people[edge[0]]["name"], people[edge[1]]["name"]
    return None


def has_answer_tag(text: str | None, think_tags: Sequence[str] = THINK_TAGS) -> bool:
    """Whether ``text`` holds exactly one ``<answer>…</answer>`` pair outside its reasoning blocks."""
    return bool(text) and answer_tags(text, think_tags) == 1


def reward(completion: str | None, entry: dict, format_bonus: float = 0.0, kb: str = "kinship",
           process_weight: float = 0.0, reasoning: str | None = None,
           think_tags: Sequence[str] = THINK_TAGS) -> float:
    """The training reward of ``completion`` for ``entry``: 0 for a wrong or unreadable
    answer; for a right one ``(1 - w) + w * process`` plus ``format_bonus`` when the
    completion holds exactly one ``<answer>…</answer>`` pair outside its reasoning.

    ``w = process_weight`` (0..1) mixes in :func:`clutrr.rl.process.process_reward`'s
    score of the reasoning (``reasoning`` is a server's separate reasoning text, if any).
    With the defaults this is :func:`score_answer`.
    """
    if format_bonus < 0:
        raise ValueError("format_bonus must be non-negative")
    if not 0.0 <= process_weight <= 1.0:
        raise ValueError("process_weight must be between 0 and 1")
    if process_weight and not {"people", "facts", "query_edge"} <= set(entry.get("metadata") or {}):
        raise ValueError("process_weight needs the entry's metadata with people, facts and query_edge")
    if not score_answer(completion, entry, kb, think_tags):
        return 0.0
    value = 1.0
    if process_weight:
        value = 1.0 - process_weight + process_weight * process_reward(completion, entry, reasoning, kb).score
    if format_bonus and has_answer_tag(completion, think_tags):
        value += format_bonus
    return value
