"""Every answer reader takes time linear in the reply's length, in the worst shapes known
(tests/adversarial_replies.py): a reply four times longer may take at most ten times as
long (a reader quadratic in the length takes sixteen times as long). Times are the best
of several runs, so a loaded machine does not make the test flaky."""
from __future__ import annotations

import time

import pytest
from adversarial_replies import SHAPES

from clutrr.llm.extract import answer_tags
from clutrr.llm.process import process_reward
from clutrr.rl import score_answer

ENTRY = {
    "answer": "aunt", "query": ["Edith", "Renee"],
    "metadata": {
        "people": [{"name": "Edith", "gender": "female"}, {"name": "Chloe", "gender": "female"},
                   {"name": "Renee", "gender": "female"}],
        "facts": [{"head": 0, "relation": "sister", "tail": 1}, {"head": 1, "relation": "aunt", "tail": 2}],
        "query_edge": [0, 2],
    },
}


def read_everything(reply: str) -> None:
    """Every reader a reward or a report runs on a reply."""
    score_answer(reply, ENTRY)
    score_answer(reply, ENTRY, think_open=True)
    answer_tags(reply)
    process_reward(reply, ENTRY)


def best_time(reply: str, runs: int) -> float:
    """The least CPU time of ``runs`` readings (each of a fresh copy, so no cache answers)."""
    best = float("inf")
    for run in range(runs):
        text = f"Run {run}. {reply}"
        start = time.process_time()
        read_everything(text)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_time_grows_linearly(shape):
    small, large = SHAPES[shape](10_000), SHAPES[shape](40_000)
    ratio = best_time(large, 2) / max(best_time(small, 3), 1e-3)
    assert ratio < 10, f"{shape}: 4x the length took {ratio:.1f}x the time"
