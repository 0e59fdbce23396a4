"""Reward functions with the signature of TRL's ``GRPOTrainer``.

TRL calls a reward function as ``fn(prompts=..., completions=..., completion_ids=..., **columns)``
where ``columns`` are the other dataset columns, one value per completion. With a dataset
from :func:`clutrr.rl.to_hf_dataset` these include ``answer``, ``form`` (the question form:
a row of another form than relation is read with the story's names, from ``people``) and, for
the process reward, ``people``, ``facts`` and ``query_edge``. Completions are texts, or (conversational) lists
of messages whose last one is the reply; a message's ``reasoning_content`` (or
``reasoning``) is judged by the process reward, never scored.

    from trl import GRPOConfig, GRPOTrainer
    from clutrr.integrations.trl_reward import make_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[make_reward(format_bonus=0.1)], train_dataset=ds, ...)

No import of trl is needed here: the functions are plain Python.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from clutrr.llm.extract import THINK_TAGS, ThinkTag
from clutrr.questions.forms import RELATION
from clutrr.rl.reward import PROCESS_COLUMNS, check_weights, reward


def _reply(completion) -> tuple[str, str | None]:
    """(text, reasoning) of a plain or conversational completion."""
    if isinstance(completion, str):
        return completion, None
    if isinstance(completion, list) and completion and isinstance(completion[-1], dict):
        last = completion[-1]
        reasoning = last.get("reasoning_content") or last.get("reasoning")
        return str(last.get("content") or ""), reasoning if isinstance(reasoning, str) else None
    return "", None


def make_reward(format_bonus: float = 0.0, process_weight: float = 0.0, kb: str = "kinship",
                name: str = "clutrr_reward", think_open: bool = False,
                think_tags: Sequence[ThinkTag] = THINK_TAGS) -> Callable[..., list[float]]:
    """A GRPO reward function: :func:`clutrr.rl.reward` of each completion, named ``name``
    (the name TRL logs it under). It needs the ``answer`` and ``query`` columns, the
    ``people`` column for rows whose ``form`` column names another form than relation, and
    with ``process_weight`` > 0 the ``people``, ``facts`` and ``query_edge`` columns too: a
    missing one is a one-line ValueError at the first call. ``think_open``: the
    completions start inside a reasoning block (the chat template opens it in the prompt)."""
    check_weights(format_bonus, process_weight)
    needed = ("answer", "query") + (PROCESS_COLUMNS if process_weight else ())

    def clutrr_reward(completions: list, **columns) -> list[float]:
        forms = columns.get("form") or [RELATION] * len(completions)
        named = needed + (("people",) if any(f != RELATION for f in forms) else ())
        missing = [key for key in dict.fromkeys(named) if columns.get(key) is None]
        if missing:
            raise ValueError(f"{name} needs the dataset column(s) {', '.join(missing)} "
                             "(a dataset from clutrr.rl.to_hf_dataset has them)")
        out = []
        for i, completion in enumerate(completions):
            text, reasoning = _reply(completion)
            entry: dict = {"answer": columns["answer"][i], "query": columns["query"][i], "form": forms[i]}
            kept = PROCESS_COLUMNS if process_weight else ("people",) if forms[i] != RELATION else ()
            if kept:
                entry["metadata"] = {key: columns[key][i] for key in kept}
            out.append(reward(text, entry, format_bonus, kb, process_weight, reasoning, think_tags, think_open))
        return out

    clutrr_reward.__name__ = clutrr_reward.__qualname__ = name
    return clutrr_reward


clutrr_reward = make_reward()
