"""Property tests: every generated example is a simple path of true facts that uniquely entails the truth."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clutrr.core.entailment import chain_entailment, story_closure
from clutrr.story.generator import MAX_K, GeneratorConfig, make_example
from clutrr.core.noise import NOISE_KINDS

CONFIG = GeneratorConfig()


def check_example(kb, ex, k: int, noise: str) -> None:
    chain, fam, row = ex.chain, ex.family, ex.row
    # a simple path of exactly k facts from the query's first person to its second
    assert chain.k == k and len(chain.people) == k + 1
    assert len(set(chain.people)) == k + 1
    assert row.query_edge == (0, k) and row.story_edges[:k] == [(i, i + 1) for i in range(k)]
    # every fact, chain or noise, is true in the family graph
    people = {v: key for key, v in row.node_mapping.items()}
    for (a, b), word in zip(row.story_edges, row.edge_types):
        pred, gender = kb.parse_word(word)
        fa, fb = people[a], people[b]
        assert fam.holds(fa, pred, fb), (word, fa, fb)
        assert int(fam.gender[fb]) == gender
    # the target is the one true relation between the query people ...
    x, z = chain.people[0], chain.people[-1]
    assert fam.relation(x, z) == chain.target >= 0
    assert kb.word(chain.target, int(fam.gender[z])) == row.target
    # ... and every bracketing that derives anything derives exactly it
    assert chain_entailment(kb, chain.preds) == 1 << chain.target
    # the whole story, noise included, entails exactly the target
    facts = [(a, kb.parse_word(w)[0], b) for (a, b), w in zip(row.story_edges, row.edge_types)]
    assert story_closure(kb, facts).get((0, k)) == 1 << chain.target
    # the proof tree resolves the target first, each subgoal by a KB rule
    if k > 1:
        goal, f1, f2 = chain.proof[0]
        assert goal == (x, chain.target, z)
        for goal, f1, f2 in chain.proof:
            assert kb.compose(f1[1], f2[1]) == goal[1] and f1[0] == goal[0] and f2[2] == goal[2]
    assert len(chain.proof) == k - 1
    # noise people are off the chain, and noise is of the asked kind
    kinds = {e["noise"] for e in ex.record["edges"][k:]}
    if noise == "none":
        assert len(row.story_edges) == k
    else:
        assert kinds == ({"supporting", "irrelevant", "disconnected"} if noise == "all" else {noise})
    for e in ex.record["edges"][k:]:
        if e["noise"] == "irrelevant":
            assert e["tail"] > k
        if e["noise"] == "disconnected":
            assert e["head"] > k and e["tail"] > k
        if e["noise"] == "supporting":
            assert (e["head"], e["tail"]) != (0, k)
    # every person is named once, names are not repeated
    names = [n for n, _ in row.genders]
    assert len(set(names)) == len(names)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**31), index=st.integers(0, 10**6), k=st.integers(1, 12),
       noise=st.sampled_from(NOISE_KINDS), split=st.sampled_from(["train", "test"]))
def test_every_example_is_sound(kb, seed, index, k, noise, split):
    if noise in ("supporting", "all") and k < 2:
        noise = "irrelevant"
    ex = make_example(CONFIG, k, noise, seed, index, split)
    check_example(kb, ex, k, noise)


@pytest.mark.parametrize("k", [13, 16, 20, MAX_K])
def test_long_chains_work(kb, k):
    for index in range(2):
        check_example(kb, make_example(CONFIG, k, "none", 7, index, "test"), k, "none")


def test_k1_story_states_the_answer(kb):
    ex = make_example(CONFIG, 1, "none", 3, 0, "train")
    assert ex.row.f_comb == ex.row.target and ex.row.proof_state == []


def test_examples_are_deterministic_per_index_and_order_free():
    a = [make_example(CONFIG, 3, "supporting", 11, i, "test").row for i in (5, 0, 9)]
    b = [make_example(CONFIG, 3, "supporting", 11, i, "test").row for i in (9, 5, 0)]
    assert a[0] == b[1] and a[1] == b[2] and a[2] == b[0]
    assert make_example(CONFIG, 3, "none", 11, 5, "test").row != make_example(CONFIG, 3, "none", 12, 5, "test").row


def test_what_is_kept_for_speed_never_changes_an_example():
    """Families, chain shapes, render plans, format strings and target orders are kept per
    process; an example is the same with all of them cold, warm, or warmed by other requests."""
    import clutrr.render.usable as usable
    import clutrr.story.generator as generator

    requests = [(k, noise, i, split) for k in (2, 3, 5) for noise in ("none", "all") for split in ("train", "test")
                for i in (0, 1, 31, 32, 70)]

    def cold() -> None:
        generator._context.cache_clear()
        generator._split_banks.cache_clear()
        usable.usable_bank.cache_clear()
        generator.forget_recent_context()

    cold()
    warm = {r: make_example(CONFIG, r[0], r[1], 4, r[2], r[3]) for r in requests}
    for r in reversed(requests):  # warm, other order, an equal config that is another object
        again = make_example(GeneratorConfig(), r[0], r[1], 4, r[2], r[3])
        assert again.record == warm[r].record and again.row == warm[r].row
    for r in requests[::7]:  # each cold
        cold()
        assert make_example(CONFIG, r[0], r[1], 4, r[2], r[3]).record == warm[r].record


def test_kept_shapes_and_plans_stay_bounded_and_never_change_an_example(monkeypatch):
    """Long chains rarely repeat a shape: the kept shapes and render plans are capped in chain
    facts (a k=10 run once held 0.5 GB of them, a k=100 run 150 MB under a cap in entries), and
    the caps, cleared often, change no example."""
    import clutrr.render.templates as templates
    import clutrr.render.usable as usable
    import clutrr.story.generator as generator

    def cold() -> None:
        generator._context.cache_clear()
        generator._split_banks.cache_clear()
        usable.usable_bank.cache_clear()
        generator.forget_recent_context()

    requests = [(k, noise, i) for k in (3, 10) for noise in ("none", "all") for i in range(40)]
    cold()
    roomy = {r: make_example(CONFIG, r[0], r[1], 9, r[2]).record for r in requests}
    monkeypatch.setattr(generator, "SHAPE_FACTS", 10)
    monkeypatch.setattr(templates, "COVER_FACTS", 10)
    cold()
    kept_noise = []  # the context keeps the plans of noise paths in a table (a chain's plan is kept with its shape)
    for r in requests:
        assert make_example(CONFIG, r[0], r[1], 9, r[2]).record == roomy[r]
        ctx = generator._RECENT.ctx
        kept = ctx.shapes.facts  # shapes of chains longer than SHAPE_MEMO_K are never kept
        assert (0 < kept <= 10 if r[0] <= generator.SHAPE_MEMO_K else kept == 0) and ctx.bank.covers.facts <= 10
        kept_noise.append(sum(plan is not None for plan in ctx.noise_plans))
    assert max(kept_noise) > 0 and len(ctx.noise_plans) <= generator.NOISE_PLAN_SLOTS


def test_a_fact_memo_forgets_everything_before_passing_its_budget():
    from clutrr.core.memo import FactMemo

    memo = FactMemo(10)
    assert memo.keep("a", 1, 4) == 1 and memo.keep("b", 2, 6) == 2
    assert dict(memo) == {"a": 1, "b": 2} and memo.facts == 10
    memo.keep("c", 3, 1)  # 11 facts would pass the budget: the old entries go first
    assert dict(memo) == {"c": 3} and memo.facts == 1
    memo.keep("long", 4, 25)  # one entry above the budget is still kept, alone
    assert dict(memo) == {"long": 4} and memo.facts == 25
    memo.clear()
    assert not memo and memo.facts == 0


def test_example_ids_are_the_version_4_uuids_of_their_hashes():
    import uuid

    from clutrr.story.generator import _HashPrefix, ints_part, uuid4_hex

    ids = _HashPrefix("id", 5, "train", 3, "none", size=16)
    for index in range(0, 300_000, 997):
        for attempt in (0, 1, 7):
            n = ids(index, attempt)
            uuid4 = ids.uuid4_of_ints(ints_part(index, attempt))
            assert uuid4 == str(uuid.UUID(int=n, version=4)) == uuid4_hex(f"{n:032x}")
    examples = _HashPrefix("example", 5, "train", 3, "none")
    assert [examples.of_ints(ints_part(i, 2)) for i in range(50)] == [examples(i, 2) for i in range(50)]


def test_a_pattern_hash_of_text_is_the_stable_hash_of_its_parts():
    from clutrr.story.generator import _HashPrefix, stable_hash

    patterns = ("son-wife", "mother's-\"aunt\"", "tía-cuñada", "a\\b\x1fc", "")
    hashes = _HashPrefix("pattern", 11)
    assert [hashes.of_text(p) for p in patterns] == [stable_hash("pattern", 11, p) for p in patterns]
    assert len({hashes.of_text(p) for p in patterns}) == len(patterns)
