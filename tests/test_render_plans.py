"""Render plans made from a bank's clauses reached word by word, against the bank's templates themselves:
valid pieces, their templates, the weighted count of covers, the exhausted check and the plan memo."""
from __future__ import annotations

import random

from clutrr.core.kb import GENDERS, load_kb
from clutrr.render.measures import TextTally
from clutrr.render.stitching import PathPlan, clause, path_plan
from clutrr.render.templates import Bank, Template, template_id

WORDS = ("son", "brother", "aunt", "wife")


def _template(clause_words: tuple[str, ...], gender: str, n: int) -> Template:
    slots = "ABCD"
    text = " ".join(f"{{{slots[i]}}} ~{w}{n}~" for i, w in enumerate(clause_words)) + f" {{{slots[len(clause_words)]}}}."
    return Template(template_id(clause_words, gender, text), clause_words, gender, text, "test")


def _random_bank(rng: random.Random) -> Bank:
    """One-fact templates for every word, and a random handful of 2- and 3-fact ones (some gendered)."""
    ts = [_template((w,), "any", 0) for w in WORDS]
    for n in range(rng.randint(0, 12)):
        words = tuple(rng.choice(WORDS) for _ in range(rng.randint(2, 3)))
        ts.append(_template(words, rng.choice(("any", "male", "female")), n))
    return Bank(ts, fallback_ids=frozenset(t.id for t in ts if rng.random() < 0.3))


def _weighted_covers(valid: list[list[int]], i: int = 0) -> int:
    """The sum over covers from position i of the product of their piece lengths, by enumeration."""
    if i == len(valid):
        return 1
    return sum(L * _weighted_covers(valid, i + L) for L in valid[i])


def test_plans_hold_the_banks_choices_for_every_piece():
    rng = random.Random(3)
    for _ in range(150):
        bank = _random_bank(rng)
        n = rng.randint(1, 9)
        words = tuple(rng.choice(WORDS) for _ in range(n))
        heads = tuple(rng.choice(GENDERS) for _ in range(n))
        longest = rng.randint(1, 3)
        plan = PathPlan(bank, words, heads, longest)
        multi = set()
        for i in range(n):
            spans = [words[i:i + L] for L in range(1, min(longest, n - i) + 1)]
            reached = len(plan.options[i])  # the spans up to the longest that a clause of the bank starts
            assert [[f.id for f in fs] for fs in plan.options[i]] == [[t.id for t in bank.choices(c, heads[i])]
                                                                      for c in spans[:reached]]
            assert reached >= 1 and not any(bank.choices(c, g) for c in spans[reached:] for g in GENDERS)
            assert reached == len(spans) or not any(c[:reached] == words[i:i + reached] for c in bank.by_clause
                                                    if len(c) > reached)
            assert plan.valid[i] == [len(c) for c in spans if bank.choices(c, heads[i])]
            multi |= {bank.choice_ids(c, heads[i]) for c in spans if len(c) > 1 and bank.choices(c, heads[i])}
        assert plan.count[0] == _weighted_covers(plan.valid)
        assert set(plan.multi) == multi
        assert (plan.ones is not None) == (not multi)


def test_a_plan_is_exhausted_once_every_template_of_one_multi_fact_piece_is_used():
    t1, t2 = _template(("son", "brother"), "any", 1), _template(("son", "brother"), "any", 2)
    bank = Bank([_template((w,), "any", 0) for w in WORDS] + [t1, t2])
    plan = PathPlan(bank, ("son", "brother"), ("male", "female"), 3)
    assert not plan.exhausted(set()) and not plan.exhausted({t1.id})
    assert plan.exhausted({t1.id, t2.id, "other"})
    assert all(plan.cover(bank, random.Random(s), {t1.id, t2.id}) == [1, 1] for s in range(20))
    assert {tuple(plan.cover(bank, random.Random(s), {t1.id})) for s in range(40)} == {(1, 1), (2,)}


def test_clauses_are_kept_and_tell_whether_the_bank_itself_covers_them():
    rng = random.Random(5)
    for _ in range(40):
        bank = _random_bank(rng)
        for _ in range(30):
            words = tuple(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))
            head = rng.choice(GENDERS)
            node = clause(bank, words, head)
            assert node is clause(bank, words, head)
            assert node.own == any(t.id not in bank.fallback_ids for t in bank.choices(words, head))
            assert node.words == words and len(node.options) == len(words)


def test_path_plans_are_kept_on_the_bank_unless_asked_not_to():
    kb = load_kb("kinship")
    bank = Bank([_template((w,), "any", 0) for w in kb.words] + [_template(("son", "brother"), "any", 1)])
    words, heads = ("son", "brother", "aunt"), ("male", "male", "female")
    fresh = path_plan(bank, words, heads, 3, keep=False)
    assert len(bank.covers) == 0
    kept = path_plan(bank, words, heads, 3)
    assert path_plan(bank, words, heads, 3) is kept and len(bank.covers) == 1 and kept is not fresh
    assert (fresh.valid, fresh.count, fresh.multi) == (kept.valid, kept.count, kept.multi)


def test_the_tally_counts_long_and_short_chains_alike():
    rng = random.Random(11)
    bank = _random_bank(rng)
    for k in (1, 2, 3, 4, 7):
        words = tuple(rng.choice(WORDS) for _ in range(k))
        heads = tuple(rng.choice(GENDERS) for _ in range(k))
        tally = TextTally({"train": bank})
        for _ in range(2):  # the second time, a short chain's counts are the ones kept
            tally.add_story("train", k, [], words, heads, "", [])
        for n in range(1, 4):
            spans = [(words[i:i + n], heads[i]) for i in range(k - n + 1)]
            assert tally.spans[n] == 2 * len(spans)
            assert tally.covered[n] == 2 * sum(clause(bank, c, h).own for c, h in spans)
        assert ((words + heads) in bank.chain_own) == (k <= 3)


def test_the_exhausted_check_is_every_id_of_some_multi_fact_piece_used():
    rng = random.Random(5)
    for _ in range(60):
        bank = _random_bank(rng)
        n = rng.randint(2, 6)
        words, heads = tuple(rng.choice(WORDS) for _ in range(n)), tuple(rng.choice(GENDERS) for _ in range(n))
        plan = PathPlan(bank, words, heads, 3)
        ids = sorted({i for multi in plan.multi for i in multi}) + ["other"]
        for _ in range(10):
            used = set(rng.sample(ids, rng.randint(0, len(ids))))
            assert plan.exhausted(used) == any(multi <= used for multi in plan.multi)
