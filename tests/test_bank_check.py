"""The bank validator: every check on small banks written here, the measures, and the shipped bank."""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clutrr.render.bank_check import TARGETS, check_bank, jaccard, k2_targets, possible_heads, tokens
from clutrr.cli import main
from clutrr.core.kb import load_kb


def _bank(tmp_path: Path, blocks: list, name: str = "bank.yaml") -> str:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(blocks, sort_keys=False))
    return str(path)


def _problems(tmp_path: Path, clause: str, key: str, *texts: str) -> list[str]:
    return check_bank(_bank(tmp_path, [{"clause": clause, key: list(texts)}]), targets=False).problems


def test_measure_tokens_normalise_entities():
    assert tokens("{A}'s brother {B} said: \"Don't!\"") == ["ent's", "brother", "ent", "said", "don't"]
    assert jaccard(frozenset("ab"), frozenset("bc")) == pytest.approx(1 / 3)
    assert jaccard(frozenset(), frozenset()) == 0.0


def test_a_good_template_has_no_problem(tmp_path):
    text = "{B} took {B.his} son {C} fishing. {A}, {B}'s sibling, came along."
    assert _problems(tmp_path, "brother-son", "any", text) == []


@pytest.mark.parametrize("clause, key, text, message", [
    ("brother", "any", "{A} met {B} and {C}.", "placeholder {C} is not one of the clause's entities"),
    ("brother", "any", "{A} met {b}.", "placeholder {b} is not one of"),
    ("brother", "any", "{A} met { B }.", "placeholder { B } is not one of"),
    ("brother", "any", "{A} met {B} {.", "stray brace"),
    ("brother-son", "any", "{A} met {B}.", "does not mention {C}"),
    ("sister", "any", "{A} hugged {B} and his dog.", "pronoun 'his' but no entity is known to be male"),
    ("brother", "any", "{A} said she liked {B}.", "pronoun 'she' but no entity is known to be female"),
    ("brother-son", "any", "{C} is the nephew of {A}; {B} is his father.", "names the implied relation: 'nephew'"),
    ("brother-son", "any", "{A}'s brother {B} has sons, {C} and two nephews.", "names the implied relation: 'nephew'"),
    ("brother-cousin", "any", "{A} {B} {C}", "cousin is not a relation word"),
    ("sister-wife", "any", "{A}'s sister {B} and her wife {C}.", "never occurs in a family"),
    ("husband", "male", "{A} and his husband {B}.", "cannot be male"),
    ("brother", "any", "   ", "empty template"),
    ("niece", "any", "{B} waved to {B.his} uncle or aunt {A}.", "hedges the gender: write male/female templates or a slot: «uncle or aunt»"),
    ("brother", "any", "{B} thanked {A} for his/her help.", "hedges the gender: write male/female templates or a slot: «his/her»"),
    ("sister-in-law", "any", "{B} married a brother of {A}.", "states 'sister-in-law' without naming it"),
    ("nephew", "any", "{B} is the son of {A}'s sister.", "states 'nephew' without naming it"),
])
def test_each_problem_is_found(tmp_path, clause, key, text, message):
    problems = _problems(tmp_path, clause, key, text)
    assert any(message in p for p in problems), problems


@pytest.mark.parametrize("clause, key, text", [
    ("sister", "male", "{A} hugged {A.his} sister {B} and {A.his} dog."),  # A is male under 'male'
    ("brother", "any", "{B} fixed {B.his} bike while {B.his} sibling {A} watched."),  # B is the one person mentioned
    ("son", "any", "{A} gave {A.his} son {B}, a son-in-law's best friend, a hat."),  # 'son' is the clause's own word
    ("uncle", "any", "{B} taught {B.his} {A.nephew|niece} {A} to sail."),  # the inverse word names the relation
    ("brother-in-law", "any", "{A} and {A.his} brother in law {B} went sailing."),
    # "{C.his} husband {B}" states fact 2 inversely, though A's son's wife's father-in-law is A's husband
    ("son-wife-father-in-law", "female", "{D} met {D.his} daughter-in-law {C} and {C.his} husband {B}, whose mother is {A}."),
    ("brother", "any", "{A} swears that {B}, {A.his} brother, cheats at cards."),  # not B's own "his"
    ("wife-son", "male", "{A} and {A.his} wife {B} took their son {C} to the zoo."),  # the couple's child
    ("son-wife-son", "any", "{A}'s son {B} married {C} in a barn. Their son {D} bakes bread in a snowstorm."),
    ("father-in-law", "any", "{B}, the father-in-law of {A}, carved a cradle."),  # the noun's owner after 'of'
    ("grandson", "any", "{A} planted an oak to mark the arrival of {A.his} first grandson, {B}."),
    ("daughter-in-law-husband", "male", "{A}'s daughter-in-law {B} whistled; {C}, whose wife {B.he} is, sang."),
])
def test_no_false_alarm(tmp_path, clause, key, text):
    assert _problems(tmp_path, clause, key, text) == []


@pytest.mark.parametrize("clause, key, text, rule, message", [
    # rule 2: pronouns and gendered words are slots
    ("brother", "any", "{B} fixed his bike while {A} watched.", "2", "literal pronoun 'his'"),
    ("brother", "any", "{A} called {B} a lucky man.", "2", "literal gendered word 'man'"),
    ("brother", "any", "{A} thanked {B}, the ferryman.", "2", "literal gendered word 'ferryman'"),
    # rule 3: no self-possessives in one sentence (two sentences are fine)
    ("brother", "any", "{A} lent {A}'s car to {A.his} brother {B}.", "3", "«{A} lent {A}'s»"),
    # rule 4: a pronoun that could be someone else's
    ("nephew", "any", "{A} drove {A.his} nephew {B} to {B.his} interview.", "4",
     "the 'his' of {B} could also refer to {A} (when {A} is male)"),
    ("son-sister", "any", "{A} rode beside {A.his} son {B} to a ward where {B.his} sister {C} gave birth.", "4",
     "the 'his' of {B} could also refer to {A} (when {A} is male)"),
    # rule 5: the fact points the other way, or the noun is beside the wrong name
    ("father-in-law", "any", "{A} took {A.his} son-in-law {B} fishing.", "5", "the fact points the other way"),
    ("mother-in-law", "any", "{B} cooked for {A}, a mother-in-law convinced soup cures everything.", "5",
     "'mother-in-law' stands beside {A}, but it is {B} who is the mother-in-law"),
    # rule 9: every fact names its owner
    ("mother-in-law", "any", "{B} cooked for {A}, a mother-in-law convinced soup cures everything.", "9",
     "{B} is {A}'s mother-in-law"),
    ("brother", "any", "{A} and {B} missed the ferry.", "9", "not stated in a shape the checker reads"),
    # rule 6: another relation, or the implied one
    ("brother", "any", "{B} is {A}'s cousin.", "6", "names a relation outside the KB ('cousin')"),
    ("brother-son", "any", "{B} waved. {C} is {A}'s nephew and {B}'s son.", "6", "leaves implicit"),
    ("brother", "any", "{B} is {A}'s {B.son|daughter}.", "6", "which the clause does not say"),
    ("son", "any", "{B} is the daughter of {A}.", "6", "'daughter' does not fit the gender of {B}"),
    # rule 7: step-, half- and broken families; one parent's child beside the couple
    ("son", "any", "{B}, {A}'s stepson, waved.", "7", "'stepson' implies"),
    ("brother", "any", "{B}, {A}'s half-brother, waved.", "7", "'half-brother' implies"),
    ("son", "any", "Adopted at two, {B} has been {A}'s son ever since.", "7", "'Adopted' implies"),
    ("aunt", "any", "{A} inherited a violin from {A.his} late aunt {B}.", "7", "'late' 'aunt'"),
    ("wife-son", "male", "{A} married {B}, and {B.his} son {C} sang.", "7", "the marriage is told as an event"),
    ("son-wife-son", "any", "{A}'s son {B} and {C}, {B.his} wife, took {C.his} son {D} home.", "7", "write 'their'"),
    # rule 8: prose
    ("brother", "any", "{A} met {B},, at noon.", "8", "doubled punctuation"),
])
def test_each_rule_is_flagged(tmp_path, clause, key, text, rule, message):
    lines = _problems(tmp_path, clause, key, text)
    assert any(f": rule {rule} (" in p and message in p for p in lines), lines


def test_prose_that_rendering_repairs_is_flagged_but_not_dropped(tmp_path):
    report = check_bank(_bank(tmp_path, [{"clause": "brother", "any": ["{B} is {A}'s brother , is n't it"]}]),
                        targets=False)
    messages = [str(f) for _, f in report.flags]
    assert any("tokenised spacing" in m for m in messages) and any("no end punctuation" in m for m in messages)
    assert report.dropped == set() and len(report.repaired) == 1


def test_duplicates_ignore_case_and_spacing(tmp_path):
    path = _bank(tmp_path, [
        {"clause": "brother", "any": ["{B} is {A}'s brother."], "male": ["{B} is {A}'s Brother."]},
        {"clause": "brother", "female": ["{B}  is {A}'s brother."]},
        {"clause": "sister", "any": ["{B} is {A}'s brother."]},  # another clause: no duplicate
    ])
    problems = [p for p in check_bank(path, targets=False).problems if ": duplicate of" in p]
    assert len(problems) == 2
    assert [p.split(": ")[0].rsplit(":", 1)[1] for p in problems] == ["5", "8"]
    assert all("bank.yaml:3" in p for p in problems)


@pytest.mark.parametrize("text, message", [
    ("- clause: brother\n  any: [\"{A} {B}\"\n", "bad.yaml:3: not valid YAML"),
    ("clause: brother\n", "expected a list of clause blocks"),
    ("- just text\n", "must be a mapping"),
    ("- any: [\"{A} {B}\"]\n", "needs a 'clause' key"),
    ("- clause: brother\n  anyone: [\"{A} {B}\"]\n", "unknown key 'anyone'"),
    ("- clause: brother\n  any: \"{A} {B}\"\n", "must be a list of strings"),
    ("- clause: brother\n  any: [12]\n", "must be a string"),
    ("- clause: brother\n  any: [\"{A} {B}\"]\n  any: [\"{B} {A}\"]\n", "duplicate key 'any'"),
])
def test_files_must_parse_into_clause_blocks(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    problems = check_bank(str(path), targets=False).problems
    assert any(message in p for p in problems), problems


def test_statistics_per_k(tmp_path):
    path = _bank(tmp_path, [
        {"clause": "brother", "any": ["{B} is {A}'s brother.", "{A} met {A.his} brother {B}.",
                                      "{A} and {A.his} brother {B} sang."]},
        {"clause": "brother-son", "male": ["{A}'s brother {B} waved. {B}'s son {C} sang."]},
    ])
    report = check_bank(path, targets=False)
    assert report.problems == []
    k1, k2 = report.stats[1], report.stats[2]
    assert (k1.clauses, k1.templates, k1.min_count) == (1, 3, 3)
    assert (k2.clauses, k2.templates, k2.min_count, k2.min_clause) == (1, 1, 1, "brother-son")
    # unigrams {ent, is, ent's, brother}, {ent, met, his, brother}, {ent, and, his, brother, sang}: 2/6, 2/7, 3/6
    assert k1.jaccard_unigram == pytest.approx((2 / 6 + 2 / 7 + 3 / 6) / 3)
    # bigrams: only the last two share (his brother) and (brother ent): 2/7
    assert k1.jaccard_bigram == pytest.approx((2 / 7) / 3)
    assert k2.jaccard_unigram == 0.0  # a single template has no pairs
    assert k1.unique_words == 6 and report.unique_words == 8  # is brother met his and sang; waved son
    assert report.counts[("brother", "son")] == {"any": 0, "male": 1, "female": 0}


def test_targets_are_checked(tmp_path):
    path = _bank(tmp_path, [{"clause": "brother", "any": ["{B} is {A}'s brother.", "{A}'s brother is {B}."]}])
    report = check_bank(path)
    assert not report.ok
    assert "k=1 brother (A male): 2 templates, need 40" in report.unmet
    assert "k=1 husband (A female): 0 templates, need 40" in report.unmet
    assert not any(u.startswith("k=1 husband (A male)") for u in report.unmet)  # only a woman has a husband
    assert "k=2 daughter-father (A female): 0 templates, need 15" in report.unmet
    assert not any(u.startswith("k=2 daughter-father (A male)") for u in report.unmet)
    assert f"k=3: 0 clauses with >= 8 templates, need {TARGETS['k3_clauses']}" in report.unmet
    assert f"total: 2 templates, need {TARGETS['total']}" in report.unmet
    assert any(u.startswith("k=1 unigram Jaccard") for u in report.unmet)


def test_valid_k2_clauses_come_from_the_world():
    kb = load_kb("kinship")
    targets = k2_targets()
    assert len(targets) == 114
    for (w1, w2), heads in targets.items():
        assert kb.compose(kb.parse_word(w1)[0], kb.parse_word(w2)[0]) >= 0 and heads
    assert targets[("brother", "son")] == {"male", "female"}
    assert targets[("daughter", "father")] == {"female"}  # for a man, his daughter's father is himself
    assert targets[("wife", "brother")] == {"male"}
    assert ("sister", "wife") not in targets
    heads = possible_heads()
    assert heads[("husband",)] == {"female"} and heads[("son",)] == {"male", "female"}
    assert ("son", "aunt") in heads and ("son", "aunt") not in targets  # a walk, but no rule


def test_cli_exit_codes(tmp_path, capsys):
    good = _bank(tmp_path, [{"clause": "brother", "any": ["{B} is {A}'s brother."]}], "good.yaml")
    bad = _bank(tmp_path, [{"clause": "brother", "any": ["{A} met {C} today."]}], "bad.yaml")
    assert main(["paraphrases", "check", good, "--no-targets", "--no-sample"]) == 0
    out = capsys.readouterr().out
    assert "templates" in out and "Jaccard-1" in out and "errors: 0" in out and "flags: 0 of 1" in out
    # a flagged template is a warning: the generator drops it; --strict makes it fail
    assert main(["paraphrases", "check", bad, "--no-targets", "--no-sample"]) == 0
    assert "placeholder {C}" in capsys.readouterr().out
    assert main(["paraphrases", "check", bad, "--no-targets", "--no-sample", "--strict"]) == 1
    capsys.readouterr()
    # size targets are a report, listed after the flags, and summarised
    assert main(["paraphrases", "check", good, "--no-sample"]) == 0
    out = capsys.readouterr().out
    assert out.index("flags:") < out.index("unmet targets") and "more unmet targets (--all lists them)" in out
    assert len(out.splitlines()) < 60
    assert main(["paraphrases", "check", good, "--no-sample", "--strict"]) == 1
    capsys.readouterr()
    assert main(["paraphrases", "check", str(tmp_path / "missing.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_an_unusable_bank_exits_2_with_its_errors_first(tmp_path, capsys):
    broken = tmp_path / "broken.yaml"
    broken.write_text("- clause: brother\n  anyone: [\"{A} {B}\"]\n")
    assert main(["paraphrases", "check", str(broken), "--no-sample"]) == 2
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "errors: 1 (the bank cannot be used as it is)" and "unknown key 'anyone'" in out[2]
    lacking = _bank(tmp_path, [{"clause": "brother", "any": ["{B} is {A}'s brother."]}], "lacking.yaml")
    assert main(["paraphrases", "check", lacking, "--no-sample", "--fallback-templates", "none"]) == 2
    assert "no one-fact template for son, daughter" in capsys.readouterr().out


def test_the_shipped_bank_is_usable():
    report = check_bank("paraphrase")
    assert report.errors == [] and report.dropped == set() and report.unmet == []


def test_the_shipped_synthetic_bank_and_a_valid_pair_pass_without_strict(capsys):
    assert main(["paraphrases", "check", "synthetic", "--no-sample"]) == 0
    assert "unmet targets: " in capsys.readouterr().out
    pair = Path(__file__).resolve().parent / "fixtures_amt" / "pair.train.json"
    assert main(["paraphrases", "check", str(pair), "--no-sample"]) == 0
    out = capsys.readouterr().out
    assert "note: pair.train.json names a train/test pair; both pair.train.json and pair.test.json are checked" in out
