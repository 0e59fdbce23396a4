"""The statement parser: shapes it reads, prose repair, and every template of the bank rendered
and read back against the facts it was written for."""
from __future__ import annotations

import random

import pytest

from clutrr.core.kb import GENDERS, load_kb
from clutrr.core.names import load_names
from clutrr.render.normalise import normalise
from clutrr.render.statements import Facts, analyse, self_possessives, tokenize
from clutrr.render.stitching import mention
from clutrr.render.usable import usable_bank

KB = load_kb("kinship")


def _read(clause: str, text: str, head: int = 0, names: dict[str, int] | None = None):
    facts = Facts.of(KB, tuple(clause.split(" ")), head)
    toks = tokenize(text, facts.genders, names)
    found, flags = analyse(toks, facts, text)
    return {(st.possessors, st.referent, st.word) for st in found}, flags


@pytest.mark.parametrize("clause, text, expected", [
    ("son", "{A}'s son {B} fixed the car.", ((0,), 1, "son")),
    ("son", "{B}, {A}'s son, fixed the car.", ((0,), 1, "son")),
    ("son", "{B} is the only son of {A}.", ((0,), 1, "son")),
    ("son", "The son of {A} is {B}.", ((0,), 1, "son")),
    ("son", "{A} hugged {A.his} son, {B}.", ((0,), 1, "son")),
    ("father", "{B} taught {B.his} {A.son|daughter} {A} to swim.", ((1,), 0, "son")),
    ("aunt", "{B}, aunt to {A}, laughed.", ((0,), 1, "aunt")),
    ("aunt", "{A} phoned Aunt {B}.", ((), 1, "aunt")),
    ("brother", "{A} and {B} are brothers.", ((0,), 1, "brothers")),
    ("wife", "{A} married {B} in May.", ((0,), 1, "married")),
    ("son in-law", "{A}'s son in law {B} waved.", ((0,), 1, "son-in-law")),
    ("wife son", "{A} and {A.his} wife {B} took their son {C} out.", ((0, 1), 2, "son")),
    ("brother son", "{C} thanked {A}, whose nephew {C.he} is.", ((0,), 2, "nephew")),
])
def test_statement_shapes(clause, text, expected):
    clause = clause.replace(" in-law", "-in-law")
    found, _ = _read(clause, text)
    assert expected in found, found


@pytest.mark.parametrize("text, expected", [
    # a relative clause: B is the father-in-law, A is not
    ("{B}, the father-in-law {A} fears, carved a cradle.", {((), 1, "father-in-law")}),
    ("{C} married {A}, whose son {B} married later.", {((2,), 0, "married")}),  # B is not A's son here
    ("{A} admired the father of the bride.", set()),  # the relation of someone unnamed
    ("{B} and {A}, husband and wife, sang.", {((0,), 1, "husband"), ((1,), 0, "wife")}),  # a named pair, in order
])
def test_only_the_statements_made(text, expected):
    assert _read("father-in-law", text)[0] == expected


def test_rendered_names_and_literal_pronouns_resolve_by_gender():
    text = "[Ann] lent her car to her nephew [Bob]."
    found, flags = _read("nephew", text, head=1, names={"Ann": 0, "Bob": 1})
    assert found == {((0,), 1, "nephew")} and flags == []
    found, flags = _read("nephew", "His nephew [Bob] waved at [Tom].", 0, {"Tom": 0, "Bob": 1})
    assert [f.rule for f in flags if f.drops] == ["4", "9"]  # a pronoun pointing forward owns nothing


def test_self_possessives_are_found_within_one_sentence():
    text = "[Ann] lent [Ann]'s car to [Bob]. [Bob] thanked [Ann]'s sister."
    toks = tokenize(text, [1, 0], {"Ann": 0, "Bob": 1})
    assert self_possessives(toks, text) == ["[Ann] lent [Ann]'s"]


@pytest.mark.parametrize("raw, fixed", [
    ("{A} does n't like {B} 's dog", "{A} doesn't like {B}'s dog."),
    ("{A} waved , and {B} ca n't stop ;", "{A} waved, and {B} can't stop."),
    ("{A} met {B},, at noon ( finally )", "{A} met {B}, at noon (finally)."),
    ("well... {A} smiled?!", "Well... {A} smiled?!"),
    ("\"Hi, {B},\" said {A}.", "\"Hi, {B},\" said {A}."),
])
def test_normalise_repairs_prose(raw, fixed):
    assert normalise(raw) == fixed
    assert normalise(fixed) == fixed


def test_every_usable_template_reads_back_as_its_facts():
    """Render each template the generator may use, with names and each possible gender of its
    first person, and read the sentence back: the parser finds the same statements as in
    the template, and none contradicts the clause."""
    rng = random.Random(0)
    pools = load_names()
    bank = usable_bank("paraphrase")
    checked = 0
    for t in bank.templates():
        heads = (0, 1) if t.gender == "any" else (GENDERS.index(t.gender),)
        for head in heads:
            facts = Facts.of(KB, t.clause, head)
            text = normalise(t.text)
            want, _ = analyse(tokenize(text, facts.genders), facts, text)
            names = [rng.choice(pools[GENDERS[g]]) + str(i) for i, g in enumerate(facts.genders)]
            rendered = t.render([mention(n, True) for n in names], list(facts.genders))
            got, flags = analyse(tokenize(rendered, facts.genders, {n: i for i, n in enumerate(names)}), facts,
                                 rendered)
            assert [f for f in flags if f.drops] == [], (t.id, rendered, flags)
            assert {(s.possessors, s.referent, s.pred) for s in got} == \
                   {(s.possessors, s.referent, s.pred) for s in want}, (t.id, rendered)
            checked += 1
    assert checked >= len(bank)
