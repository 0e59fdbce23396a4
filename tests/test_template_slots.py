"""Pronoun and gendered-word slots in templates: rendering and validation."""
from __future__ import annotations

import pytest

from clutrr.core.kb import load_kb
from clutrr.render.bank_check import template_flags, tokens
from clutrr.render.slots import SlotError, slot_forms
from clutrr.render.templates import Template, compile_text, template_id


def make(clause: tuple[str, ...], text: str, gender: str = "any") -> Template:
    return Template(template_id(clause, gender, text), clause, gender, text, "test")


def template_problems(kb, t: Template) -> list[str]:
    return [str(f) for f in template_flags(kb, t)]


@pytest.mark.parametrize("gender, expected", [
    (0, "[Ann] is the mother of [Bob]; he took his coat and hers? No: his. He hid it himself."),
    (1, "[Ann] is the mother of [Bob]; she took her coat and hers? No: hers. She hid it herself."),
])
def test_pronoun_slots_follow_the_entity_gender(gender, expected):
    t = make(("mother",), "{B} is the mother of {A}; {A.he} took {A.his} coat and hers? No: {A.hers}. "
                          "{A.He} hid it {A.himself}.")
    assert t.render(["[Bob]", "[Ann]"], [gender, 1]) == expected


def test_gendered_word_slots_and_capitals():
    t = make(("son",), "{B.Son|Daughter} of {A}, {B} is a quiet {B.man|woman}.")
    assert t.render(["A", "Lee"], [0, 0]) == "Son of A, Lee is a quiet man."
    assert t.render(["A", "Lee"], [0, 1]) == "Daughter of A, Lee is a quiet woman."


def test_compile_splits_literals_and_slots():
    assert compile_text("{A} met {B.him}.") == ((0, None), " met ", (1, ("him", "her")), ".")


@pytest.mark.parametrize("name", ["her", "Her", "thee", "a|b|c", "|x"])
def test_bad_slots_are_refused(name):
    with pytest.raises(SlotError):
        slot_forms(name)


def test_validator_accepts_slots_and_names_bad_ones():
    kb = load_kb("kinship")
    good = make(("nephew",), "{A} drove {A.his} nephew {B} to the station; the young {B.man|woman} waved.")
    assert template_problems(kb, good) == []
    bad = make(("nephew",), "{A} drove {A.her} nephew {B} to the station.")
    assert any("{A.her} is ambiguous" in p for p in template_problems(kb, bad))
    wrong_entity = make(("nephew",), "{A} drove {C.his} nephew {B} home.")
    assert any("{C.his}" in p for p in template_problems(kb, wrong_entity))


def test_a_pronoun_slot_is_not_a_literal_pronoun_of_unknown_gender():
    kb = load_kb("kinship")
    # B is female (aunt); A's gender is free, so a literal "his" would be refused, a slot is not
    assert template_problems(kb, make(("aunt",), "{A} visited {A.his} aunt {B} on Sundays.")) == []
    problems = template_problems(kb, make(("aunt",), "{A} visited his aunt {B}."))
    assert any("pronoun 'his' but no entity is known to be male" in p for p in problems)
    assert any("literal pronoun 'his'" in p for p in problems)


def test_a_gendered_slot_may_not_name_the_implied_relation():
    kb = load_kb("kinship")
    t = make(("father", "brother"), "{C}, the {C.uncle|aunt} of {A}, is the brother of {B}, {A}'s father.")
    assert any("implied relation" in p for p in template_problems(kb, t))


def test_measure_tokens_read_slots():
    assert tokens("{A} hugged {A.his} son {B}.") == ["ent", "hugged", "his", "son", "ent"]
