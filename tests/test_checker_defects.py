"""Each defect the checker must find, on templates written for these tests (never crowd text):
facts told without their owner, dangling appositives, repeated names, ages and step-families,
and the crowd-bank defects (wrong-gender and forward pronouns, swapped pairs, possessive
chains, bare possessives, extra named people, misspellings); and the readings it must accept."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from clutrr.core.kb import load_kb
from clutrr.render.bank_check import check_bank
from clutrr.render.normalise import normalise
from clutrr.render.statements import Facts, analyse, tokenize
from clutrr.story.generator import GeneratorConfig, make_example

KB = load_kb("kinship")


def _yaml_flags(tmp_path: Path, clause: str, key: str, text: str) -> list:
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump([{"clause": clause, key: [text]}], sort_keys=False))
    return [f for _, f in check_bank(str(path), targets=False).flags]


def _amt_flags(tmp_path: Path, f_comb: str, genders: str, text: str) -> list:
    path = tmp_path / "crowd.json"
    path.write_text(json.dumps({f_comb: {genders: [text]}}))
    report = check_bank(str(path), targets=False)
    assert report.errors == []
    return [f for _, f in report.flags]


def _has(flags: list, rule: str, words: str, drops: bool = True) -> bool:
    return any(f.rule == rule and words in f.message and f.drops == drops for f in flags)


@pytest.mark.parametrize("clause, key, text, kind", [
    # a role noun whose owner the sentence never names
    ("husband", "female", "{A} gets soup in flasks from {B}, a husband with perfect timing.", "role-only"),
    ("daughter-husband", "any",
     "{A} carried boxes while {A.his} daughter {B} gave orders and {C}, the husband, built the beds.", "role-only"),
    ("father-in-law", "any", "{B} lit lamps on {A}'s balcony, sure that a father-in-law should watch every flame.",
     "role-only"),
    # a fact the parser cannot read at all
    ("brother", "any", "{A} and {B} missed the last ferry.", "unstated"),
    # an appositive set off after something that is not a person
    ("sister", "any", "{A} waits up until {B} rings from the night bus, a sister who worries.", "dangling"),
    # ages, dates, lengths of a marriage, step-families
    ("wife", "male", "{A} and {A.his} wife of eight years {B} planted a quince.", "world"),
    ("wife", "male", "{A} married {B} in 1974 on a wet Tuesday.", "world"),
    ("grandson", "any", "{A} drove {A.his} teenage grandson {B} to the match.", "world"),
    ("son", "any", "{B} is the only son of {A} and fixes every leaking tap.", "world"),
    ("father", "any", "{B} has been {A}'s father for thirty years and still calls on Sundays.", "world"),
    ("mother", "any", "{B}, the mother of {A}, is a hundred and rides a tricycle.", "world"),
    ("husband-son", "female", "{A}, married to {B} for decades, watched {B.his} son {C} sail.", "world"),
    ("wife-son", "male", "{A} watched {A.his} wife {B} teach {B.his} son {C} to juggle.", "world"),
    # a person named who is not in the clause
    ("brother", "any", "{A}'s brother {B} met Beth at the station.", "extra-person"),
])
def test_each_writing_defect_is_flagged_and_dropped(tmp_path, clause, key, text, kind):
    flags = _yaml_flags(tmp_path, clause, key, text)
    assert any(f.kind == kind and f.drops for f in flags), flags


def test_a_name_repeated_in_one_sentence_is_reported_but_kept(tmp_path):
    flags = _yaml_flags(tmp_path, "brother-son", "any", "{A}'s brother {B} waved, and {C}, the son of {B}, sang.")
    assert any(f.kind == "repeated-name" and not f.drops for f in flags)
    assert not any(f.drops for f in flags)


@pytest.mark.parametrize("clause, key, text", [
    ("brother-son", "any", "{A}'s brother {B} waved. {B}'s son {C} sang."),
    ("husband", "female", "\"My husband {B} snores like a foghorn,\" {A} warned the hostel owner."),
    ("brother-father", "any", "{A} watched as {A.his} brother {B} and {C}, son and father, shared one rod."),
    ("brother-brother", "any", "{A}'s brother {B} rows with {C}. {B} and {C}, two brothers, never agree."),
    ("husband", "female", "{A}, married to {B}, keeps bees."),
    ("mother", "any", "{B} gave birth to {A} in a snowstorm."),
    ("daughter", "any", "{B}, daughter of the blacksmith {A}, forged a sword."),
    ("son-wife", "female", "{A} took {A.his} son {B} and {B.his} wife {C} to the coast."),
    ("mother-in-law", "male", "{A} drove {A.his} wife's mother {B} to the clinic."),
    ("sister", "any", "The fence was mended by {B} who is {A}'s sister."),
])
def test_facts_told_with_their_owner_are_not_flagged(tmp_path, clause, key, text):
    flags = _yaml_flags(tmp_path, clause, key, text)
    assert [f for f in flags if f.drops] == [], flags


# --- the crowd bank: templates in the AMT placeholder format, written here ----------------


def test_a_pronoun_of_the_wrong_gender_or_pointing_forward_is_flagged(tmp_path):
    # "{B} and her sister {A}" where {B} is the brother: 'her' has no woman before it
    flags = _amt_flags(tmp_path, "brother", "female-male", "ENT_1_male and her sister ENT_0_female painted the shed.")
    assert _has(flags, "4", "refers forward")
    flags = _amt_flags(tmp_path, "nephew", "male-male", "His uncle ENT_0_male taught ENT_1_male to fish.")
    assert _has(flags, "4", "refers forward")


def test_a_swapped_pair_is_flagged(tmp_path):
    text = "ENT_0_male asked his mother and father, ENT_1_male and ENT_2_female, for a lift."
    flags = _amt_flags(tmp_path, "father-wife", "male-male-female", text)
    assert _has(flags, "6", "'mother' does not fit the gender")
    right = "ENT_0_male asked his father and mother, ENT_1_male and ENT_2_female, for a lift."
    flags = _amt_flags(tmp_path, "father-wife", "male-male-female", right)
    assert not _has(flags, "6", "does not fit the gender")


def test_possessive_chains_are_read(tmp_path):
    good = "ENT_1_female and her husband ENT_2_male waved. ENT_0_male is ENT_2_male's wife's father."
    assert not [f for f in _amt_flags(tmp_path, "daughter-husband", "male-female-male", good)
                if f.drops and f.rule in ("5", "6")]
    wrong = "ENT_1_female waved at ENT_0_male. ENT_2_male, ENT_0_male's son's husband, waved back."
    assert _has(_amt_flags(tmp_path, "daughter-husband", "male-female-male", wrong), "6", "son's husband")


def test_a_possessive_without_its_s_is_repaired_and_read(tmp_path):
    text = "ENT_0_male 'daughter ENT_1_female flew a kite on the dunes."
    assert normalise("{A} 'daughter {B} flew a kite.") == "{A}'s daughter {B} flew a kite."
    flags = _amt_flags(tmp_path, "daughter", "male-female", text)
    assert _has(flags, "8", "possessive without its s", drops=False)
    assert [f for f in flags if f.drops] == []


def test_extra_named_people_and_misspelled_relation_words(tmp_path):
    flags = _amt_flags(tmp_path, "sister", "female-female", "ENT_0_female and her sister ENT_1_female met John.")
    assert _has(flags, "1", "'John'")
    flags = _amt_flags(tmp_path, "neice", "female-female", "ENT_0_female taught her neice ENT_1_female to knit.")
    assert _has(flags, "8", "misspelled relation word", drops=False)
    assert [f for f in flags if f.drops] == []
    assert normalise("her neice {B}") == "Her niece {B}."


@pytest.mark.parametrize("f_comb, genders, text", [
    # any reader takes both 'her' as the subject's
    ("daughter-daughter", "female-female-female",
     "ENT_1_female walked her daughter ENT_2_female to the bus stop before collecting her mother ENT_0_female."),
    # parallel possessives
    ("sister-son", "female-female-male", "ENT_1_female went sailing with her sister ENT_0_female and her son ENT_2_male."),
    # subject continuity
    ("sister", "female-female", "ENT_1_female phoned her sister ENT_0_female. She wanted a recipe for scones."),
    # an ambiguity that changes no fact ('his birthday')
    ("grandson-brother", "male-male-male", "ENT_0_male took his grandson ENT_1_male and ENT_1_male's brother "
                                           "ENT_2_male to the fair for his birthday."),
])
def test_pronouns_a_reader_resolves_are_not_flagged(tmp_path, f_comb, genders, text):
    flags = _amt_flags(tmp_path, f_comb, genders, text)
    assert not [f for f in flags if f.rule == "4"], flags


def test_a_pronoun_a_careful_reader_could_take_two_ways_or_takes_wrongly_is_flagged(tmp_path):
    # whose husband? a reader takes both 'her' as the subject's, so the text says the husband is
    # hers, which the clause (her daughter's husband) does not
    text = "ENT_0_female sat with her daughter ENT_1_female and her husband ENT_2_male on the pier."
    assert _has(_amt_flags(tmp_path, "daughter-husband", "female-female-male", text), "6", "does not say")
    # who could come: the asker or the one asked
    text = "ENT_1_female asked her sister ENT_0_female if she could bring her son ENT_2_male."
    assert _has(_amt_flags(tmp_path, "sister-son", "female-female-male", text), "4", "could refer to")


def test_the_reader_resolves_rendered_stories_too():
    facts = Facts.of(KB, ("nephew",), 1)
    text = "His nephew [Bob] waved at [Tom]."
    _, flags = analyse(tokenize(text, facts.genders, {"Tom": 0, "Bob": 1}), facts, text, slot_bank=False)
    assert any(f.rule == "4" and "forward" in f.message for f in flags)


# --- the shipped bank and the stories in the README -----------------------------------------


def test_the_default_bank_tells_every_fact_with_its_owner():
    report = check_bank("paraphrase")
    kinds = report.kinds()
    assert report.dropped == set()
    assert kinds.get("role-only", 0) == kinds.get("dangling", 0) == kinds.get("unstated", 0) == 0
    assert len(report.entries) >= 6000


def test_the_readme_stories_hold_no_role_only_fact():
    """The ten stories of the README (``clutrr show --k 4 --noise all -n 10``) use only templates
    whose every fact names its owner."""
    report = check_bank("paraphrase", targets=False)
    flagged = {e.template.id for e, f in report.flags if f.kind in ("role-only", "dangling", "unstated")}
    config = GeneratorConfig()
    ids = [p["template"] for i in range(10) for p in make_example(config, 4, "all", 0, i, "test").record["pieces"]]
    assert ids and not set(ids) & flagged
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert "clutrr show --k 4 --noise all -n 10" in readme
