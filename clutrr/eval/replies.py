"""What the replies of a server say about themselves: truncation, token counts, faithful reasoning.

A reply is *cut* when the server's ``finish_reason`` is ``length`` (the ``--max-tokens``
limit). Token counts are the server's ``usage``: ``prompt_tokens``, ``completion_tokens``
and the reasoning tokens among them (``completion_tokens_details.reasoning_tokens``, or
``reasoning_tokens``), averaged over the replies that report them. Faithfulness is the
process reward's claim precision (:mod:`clutrr.llm.process`), averaged over the replies
whose reasoning states at least one claim, with the share whose true claims connect the
query's two people.
"""
from __future__ import annotations

from dataclasses import dataclass, field

TOKEN_KINDS = ("prompt", "completion", "reasoning")


def token_counts(usage: dict | None) -> dict[str, int]:
    """The prompt, completion and reasoning token counts a ``usage`` object reports."""
    if not isinstance(usage, dict):
        return {}
    out = {}
    for kind in ("prompt", "completion"):
        value = usage.get(f"{kind}_tokens")
        if isinstance(value, int) and not isinstance(value, bool):
            out[kind] = value
    details = usage.get("completion_tokens_details")
    value = details.get("reasoning_tokens") if isinstance(details, dict) else usage.get("reasoning_tokens")
    if isinstance(value, int) and not isinstance(value, bool):
        out["reasoning"] = value
    return out


@dataclass
class ReplyTally:
    """Replies of one group (e.g. one k): how many, how many cut, token sums, claim precision."""

    replies: int = 0
    cut: int = 0
    reported: int = 0  # replies with a finish_reason
    tokens: dict[str, list[int]] = field(default_factory=dict)  # kind -> [sum, replies reporting it]
    judged: int = 0  # replies whose reasoning states a claim
    precision_sum: float = 0.0
    connected: int = 0

    def add(self, finish_reason: str | None, usage: dict | None) -> None:
        """Count one reply."""
        self.replies += 1
        if finish_reason is not None:
            self.reported += 1
            self.cut += finish_reason == "length"
        for kind, value in token_counts(usage).items():
            total = self.tokens.setdefault(kind, [0, 0])
            total[0] += value
            total[1] += 1

    def add_claims(self, precision: float, connected: bool) -> None:
        """Count one reply's judged reasoning."""
        self.judged += 1
        self.precision_sum += precision
        self.connected += connected

    def mean_tokens(self, kind: str) -> float | None:
        """Mean tokens of ``kind`` over the replies reporting it, or None."""
        total = self.tokens.get(kind)
        return total[0] / total[1] if total and total[1] else None

    def to_dict(self) -> dict:
        """Plain JSON data."""
        return {"replies": self.replies, "finish_reported": self.reported, "cut_by_length": self.cut,
                "cut_share": self.cut / self.reported if self.reported else None,
                "tokens": {kind: {"sum": t[0], "replies": t[1], "mean": t[0] / t[1] if t[1] else None}
                           for kind, t in self.tokens.items()},
                "judged": self.judged, "precision": self.precision_sum / self.judged if self.judged else None,
                "connected_share": self.connected / self.judged if self.judged else None}

    @classmethod
    def from_dict(cls, d: dict) -> "ReplyTally":
        """The inverse of :meth:`to_dict`."""
        judged = int(d["judged"])
        return cls(int(d["replies"]), int(d["cut_by_length"]), int(d["finish_reported"]),
                   {k: [int(v["sum"]), int(v["replies"])] for k, v in d["tokens"].items()}, judged,
                   (d["precision"] or 0.0) * judged, round((d["connected_share"] or 0.0) * judged))
