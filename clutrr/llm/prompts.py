"""Chat prompts for an item: zero-shot or k-shot, with an ``<answer>`` instruction or plain.

A prompt is a list of chat messages (``{"role": ..., "content": ...}``), the format of
OpenAI-compatible chat-completions servers. Two styles are registered in :data:`STYLES`:

- ``tagged``: a system message lists the relation words and asks for one of them inside
  ``<answer></answer>`` after any reasoning; shots are user/assistant turns.
- ``plain``: one user message, no system role and no tags, as a person would ask in a chat.

Shots come from :func:`select_shots`, a deterministic draw from training items.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from clutrr.core.kb import load_kb

Messages = list[dict[str, str]]

TAGGED_SYSTEM = (
    "You answer questions about family relationships described in a short story. "
    "The answer is one relation word from this list: {words}. "
    "Think step by step if it helps, then give the word inside <answer></answer>, "
    "for example <answer>{example}</answer>."
)
PLAIN_REQUEST = "Answer with one word for the relationship."


def strip_brackets(text: str) -> str:
    """The story without the ``[Name]`` brackets of CLUTRR files."""
    return re.sub(r"\[([^\[\]]*)\]", r"\1", text)


def question_text(story: str, head: str, tail: str) -> str:
    """The story and the question asking what ``tail`` is to ``head``."""
    return f"{strip_brackets(story)}\nHow is {tail} related to {head}?"


def _tagged(item: dict, shots: Sequence[dict], words: list[str]) -> Messages:
    system = TAGGED_SYSTEM.format(words=", ".join(words), example=words[0])
    messages = [{"role": "system", "content": system}]
    for shot in shots:
        messages += [{"role": "user", "content": shot["question"]},
                     {"role": "assistant", "content": f"<answer>{shot['answer']}</answer>"}]
    return messages + [{"role": "user", "content": item["question"]}]


def _plain(item: dict, shots: Sequence[dict], words: list[str]) -> Messages:
    parts = [f"{shot['question']}\n{PLAIN_REQUEST}\nAnswer: {shot['answer']}" for shot in shots]
    parts.append(f"{item['question']}\n{PLAIN_REQUEST}")
    return [{"role": "user", "content": "\n\n".join(parts)}]


STYLES: dict[str, Callable[[dict, Sequence[dict], list[str]], Messages]] = {"tagged": _tagged, "plain": _plain}


def build_messages(item: dict, shots: Sequence[dict] = (), style: str = "tagged", kb: str = "kinship") -> Messages:
    """The chat messages asking ``item["question"]``, after ``shots`` (items with answers).

    ``style`` is a key of :data:`STYLES`; ``kb`` gives the list of relation words.
    """
    try:
        builder = STYLES[style]
    except KeyError:
        raise ValueError(f"unknown prompt style {style!r} (choose from {', '.join(STYLES)})") from None
    return builder(item, shots, list(load_kb(kb).words))


def select_shots(pool: Sequence[dict], n: int, seed: int = 0) -> list[dict]:
    """``n`` items of ``pool`` drawn with ``seed``, with different answers where possible.

    The draw depends only on ``seed`` and the pool's order, so a run is repeatable.
    """
    if n < 0:
        raise ValueError("the number of shots must be non-negative")
    order = list(range(len(pool)))
    random.Random(seed).shuffle(order)
    picked: list[int] = []
    answers: set[str] = set()
    for i in order:
        if len(picked) == n:
            break
        if pool[i]["answer"] not in answers:
            picked.append(i)
            answers.add(pool[i]["answer"])
    picked += [i for i in order if i not in picked][: n - len(picked)]
    return [pool[i] for i in picked]
