"""Rendering's text and facts as the generator asks for them: a Form's text for any number of name
slots equals the template's own rendering, paths given as ranges render as the same paths given as
lists, and the tally's repeated-template check agrees with a set."""
from __future__ import annotations

import random

from clutrr.core.kb import GENDERS
from clutrr.render.measures import _repeats
from clutrr.render.stitching import Form, path_plan, render_plan
from clutrr.render.templates import Bank, Template, template_id

WORDS = ("son", "brother", "aunt")
TEXTS = [  # one to six name slots, pronouns between them
    "{B} is {A.his} son.",
    "{A} and {B} went out; {A.he} likes {A.his} son.",
    "{A} saw {B}, who called {A.him}; {B} and {A} left.",
    "{A}, {B}, {A} and {B.his} friend {B} met.",
    "{A} met {B}; {B} met {A}; {A} met {B} at {B.his} home.",
    "{A}{B}{A}{B}{A}{B}",
]
TRIPLE = ["{A} has a son {B}, whose brother {C} has an aunt {D}.", "{D} is the aunt of {C}, {B}'s brother; {A.he} knew."]


def _template(clause: tuple[str, ...], text: str, gender: str = "any") -> Template:
    return Template(template_id(clause, gender, text), clause, gender, text, "test")


def test_a_form_writes_what_its_template_renders_for_every_gendering_and_slot_count():
    marks = ["[Ann]", "[Bob]", "[Cy]", "[Di]", "[Ed]"]
    people = [4, 2, 0, 3, 1]
    for text in TEXTS:
        t = _template(("son",), text)
        form = Form(t)
        for mask in range(4):
            genders = [mask & 1, mask >> 1 & 1]
            assert form.render(mask, marks, people, 1) == t.render([marks[people[1]], marks[people[2]]], genders)


def _bank() -> Bank:
    ones = [_template((w,), f"{{B}} is {{A.his}} {w} ({n}).") for w in WORDS for n in range(3)]
    return Bank(ones + [_template(WORDS, text) for text in TRIPLE]
                + [_template(WORDS[:2], "{A}'s son {B} has a brother, {C}."),
                   _template(WORDS[1:], "{A} has a brother {B}, and {B.his} aunt is {C}.")])


def test_a_path_given_as_ranges_renders_as_the_same_path_given_as_lists():
    bank = _bank()
    marks = [f"[P{i}]" for i in range(9)]
    genders = [0, 1, 0, 0, 1, 1, 0, 1, 0]
    words = WORDS + WORDS
    for seed in range(30):
        for first in (0, 2):
            people = list(range(first, first + len(words) + 1))
            plan = path_plan(bank, words, tuple([GENDERS[genders[p]] for p in people[:-1]]), 3)
            by_list = render_plan(bank, plan, list(range(5, 11)), people, marks, genders, random.Random(seed), set())
            by_range = render_plan(bank, plan, range(5, 11), range(first, first + 7) if first else range(7), marks,
                                   genders, random.Random(seed), set())
            assert by_range == by_list
            assert [f for p in by_list for f in p.facts] == list(range(5, 11))
            assert all(isinstance(p.facts, tuple) for p in by_range)


def test_repeated_ids_are_found_as_a_set_finds_them():
    rng = random.Random(3)
    for n in (0, 1, 2, 5, 16, 17, 40):
        for _ in range(50):
            ids = [f"t{rng.randrange(3 * n + 1)}" for _ in range(n)]
            assert _repeats(ids) == (len(set(ids)) < len(ids))


def test_rendering_draws_as_randrange_draws():
    from clutrr.core.draws import below_rng as _below

    for seed in range(20):
        ours, theirs = random.Random(seed), random.Random(seed)
        for n in (1, 2, 3, 7, 64, 1000, 2**70 + 5):
            assert _below(ours, n) == theirs.randrange(n)
        assert ours.getstate() == theirs.getstate()
