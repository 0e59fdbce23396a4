"""Model functions for ``clutrr eval --model`` tests: batched callables on plain-data items."""
from __future__ import annotations

CALLS: list[int] = []


def first_fact(items: list[dict]) -> list[str]:
    """Answer with the relation word of the story's first chain fact (a weak, real baseline)."""
    CALLS.append(len(items))
    return [item["metadata"]["facts"][0]["relation"] for item in items]


def with_probabilities(items: list[dict]) -> list[dict]:
    """Answer 'aunt' with a probability table."""
    return [{"prediction": "aunt", "probabilities": {"aunt": 0.6, "uncle": 0.4}} for _ in items]


def wrong_count(items: list[dict]) -> list[str]:
    """A broken model: one answer too few."""
    return ["aunt"] * (len(items) - 1)
