"""Evaluation throughput: stories scored per CPU-second from a predictions file, and prompts built per second.

    python benchmarks/bench_eval.py [--data DIR] [--rows 1000] [--repeat 5]

Without --data it generates a folder (test k=2..10, ``--rows`` stories each) in a temporary
directory first (not timed). It then times, in CPU seconds of this process:

- reading the dataset folder (``load_eval_set``);
- ``evaluate`` on a predictions file of bare relation words (a classifier's output), on
  one of free-text sentences ("Mia is Carla's daughter.", unique per story, so every answer
  goes through the full extraction), and on one of reasoning-model replies (a ``<think>``
  block stating the chain's facts, then an ``<answer>`` tag; the report then judges every
  claim against the story, the faithfulness column);
- building chat prompts for every story, zero-shot and 5-shot;
- every answer reader (``score_answer`` with and without ``think_open``, ``answer_tags``,
  ``process_reward``) on adversarial replies of 10, 40 and 100 KB in each shape of
  tests/adversarial_replies.py (repetition loops, run-on sentences, unclosed tags, numbered
  steps so nothing repeats...): the slowest shape at each size for each reader and for all
  four in turn, in CPU seconds (goal: under 0.2 s at 100 KB for all four).
  ``--shapes-only`` times only these.

Goals: at least 50,000 relation words and 10,000 free-text replies scored per CPU-second.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from clutrr.eval import evaluate, load_eval_set
from clutrr.llm.prompts import build_messages, select_shots

REPO = Path(__file__).resolve().parents[1]


def cpu_seconds(fn, repeat: int) -> tuple[float, object]:
    """The least CPU time of ``repeat`` calls of ``fn`` and its last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        best = min(best, time.process_time() - start)
    return best, result


def _reasoning_reply(row) -> str:
    """A reasoning model's reply: the chain's facts in a think block, then the answer tag."""
    names = [name for name, _ in row.genders]
    steps = " ".join(f"{names[b]} is {names[a]}'s {word}." for (a, b), word in zip(row.story_edges, row.edge_types))
    head, tail = row.query
    return f"<think>{steps} So {tail} is {head}'s {row.target}.</think>\n<answer>{row.target}</answer>"


def worst_shapes(sizes_kb: list[int], repeat: int) -> list[tuple[int, str, str, float]]:
    """(size in KB, reader, its slowest shape, that shape's CPU seconds) for each size of
    ``sizes_kb`` and each reader of tests/test_answer_time.py, then for all of them in turn
    (reader ``"all readers"``: what a reward with a process part and a report spend)."""
    sys.path.insert(0, str(REPO / "tests"))
    from adversarial_replies import SHAPES
    from test_answer_time import READERS, best_time, read_everything

    for make in SHAPES.values():  # compile every pattern first: a compilation is no reading time
        read_everything(make(1000))
    out = []
    for kb in sizes_kb:
        replies = {name: make(kb * 1000) for name, make in SHAPES.items()}
        for reader, read in [*READERS.items(), ("all readers", read_everything)]:
            times = {name: best_time(reply, repeat, read) for name, reply in replies.items()}
            name = max(times, key=times.get)
            out.append((kb, reader, name, times[name]))
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", help="an existing dataset folder (default: generate one)")
    p.add_argument("--rows", type=int, default=1000, help="stories per test file when generating (1000)")
    p.add_argument("--repeat", type=int, default=5, help="timed repetitions; the fastest counts (5)")
    p.add_argument("--shapes-only", action="store_true", help="time only the adversarial reply shapes")
    p.add_argument("--reply-kb", default="10,40,100", help="adversarial reply sizes in KB (10,40,100)")
    args = p.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}")
    print("slowest adversarial reply shape, per reader (CPU-s):")
    for kb, reader, name, seconds in worst_shapes([int(kb) for kb in args.reply_kb.split(",")], min(args.repeat, 3)):
        print(f"  {kb:>3} KB  {reader:<26}{seconds:.3f}  ({name})")
    if args.shapes_only:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        data = Path(args.data) if args.data else tmp / "data"
        if not args.data:
            subprocess.run([sys.executable, str(REPO / "generate.py"), "--quiet", "--k", "2", "--train-rows", "200",
                            "--test-k", "2..10", "--test-rows", str(args.rows), "--out", str(data), "--workers", "2"],
                           check=True)
        load_s, data_set = cpu_seconds(lambda: load_eval_set(data), 1)
        n = len(data_set)
        words = tmp / "words.jsonl"
        words.write_text("".join(json.dumps({"id": g.id, "prediction": g.row.target}) + "\n"
                                 for g in data_set.golds), encoding="utf-8")
        text = tmp / "text.jsonl"
        text.write_text("".join(json.dumps({"id": g.id, "prediction": f"{g.row.query[1]} is {g.row.query[0]}'s "
                                            f"{g.row.target}."}) + "\n" for g in data_set.golds), encoding="utf-8")
        think = tmp / "think.jsonl"
        think.write_text("".join(json.dumps({"id": g.id, "prediction": _reasoning_reply(g.row)}) + "\n"
                                 for g in data_set.golds), encoding="utf-8")
        words_s, r1 = cpu_seconds(lambda: evaluate(data_set, words), args.repeat)
        text_s, r2 = cpu_seconds(lambda: evaluate(data_set, text), 1)  # once: answers are cached after
        think_s, r3 = cpu_seconds(lambda: evaluate(data_set, think), 1)
        assert r1.overall.correct == n and r2.overall.correct == n and r3.overall.correct == n
        assert all(t.precision_sum == t.judged for t in r3.replies.values())
        items = data_set.items(answer=False)
        shots = select_shots(data_set.train_items(), 5, 0)
        zero_s, _ = cpu_seconds(lambda: [build_messages(i) for i in items], args.repeat)
        five_s, _ = cpu_seconds(lambda: [build_messages(i, shots) for i in items], args.repeat)

    print(f"dataset: {n} test stories in {len(data_set.splits)} files")
    print(f"read dataset folder:            {n / load_s:>10,.0f} stories/CPU-s ({load_s:.2f} s)")
    print(f"score file of relation words:   {n / words_s:>10,.0f} stories/CPU-s ({words_s * 1000:.0f} ms)")
    print(f"score file of free-text answers:{n / text_s:>10,.0f} stories/CPU-s ({text_s * 1000:.0f} ms)")
    print(f"score reasoning replies:        {n / think_s:>10,.0f} stories/CPU-s ({think_s * 1000:.0f} ms), "
          "every claim judged")
    print(f"build zero-shot prompts:        {n / zero_s:>10,.0f} prompts/CPU-s")
    print(f"build 5-shot prompts:           {n / five_s:>10,.0f} prompts/CPU-s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
