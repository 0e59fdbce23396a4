"""Connected distractors: true facts about the story's own family, joined to its people.

Noise of kind ``connected`` adds ``n`` facts one at a time. Each states the one relation
between a person already in the story (on the chain, or brought in by an earlier distractor)
and another person of the same family: someone new, or someone already in the story. So the
story's facts form one connected graph around the chain, and the query's two people are
joined by many paths, not only by the chain. Rules kept:

- every fact is a single, true relation of the family, stated by an allowed word;
- no fact joins two people of the chain (the chain stays the shortest account of its own
  people, and the query pair is never stated);
- no pair of people is stated twice (in either direction);
- the story never names more men or women than the name lists hold.

Nothing else is needed for the label: under a sound KB the facts entail only true
relations, and the query pair holds exactly one (the generator checks this per story).
"""
from __future__ import annotations

import random

from clutrr.core.chainer import Chain
from clutrr.core.family import Family
from clutrr.core.kb import random_bit
from clutrr.core.names import load_names
from clutrr.core.noise import speakable
from clutrr.core.vocabulary import WordMask

CONNECTED = "connected"
MAX_NOISE_FACTS = 1000
PICKS_PER_FACT = 64  # people tried as a fact's first person before the family is given up

Fact = tuple[int, int, int]


def connected_facts(family: Family, chain: Chain, n: int, rng: random.Random,
                    allowed: WordMask | None = None) -> list[Fact] | None:
    """``n`` distractor facts ``(a, predicate, b)`` (family ids) as the module docstring says,
    or None when the family has no room for them."""
    out, _ = speakable(family, allowed)
    pools = load_names()
    room = [len(pools["male"]), len(pools["female"])]
    genders = family.genders
    on_chain = 0
    for p in chain.people:
        on_chain |= 1 << p
    story = list(dict.fromkeys(chain.people))
    in_story = on_chain
    for p in story:
        room[genders[p]] -= 1
    stated: dict[int, int] = {}  # person -> the people a fact already joins them to
    for a, _, b in chain.facts():
        stated[a] = stated.get(a, 0) | 1 << b
        stated[b] = stated.get(b, 0) | 1 << a
    rand = rng.random
    relation = family.relation
    facts: list[Fact] = []
    for _ in range(n):
        for _ in range(PICKS_PER_FACT):
            a = story[int(rand() * len(story))]
            options = out[a] & ~stated.get(a, 0)
            if on_chain >> a & 1:
                options &= ~on_chain
            for g in (0, 1):
                if room[g] <= 0:
                    options &= ~(family.gender_bits[g] & ~in_story)
            if options:
                break
        else:
            return None
        b = random_bit(options, rand)
        facts.append((a, relation(a, b), b))
        stated[a] = stated.get(a, 0) | 1 << b
        stated[b] = stated.get(b, 0) | 1 << a
        if not in_story >> b & 1:
            in_story |= 1 << b
            story.append(b)
            room[genders[b]] -= 1
    return facts


def connected_noise(family: Family, chain: Chain, n: int, rng: random.Random,
                    allowed: WordMask | None = None) -> list[tuple[str, list[Fact]]] | None:
    """:func:`connected_facts` as noise paths of one fact each (the shape
    :func:`clutrr.core.noise.add_noise` returns), or None."""
    facts = connected_facts(family, chain, n, rng, allowed)
    return None if facts is None else [(CONNECTED, [f]) for f in facts]
