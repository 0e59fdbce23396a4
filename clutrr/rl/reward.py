"""Scores and rewards for a model's reply to an item (reasoning-gym's ``score_answer`` convention).

Every function here reads a reply by the answer protocol of :mod:`clutrr.llm.extract`:
reasoning blocks are never read, an unclosed one means no answer, an explicit answer
marker decides. A reply whose final answer is wrong earns nothing, whatever its format or
reasoning: the format bonus and the process part only shape the reward of a right answer.

An item's ``form`` (docs/questions.md; ``relation`` when absent) says how its answer is read
and scored: a relation word by :func:`clutrr.llm.extract.extract_answer`, a name, names, a
count or yes/no by :func:`clutrr.llm.form_answers.read_form_answer`. A right answer is the
exact one: the same name, count or yes/no, the same set of names in any order for ``people``
(:func:`set_f1` measures a partial set; it is a metric, never paid).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clutrr.eval.forms import score
from clutrr.llm.extract import THINK_TAGS, ThinkTag, answer_tags, extract_answer
from clutrr.llm.form_answers import read_form_answer
from clutrr.llm.process import ProcessResult, process_reward
from clutrr.questions.forms import RELATION, typed_answer


def form_of(entry: dict) -> str:
    """The question form of an item: its ``form``, else its ``metadata.form`` (reasoning-gym
    entries kept as question, answer and metadata), else ``relation``."""
    return entry.get("form") or (entry.get("metadata") or {}).get("form") or RELATION


def read_answer(text: str | None, entry: dict, kb: str = "kinship", think_tags: Sequence[ThinkTag] = THINK_TAGS,
                think_open: bool = False):
    """The answer ``text`` gives to ``entry``'s question by the answer protocol, or None: a
    relation word, or for another form a name, a list of names, an int or "yes"/"no" (read
    with the story's names, from the entry's ``metadata.people``)."""
    form = form_of(entry)
    if form == RELATION:
        return extract_answer(text, kb, think_tags, query_names(entry), think_open) if text else None
    people = (entry.get("metadata") or {}).get("people")
    if not people:
        raise ValueError(f"a {form} question needs the entry's metadata with its people (the story's names)")
    return read_form_answer(text, form, [p["name"] for p in people], entry.get("query") or (), kb, think_tags,
                            think_open)


def _graded(answer: str | None, entry: dict, kb: str, think_tags: Sequence[ThinkTag],
            think_open: bool) -> tuple[bool, float]:
    """(exact match, set F1) of the reply ``answer`` to a question of another form than relation."""
    form = form_of(entry)
    return score(form, typed_answer(form, entry["answer"]), read_answer(answer, entry, kb, think_tags, think_open))


def set_f1(answer: str | None, entry: dict, kb: str = "kinship", think_tags: Sequence[ThinkTag] = THINK_TAGS,
           think_open: bool = False) -> float:
    """The set F1 of the names ``answer`` gives to a ``people`` question (1.0 for the exact
    set, 0.0 without an answer); for the other forms, :func:`score_answer`. A metric for
    partial sets: rewards pay the exact set only."""
    if form_of(entry) == RELATION:
        return score_answer(answer, entry, kb, think_tags, think_open)
    return _graded(answer, entry, kb, think_tags, think_open)[1]


def score_answer(answer: str | None, entry: dict, kb: str = "kinship", think_tags: Sequence[ThinkTag] = THINK_TAGS,
                 think_open: bool = False) -> float:
    """1.0 if ``answer`` gives ``entry``'s answer, else 0.0: for a relation question, the
    relation ``entry["answer"]``; for another form, exactly its name, set of names, count or
    yes/no (``entry["answer"]`` typed, or as :func:`clutrr.questions.forms.answer_text`
    writes it), read by :func:`read_answer`.

    ``answer`` may be a bare word in any case, spacing, hyphenation or number ("Son In
    Law", "sisters"), a KB alias or informal word ("grandma"), or a reply read by
    :func:`clutrr.llm.extract.extract_answer` ("Crystal is Howard's wife",
    "<think>…</think><answer>wife</answer>") with the item's query names, so a statement
    of the pair reversed or of other people is no answer. Unparsable text scores 0. With
    ``think_open`` the reply starts inside a reasoning block (a chat template that puts
    ``<think>`` in the prompt): without its closing tag it has no answer.
    """
    if not answer:
        return 0.0
    if form_of(entry) != RELATION:
        return float(_graded(answer, entry, kb, think_tags, think_open)[0])
    got = extract_answer(answer, kb, think_tags, query_names(entry), think_open)
    return 1.0 if got is not None and got == extract_answer(entry["answer"], kb) else 0.0


def query_names(entry: dict) -> tuple[str, str] | None:
    """The (head, tail) names a relation item asks about ("how is tail related to head?"):
    its ``query``, else the people of its ``metadata.query_edge``; None when it has neither."""
    query = entry.get("query")
    if query and len(query) == 2:
        return str(query[0]).strip("[]"), str(query[1]).strip("[]")
    meta = entry.get("metadata") or {}
    edge, people = meta.get("query_edge"), meta.get("people")
    if edge and people:
        return people[edge[0]]["name"], people[edge[1]]["name"]
    return None


def has_answer_tag(text: str | None, think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False) -> bool:
    """Whether ``text`` holds exactly one ``<answer>…</answer>`` pair outside its reasoning blocks."""
    return bool(text) and answer_tags(text, think_tags, think_open) == 1


PROCESS_COLUMNS = ("people", "facts", "query_edge")


@dataclass(frozen=True)
class RewardParts:
    """The parts of a reward: whether the answer is right, whether it stands in exactly one
    ``<answer>`` tag, and the process score of its reasoning (0 for a wrong answer, and
    for a right one when no process part is asked for)."""

    correct: float
    format: float
    process: float

    def total(self, format_bonus: float = 0.0, process_weight: float = 0.0) -> float:
        """``(1 - w) * correct + w * process + format_bonus * format``: 0 for a wrong answer."""
        if not self.correct:
            return 0.0
        value = 1.0 if not process_weight else 1.0 - process_weight + process_weight * self.process
        return value + format_bonus * self.format if format_bonus else value


def check_weights(format_bonus: float, process_weight: float) -> None:
    """A ValueError unless ``format_bonus`` >= 0 and 0 <= ``process_weight`` <= 1."""
    if format_bonus < 0:
        raise ValueError("format_bonus must be non-negative")
    if not 0.0 <= process_weight <= 1.0:
        raise ValueError("process_weight must be between 0 and 1")


def reward_parts(completion: str | None, entry: dict, kb: str = "kinship", process: bool = False,
                 reasoning: str | None = None, think_tags: Sequence[ThinkTag] = THINK_TAGS,
                 think_open: bool = False) -> RewardParts:
    """The :class:`RewardParts` of ``completion`` for ``entry``; the process score only
    with ``process`` (it needs the entry's metadata with people, facts and query_edge)."""
    if process and not set(PROCESS_COLUMNS) <= set(entry.get("metadata") or {}):
        raise ValueError("process_weight needs the entry's metadata with people, facts and query_edge")
    if not score_answer(completion, entry, kb, think_tags, think_open):
        return RewardParts(0.0, 0.0, 0.0)
    judged = process_score(process_reward(completion, entry, reasoning, kb), form_of(entry)) if process else 0.0
    return RewardParts(1.0, float(has_answer_tag(completion, think_tags, think_open)), judged)


def process_score(result: ProcessResult, form: str = RELATION) -> float:
    """The process part of a reward: the process reward's score for a relation question; for
    another form, which names no pair to connect, the claims' precision, halved after a false
    claim (0 without a derived claim)."""
    if form == RELATION:
        return result.score
    if result.precision is None:
        return 0.0
    return result.precision / 2 if result.first_false else result.precision


def reward(completion: str | None, entry: dict, format_bonus: float = 0.0, kb: str = "kinship",
           process_weight: float = 0.0, reasoning: str | None = None,
           think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False) -> float:
    """The training reward of ``completion`` for ``entry``: 0 for a wrong or unreadable
    answer; for a right one ``(1 - w) + w * process`` plus ``format_bonus`` when the
    completion holds exactly one ``<answer>…</answer>`` pair outside its reasoning.

    ``w = process_weight`` (0..1) mixes in :func:`clutrr.llm.process.process_reward`'s
    score of the reasoning (``reasoning`` is a server's separate reasoning text, if any).
    With the defaults this is :func:`score_answer`. The TRL reward and the verifiers
    rubric of :mod:`clutrr.integrations` return this same number (:class:`RewardParts`).
    """
    check_weights(format_bonus, process_weight)
    parts = reward_parts(completion, entry, kb, bool(process_weight), reasoning, think_tags, think_open)
    return parts.total(format_bonus, process_weight)
