"""Print a fixed sample of fresh stories with what the checker reads in each piece.

The sample read by hand for docs/text.md: 50 stories (k = 2..20 in turn, each noise kind in
turn) and 10 long-context stories (500 words, depths 0, 0.5, 1 and spread), seed 31, test
split. For every piece the statements the parser reads against the piece's own facts are
counted, with any flag that drops a template (a false or ambiguous statement), and the rule 7
meaning checks run on the whole text.

    .venv/bin/python benchmarks/story_sample.py [N]     # the first N stories (default 60)
"""
from __future__ import annotations

import sys

from clutrr.core.kb import load_kb
from clutrr.core.noise import PATH_NOISE_KINDS  # the kinds the hand-read sample was drawn over (tasks 1-5)
from clutrr.render.statements import Facts, analyse, tokenize
from clutrr.render.world import meaning_flags
from clutrr.story.generator import GeneratorConfig, make_example

SEED = 31
DEPTHS = ("0.0", "0.5", "1.0", "spread")


def plan(n: int = 60) -> list[tuple[int, str, int, int, str]]:
    """(k, noise, index, context words, depth) of the first n stories of the sample."""
    out = []
    for i in range(min(n, 50)):
        out.append((2 + i % 19, PATH_NOISE_KINDS[i % len(PATH_NOISE_KINDS)], i, 0, "0.5"))
    for j in range(max(0, n - 50)):
        out.append((2 + (3 * j) % 19, PATH_NOISE_KINDS[j % len(PATH_NOISE_KINDS)], 50 + j, 500, DEPTHS[j % len(DEPTHS)]))
    return out


def piece_reading(kb, ex, piece) -> tuple[int, list[str]]:
    """The statements read in one piece of an example, and the flags that would drop it."""
    edges = [ex.edges[e] for e in piece.facts]
    people = [edges[0][0], *(b for _, _, b, _ in edges)]
    words = tuple(ex.words[e] for e in piece.facts)
    facts = Facts.of(kb, words, ex.genders[people[0]])
    names = {ex.names[p]: i for i, p in enumerate(people)}
    found, flags = analyse(tokenize(piece.text, facts.genders, names), facts, piece.text)
    return len(found), [str(f) for f in flags if f.drops and f.rule in ("4", "5", "6", "7")]


def main(n: int = 60) -> None:
    kb = load_kb("kinship")
    total = bad = 0
    for number, (k, noise, index, words, depth) in enumerate(plan(n), 1):
        config = GeneratorConfig(context_words=words, depth=depth)
        ex = make_example(config, k, noise, SEED, index, "test")
        rec = ex.record
        head, tail = rec["query"] if "query" in rec else (ex.names[ex.query[0]], ex.names[ex.query[1]])
        stated = 0
        problems = []
        for piece in ex.pieces:
            count, flags = piece_reading(kb, ex, piece)
            stated += count
            problems += flags
        problems += [str(f) for f in meaning_flags(rec["story"])]
        total += stated
        bad += len(problems)
        print(f"S{number} k={k} noise={noise} index={index}" + (f" words={words} depth={depth}" if words else "")
              + f" query=({ex.names[ex.query[0]]}, {ex.names[ex.query[1]]}) target={ex.target}"
              + f" statements={stated} problems={len(problems)}")
        for p in problems:
            print("  !", p)
        print("  " + rec["story"])
    print(f"{n} stories, {total} statements read in their pieces, {bad} problems")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
