"""Rule 7 by meaning (clutrr/render/world.py) and the step-parent shapes, on templates written
for these tests: each kind of meaning is caught in wordings no list of phrases holds, and the
readings that tell none of them are kept."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clutrr.render.bank_check import check_bank
from clutrr.render.world import meaning_flags


def _flags(tmp_path: Path, clause: str, key: str, text: str) -> list:
    path = tmp_path / "bank.yaml"
    path.write_text(yaml.safe_dump([{"clause": clause, key: [text]}], sort_keys=False))
    return [f for _, f in check_bank(str(path), targets=False).flags]


@pytest.mark.parametrize("text, meaning", [
    # ages: the noun "age" and a number where an age stands
    ("{A}'s aunt {B} rows faster than scullers half that age.", "an age"),
    ("{B} taught {B.his} son {C} to sail at the age of nine.", "an age"),
    ("{A} was seven when {A.his} brother {B} arrived.", "an age"),
    ("{B} is only six, and {B.his} uncle {A} already lets {B.him} steer.", "an age"),
    # childhood: stages, milestones, a child's school, a child's care
    ("{A}'s grandson {B} has just learned to walk.", "childhood"),
    ("{A} carried {A.his} toddler grandson {B} up the hill.", "childhood"),
    ("{A} read bedtime stories to {A.his} niece {B}.", "childhood"),
    ("{B} sang the lead in the school play, and {B.his} aunt {A} cried.", "childhood"),
    ("{A} walked {A.his} nephew {B} to school in the rain.", "childhood"),
    ("{A}'s baby sister {B} slept through the storm.", "childhood"),
    ("{A} babysits {A.his} granddaughter {B} on Fridays.", "childhood"),
    # the time of a wedding: recent, coming, placed in time
    ("{A} had just been married to {B} when the roof fell in.", "the time of a wedding"),
    ("{A} cooked for {A.his} brand-new husband {B}.", "the time of a wedding"),
    ("{A} and {B}, husband and wife at last, danced.", "the time of a wedding"),
    ("{B} became {A}'s wife in April.", "the time of a wedding"),
    ("{A} and {A.his} husband {B} honeymooned in Skye.", "the time of a wedding"),
    ("{A} is engaged to {B}.", "the time of a wedding"),
    ("{A} has not seen {A.his} wife {B} dance since the wedding.", "the time of a wedding"),
    # twins, which the world model cannot check
    ("{A}'s twin brother {B} paints barns.", "twins"),
    ("{B} and {A} are twins who sing.", "twins"),
])
def test_each_meaning_is_flagged_in_new_words(text, meaning):
    flags = meaning_flags(text)
    assert any(f.rule == "7" and f.kind == "world" and meaning in f.message for f in flags), flags


@pytest.mark.parametrize("text", [
    "{A} married {B} in a village church, and {B} bakes bread.",
    "{A}'s sister {B} runs a surf school in Newquay.",
    "{A}'s son {B} graduated from medical school.",
    "{A} and {A.his} brother {B} bought two tickets and three pies.",
    "{A} mends the nets after work with {A.his} father {B}.",
    "{A}'s husband {B} sleeps in one of the twin beds.",
    "{A} worked for ages on the quilt {A.his} mother {B} designed.",
    "{A}'s brother {B} raised a toast at the reunion.",
])
def test_wordings_that_tell_no_age_wedding_time_childhood_or_twins_pass(text):
    assert meaning_flags(text) == []


@pytest.mark.parametrize("clause, key, text, meaning", [
    ("mother", "any", "{B} gave birth to {A} in a snowstorm.", "childhood"),
    ("sister-son", "any", "{A} drove {A.his} sister {B} to hospital. {B}'s son {C} was born at noon.", "childhood"),
    ("brother-aunt", "any", "{A}'s brother {B} mends boilers. {B}'s aunt {C}, who lives alone, pays in cake.",
     "a household without a spouse"),
])
def test_a_birth_or_a_household_without_a_spouse_is_the_only_flag(tmp_path, clause, key, text, meaning):
    flags = [f for f in _flags(tmp_path, clause, key, text) if f.drops]
    assert [(f.rule, meaning in f.message) for f in flags] == [("7", True)], flags


def test_a_meaning_flag_drops_the_template(tmp_path):
    flags = _flags(tmp_path, "grandson", "any", "{A}'s grandson {B} has just learned to walk.")
    assert any(f.rule == "7" and f.drops and "childhood" in f.message for f in flags)


@pytest.mark.parametrize("clause, key, text", [
    # the other parent told only as the parent's spouse, by a pronoun, beside the child
    ("husband-daughter", "female",
     "{C} phoned {C.his} father, {B}, from Rome, and {B.his} wife {A} grabbed the receiver."),
    ("father-wife", "female", "{A} waved to {A.his} father {B}, and {B.his} wife {C} waved back."),
    # the spouse set off by a pronoun and the child told by the other partner's pronoun
    ("wife-daughter", "male", "{A} whittled while {B}, {A.his} wife, braided the hair of {B.his} daughter {C}."),
    ("wife-son", "male", "{C} visits {C.his} mother {B}, and {A}, {B.his} husband, goes fishing with the visitor."),
    # the couple's meeting told beside their child
    ("father-wife", "any", "{B}, the father of {A}, met a skater at the rink. {B}'s wife {C} is that skater."),
    ("mother-husband", "any", "{B} met {B.his} husband {C} at a dance, and {B.his} child {A} still hears about it."),
])
def test_a_parent_told_through_a_spouse_or_a_meeting_is_flagged(tmp_path, clause, key, text):
    flags = _flags(tmp_path, clause, key, text)
    assert any(f.rule == "7" and f.kind == "world" and f.drops for f in flags), flags


@pytest.mark.parametrize("clause, key, text", [
    ("husband-daughter", "female", "{C} phoned {C.his} father, {B}, from Rome. {B}'s wife {A} grabbed the receiver."),
    ("brother-wife", "female", "{A}'s brother {B} met {B.his} wife {C} at a dance."),
    ("father-wife", "any", "{A} waved to {A.his} father {B}. {B}'s wife {C} waved back from the boat."),
])
def test_a_parent_spouse_told_by_name_or_a_meeting_without_a_child_is_kept(tmp_path, clause, key, text):
    flags = _flags(tmp_path, clause, key, text)
    assert not [f for f in flags if f.drops], flags


@pytest.mark.parametrize("text, meaning", [
    ("{A} left home at fourteen, and {A.his} uncle {B} sent postcards.", "an age"),
    ("{A}'s grandson {B} phoned from summer camp.", "childhood"),
    ("{A} keeps the crayon drawings of {A.his} niece {B}.", "childhood"),
    ("{A}'s son {B} rode without stabilisers.", "childhood"),
    ("Shortly after {A}'s daughter {B} married {C}, it rained.", "the time of a wedding"),
])
def test_meanings_found_while_reading_the_sample_stories(text, meaning):
    assert any(meaning in f.message for f in meaning_flags(text))


def test_a_clock_time_is_no_age():
    assert meaning_flags("{A} phones {A.his} mother {B} every evening at seven.") == []
