"""The answer protocol for reasoning models: think blocks, explicit markers, informal words.

One table of realistic replies (with tests/test_extract_answer.py's, over 100), each with the
relation it answers (None: no answer). For every reply, every reward setting pays nothing
when the gold relation is another one, and the format bonus only for one <answer> outside
the reasoning.
"""
from __future__ import annotations

import pytest

from clutrr.core.kb import load_kb
from clutrr.integrations.trl_reward import make_reward
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
    # other reasoning formats: gpt-oss's channels, Kimi's tags
    ("<|channel|>analysis<|message|>Chloe is Renee's niece. So Renee is Edith's mother?<|end|><|start|>assistant"
     "<|channel|>final<|message|>Renee is Edith's aunt.<|return|>", "aunt"),
    ("<|channel|>analysis<|message|>Chloe is Renee's niece. So Renee is Edith's aunt.", NONE),
    ('<|start|>assistant<|channel|>final <|constrain|>json<|message|>{"answer": "aunt"}<|return|>', "aunt"),
    ("\u25c1think\u25b7Chloe is Renee's niece. Maybe mother.\u25c1/think\u25b7Renee is Edith's aunt.", "aunt"),
    ("\u25c1think\u25b7Chloe is Renee's niece. So Renee is Edith's aunt.", NONE),
    # LaTeX, markdown and JSON as models write them
    ("<think>\nChloe is Renee's niece...\n</think>\n\n## Final Answer\n\n\\boxed{aunt}", "aunt"),
    ("\\boxed{\\text{mother\\text{-}in\\text{-}law}}", "mother-in-law"),
    ("$\\boxed{\\textbf{Aunt}}$", "aunt"),
    ("Final Answer: The final answer is $\\boxed{aunt}$. I hope it is correct.", "aunt"),
    ("## Answer\n\n**Aunt**\n\n## Explanation\n\nChloe is Renee's niece; Edith is Chloe's sister.", "aunt"),
    ("Answer: (aunt)", "aunt"),
    ('```json\n{\n  "reasoning": "Chloe is Renee\'s niece; Edith is Chloe\'s sister.",\n  "answer": "aunt"\n}\n```', "aunt"),
    ("Sure! Let's break it down:\n\n- Chloe is Renee's niece.\n- Edith is Chloe's sister.\n\n"
     "Therefore, Edith is also Renee's niece, making Renee her **aunt**.", "aunt"),
    ("<think>\n\n</think>\n\nRenee is Edith's aunt.", "aunt"),
    ("<think>Lisa is Ann's daughter. Tom is Lisa's son.\n\n**Answer:** grandmother", NONE),
    # the answer first, then reasons naming other relations
    ("Renee is Edith's aunt. She once gave her niece Chloe a coin collection.", "aunt"),
    ("Ann is Tom's grandmother. Ann also has a son, Paul, who is Tom's uncle.", "grandmother"),
    ("Ann is Tom's grandmother.\n\nHere's why:\n* Ann's daughter is Lisa.\n* Lisa is Tom's mother.\n"
     "* Therefore, Tom is Ann's grandson.", "grandmother"),
    ("**Ann is Tom's grandmother.**\n\nExplanation:\n1. Lisa is Ann's daughter.\n2. Tom is Lisa's son.\n"
     "3. So Tom is Ann's grandson.", "grandmother"),
    ("Grandmother — Ann is Lisa's mother and Lisa is Tom's mother.", "grandmother"),
    ("Renee is not Edith's mother; Renee is Edith's aunt.", "aunt"),
    ("I'm not 100% sure, but I think aunt.", "aunt"),  # one relation, committed to
    # alternatives, lists and self-corrections: no answer
    ("Aunt (or possibly mother).", NONE),
    ("Aunt, possibly mother.", NONE),
    ("aunt, mother", NONE),
    ("<answer>aunt; mother</answer>", NONE),
    ("- aunt\n- mother", NONE),
    ("Aunt? Or maybe mother.", NONE),
    ("Aunt. Correction: mother.", NONE),
    ("Answer: aunt.\nHmm, on second thought, Renee is Edith's mother.", NONE),
    ("<answer>grandmother</answer>\n\nActually, Ann is Tom's aunt.", NONE),
    ("\\boxed{grandmother}\n\nWait, actually Ann is Tom's aunt.", NONE),
    ("<answer>grandmother</answer>\n\nNote: Lisa is Ann's daughter.", "grandmother"),
    ("Renee is Edith's aunt \u2014 or rather, her mother.", "mother"),
    ("Renee is Edith's aunt \u2014 or her mother.", NONE),
    ("Answer: not aunt but mother", "mother"),
    ("Answer: grandmother\n\nWait, I misread. Lisa is Ann's sister, so Ann is Tom's aunt.\n\nAnswer: aunt", "aunt"),
    # Unicode, regional words, possessives and words outside the 22
    ("\uff32\uff45\uff4e\uff45\uff45 is Edith's \uff41\uff55\uff4e\uff54.", "aunt"),
    ("Answer\uff1a\u00a0\u201caunt\u201d", "aunt"),
    ("She's Tom's nana.", "grandmother"),
    ("Renee is Edith's mother in law.", "mother-in-law"),
    ("Her grandsons.", "grandson"),
    ("sister's", NONE),
    ("mother-in-law's", NONE),
    ("Renee is Edith's aunt-in-law.", "aunt-in-law"),
    ("Renee is Edith's former wife.", "former-wife"),
    ("Answer: Renee is Edith's adoptive mother.", "adoptive-mother"),
    ("<answer>surrogate mother</answer>", "surrogate-mother"),
    # other reasoning block families: Magistral's [THINK], Sky-T1's <|begin_of_thought|>
    ("[THINK]Maybe uncle.[/THINK]\nAunt.", "aunt"),
    ("[THINK]Chloe is Renee's niece, so she is her aunt", NONE),
    ("<|begin_of_thought|>Renee could be her mother.<|end_of_thought|>\n\n<|begin_of_solution|>Renee is Edith's "
     "aunt.<|end_of_solution|>", "aunt"),
    ("<|begin_of_thought|>So Renee is Edith's aunt. But wait, let me check whether", NONE),
    # one answer or none: a second, different candidate beside or after the marked one
    ("<answer>aunt</answer> (or mother)", NONE),
    ("The answer is aunt. Alternatively, mother.", NONE),
    ("Answer: aunt\nOr possibly mother.", NONE),
    ("<answer>aunt</answer>\nIt might also be mother.", NONE),
    ("<answer>aunt</answer><answer>mother</answer>", NONE),
    ("<answer>mother</answer> and <answer>aunt</answer>", NONE),
    ("\\boxed{mother} or \\boxed{aunt}", NONE),
    ("Answer: aunt NOT", NONE),
    ("Renee is Edith's aunt -- not!", NONE),
    ("<answer>aunt?</answer>", NONE),
    ("Answer: aunt?", NONE),
    ("aunt?", NONE),
    ("I cannot determine the relationship. <!-- <answer>aunt</answer> -->", NONE),
    ("I cannot tell from the story. <!-- aunt", NONE),
    # right answers are still paid: restated the same way, reasoning before it, after a closed block, a comment
    ("<answer>aunt</answer>\n<answer>aunt</answer>", "aunt"),
    ("\\boxed{aunt}\n\nSo the final answer is \\boxed{aunt}.", "aunt"),
    ("Ann is Lisa's mother and Lisa is Tom's mother, so Ann is Tom's grandmother.\n\nAnswer: grandmother",
     "grandmother"),
    ("<think>Renee is Chloe's aunt; Edith is Chloe's sister.</think>\n<answer>aunt</answer>", "aunt"),
    ("<!-- draft: mother --><answer>aunt</answer>", "aunt"),
    ("Renee is Edith's aunt, not her mother.", "aunt"),
]
# replies of a model whose chat template opens <think> in the prompt (read with think_open=True)
THINK_OPEN_CASES = [
    ("Chloe is Renee's niece, so she is Edith's aunt. But wait, let me check whether", NONE),
    ("aunt", NONE),
    ("<answer>aunt</answer>", NONE),
    ("Chloe is Renee's niece.</think>\n\n<answer>aunt</answer>", "aunt"),
    ("Chloe is Renee's niece.</think>\n\nRenee is Edith's aunt.", "aunt"),
    ("Maybe mother.[/THINK]Aunt.", "aunt"),
    ("Maybe mother.</think>Aunt.<think>but wait", NONE),
]
# replies to "How is Renee related to Edith?" (Renee is Edith's aunt): read with the query's names,
# a statement of the pair reversed or of other people is no answer
QUERY = ("Edith", "Renee")
QUERY_ENTRY = {
    "query": list(QUERY),
    "metadata": {
        "people": [{"name": "Edith", "gender": "female"}, {"name": "Chloe", "gender": "female"},
                   {"name": "Renee", "gender": "female"}],
        "facts": [{"head": 0, "relation": "sister", "tail": 1}, {"head": 1, "relation": "aunt", "tail": 2}],
        "query_edge": [0, 2],
    },
}
QUERY_CASES = [
    ("Renee is Edith's aunt.", "aunt"),
    ("Renee is the aunt of Edith.", "aunt"),
    ("Edith's aunt is Renee.", "aunt"),
    ("She is her aunt.", "aunt"),
    ("Edith is Renee's niece.", NONE),
    ("Edith is Renee's aunt.", NONE),
    ("Renee's aunt is Edith.", NONE),
    ("Edith is an aunt to Renee.", NONE),
    ("<answer>Edith is Renee's aunt</answer>", NONE),
    ("Answer: Edith is Renee's niece.", NONE),
    ("Renee is Edith's aunt, and Edith is Renee's niece.", "aunt"),
    ("Edith is Renee's niece, so Renee is Edith's aunt.", "aunt"),
    ("Great question! Renee is Edith's aunt. Renee gave her niece Chloe a coin collection, and since Edith is "
     "Chloe's sister, Edith is also Renee's niece.", "aunt"),
    ("Renee is Edith's mother. Chloe is Renee's niece, and Renee is Chloe's aunt.", "mother"),
    ("Chloe is Renee's niece and Edith is Chloe's sister, so Renee is Chloe's aunt.", NONE),
    ("Renee is the sister of Ivan, who is the father of Edith.", NONE),
    ("<think>Chloe is Renee's niece.</think>\nEdith is Renee's niece, making Renee Edith's aunt.", "aunt"),
    ("Chloe is Renee's niece and Edith is Chloe's sister, which makes Renee Edith's aunt.", "aunt"),
    ("Chloe is Renee's niece and Edith is Chloe's sister. This makes Edith Renee's aunt.", NONE),
    ("She is Edith's aunt. Chloe is her niece.", "aunt"),
    ("She gave Chloe the coins, so she is Chloe's aunt.", NONE),
    ("edith is renee's niece.", NONE),
    ("EDITH IS RENEE'S NIECE", NONE),
    ("renee is edith's aunt", "aunt"),
]
TABLE = [(text, expected, None) for text, expected in PLAIN_CASES + PROTOCOL_CASES] + \
    [(text, expected, QUERY) for text, expected in QUERY_CASES]
WORDS = load_kb("kinship").words


@pytest.mark.parametrize("text, expected", PROTOCOL_CASES)
def test_protocol_reading(text, expected):
    assert extract_answer(text) == expected


@pytest.mark.parametrize("text, expected", QUERY_CASES)
def test_reading_with_the_query_names(text, expected):
    assert extract_answer(text, query=QUERY) == expected


def test_table_is_large():
    assert len(TABLE) >= 100
    assert len({text for text, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize("text, expected, query", TABLE)
def test_no_wrong_final_answer_earns_any_reward(text, expected, query):
    for gold in WORDS:
        entry = dict(QUERY_ENTRY, answer=gold) if query else {"answer": gold}
        pays = [score_answer(text, entry), reward(text, entry), reward(text, entry, format_bonus=0.2)]
        if query:
            pays.append(reward(text, entry, format_bonus=0.2, process_weight=0.5))
        if gold != expected:
            assert pays == [0.0] * len(pays), gold
        else:
            assert pays[:3] == [1.0, 1.0, 1.0 + 0.2 * has_answer_tag(text)]
            assert pays[3:] == [] or 0.5 + 0.2 * has_answer_tag(text) <= pays[3] <= 1.0 + 0.2 * has_answer_tag(text)


@pytest.mark.parametrize("text, expected", THINK_OPEN_CASES)
def test_think_open_replies(text, expected):
    """No answer without the closing tag; every reward reads the same way, and pays nothing
    for a wrong one."""
    assert extract_answer(text, think_open=True) == expected
    trl = make_reward(format_bonus=0.2, think_open=True)
    for gold in WORDS:
        entry = {"answer": gold, "query": ["Edith", "Renee"]}
        pays = [score_answer(text, entry, think_open=True), reward(text, entry, format_bonus=0.2, think_open=True),
                *trl(completions=[text], answer=[gold], query=[entry["query"]])]
        bonus = 0.2 * has_answer_tag(text, think_open=True)
        assert pays == ([1.0, 1.0 + bonus, 1.0 + bonus] if gold == expected else [0.0, 0.0, 0.0]), gold


def test_user_reasoning_tag_pairs():
    tags = ("think", ("<<scratch>>", "<</scratch>>"))
    assert extract_answer("<<scratch>>mother?<</scratch>> Aunt.", think_tags=tags) == "aunt"
    assert extract_answer("<<scratch>>so she is his aunt", think_tags=tags) is None
    assert extract_answer("she is his aunt<</scratch>> <answer>mother</answer>", think_tags=tags,
                          think_open=True) == "mother"
    with pytest.raises(ValueError, match="opening, closing"):
        extract_answer("<x>aunt", think_tags=(("<x>",),))


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


def test_trl_reward_reads_with_the_query_column():
    fn = make_reward(format_bonus=0.1)
    completions = ["Edith is Renee's niece.", "<answer>Renee is Edith's aunt</answer>", "Edith is Renee's niece."]
    got = fn(completions=completions, answer=["niece", "aunt", "aunt"], query=[list(QUERY)] * 3)
    assert got == [0.0, 1.1, 0.0]


def test_the_process_reward_needs_the_story():
    with pytest.raises(ValueError, match="metadata with people, facts and query_edge"):
        reward("Renee is Edith's aunt.", {"answer": "aunt"}, process_weight=0.5)
