"""The text measures of a generated sample of stories (what ``clutrr paraphrases check`` reports)."""
from __future__ import annotations

import re
from itertools import cycle
from typing import Iterable

from clutrr.render.measures import TextTally
from clutrr.render.statements import sentences, tokenize
from clutrr.story.generator import GeneratorConfig, banks, make_example

SAMPLE_KS = range(2, 11)
FRAME_KS = {"train": (2, 3), "test": tuple(SAMPLE_KS)}  # the lengths each split is generated at by default
FRAME_SENTENCES = 1500
_NAME = re.compile(r"\[[^\]]+\]")


def sample_summary(source: str, fallback: str, kb_name: str = "kinship", per_k: int = 40,
                   ks: Iterable[int] = SAMPLE_KS, seed: int = 0) -> dict:
    """The :class:`TextTally` measures of a generated sample: ``per_k`` test stories with all
    noise for each k in ``ks``."""
    config = GeneratorConfig(kb=kb_name, templates=source, fallback_templates=fallback)
    tally = TextTally(banks(config, seed))
    for k in ks:
        for i in range(per_k):
            tally.add(make_example(config, k, "all", seed, i, "test").record)
    return tally.summary()


def story_sentences(rec: dict) -> list[tuple[str, bool]]:
    """(sentence frame, whether a person is named twice in it) for each sentence of a story
    record; a frame is the sentence with every name replaced by ``_``."""
    story = rec["story"]
    names = {p["name"]: i for i, p in enumerate(rec["people"])}
    out = []
    for sent in sentences(tokenize(story, [0] * len(names), names)):
        people = [t.ent for t in sent if t.kind == "ent" and t.ent >= 0]
        out.append((_NAME.sub("_", story[sent[0].start:sent[-1].end]), len(people) != len(set(people))))
    return out


def frame_summary(source: str, fallback: str, kb_name: str = "kinship", n_sentences: int = FRAME_SENTENCES,
                  seed: int = 0) -> dict:
    """Per split, the share of distinct sentence frames and of sentences naming someone twice
    among the first ``n_sentences`` sentences of stories generated for it (all noise, the
    lengths of :data:`FRAME_KS` in turn)."""
    config = GeneratorConfig(kb=kb_name, templates=source, fallback_templates=fallback)
    out = {}
    for split, ks in FRAME_KS.items():
        frames: list[tuple[str, bool]] = []
        for i, k in enumerate(cycle(ks)):
            if len(frames) >= n_sentences:
                break
            frames += story_sentences(make_example(config, k, "all", seed, i // len(ks), split).record)
        frames = frames[:n_sentences]
        out[split] = {"sentences": len(frames), "distinct_frames": round(len({f for f, _ in frames}) / len(frames), 4),
                      "repeated_name": round(sum(r for _, r in frames) / len(frames), 4)}
    return out
