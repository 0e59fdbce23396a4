"""The answer protocol for reasoning models: think blocks, explicit markers, informal words.

One table of realistic replies (with tests/test_extract_answer.py's, over 100), each with the
relation it answers (None: no answer). For every reply, every reward setting pays nothing
when the gold relation is another one, and the format bonus only for one <answer> outside
the reasoning.
"""
from __future__ import annotations

import pytest

from clutrr.core.kb import load_kb
from clutrr.llm.extract import answer_tags, extract_answer, final_text
from clutrr.rl import has_answer_tag, reward, score_answer
from test_extract_answer import CASES as PLAIN_CASES

NONE = None

PROTOCOL_CASES = [
    # the cases of the issue
    ("<think>Maybe <answer>father</answer>? No.</think>\nThe answer is grandfather.", "grandfather"),
    ("<think>Max married Emma's sister. So Max is Emma's brother-in-law.</think>", NONE),
    ("<think>Max married Emma's sister. So Max is Emma's brother-in-law.</think>\n\n", NONE),
    ("<think>Ann is Tom's mother, and Tom's wife is Rose, so Ann is Rose's", NONE),
    ("<think><answer>aunt</answer></think>", NONE),
    ("Answer: niece\nDoris is Sarah's daughter.", "niece"),
    ("Niece. Doris is Sarah's daughter.", "niece"),
    ("granddad", "grandfather"),
    ("grandmom", "grandmother"),
    ("grandma", "grandmother"),
    ("mommy", "mother"),
    ("papa", "father"),
    ("nana", "grandmother"),
    ('{"reasoning": "Tom is the son of Ann.", "answer": "mother"}', "mother"),
    ('{"explanation": "Bob married Kim", "confidence": 0.9, "answer": "husband"}', "husband"),
    # reasoning blocks: only the text after the last closing tag counts
    ("<think>Tom is Ann's son. Ann's brother is Bob. So Bob is Tom's uncle.</think>\n<answer>uncle</answer>", "uncle"),
    ("<think>\nLet me see... Kim is Tom's niece.\n</think>\n\nKim is Tom's niece.", "niece"),
    ("<thinking>She could be his aunt or his mother.</thinking>Final answer: aunt", "aunt"),
    ("<reasoning>Sue is Dan's wife.</reasoning>\nAnswer: wife", "wife"),
    ("<think>first guess: <answer>son</answer></think><think>on reflection, grandson</think><answer>grandson</answer>",
     "grandson"),
    ("<think>a</think> <answer>sister</answer> <think>but maybe", NONE),
    ("Tom is Ann's son. </think> The answer is son.", "son"),  # the opening tag was in the prompt
    ("Okay, so Kim is Lisa's daughter.</think>\n\n<answer>daughter</answer>", "daughter"),
    ("<THINK>uncle?</THINK>\nNephew.", "nephew"),
    ("<think>He is her father-in-law</think>He is her son-in-law.", "son-in-law"),
    ("<think></think><answer>wife</answer>", "wife"),
    # explicit markers decide; later text does not override them
    ("The answer is aunt. Mary is the sister of Tom's father, so she is not his mother.", "aunt"),
    ("Final answer: grandson\n\nExplanation: Dave's mother is Lucy's daughter, so Lucy is Dave's grandmother.",
     "grandson"),
    ("**Answer:** sister-in-law\n\nReasoning: Kim married Tom's brother; Tom is Kim's brother-in-law.",
     "sister-in-law"),
    ("So the relationship is \\boxed{granddaughter}. Note that Ann is her grandmother.", "granddaughter"),
    ("Therefore \\boxed{\\text{nephew}}", "nephew"),
    ("Answer: uncle\n...wait, Bob is Tom's father's brother, so yes.\nAnswer: uncle", "uncle"),
    ("Answer: father\nActually no. Final answer: grandfather", "grandfather"),
    ("<answer>niece</answer>\nDoris is Sarah's daughter.", "niece"),
    ("The relationship is: son-in-law. Tom is Ann's son.", "son-in-law"),
    ("Answer: I am not sure, perhaps cousin.", NONE),  # a hedge
    ('```json\n{"answer": "brother", "steps": ["Tom is Ann\'s son"]}\n```', "brother"),
    ('{"answer": null, "reason": "not enough information"}', NONE),
    # a bare word opening the reply is the answer
    ("Grandmother, since Ann is Tom's mother's mother.", "grandmother"),
    ("Husband - Bob married Kim in 1990, and Kim is Tom's sister.", "husband"),
    ("Sister.\n\nKim and Ann are both daughters of Rose.", "sister"),
    ("Uncle, or possibly father.", NONE),
    ("Uncle or father.", NONE),
    # several candidates without committing
    ("Tom might be Ann's brother. Perhaps he is her cousin.", NONE),
    ("It could be his aunt, but it may also be his mother.", NONE),
    ("Kim is either Tom's niece or his daughter; the story does not say.", NONE),
    # informal and regional words; words outside the 22 never score
    ("She's his granny.", "grandmother"),
    ("Tom is Lucy's grandpa.", "grandfather"),
    ("Gramps.", "grandfather"),
    ("Her mum.", "mother"),
    ("He is her daddy.", "father"),
    ("Ann is Tom's auntie.", "aunt"),
    ("Kim is Tom's great-grandma.", "great-grandmother"),
    ("Rose is Dan's step-mom.", "stepmother"),
    ("Bob is Kim's stepdad.", "stepfather"),
    ("They are first cousins.", "cousin"),
    ("Tom is Ann's half-brother.", "half-brother"),
    ("Kim is Ann's great-niece.", "great-niece"),
]
TABLE = PLAIN_CASES + PROTOCOL_CASES
WORDS = load_kb("kinship").words


@pytest.mark.parametrize("text, expected", PROTOCOL_CASES)
def test_protocol_reading(text, expected):
    assert extract_answer(text) == expected


def test_table_is_large():
    assert len(TABLE) >= 100
    assert len({text for text, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize("text, expected", TABLE)
def test_no_wrong_final_answer_earns_any_reward(text, expected):
    for gold in WORDS:
        entry = {"answer": gold}
        pays = [score_answer(text, entry), reward(text, entry), reward(text, entry, format_bonus=0.2)]
        if gold != expected:
            assert pays == [0.0, 0.0, 0.0], gold
        else:
            assert pays[0] == 1.0 and pays[1] == 1.0 and pays[2] == 1.0 + 0.2 * has_answer_tag(text)


def test_the_format_bonus_needs_exactly_one_answer_tag_outside_reasoning():
    assert answer_tags("<answer>aunt</answer>") == 1
    assert answer_tags("<think><answer>uncle</answer></think><answer>aunt</answer>") == 1
    assert answer_tags("<think><answer>aunt</answer></think>") == 0
    assert answer_tags("<answer>aunt</answer><answer>aunt</answer>") == 2
    assert answer_tags("<answer>aunt</answer><think>more") == 0
    assert not has_answer_tag("<answer>aunt")
    item = {"answer": "aunt"}
    assert reward("<think><answer>uncle</answer></think><answer>aunt</answer>", item, format_bonus=0.1) == 1.1
    assert reward("<answer>aunt</answer><answer>aunt</answer>", item, format_bonus=0.1) == 1.0


def test_reasoning_tags_are_configurable():
    text = "<scratch>Tom is Ann's uncle</scratch>The answer is nephew."
    assert extract_answer(text) == "nephew"
    assert final_text("<scratch>x", think_tags=("scratch",)) is None
    assert extract_answer("<scratch>uncle", think_tags=("scratch",)) is None
    assert extract_answer("<think>uncle</think>aunt", think_tags=()) is None  # tags read: two relations, none stated
    assert score_answer("<scratch>uncle</scratch>aunt", {"answer": "aunt"}, think_tags=("scratch",)) == 1.0
