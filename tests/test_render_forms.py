"""Rendering's view of a bank (Forms kept per template), one-fact rendering, and the text tally's
counts and own-template spans, against the bank's templates themselves."""
from __future__ import annotations

import random

from clutrr.core.kb import GENDERS
from clutrr.render.measures import COUNTS, TextTally, has_own
from clutrr.render.stitching import Form, fact_forms, forms, render_fact
from clutrr.render.templates import Bank, Template, template_id


def _template(clause: tuple[str, ...], gender: str, text: str) -> Template:
    return Template(template_id(clause, gender, text), clause, gender, text, "test")


def _bank(fallback: frozenset[str] = frozenset()) -> Bank:
    return Bank([
        _template(("son",), "any", "{B} is the son of {A}."),
        _template(("son",), "male", "{A} took {A.his} son {B} fishing."),
        _template(("son",), "female", "{A} took {A.his} son {B} to school."),
        _template(("son", "brother"), "any", "{B} is {A}'s son; {C} is {B}'s brother."),
        _template(("brother",), "any", "{B} is {A}'s brother."),
    ], fallback_ids=fallback)


def test_forms_are_the_choices_of_a_clause_one_kept_form_per_template():
    bank = _bank()
    for clause in (("son",), ("son", "brother"), ("brother",)):
        for head in GENDERS:
            got = forms(bank, clause, head)
            assert [f.id for f in got] == [t.id for t in bank.choices(clause, head)]
            assert all(isinstance(f, Form) and f.template.id == f.id for f in got)
            assert forms(bank, clause, head) is got  # kept on the bank
    any_son = bank.choices(("son",), "male")[0]
    assert any_son.gender == "any"  # in both genders' lists: one Form for it
    assert forms(bank, ("son",), "male")[0] is forms(bank, ("son",), "female")[0]
    for g, head in enumerate(GENDERS):
        assert fact_forms(bank, "son", g) is forms(bank, ("son",), head)
    assert fact_forms(bank, "uncle", 0) == ()


def test_render_fact_writes_the_template_as_rendered_with_its_draw():
    bank = _bank()
    marks, genders = ["[Ann]", "[Bob]"], [1, 0]
    seen = set()
    for seed in range(40):
        piece = render_fact(bank, "son", 0, 1, marks, genders, random.Random(seed), edge=5)
        choices = bank.choices(("son",), "female")
        expected = choices[random.Random(seed).randrange(len(choices))]
        assert piece == (expected.render(marks, genders), expected.id, (5,))
        assert piece.text == piece[0] and piece.facts == (5,)
        seen.add(piece.template_id)
    assert len(seen) == 2  # the any-gender and the female template, never the male one


def test_the_tally_counts_the_spans_a_template_of_the_bank_itself_covers():
    one_son = _bank().choices(("son",), "male")
    bank = _bank(fallback=frozenset(t.id for t in one_son))  # every son template a male head may use
    words, heads = ("son", "son", "brother"), ("male", "female", "male")
    assert not has_own(bank, ("son",), "male") and has_own(bank, ("son",), "female")
    assert has_own(bank, ("son", "brother"), "female") and not has_own(bank, ("brother", "son"), "male")
    tally = TextTally({"train": bank})
    tally.add_story("train", 3, [], words, heads, "", [])
    assert tally.spans == {1: 3, 2: 2, 3: 1} and tally.covered == {1: 2, 2: 1, 3: 0}
    tally.add_story("train", 1, [], words[:1], heads[:1], "", [])
    assert tally.spans == {1: 4, 2: 2, 3: 1} and tally.covered == {1: 2, 2: 1, 3: 0}


def test_tally_counts_round_trip_and_ignore_other_keys():
    bank = _bank()
    tally = TextTally({"train": bank})
    piece = render_fact(bank, "son", 0, 1, ["A", "B"], [0, 0], random.Random(1), edge=0)
    tally.add_story("train", 1, [piece], ("son",), ("male",), piece.text, ["A", "B"])
    counts = tally.counts()
    assert list(counts) == list(COUNTS)
    assert counts["stories"] == 1 and counts["pieces"] == 1 and counts["spans"] == {1: 1, 2: 0, 3: 0}
    counts["spans"][1] = 7  # a copy: the tally keeps its own
    assert tally.spans[1] == 1
    again = TextTally({})
    again.take({**tally.counts(), "padded_stories": 3})  # a padded run's context counts ride along
    assert again.summary() == tally.summary()
    assert not hasattr(again, "padded_stories")


def test_a_form_renders_any_number_of_name_slots_as_its_template_does():
    """Fills of two to four names are read from their fields, others from their lists: both as
    Template.render writes them, for every gendering and any people offset."""
    texts = ["{A.He} has a son.", "{A} has a son, {B}.", "{B}, son of {A}, met {A.his} father {A}.",
             "{A} and {B}: {B} is {A.his} son, says {A}.", "{A}, {B}, {A}, {B}, {A.he} said: {B}.",
             "{A} {B} {A} {B} {A} {B}."]
    people, marks = [7, 3, 0, 5], ["[P0]", "[P1]", "[P2]", "[P3]", "[P4]", "[P5]", "[P6]", "[P7]"]
    for text in texts:
        t = _template(("son",), "any", text)
        form = Form(t)
        for mask in range(4):
            genders = [mask & 1, mask >> 1 & 1]
            for i in (0, 2):
                named = [marks[people[i]], marks[people[i + 1]]]
                assert form.render(mask, marks, people, i) == t.render(named, genders)
