"""A memo whose budget is counted in chain facts, so long chains cannot fill memory.

The generator keeps work per chain shape (render plans, text measures). At k=2 or 3 shapes
repeat and a few thousand are kept; at k=100 every chain is new, each entry is fifty times
larger, and a budget in entries would hold hundreds of megabytes of entries never read again.
"""
from __future__ import annotations

from typing import Any


class FactMemo(dict):
    """A dict forgotten whole once the facts of its entries would pass ``budget``."""

    def __init__(self, budget: int) -> None:
        super().__init__()
        self.budget = budget
        self.facts = 0

    def keep(self, key: Any, value: Any, facts: int) -> Any:
        """Store ``value`` (the work for a chain of ``facts`` facts) under ``key`` and return it."""
        if self.facts + facts > self.budget:
            self.clear()
        self[key] = value
        self.facts += facts
        return value

    def clear(self) -> None:
        """Forget every entry."""
        super().clear()
        self.facts = 0
