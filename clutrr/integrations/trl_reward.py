"""Reward functions with the signature of TRL's ``GRPOTrainer``.

TRL calls a reward function as ``fn(prompts=..., completions=..., completion_ids=..., **columns)``
where ``columns`` are the other dataset columns, one value per completion. With a dataset
from :func:`clutrr.rl.to_hf_dataset` these include ``answer`` and, for the process reward,
``people``, ``facts`` and ``query_edge``. Completions are texts, or (conversational) lists
of messages whose last one is the reply; a message's ``reasoning_content`` (or
``reasoning``) is judged by the process reward, never scored.

    from trl import GRPOConfig, GRPOTrainer
    from clutrr.integrations.trl_reward import make_reward
    trainer = GRPOTrainer(model=..., reward_funcs=[make_reward(format_bonus=0.1)], train_dataset=ds, ...)

No import of trl is needed here: the functions are plain Python.
"""
from __future__ import annotations

from collections.abc import Callable

from clutrr.rl.reward import reward


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
                name: str = "clutrr_reward") -> Callable[..., list[float]]:
    """A GRPO reward function: :func:`clutrr.rl.reward` of each completion, named ``name``
    (the name TRL logs it under). ``process_weight`` > 0 needs the ``people``, ``facts``
    and ``query_edge`` columns."""
    if format_bonus < 0 or not 0 <= process_weight <= 1:
        raise ValueError("format_bonus must be >= 0 and process_weight in [0, 1]")

    def clutrr_reward(completions: list, answer: list[str], **columns) -> list[float]:
        out = []
        for i, (completion, gold) in enumerate(zip(completions, answer, strict=True)):
            text, reasoning = _reply(completion)
            entry: dict = {"answer": gold}
            if columns.get("query") is not None:  # the names asked about: a reversed statement is no answer
                entry["query"] = columns["query"][i]
            if process_weight:
                entry["metadata"] = {key: columns[key][i] for key in ("people", "facts", "query_edge")}
            out.append(reward(text, entry, format_bonus, kb, process_weight, reasoning))
        return out

    clutrr_reward.__name__ = clutrr_reward.__qualname__ = name
    return clutrr_reward


clutrr_reward = make_reward()
