"""Replies of any length in the shapes that once made the answer readers slow (repetition
loops, run-on sentences, thousands of unclosed tags): shared by tests/test_answer_time.py
and benchmarks/bench_eval.py."""
from __future__ import annotations


def _repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + (unit * (size // len(unit) + 1))[: max(0, size - len(head) - len(tail))] + tail


def _numbered(unit: str, size: int, head: str = "") -> str:
    """``unit`` with ``{n}`` counting up, repeated to ``size`` characters: no two sentences
    alike, so nothing read once can be reused."""
    parts, length, n = [head], len(head), 0
    while length < size:
        part = unit.format(n=n)
        parts.append(part)
        length, n = length + len(part), n + 1
    return "".join(parts)[:size]


# name -> reply of about ``size`` characters
SHAPES = {
    "run-on so": lambda size: _repeat("so ", size, head="Renee is Edith's aunt so "),
    "run-on relation words": lambda size: _repeat("aunt ", size),
    "claims in one sentence": lambda size: _repeat("Renee is Edith's aunt and ", size),
    "lower-case claims": lambda size: _repeat("renee is edith's aunt, ", size),
    "claims in sentences": lambda size: _repeat("Renee is Edith's aunt. ", size),
    "relative clauses": lambda size: _repeat("Renee, who is Edith's aunt, ", size),
    "repeated names": lambda size: _repeat("Renee ", size),
    "repeated answer markers": lambda size: _repeat("the answer is ", size),
    "answers taken back": lambda size: _repeat("Answer: aunt. Wait ", size),
    "tentative sentences": lambda size: _repeat("Perhaps Renee is Edith's aunt. ", size),
    "conclusions": lambda size: _repeat("so aunt ", size),
    "negated conclusions": lambda size: _repeat("so not aunt ", size, head="Renee is Edith's aunt "),
    "negated answers": lambda size: _repeat("the answer is not aunt ", size, head="Renee is Edith's aunt. "),
    "reasons": lambda size: _repeat("aunt because ", size),
    "great-great": lambda size: _repeat("great-", size, tail="aunt"),
    "word then spaces": lambda size: _repeat(" ", size, head="son", tail="x"),
    "unclosed answer tags": lambda size: _repeat("<answer>", size),
    "unclosed think tags": lambda size: _repeat("<think>", size),
    "unclosed boxes": lambda size: _repeat("\\boxed{", size),
    "nested parentheses": lambda size: "(" * (size // 2) + ")" * (size // 2),
    "unclosed parentheses": lambda size: _repeat("(aunt ", size),
    "newlines then a parenthesis": lambda size: _repeat("\n", size, tail="("),
    "long number": lambda size: "1" * size,
    "hyphens": lambda size: _repeat("a-", size),
    "negations": lambda size: _repeat("not ", size, tail="aunt"),
    "numbered tentative sentences": lambda size: _numbered("Step {n}: perhaps Renee is Edith's aunt. ", size),
    "numbered corrections": lambda size: _numbered("Answer: aunt. Wait, step {n}: Renee is Edith's aunt. ", size),
    "claims about strangers": lambda size: _numbered("A{n} is B{n}'s aunt. ", size),
    "numbered conclusions": lambda size: _numbered("so not aunt {n} ", size, head="Renee is Edith's aunt "),
    "numbered reasons": lambda size: _numbered("Renee is Edith's aunt because {n}. ", size),
    "numbered claims in one sentence": lambda size: _numbered("Renee is Edith's aunt {n}, ", size),
    "articles": lambda size: _repeat("the aunt ", size),
    "numbered boxes": lambda size: _numbered("\\boxed{{aunt {n}}}", size),
    "numbered answer tags": lambda size: _numbered("<answer>aunt {n}</answer>", size),
    "numbered short sentences": lambda size: _numbered("aunt {n}. ", size),
    "numbered lines": lambda size: _numbered("so aunt {n}\n", size),
    "numbered clauses": lambda size: _numbered("aunt {n};", size),
    "non-ASCII claims": lambda size: _numbered("Ren\u00e9e is \u00c9dith's aunt {n}. ", size),
    "repeated copulas": lambda size: _repeat("is ", size, tail="Edith's aunt"),
    "apostrophes": lambda size: _repeat("'s ", size, tail="aunt"),
}
