"""Prompts for an item: chat messages (zero-shot or k-shot) or one plain text for base models.

A chat prompt is a list of messages (``{"role": ..., "content": ...}``), the format of
OpenAI-compatible chat-completions servers. Two styles are registered in :data:`STYLES`:

- ``tagged``: a system message lists the relation words and asks for one of them inside
  ``<answer></answer>`` after any reasoning; shots are user/assistant turns.
- ``plain``: one user message, no system role and no tags, as a person would ask in a chat.

``system_prompt`` replaces the system message (``{words}`` in it becomes the list of
relation words); a :class:`PromptTemplate` replaces each question's text, with the
placeholders ``{story}``, ``{head}``, ``{tail}``, ``{question}`` and ``{words}``. A story
told in a kinship system's terms (``clutrr generate --kinship``) carries a glossary, which
:func:`question_text` puts between the story and the question.
:func:`build_completion_prompt` writes one text ending in ``Answer:`` for a base model on
a completions endpoint. Shots come from :func:`select_shots`, a deterministic draw from
training items.
"""
from __future__ import annotations

import random
import re
import string
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
PLACEHOLDERS = ("story", "head", "tail", "question", "words")
COMPLETION_HEAD = ("Each story describes a family. The question \"How is A related to B?\" is answered with A's relation "
                   "to B: the word R in \"A is B's R\".\n\n")


class PromptTemplate:
    """A question text with placeholders ``{story}`` (names unbracketed), ``{head}``,
    ``{tail}``, ``{question}`` (story and question as in the default prompt) and
    ``{words}`` (the relation words, comma-separated). Literal braces are doubled."""

    def __init__(self, text: str) -> None:
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
        unknown = sorted(names - set(PLACEHOLDERS))
        if unknown:
            raise ValueError(f"unknown placeholder {{{unknown[0]}}} (use {', '.join('{%s}' % p for p in PLACEHOLDERS)})")
        if not names & {"story", "question"}:
            raise ValueError("the template shows no story: use {story} or {question}")
        self.text = text

    def fill(self, item: dict, words: list[str]) -> str:
        """The template's text for ``item``."""
        head, tail = item["query"]
        return self.text.format(story=strip_brackets(item["story"]), head=head, tail=tail,
                                question=item["question"], words=", ".join(words))


def strip_brackets(text: str) -> str:
    """The story without the ``[Name]`` brackets of CLUTRR files."""
    return re.sub(r"\[([^\[\]]*)\]", r"\1", text)


GLOSSARY_HEAD = "The relation words of this story mean, for any person X:"


def _defined(glossary: Sequence[str]) -> str:
    """The glossary block put between a story and its question ("" without one)."""
    return f"\n{GLOSSARY_HEAD}" + "".join(f"\n{line}" for line in glossary) if glossary else ""


def question_text(story: str, head: str, tail: str, glossary: Sequence[str] = ()) -> str:
    """The story and the question asking what ``tail`` is to ``head``; with a kinship system's
    ``glossary`` (definitions of the story's terms), the definitions between the two."""
    return f"{strip_brackets(story)}{_defined(glossary)}\nHow is {tail} related to {head}?"


def _ask(item: dict, words: list[str], template: PromptTemplate | None) -> str:
    return template.fill(item, words) if template else item["question"]


def _tagged(item: dict, shots: Sequence[dict], words: list[str], system: str | None,
            template: PromptTemplate | None) -> Messages:
    system = (system if system is not None else TAGGED_SYSTEM).replace("{words}", ", ".join(words))
    messages = [{"role": "system", "content": system.replace("{example}", words[0])}] if system else []
    for shot in shots:
        messages += [{"role": "user", "content": _ask(shot, words, template)},
                     {"role": "assistant", "content": f"<answer>{shot['answer']}</answer>"}]
    return messages + [{"role": "user", "content": _ask(item, words, template)}]


def _plain(item: dict, shots: Sequence[dict], words: list[str], system: str | None,
           template: PromptTemplate | None) -> Messages:
    request = "" if template else f"\n{PLAIN_REQUEST}"
    parts = [f"{_ask(shot, words, template)}{request}\nAnswer: {shot['answer']}" for shot in shots]
    parts.append(f"{_ask(item, words, template)}{request}")
    messages = [{"role": "system", "content": system.replace("{words}", ", ".join(words))}] if system else []
    return messages + [{"role": "user", "content": "\n\n".join(parts)}]


STYLES: dict[str, Callable[..., Messages]] = {"tagged": _tagged, "plain": _plain}


def build_messages(item: dict, shots: Sequence[dict] = (), style: str = "tagged", kb: str = "kinship",
                   system_prompt: str | None = None, template: PromptTemplate | None = None) -> Messages:
    """The chat messages asking ``item``'s question, after ``shots`` (items with answers).

    ``style`` is a key of :data:`STYLES`; ``kb`` gives the list of relation words;
    ``system_prompt`` replaces the style's system message ("" drops it); ``template``
    replaces the question text.
    """
    try:
        builder = STYLES[style]
    except KeyError:
        raise ValueError(f"unknown prompt style {style!r} (choose from {', '.join(STYLES)})") from None
    return builder(item, shots, list(load_kb(kb).words), system_prompt, template)


def build_completion_prompt(item: dict, shots: Sequence[dict] = (), kb: str = "kinship",
                            template: PromptTemplate | None = None) -> str:
    """One text for a base model: a line naming the task, the shots with their answers,
    then the question, ending in ``Answer:`` (stop the completion at a new line)."""
    words = list(load_kb(kb).words)
    parts = [f"{_ask(shot, words, template)}\nAnswer: {shot['answer']}" for shot in shots]
    parts.append(f"{_ask(item, words, template)}\nAnswer:")
    return COMPLETION_HEAD + "\n\n".join(parts)


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


# Questions of the other forms (--question; docs/questions.md): what the answer is, per form.
FORM_ANSWERS = {
    "person": ("The answer is one person's name from the story.", "Anna", "Answer with one name."),
    "people": ("The answer is the names of everyone in the story who holds that relation, separated by commas.",
               "Anna, Ben", "Answer with the names, separated by commas."),
    "count": ("The answer is a number.", "2", "Answer with a number."),
    "yesno": ("The answer is yes or no.", "yes", "Answer yes or no."),
}
FORM_SYSTEM = ("You answer questions about family relationships described in a short story. {what} "
               "Think step by step if it helps, then give the answer inside <answer></answer>, "
               "for example <answer>{example}</answer>.")


def form_question_text(story: str, question: str, glossary: Sequence[str] = ()) -> str:
    """The story (brackets removed) and a question of another form than relation; with a kinship
    system's ``glossary``, the definitions between the two."""
    return f"{strip_brackets(story)}{_defined(glossary)}\n{question}"


def build_form_messages(item: dict, style: str = "tagged", kb: str = "kinship",
                        system_prompt: str | None = None) -> Messages:
    """The chat messages asking the question of ``item`` (an item with a ``form``, see
    :mod:`clutrr.eval.forms`), zero-shot: ``tagged`` names the kind of answer and asks for it
    inside ``<answer></answer>``; ``plain`` asks in one user message with a request line. A
    ``relation`` question is asked as :func:`build_messages` asks it. ``system_prompt``
    replaces the system message ("" drops it)."""
    if style not in STYLES:
        raise ValueError(f"unknown prompt style {style!r} (choose from {', '.join(STYLES)})")
    if item["form"] == "relation":
        return build_messages(item, (), style, kb, system_prompt)
    what, example, request = FORM_ANSWERS[item["form"]]
    if style == "plain":
        system = [{"role": "system", "content": system_prompt}] if system_prompt else []
        return system + [{"role": "user", "content": f"{item['question']}\n{request}"}]
    system = FORM_SYSTEM.format(what=what, example=example) if system_prompt is None else system_prompt
    return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": item["question"]}]
