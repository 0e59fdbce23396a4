"""Every answer reader takes time linear in the reply's length, in the worst shapes known
(tests/adversarial_replies.py): a reply four times longer may take at most ten times as
long (a reader quadratic in the length takes sixteen times as long). Times are the best
of several runs, so a loaded machine does not make the test flaky.

The readers bound their work with caps that can only withhold: past a cap a reply gets
no answer, or a reasoning a process score of 0, never more than it would otherwise."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from adversarial_replies import SHAPES

from clutrr.llm.extract import (MAX_MENTIONS, MAX_READS, MAX_SENTENCES, MAX_STATEMENT_MENTIONS, answer_tags,
                                extract_answer)
from clutrr.llm.process import MAX_CLAIM_PLACES, process_reward
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


# every reader a reward or a report runs on a reply
READERS = {
    "score_answer": lambda reply: score_answer(reply, ENTRY),
    "score_answer(think_open)": lambda reply: score_answer(reply, ENTRY, think_open=True),
    "answer_tags": answer_tags,
    "process_reward": lambda reply: process_reward(reply, ENTRY),
}


def read_everything(reply: str) -> None:
    """Every reader of :data:`READERS`, one after the other."""
    for read in READERS.values():
        read(reply)


def best_time(reply: str, runs: int, read=read_everything) -> float:
    """The least CPU time of ``runs`` readings by ``read`` (each of a fresh copy, so no cache answers)."""
    best = float("inf")
    for run in range(runs):
        text = f"Run {run}. {reply}"
        start = time.process_time()
        read(text)
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_time_grows_linearly(shape):
    small, large = SHAPES[shape](10_000), SHAPES[shape](40_000)
    ratio = best_time(large, 2) / max(best_time(small, 3), 1e-3)
    assert ratio < 10, f"{shape}: 4x the length took {ratio:.1f}x the time"


def test_a_reasoning_past_the_claim_cap_earns_nothing():
    chain = "Chloe is Edith's sister and Renee is Chloe's aunt, so Renee is Edith's aunt. "  # three claims
    conclusion = "Renee is Edith's aunt. "
    at_cap = chain * (MAX_CLAIM_PLACES // 3) + conclusion * (MAX_CLAIM_PLACES % 3)  # the claims repeated
    judged = process_reward(at_cap, ENTRY)
    assert judged.score == 1.0 and len(judged.claims) == 3
    past = process_reward(at_cap + conclusion, ENTRY)
    assert past.score == 0.0 and past.claims == []


def test_a_decision_reading_too_many_statements_gives_no_answer():
    # without a marker the last statement about the asked pair decides; the others are steps
    def reply(steps: int) -> str:
        return "Renee is Edith's aunt. " + "".join(f"A{n} is B{n}'s mother. " for n in range(steps))

    assert extract_answer(reply(MAX_READS - 1), query=("Edith", "Renee")) == "aunt"
    assert extract_answer(reply(MAX_READS), query=("Edith", "Renee")) is None


def test_a_statement_with_too_many_relation_words_gives_no_answer():
    assert extract_answer("aunt " * (MAX_STATEMENT_MENTIONS - 1) + "so Renee is Edith's aunt") == "aunt"
    assert extract_answer("aunt " * MAX_STATEMENT_MENTIONS + "so Renee is Edith's aunt") is None


def test_a_reply_of_too_many_sentences_gives_no_answer():
    answer = "Answer: aunt. "
    assert extract_answer(answer + "Step done. " * (MAX_SENTENCES - 1)) == "aunt"
    assert extract_answer(answer + "Step done. " * MAX_SENTENCES) is None


def test_several_boxes_or_tags_past_the_cap_give_no_answer():
    boxes = "".join(f"\\boxed{{aunt {n}}}" for n in range(MAX_READS + 1))
    tags = "".join(f"<answer>aunt {n}</answer>" for n in range(MAX_READS + 1))
    assert extract_answer(boxes[boxes.index("\\boxed", 1):]) == "aunt" and extract_answer(boxes) is None
    assert extract_answer(tags[tags.index("<answer>", 1):]) == "aunt" and extract_answer(tags) is None


def test_the_docs_state_the_caps():
    text = " ".join((Path(__file__).resolve().parents[1] / "docs" / "eval.md").read_text(encoding="utf-8").split())
    caps = {"MAX_MENTIONS": MAX_MENTIONS, "MAX_STATEMENT_MENTIONS": MAX_STATEMENT_MENTIONS, "MAX_READS": MAX_READS,
            "MAX_SENTENCES": MAX_SENTENCES, "MAX_CLAIM_PLACES": MAX_CLAIM_PLACES}
    for name, value in caps.items():
        assert f"more than {value:,}" in text and f"`{name}`" in text, name
