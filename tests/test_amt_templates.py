"""The loader for the original CLUTRR AMT placeholder format, on fixtures written for this project."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clutrr.render.amt_templates import AmtFormatError, amt_pair, load_amt, read_amt
from clutrr.render.bank_check import check_bank
from clutrr.errors import UsageError
from clutrr.story.generator import GeneratorConfig, banks, make_example
from clutrr.render.bank_files import load_bank

FIXTURES = Path(__file__).resolve().parent / "fixtures_amt"


def _write(tmp_path: Path, data: object, name: str = "bank.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_entities_become_placeholders_and_gender_keys():
    by_text = {t.text: t for t in load_amt(FIXTURES / "small.json")}
    # the same text under both genders of entity 0 is one gender-free template
    t = by_text["{B} is the brother of {A}."]
    assert (t.clause, t.gender) == (("brother",), "any")
    assert by_text["{A} lent her brother {B} a tent for the festival."].gender == "female"
    assert by_text["{A} and his brother {B} repainted the garden shed a startling shade of teal."].gender == "male"
    t = by_text["{A} waved as his brother {B} drove off with his son {C}."]
    assert (t.clause, t.gender) == (("brother", "son"), "male")
    t = by_text["{B}, who married the daughter of {A}, drove his sister {C} to the airport."]
    assert (t.clause, t.gender) == (("son-in-law", "sister"), "female")
    assert len(by_text) == 8


def test_neice_spelling_is_accepted():
    clauses = {t.clause for t in load_amt(FIXTURES / "small.json")}
    assert ("niece",) in clauses
    assert not any("neice" in c for c in clauses)


def test_fixtures_pass_the_validator():
    report = check_bank(str(FIXTURES / "pair.json"), targets=False)
    assert report.problems == [] and report.entries
    report = check_bank(str(FIXTURES / "small.json"), targets=False)
    assert report.errors == [] and report.entries
    # "ENT_0_male waved as his brother ENT_1_male drove off with his son": a reader takes the son as
    # the driver's, the subject of the clause; "who married the daughter of" is a shape the parser
    # does not read, kept (not dropped) in a crowd bank
    assert [(f.rule, f.drops) for _, f in report.flags] == [("9", False)]


@pytest.mark.parametrize("data, message", [
    ([], "expected a JSON object"),
    ({"brother-cousin": {"male-male-male": ["ENT_0_male ENT_1_male ENT_2_male"]}}, "unknown relation word"),
    ({"brother": {"male": ["ENT_0_male ENT_1_male"]}}, "needs 2 genders"),
    ({"brother": {"male-female": ["ENT_0_male ENT_1_female"]}}, "disagrees with the words' genders"),
    ({"brother": {"male-male": ["ENT_0_female sees ENT_1_male"]}}, "disagrees with gender_comb"),
    ({"brother": {"male-male": ["ENT_0_male sees ENT_3_male"]}}, "names entity 3"),
    ({"brother": {"male-male": ["ENT_1_male waves."]}}, "never mentioned"),
    ({"brother": {"male-male": ["ENT_0_male and {ENT_1_male}"]}}, "literal brace"),
    ({"brother": {"male-male": "ENT_0_male and ENT_1_male"}}, "list of template strings"),
    ({"brother": ["ENT_0_male and ENT_1_male"]}, "keyed by gender_comb"),
])
def test_bad_entries_are_reported(tmp_path, data, message):
    path = _write(tmp_path, data)
    templates, problems = read_amt(path)
    assert templates == [] and len(problems) == 1 and message in problems[0]
    with pytest.raises(AmtFormatError, match=message):
        load_amt(path)


def test_unparsable_json_is_a_problem(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    _, problems = read_amt(path)
    assert "cannot read JSON" in problems[0]


def test_pair_names(tmp_path):
    for name in ("x.train.json", "x.test.json"):
        _write(tmp_path, {}, name)
    pair = (tmp_path / "x.train.json", tmp_path / "x.test.json")
    assert amt_pair(tmp_path / "x.train.json") == pair
    assert amt_pair(tmp_path / "x.test.json") == pair
    assert amt_pair(tmp_path / "x.json") == pair  # absent itself, so it names the pair
    _write(tmp_path, {}, "x.json")
    assert amt_pair(tmp_path / "x.json") is None  # an existing single file wins
    assert amt_pair(tmp_path / "y.train.json") is None  # no twins


def test_pair_is_the_template_holdout():
    source = str(FIXTURES / "pair.json")
    train_ids = {t.id for t in load_amt(FIXTURES / "pair.train.json")}
    test_ids = {t.id for t in load_amt(FIXTURES / "pair.test.json")}
    assert train_ids and test_ids and not train_ids & test_ids
    bank = load_bank(source)
    assert {t.id for t in bank.templates()} == train_ids | test_ids
    split = banks(GeneratorConfig(templates=source), seed=3)
    assert {t.id for t in split["train"].templates()} == train_ids
    assert {t.id for t in split["test"].templates()} == test_ids
    same = banks(GeneratorConfig(templates=source, template_split=False), seed=3)
    assert {t.id for t in same["test"].templates()} == train_ids | test_ids
    for split_name, ids in (("train", train_ids), ("test", test_ids)):
        ex = make_example(GeneratorConfig(templates=source), 3, "supporting", 0, 5, split_name)
        used = {p["template"] for p in ex.record["pieces"]} | {ex.record["target_template"]}
        assert used <= ids
        assert "ENT_" not in ex.row.story and "{" not in ex.row.story


def test_a_bank_missing_relation_words_is_filled_or_a_usage_error(tmp_path):
    path = _write(tmp_path, {"brother": {"male-male": ["ENT_1_male is the brother of ENT_0_male."]}})
    with pytest.raises(UsageError, match="no one-fact template"):
        banks(GeneratorConfig(templates=str(path), template_split=False, fallback_templates="none"), seed=0)
    filled = banks(GeneratorConfig(templates=str(path), template_split=False), seed=0)["train"]
    own = [t for t in filled.templates() if t.id not in filled.fallback_ids]
    assert [t.text for t in own] == ["{B} is the brother of {A}."]
    assert filled.choices(("brother",), "male") == own  # the bank's own clause is not filled
    assert filled.choices(("brother",), "female") and filled.choices(("aunt",), "male")
    assert not filled.choices(("husband",), "male")  # only a woman has a husband
    bad = _write(tmp_path, {"brother": {"male": ["x"]}}, "bad.json")
    with pytest.raises(UsageError, match="cannot load templates"):
        banks(GeneratorConfig(templates=str(bad)), seed=0)
