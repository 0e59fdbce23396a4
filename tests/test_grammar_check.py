"""Rule 8, grammar as rendered (clutrr/render/grammar.py): each break is found in a template
written for it once real names fill it, clean sentences pass, and no template of the default
bank breaks one."""
from __future__ import annotations

import pytest

from clutrr.core.kb import load_kb
from clutrr.render.bank_check import read_bank, resolve_files
from clutrr.render.grammar import grammar_flags, renderings
from clutrr.render.statements import lexicon
from clutrr.render.templates import Template, split_clause, template_id

KB = load_kb("kinship")
WORDS = frozenset(lexicon(KB))


def _template(clause: str, gender: str, text: str) -> Template:
    words = tuple(split_clause(clause))
    return Template(template_id(words, gender, text), words, gender, text, "test.yaml")


@pytest.mark.parametrize("clause, gender, text, what", [
    ("brother-father", "any", "{C}'s son {B}, {A}'s brother of the coach, cannot win a game.", "owned twice"),
    ("mother-sister-in-law", "any", "{A}'s mother {B} wrote it with {C}, {B.his} sister-in-law of the first author.",
     "owned twice"),
    ("son-in-law", "any", "{B} spoke for an hour at the wedding of {A}'s daughter, and {A} timed it minutes.",
     "measure"),
    ("sister", "any", "{A} and {A.his} sister {B} took the the last train.", "written twice"),
    ("brother", "any", "{A} waved to the {B}, {A.his} brother.", "before a name"),
    ("aunt", "any", "{A}'s aunt {B}'s. {A} laughed.", "nothing owned"),
    ("uncle", "any", "{A}'s uncle {B} sings. then {A} claps.", "lower case"),
])
def test_each_break_is_found_as_rendered(clause, gender, text, what):
    flags = grammar_flags(KB, _template(clause, gender, text), WORDS)
    assert any(f.rule == "8" and f.drops and what in f.message for f in flags), flags


@pytest.mark.parametrize("clause, gender, text", [
    ("brother-father", "any", "{A}'s brother {B} is the father of {C}."),
    ("sister", "any", "{A} borrowed {A.his} sister {B}'s bike and returned it months later."),
    ("son", "any", "{A} had had enough, so {A.his} son {B} drove."),
])
def test_clean_sentences_pass(clause, gender, text):
    assert grammar_flags(KB, _template(clause, gender, text), WORDS) == []


def test_templates_are_read_with_real_names_in_every_gender_they_take():
    texts = [text for text, _ in renderings(KB, _template("brother", "any", "{A} hugged {A.his} brother {B}."))]
    assert len(texts) == 2 and "{" not in "".join(texts)
    assert any(" his brother " in t for t in texts) and any(" her brother " in t for t in texts)


def test_no_template_of_the_default_bank_breaks_a_grammar_rule():
    entries, errors = read_bank(resolve_files("paraphrase"))
    assert errors == [] and len(entries) > 6000
    broken = [(e.where, str(f)) for e in entries for f in grammar_flags(KB, e.template, WORDS)]
    assert broken == []
