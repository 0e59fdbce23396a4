"""The text measures of a generated sample of stories (what ``clutrr paraphrases check`` reports)."""
from __future__ import annotations

from typing import Iterable

from clutrr.render.measures import TextTally
from clutrr.story.generator import GeneratorConfig, banks, make_example

SAMPLE_KS = range(2, 11)


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
