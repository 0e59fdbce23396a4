"""extract_answer on realistic model outputs: tags, plain answers, chains of thought, refusals."""
from __future__ import annotations

import pytest

from clutrr.llm.extract import extract_answer
from clutrr.rl.reward import score_answer

UNPARSABLE = None

CASES = [
    # bare words, capitals, plurals, punctuation, aliases
    ("wife", "wife"),
    ("Wife.", "wife"),
    ("  GRANDMOTHER  ", "grandmother"),
    ("**Granddaughter**", "granddaughter"),
    ("grand-daughter", "granddaughter"),
    ("Son In Law", "son-in-law"),
    ("neice", "niece"),
    ("They are sisters.", "sister"),
    ("Both of them are her sons-in-law.", "son-in-law"),
    ("mom", "mother"),
    # tags
    ("<answer>aunt</answer>", "aunt"),
    ("<answer> Brother-in-law </answer>", "brother-in-law"),
    ("Let me think. Tom is Ann's son and Bob is Tom's father.\n<answer>husband</answer>", "husband"),
    ("<answer>uncle</answer> Wait, no. <answer>nephew</answer>", "nephew"),
    ("Crystal married Howard years ago. <answer>Crystal is Howard's wife.</answer>", "wife"),
    ("<answer>I don't know</answer>", UNPARSABLE),
    ("<answer></answer>", UNPARSABLE),
    ("<answer>father or grandfather</answer>", UNPARSABLE),
    ("The story says Ann is Tom's mother. <answer>grandson", "grandson"),
    # plain statements
    ("Crystal is Howard's wife", "wife"),
    ("Crystal is Howard's wife.", "wife"),
    ("The answer is: wife.", "wife"),
    ("Answer: Wife", "wife"),
    ("Final answer: **father-in-law**", "father-in-law"),
    ("Howard's wife is Crystal.", "wife"),
    ("Crystal is the wife of Howard.", "wife"),
    ("The relationship between Kim and Tom is: niece.", "niece"),
    ("She's his aunt.", "aunt"),
    ("Kim is Tom's niece, the daughter of his sister.", "niece"),
    ("Ann is Tom's aunt (his father's sister).", "aunt"),
    ("Tom is Ann's great-uncle.", "great-uncle"),
    ("Tom is Ann's cousin.", "cousin"),
    ("Rose is Dan's stepmother.", "stepmother"),
    # chains of thought naming other relations before the answer
    ("Step 1: Tom is Ann's son. Step 2: Ann's brother is Bob. So Bob is Tom's uncle.", "uncle"),
    ("[Jason] is the father of [Lisa]. [Gabrielle] is Jason's wife, so Gabrielle is Lisa's mother.", "mother"),
    ("Ann's husband is Bob. Bob's father is Carl. Therefore, Carl is Ann's father-in-law.", "father-in-law"),
    ("Mary has a brother named Tom, and Tom has a daughter, Kim. That makes Kim Mary's niece.", "niece"),
    ("First, Dave is Lucy's grandson. Lucy's daughter is Emma, which means Emma is Dave's mother or aunt. "
     "Since Dave's mother is mentioned as Sara, Emma must be his aunt.", "aunt"),
    ("Let's trace it: Joe -> son -> Ray -> wife -> Pam. Pam is Joe's daughter-in-law.", "daughter-in-law"),
    ("Tom is Ann's husband's brother, i.e. her brother-in-law.", "brother-in-law"),
    ("The answer is aunt. This is because Mary is the sister of Tom's father.", "aunt"),
    ("Sam is the son of Rita, and Rita is the sister of Paul. Hence Sam is Paul's nephew. "
     "Let me know if you have other questions!", "nephew"),
    ("Ben is not Ella's brother; he is her husband.", "husband"),
    ("He is her son, not her nephew.", "son"),
    ("Earlier I said uncle, but actually Tom is Ann's father.", "father"),
    ("He is her father-in-law.\n\nExplanation: Sam is married to Tom's daughter.", "father-in-law"),
    ("Kevin is Sarah's uncle because he is her father's brother.", "uncle"),
    ("Based on the story, Kevin would be Sarah's uncle.", "uncle"),
    # compositions left unstated, several relations, hedges and refusals
    ("Tom is Ann's husband's brother.", UNPARSABLE),
    ("Ann is the mother of Tom's wife.", UNPARSABLE),
    ("He is either her uncle or her father.", UNPARSABLE),
    ("Tom could be Ann's brother or cousin.", UNPARSABLE),
    ("Tom is Ann's brother and Bob's uncle.", UNPARSABLE),
    ("Sarah is Kevin's sister, and Kevin is Sarah's brother.", UNPARSABLE),
    ("The story mentions a son, a sister and a grandmother.", UNPARSABLE),
    ("I'm sorry, but I can't help with that request.", UNPARSABLE),
    ("I cannot determine the relationship from the given information.", UNPARSABLE),
    ("There is not enough information to say whether Tom is Ann's brother.", UNPARSABLE),
    ("It is unclear whether Kim is Tom's niece.", UNPARSABLE),
    ("As an AI language model, I do not have personal family relationships.", UNPARSABLE),
    ("", UNPARSABLE),
    ("Kim and Tom are related.", UNPARSABLE),
]


@pytest.mark.parametrize("text, expected", CASES)
def test_extract_answer(text, expected):
    assert extract_answer(text) == expected


def test_table_is_large_and_covers_every_kind():
    assert len(CASES) >= 40
    assert sum(expected is None for _, expected in CASES) >= 12


def test_score_answer_uses_extraction():
    item = {"answer": "wife"}
    assert score_answer("Crystal is Howard's wife.", item) == 1.0
    assert score_answer("The answer is: WIFE.", item) == 1.0
    assert score_answer("<answer>wives</answer>", item) == 1.0
    assert score_answer("Crystal is Howard's wife or sister.", item) == 0.0
    assert score_answer("Crystal is Howard's sister.", item) == 0.0
    assert score_answer("neice", {"answer": "niece"}) == 1.0
