"""Rendering's shortcuts against what they stand for: a template made from the compiled cache's
fields is the dataclass's own, plans kept under one flat key are the plans made afresh for their
words, head genders and longest piece, and a fact rendered alone is its template's rendering."""
from __future__ import annotations

import hashlib
import random

from clutrr.core.kb import GENDERS
from clutrr.render.measures import has_own, own_counts
from clutrr.render.stitching import PathPlan, path_plan, render_fact
from clutrr.render.templates import Bank, Template, made_template, split_key, template_id

WORDS = ("son", "brother", "aunt")


def _template(clause: tuple[str, ...], text: str, gender: str = "any") -> Template:
    return Template(template_id(clause, gender, text), clause, gender, text, "test")


def test_a_made_template_is_the_dataclass_built_with_the_same_fields():
    for text, gender in (("{B} is {A.his} son.", "any"), ("{A} took {A.his} son {B} out.", "female")):
        built = _template(("son",), text, gender)
        plan = built.compile_plan()
        made = made_template(built.id, built.clause, built.gender, built.text, built.source, plan)
        fresh = _template(("son",), text, gender)
        assert type(made) is Template and vars(made) == {**vars(fresh), "_plan": plan}
        assert made == fresh and hash(made) == hash(fresh) and repr(made) == repr(fresh)
        assert made.compile_plan() is plan and made.compiled() == fresh.compiled()  # its parts made on first use
        assert made.render(["[Ann]", "[Bob]"], [1, 0]) == fresh.render(["[Ann]", "[Bob]"], [1, 0])


def _bank(rng: random.Random) -> Bank:
    ts = [_template((w,), f"{{B}} is {{A.his}} {w} ({n}).") for w in WORDS for n in range(2)]
    for n in range(rng.randint(1, 8)):
        words = tuple(rng.choice(WORDS) for _ in range(rng.randint(2, 3)))
        ts.append(_template(words, " ".join(f"{{{'ABCD'[i]}}} ~{w}{n}~" for i, w in enumerate(words))
                            + f" {{{'ABCD'[len(words)]}}}.", rng.choice(("any", "male", "female"))))
    return Bank(ts)


def test_a_kept_plan_is_the_plan_made_afresh_for_its_words_heads_and_longest_piece():
    rng = random.Random(7)
    for _ in range(40):
        bank = _bank(rng)
        asked = []
        for _ in range(60):
            n = rng.randint(1, 4)
            words = tuple(rng.choice(WORDS) for _ in range(n))
            heads = tuple(rng.choice(GENDERS) for _ in range(n))
            asked.append((words, heads, rng.randint(1, 3)))
        for words, heads, most in asked + asked:  # each asked twice: the second time from the memo
            kept = path_plan(bank, words, heads, most)
            fresh = PathPlan(bank, words, heads, min(most, bank.max_len))
            assert (kept.words, kept.heads, kept.longest) == (fresh.words, fresh.heads, fresh.longest)
            assert (kept.valid, kept.count, kept.multi, kept.options) == (fresh.valid, fresh.count, fresh.multi,
                                                                          fresh.options)
        assert len(bank.covers) == len({(w, h) for w, h, _ in asked})  # one per words and heads


def test_a_fact_alone_is_its_templates_rendering_whoever_its_two_people_are():
    bank = _bank(random.Random(1))
    marks, genders = ["[Ann]", "[Bob]", "[Cy]", "[Di]"], [1, 0, 0, 1]
    for seed in range(30):
        head, tail = random.Random(seed).sample(range(4), 2)
        piece = render_fact(bank, "son", head, tail, marks, genders, random.Random(seed), edge=seed % 3)
        choices = bank.choices(("son",), GENDERS[genders[head]])
        chosen = choices[random.Random(seed).randrange(len(choices))]
        assert piece == (chosen.render([marks[head], marks[tail]], [genders[head], genders[tail]]), chosen.id,
                         (seed % 3,))


def test_long_chains_count_the_spans_the_bank_itself_covers_as_their_clauses_tell():
    rng = random.Random(13)
    for _ in range(30):
        bank = _bank(rng)
        for k in range(4, 9):  # counted by walking the chain, with the walk from a position cut short
            words = tuple(rng.choice(WORDS) for _ in range(k))
            heads = tuple(rng.choice(GENDERS) for _ in range(k))
            expected = [0] + [sum(has_own(bank, words[i:i + n], heads[i]) for i in range(k - n + 1)) for n in (1, 2, 3)]
            assert own_counts(bank, words, heads) == expected


def test_a_templates_split_order_is_the_hash_of_the_seed_and_its_id():
    for seed in (0, 7, 123456789):
        seeded = hashlib.blake2b(f"{seed}|".encode(), digest_size=8)
        for tid in ("son#0a1b2c3d", "son-brother#ffffffff", "ü#00000000"):
            assert split_key(seeded, tid) == hashlib.blake2b(f"{seed}|{tid}".encode(), digest_size=8).digest()
