"""The process reward judges each claim of a reasoning against the story's closure under the KB."""
from __future__ import annotations

import pytest

from clutrr.llm.process import find_claims, has_reasoning, process_reward
from clutrr.rl import DatasetConfig, make_dataset, reward

# June is Scott's daughter, Earl is June's husband, Claire is Earl's mother-in-law: Claire is Scott's wife.
ENTRY = {
    "answer": "wife",
    "metadata": {
        "people": [{"name": "Scott", "gender": "male"}, {"name": "June", "gender": "female"},
                   {"name": "Earl", "gender": "male"}, {"name": "Claire", "gender": "female"}],
        "facts": [{"head": 0, "relation": "daughter", "tail": 1}, {"head": 1, "relation": "husband", "tail": 2},
                  {"head": 2, "relation": "mother-in-law", "tail": 3}],
        "query_edge": [0, 3],
    },
}
FAITHFUL = ("<think>June is Scott's daughter. Earl is June's husband. Claire is Earl's mother-in-law, so Claire "
            "is June's mother. The mother of Scott's daughter is his wife: Claire is Scott's wife.</think>"
            "<answer>wife</answer>")
FALSE_STEP = ("<think>June is Scott's sister. Claire is the mother of June, so Scott's wife is Claire.</think>"
              "<answer>wife</answer>")
WRONG_BUT_TRUE_STEPS = ("<think>June is Scott's daughter. Earl is June's husband. Claire is June's mother."
                        "</think><answer>sister</answer>")
STRANGERS = "Mary is Scott's aunt, and Paul is Mary's husband. Claire is June's mother. So Claire is Scott's wife."


def verdicts(result):
    return [(c.person, c.owner, c.relation, c.verdict) for c in result.claims]


def test_faithful_chain():
    r = process_reward(FAITHFUL, ENTRY)
    assert verdicts(r) == [("June", "Scott", "daughter", "restated"), ("Earl", "June", "husband", "restated"),
                           ("Claire", "Earl", "mother-in-law", "restated"), ("Claire", "June", "mother", "true"),
                           ("Claire", "Scott", "wife", "true")]
    assert r.precision == 1.0 and r.connected and r.first_false is None and r.score == 1.0
    assert reward(FAITHFUL, ENTRY, process_weight=0.5) == 1.0


def test_right_answer_with_a_false_step():
    r = process_reward(FALSE_STEP, ENTRY)
    assert verdicts(r) == [("June", "Scott", "sister", "false"), ("Claire", "June", "mother", "true"),
                           ("Claire", "Scott", "wife", "true")]
    assert r.precision == pytest.approx(2 / 3) and not r.connected  # June-Scott is the false step
    assert r.first_false.relation == "sister"
    assert 0.5 < reward(FALSE_STEP, ENTRY, process_weight=0.5) < reward(FAITHFUL, ENTRY, process_weight=0.5)


def test_wrong_answer_with_only_true_steps_earns_nothing():
    r = process_reward(WRONG_BUT_TRUE_STEPS, ENTRY)
    assert r.precision == 1.0 and r.connected
    assert reward(WRONG_BUT_TRUE_STEPS, ENTRY, process_weight=1.0, format_bonus=0.1) == 0.0


def test_claims_about_strangers():
    r = process_reward(STRANGERS, ENTRY)
    assert verdicts(r)[:2] == [("Mary", "Scott", "aunt", "stranger"), ("Paul", "Mary", "husband", "stranger")]
    assert r.precision == 0.5 and r.first_false.person == "Mary"
    assert not r.connected  # the only true claims are June-Claire and the conclusion itself


def test_wrong_gender_negation_and_chained_paths():
    assert verdicts(process_reward("Claire is Scott's husband.", ENTRY)) == [("Claire", "Scott", "husband", "false")]
    assert find_claims("Ben is not Ella's brother; he is her husband. Tom is Ann's wife's father.") == []
    assert find_claims("Scott's daughter is June.") == [("June", "Scott", "daughter")]
    assert find_claims("She is Tom's aunt.") == []  # a pronoun is nobody in particular
    assert process_reward("aunt", ENTRY).claims == [] and process_reward("aunt", ENTRY).score == 0.0


def test_a_separate_reasoning_field_is_judged_but_never_scored():
    reasoning = "June is Scott's daughter. Claire is June's mother."
    r = process_reward("<answer>wife</answer>", ENTRY, reasoning=reasoning)
    assert len(r.claims) == 2 and r.precision == 1.0
    assert reward("<answer>uncle</answer>", ENTRY, reasoning="So Claire is Scott's wife.", process_weight=1) == 0.0
    assert has_reasoning("aunt", reasoning) and not has_reasoning("aunt") and has_reasoning(FAITHFUL)


def test_generated_stories_gold_chains_are_faithful():
    for item in make_dataset(DatasetConfig(size=12, k=(2, 3, 4)), seed=5):
        people = [p["name"] for p in item["metadata"]["people"]]
        steps = " ".join(f"{people[f['tail']]} is {people[f['head']]}'s {f['relation']}."
                         for f in item["metadata"]["facts"])
        head, tail = item["query"]
        r = process_reward(f"{steps} So {tail} is {head}'s {item['answer']}.", item)
        assert r.precision == 1.0 and r.connected, (steps, verdicts(r))


def test_claims_in_capitals_and_relative_clauses():
    shouted = "<think>JUNE IS SCOTT'S DAUGHTER. CLAIRE, WHO IS JUNE'S MOTHER, IS SCOTT'S WIFE.</think><answer>wife</answer>"
    r = process_reward(shouted, ENTRY)
    assert verdicts(r)[:2] == [("JUNE", "SCOTT", "daughter", "restated"), ("CLAIRE", "JUNE", "mother", "true")]
    assert r.precision == 1.0 and r.connected


def test_repeating_a_true_claim_does_not_raise_the_precision():
    padded = FALSE_STEP.replace("<answer>", "Claire is June's mother. CLAIRE is JUNE's mother. " * 5 + "<answer>")
    once = process_reward(FALSE_STEP.replace("<answer>", "Claire is June's mother. <answer>"), ENTRY)
    result = process_reward(padded, ENTRY)
    assert [(c.person, c.owner, c.relation) for c in result.claims] == [(c.person, c.owner, c.relation) for c in once.claims]
    assert result.precision == once.precision < 1


def test_a_claim_and_its_inverse_are_one_claim():
    both = process_reward("Claire is June's mother. June is Claire's daughter. So Claire is Scott's wife.", ENTRY)
    one = process_reward("Claire is June's mother. So Claire is Scott's wife.", ENTRY)
    assert verdicts(both) == verdicts(one) and both.score == one.score


def test_restating_the_story_earns_nothing():
    copied = process_reward("June is Scott's daughter. Earl is June's husband. Claire is Earl's mother-in-law. "
                            "Scott is June's father.", ENTRY)
    assert {c.verdict for c in copied.claims} == {"restated"} and copied.precision is None and copied.score == 0.0
    assert reward("June is Scott's daughter. Earl is June's husband. Claire is Earl's mother-in-law. "
                  "<answer>wife</answer>", ENTRY, process_weight=0.5) == 0.5


def test_lower_case_and_hedged_false_claims_are_judged():
    assert verdicts(process_reward("june might be scott's sister.", ENTRY)) == [("june", "scott", "sister", "false")]
    assert verdicts(process_reward("June may be Scott's sister.", ENTRY)) == [("June", "Scott", "sister", "false")]


def test_one_false_claim_caps_the_score_whatever_is_added():
    clean = "Claire is June's mother. So Claire is Scott's wife. <answer>wife</answer>"
    best = process_reward(clean, ENTRY).score
    padding = ["Claire is June's mother.", "Claire is Scott's wife.", "Scott is Claire's husband.",
               "June is Claire's daughter.", "Claire is Scott's wife."]
    for n in range(1, 6):
        padded = "Earl is Scott's brother. " + " ".join(padding[:n]) + " " + clean
        assert process_reward(padded, ENTRY).score < best, n
