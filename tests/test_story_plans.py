"""What a story keeps or skips for speed equals what it stands for: noise paths' plans kept by an int
key, a chain's plan made only when it is rendered, and generators seeded without Random's Python code."""
from __future__ import annotations

import itertools
import pickle
import random

from clutrr.core.draws import SeededRandom, seeded
from clutrr.core.kb import GENDERS
from clutrr.render.stitching import path_plan
from clutrr.story import generator
from clutrr.story.generator import GeneratorConfig, make_example, path_key

CONFIG = GeneratorConfig()


def _same_plan(plan, expected) -> None:
    assert (plan.words, plan.heads, plan.longest) == (expected.words, expected.heads, expected.longest)
    assert (plan.valid, plan.count, plan.multi, plan.fewest, plan.ones) == \
        (expected.valid, expected.count, expected.multi, expected.fewest, expected.ones)
    assert [[[f.id for f in forms] for forms in at] for at in plan.options] == \
        [[[f.id for f in forms] for forms in at] for at in expected.options]


def test_path_keys_tell_every_sequence_of_facts_apart():
    base = 3
    facts = list(itertools.product(range(base), range(2), range(2)))  # (pred, head gender, tail gender)
    keys = {}
    for n in range(4):
        for seq in itertools.product(facts, repeat=n):
            key = 1
            for pred, head, tail in seq:
                key = path_key(key, pred, head, tail, base)
            assert keys.setdefault(key, seq) == seq and key < 2 * (4 * base) ** n
    assert len(keys) == sum(len(facts) ** n for n in range(4))


def test_a_noise_paths_kept_plan_is_the_banks_plan_of_its_words_and_heads():
    generator.forget_recent_context()
    seen = 0
    for k, noise in ((2, "all"), (3, "supporting"), (3, "connected")):
        for index in range(60):
            ex = make_example(CONFIG, k, noise, 5, index)
            ctx = generator._RECENT.ctx
            genders, words = ex.family.genders, ctx.words
            for kind, facts in ex.noise:
                key = 1
                for a, p, b in facts:
                    key = path_key(key, p, genders[a], genders[b], len(words))
                expected = path_plan(ctx.bank, tuple(words[p][genders[b]] for a, p, b in facts),
                                     tuple(GENDERS[genders[a]] for a, p, b in facts), CONFIG.max_piece, keep=False)
                assert key < len(ctx.noise_plans)
                _same_plan(ctx.noise_plans[key], expected)
                seen += 1
    assert seen > 200


def test_noise_paths_whose_keys_range_too_wide_keep_their_plans_on_the_bank():
    config = GeneratorConfig(noise_facts=3)  # 2 * (4 * 11) ** 3 keys: more than NOISE_PLAN_SLOTS
    generator.forget_recent_context()
    for index in range(20):
        make_example(config, 3, "all", 5, index)
    ctx = generator._RECENT.ctx
    assert ctx.noise_plans == [] and ctx.knobs.noise_slots == 0 and ctx.bank.covers.facts > 0
    assert len(generator._context(CONFIG, 5, "train", 3, "all").noise_plans) == 2 * (4 * len(ctx.kb.predicates)) ** 2


def test_a_chains_plan_is_made_when_it_is_rendered_and_is_the_banks_plan():
    generator.forget_recent_context()
    for index in range(80):
        make_example(CONFIG, 3, "all", 2, index, split="test")
    shapes = list(generator._RECENT.ctx.shapes.values())
    ctx = generator._RECENT.ctx
    for shape in shapes:
        assert shape.plan is not None
        _same_plan(shape.plan, path_plan(ctx.bank, shape.words, shape.heads, CONFIG.max_piece, keep=False))
    # train stories skip the chains held out for test: their shapes are kept, never rendered
    generator.forget_recent_context()
    for index in range(300):
        make_example(CONFIG, 3, "none", 2, index)
    held = [s for s in generator._RECENT.ctx.shapes.values() if s.heldout]
    assert held and all(s.plan is None for s in held)


def test_a_seeded_generator_has_random_randoms_state_draws_and_pickles():
    for n in (0, 3, 2**70 + 1):
        ours, theirs = seeded(n), random.Random(n)
        assert isinstance(ours, SeededRandom) and ours.getstate() == theirs.getstate()
        assert "gauss_next" not in vars(ours)  # read from the class: no attribute set per generator
        assert [ours.gauss(0, 1) for _ in range(3)] == [theirs.gauss(0, 1) for _ in range(3)]
        assert ours.getstate() == theirs.getstate()  # gauss keeps its second value on the instance
        copy = pickle.loads(pickle.dumps(ours))
        assert copy.getstate() == theirs.getstate() and copy.random() == theirs.random()


def test_a_kept_prefix_hashes_one_int_as_stable_hash_does():
    prefix = generator._HashPrefix("targets", 7, "train", 3, "all/memory")
    for n in (0, 5, -3, 2**40, 10**30):
        assert prefix.of_int(n) == generator.stable_hash("targets", 7, "train", 3, "all/memory", n)
