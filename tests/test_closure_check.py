"""The per-story guarantee check: a closure certificate, and the derivations it stands for."""
from __future__ import annotations

import random

import numpy as np
import pytest

import clutrr.story.generator as generator
from clutrr.core.entailment import relations_closed, story_closure
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import relation_masks
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.core.worlds import random_world

CONFIG = GeneratorConfig()


def test_true_relations_are_closed_under_the_sound_kb(kb):
    rng = random.Random(8)
    for _ in range(20):
        fam = sample_family(FamilyConfig(generations=3), kb, rng)
        assert relations_closed(kb, fam.masks)
        parent, spouse, _ = random_world(rng)
        assert relations_closed(kb, relation_masks(kb, parent, spouse))


def test_a_missing_consequence_or_inverse_breaks_closure(kb):
    fam = sample_family(FamilyConfig(generations=3), kb, random.Random(2))
    grandparent = kb.index["grandparent"]
    x, y = np.argwhere(fam.masks[grandparent])[0]
    cut = fam.masks.copy()
    cut[grandparent, x, y] = False  # parent . parent -> grandparent no longer holds here
    assert not relations_closed(kb, cut)
    two = np.zeros((len(kb.predicates), 2, 2), dtype=bool)  # two people: no rule can apply
    two[kb.index["parent"], 0, 1] = True
    assert not relations_closed(kb, two)  # the inverse (a child) is missing
    two[kb.index["child"], 1, 0] = True
    assert relations_closed(kb, two)


def test_story_closures_stay_inside_the_true_relations(kb):
    for i in range(30):
        ex = make_example(CONFIG, 3, "all", 21, i, "test")
        people = {v: key for key, v in ex.row.node_mapping.items()}
        facts = [(a, kb.parse_word(w)[0], b) for (a, b), w in zip(ex.row.story_edges, ex.row.edge_types)]
        for (a, b), preds in story_closure(kb, facts).items():
            truth = sum(1 << p for p in range(len(kb.predicates)) if ex.family.masks[p, people[a], people[b]])
            assert preds & ~truth == 0


def test_without_a_certificate_the_derivations_are_checked(monkeypatch, kb):
    monkeypatch.setattr(generator, "_family_closed", lambda kb, family: False)
    monkeypatch.setattr(generator, "closed_among", lambda kb, family, people: False)
    examples = [make_example(CONFIG, k, "all", 3, i, "test") for k in (2, 5) for i in range(10)]
    assert all(ex.row.edge_types for ex in examples)
    monkeypatch.setattr(generator, "story_closure", lambda kb, facts: {})
    with pytest.raises(AssertionError, match="noise changed"):
        make_example(CONFIG, 3, "all", 3, 0, "test")


def test_a_proof_that_does_not_derive_the_chain_is_refused(monkeypatch):
    real = generator.backward_chain

    def tampered(*args, **kwargs):
        chain = real(*args, **kwargs)
        if chain is not None and chain.proof:
            goal, f1, f2 = chain.proof[0]
            chain.proof[0] = (goal, (f1[0], f2[1], f1[2]), f2)
        return chain

    monkeypatch.setattr(generator, "backward_chain", tampered)
    with pytest.raises(AssertionError, match="proof"):
        make_example(CONFIG, 3, "none", 1, 0, "test")


def test_a_proof_replay_refuses_every_kind_of_broken_step(kb):
    chain = make_example(CONFIG, 4, "none", 2, 5, "test").chain
    assert generator._proof_derives(kb.table, chain)

    def broken(step: int, change) -> bool:
        proof = list(chain.proof)
        proof[step] = change(*proof[step])
        return generator._proof_derives(kb.table, generator.Chain(chain.people, chain.preds, chain.target, proof))

    other = next(r for r in range(len(kb.predicates)) if r != chain.proof[0][0][1])
    for step in range(len(chain.proof)):
        assert not broken(step, lambda g, f1, f2: (g, (f1[0], f2[1], f1[2]), f2))  # a rule that does not apply
        assert not broken(step, lambda g, f1, f2: (g, (f1[0] + 1, f1[1], f1[2]), f2))  # from another person
        assert not broken(step, lambda g, f1, f2: (g, (f1[0], f1[1], f1[2] + 1), f2))  # facts that do not meet
        assert not broken(step, lambda g, f1, f2: (g, f1, (f2[0], f2[1], f2[2] + 1)))  # to another person
        assert not broken(step, lambda g, f1, f2: ((g[0], g[1], g[2] + 1), f1, (f2[0], f2[1], f2[2] + 1)))  # no goal
    assert not broken(0, lambda g, f1, f2: ((g[0], other, g[2]), f1, f2))


def _replayed_as_a_list(kb, chain) -> bool:
    """The proof replay written the plain way: rewrite the fact list, compare with the chain."""
    facts = [(chain.people[0], chain.target, chain.people[-1])]
    for goal, f1, f2 in chain.proof:
        if goal not in facts or kb.compose(f1[1], f2[1]) != goal[1] or (f1[0], f1[2], f2[2]) != (goal[0], f2[0], goal[2]):
            return False
        i = facts.index(goal)
        facts[i:i + 1] = [f1, f2]
    return facts == chain.facts()


def test_the_proof_replay_agrees_with_rewriting_the_fact_list(kb):
    rng = random.Random(4)
    for i in range(60):
        chain = make_example(CONFIG, 2 + i % 7, "none", 9, i, "train").chain
        people = chain.people
        for _ in range(6):
            proof = [list(map(list, step)) for step in chain.proof]
            for _ in range(rng.randrange(3)):  # zero to two changes of a person or a predicate anywhere in the proof
                fact = rng.choice(rng.choice(proof))
                slot = rng.randrange(3)
                fact[slot] = rng.randrange(len(kb.predicates)) if slot == 1 else rng.choice(people)
            steps = [tuple(tuple(f) for f in step) for step in proof]
            tampered = generator.Chain(chain.people, chain.preds, chain.target, steps)
            assert generator._proof_derives(kb.table, tampered) == _replayed_as_a_list(kb, tampered)
