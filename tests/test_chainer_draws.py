"""The chainer's draws and results are those of its documented algorithm, written plainly here
(lists copied per fact and per rule group, the proof built step by step): a faster chainer
must still give the same chains, proofs and random state (the same bytes for a seed)."""
from __future__ import annotations

import random

from clutrr.core.chainer import backward_chain
from clutrr.core.draws import random_bit
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.kb import load_kb
from clutrr.core.vocabulary import load_vocabulary, word_mask
from clutrr.kinship.derive import kinship_kb


def _stated(allowed, preds, people, genders, i):
    return allowed[preds[i]][genders[people[i + 1]]]


def _groups(kb, allowed, head):
    rules = kb.by_head[head]
    if allowed is None:
        return [list(rules)]
    said = [sum(any(allowed[p]) for p in pair) for pair in rules]
    return [[pair for pair, n in zip(rules, said) if n == want] for want in (2, 1, 0)]


def _draw_each(items, rand):
    """Yield the items in uniformly random order: item j of those left, whose place the last takes."""
    items, n = list(items), len(items)
    while n:
        j = int(rand() * n)
        n -= 1
        item, items[j] = items[j], items[n]
        yield item


def reference_chain(family, kb, k, x, z, rng, allowed=None):
    """(people, preds, target, proof) of backward_chain's algorithm as its docstring states it."""
    target = family.relation(x, z)
    if target < 0:
        return None
    people, preds, proof = [x, z], [target], []
    rows, cols, (men, women) = family.rows, family.cols(), family.gender_bits
    rand, used = rng.random, 1 << x | 1 << z
    for left in range(k - 1, 0, -1):
        facts = range(len(preds))
        if allowed is None:
            tiers = [list(facts)]
        else:
            bad = [i for i in facts if not _stated(allowed, preds, people, family.genders, i)]
            if len(bad) > left:
                return None
            tiers = [bad, [i for i in facts if _stated(allowed, preds, people, family.genders, i)]]
        found = next(((e, r1, r2, cand) for tier in tiers for e in _draw_each(tier, rand)
                      for group in _groups(kb, allowed, preds[e]) for r1, r2 in _draw_each(group, rand)
                      if (cand := rows[r1][people[e]] & cols[r2][people[e + 1]] & ~used)), None)
        if found is None:
            return None
        e, r1, r2, cand = found
        male, female = cand & men, cand & women
        if int(rand() * ((male != 0) + (female != 0))):
            male = 0
        c = random_bit(male if male else female, rand)
        used |= 1 << c
        a, b = people[e], people[e + 1]
        proof.append(((a, preds[e], b), (a, r1, c), (c, r2, b)))
        people.insert(e + 1, c)
        preds[e:e + 1] = [r1, r2]
    if allowed is not None and not all(_stated(allowed, preds, people, family.genders, i) for i in range(k)):
        return None
    return people, preds, target, proof


def _compare(kb, allowed, ks, families=6, pairs=25):
    found = 0
    for f in range(families):
        family = sample_family(FamilyConfig(generations=3 + f % 2), kb, random.Random(f))
        everyone = range(family.size)
        for i in range(pairs):
            x, z = random.Random(f * 1000 + i).sample(everyone, 2)
            k = ks[i % len(ks)]
            ours, theirs = random.Random(i), random.Random(i)
            chain = backward_chain(family, kb, k, x, z, ours, allowed)
            expected = reference_chain(family, kb, k, x, z, theirs, allowed)
            got = None if chain is None else (chain.people, chain.preds, chain.target, chain.proof)
            assert got == expected, (f, i, k)
            assert ours.getstate() == theirs.getstate(), (f, i, k)
            found += got is not None
    return found


def test_chains_and_draws_match_the_documented_algorithm():
    assert _compare(load_kb(), None, ks=(2, 3, 5, 8, 10)) > 20  # successes and failures both compared


def test_chains_of_a_restricted_vocabulary_match_the_documented_algorithm():
    kb = load_kb()
    allowed = word_mask(kb, load_vocabulary("clutrr_v1").edges)
    assert _compare(kb, allowed, ks=(2, 3, 4)) > 10


def test_chains_of_a_terminology_match_the_documented_algorithm():
    """A compiled terminology has heads that no rule concludes (an expansion's drawn fact with none)."""
    kb = kinship_kb("dravidian")
    assert any(not rules for rules in kb.by_head)
    assert _compare(kb, None, ks=(2, 3, 5)) > 10
