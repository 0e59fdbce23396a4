"""docs/text.md's hand-read samples hold: the sixty stories listed are what
benchmarks/story_sample.py draws (with no statement the parser reads as false), and the crowd
sample's judgments add up to the figures the page and `paraphrases check` report."""
from __future__ import annotations

import importlib.util
import re
from collections import Counter

from clutrr.commands.paraphrases import CROWD_DROPPED, CROWD_MISSED, CROWD_PRECISION
from clutrr.core.kb import load_kb
from clutrr.render.world import meaning_flags
from clutrr.story.generator import GeneratorConfig, make_example
from helpers import REPO

DOC = (REPO / "docs" / "text.md").read_text(encoding="utf-8")
ROW = re.compile(r"^\| S(\d+) \| (\d+) \| (\w+) \| (\d+) \| ([^|]+) \| (.+?) → (.+?): (\S+) \| (\d+) \| (\w+) \|$", re.M)


def _sample_module():
    spec = importlib.util.spec_from_file_location("story_sample", REPO / "benchmarks" / "story_sample.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sixty_listed_stories_are_the_sample_and_read_true():
    sample = _sample_module()
    rows = ROW.findall(DOC)
    assert len(rows) == 60 and all(r[9] == "ok" for r in rows)
    kb = load_kb("kinship")
    for row, (k, noise, index, words, depth) in zip(rows, sample.plan(60)):
        ex = make_example(GeneratorConfig(context_words=words, depth=depth), k, noise, sample.SEED, index, "test")
        shown = f"{words}, {depth}" if words else "-"
        assert row[:9] == (row[0], str(k), noise, str(index), shown, ex.names[ex.query[0]], ex.names[ex.query[1]],
                           ex.target, row[8])
        readings = [sample.piece_reading(kb, ex, piece) for piece in ex.pieces]
        assert sum(n for n, _ in readings) == int(row[8]) and all(flags == [] for _, flags in readings)
        assert meaning_flags(ex.record["story"]) == []
        if words:
            people = set(re.findall(r"\[([^\[\]]+)\]", ex.record["story"]))
            firsts = Counter(name.split()[0] for name in people)
            assert max(firsts.values()) == 1


def test_the_crowd_sample_judgments_add_up():
    drops = re.findall(r"\bD(\d+)\s+(\d|format)\s+(real|false\s+alarm)\b", DOC)
    kept = re.search(r"^Kept: (.*?)\.\n", DOC, re.M | re.S).group(1)
    kept_ids = re.findall(r"\bK(\d+)\b", kept)
    assert len(drops) == len(set(d for d, _, _ in drops)) == 40
    assert len(kept_ids) == len(set(kept_ids)) == 40 and not {d for d, _, _ in drops} & set(kept_ids)
    real = sum(1 for _, _, judgment in drops if judgment == "real")
    assert f"{real} of the 40 drops are real" in " ".join(DOC.split())
    missed = len(re.findall(r"K\d+: a defect the checker\s+misses", kept))
    assert (real, 40) == CROWD_PRECISION and (missed, 40) == CROWD_MISSED
    assert f"The checker drops {CROWD_DROPPED[0]} of them" in " ".join(DOC.split())
    assert f"{CROWD_DROPPED[1]} templates in file order" in " ".join(DOC.split())
