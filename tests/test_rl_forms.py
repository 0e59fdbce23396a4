"""RL items and rewards for every question form (docs/questions.md, docs/rl.md): items carry the
typed answer of their row, rewards read names, sets, counts and yes/no under the answer
protocol, and no reply whose final answer is wrong earns anything, in any form."""
from __future__ import annotations

import json
from itertools import combinations

import pytest

from clutrr import GeneratorConfig, make_example
from clutrr.integrations.trl_reward import make_reward
from clutrr.questions.forms import answer_text, typed_answer
from clutrr.rl import (DatasetConfig, FileDataset, has_answer_tag, make_dataset, read_answer, reward, score_answer,
                       set_f1, to_hf_dataset, to_rows)
from clutrr.rl.reward import process_score, process_reward
from helpers import generated_folder

NAMES = ["Anna", "Ben", "Carl", "Dora", "Mary-Jo"]
GENDERS = ["female", "male", "male", "female", "female"]
# Anna's brothers Ben and Carl; Dora is Ben's wife; Mary-Jo is Carl's daughter
FACTS = [(0, "brother", 1), (0, "brother", 2), (1, "wife", 3), (2, "daughter", 4)]
META = {"people": [{"name": n, "gender": g} for n, g in zip(NAMES, GENDERS)],
        "facts": [{"head": a, "relation": r, "tail": b} for a, r, b in FACTS], "query_edge": [0, 4]}

# (reply, form, the answer it gives; None: no answer)
CASES = [
    ("<think>Maybe Carl.</think>It is <answer>Ben</answer>", "person", "Ben"),
    ("<think>Maybe Carl, it could be", "person", None),  # a reasoning block left open
    ("<think><answer>Ben</answer></think>", "person", None),  # an answer inside the reasoning
    ("Answer: Dora\nBen is Anna's brother.", "person", "Dora"),
    ("Ben or Carl.", "person", None),  # two candidates
    ("<answer>Anna's sister-in-law is Dora</answer>", "person", "Dora"),
    ("<answer>mary-jo</answer>", "person", "Mary-Jo"),
    ("<answer>Zelda</answer>", "person", None),  # nobody of the story
    ("I do not know.", "person", None),
    ("<answer>Ben</answer>\nOn reflection it may be Carl.", "person", "Ben"),  # the marker decides
    ("<answer>Carl, Ben</answer>", "people", ["Carl", "Ben"]),
    ("<think>Ben only?</think>\nThe answer is Ben and Carl.", "people", ["Ben", "Carl"]),
    ("<answer>Ben</answer>", "people", ["Ben"]),
    ("The answer is: nobody.", "people", []),
    ("<think>Ben, Carl", "people", None),
    ("<think>Ben and Carl</think>", "people", None),
    ("\\boxed{\\text{two}}", "count", 2),
    ("Anna has 2 brothers here.", "count", 2),
    ("<answer>0</answer>", "count", 0),
    ("Answer: 2 or 3", "count", None),  # two numbers
    ("<think>3</think>", "count", None),
    ("Final answer: three. Ben, Carl and Dora.", "count", 3),
    ('{"answer": "No"}', "yesno", "no"),
    ("<answer>Yes</answer> no doubt", "yesno", "yes"),
    ("<think>Is she? yes</think>No, she is his wife.", "yesno", "no"),
    ("Yes or no, hard to say.", "yesno", None),  # both
    ("<think>yes", "yesno", None),
    ("I cannot tell.", "yesno", None),
]
QUERIES = {"person": ["Anna"], "people": ["Anna"], "count": ["Anna"], "yesno": ["Anna", "Ben"]}
GOLDS = {"person": NAMES, "count": list(range(6)), "yesno": ["yes", "no"],
         "people": [list(c) for n in range(1, 4) for c in combinations(NAMES, n)]}


def entry(form: str, answer) -> dict:
    return {"form": form, "answer": answer, "query": QUERIES[form], "metadata": META}


def same(form: str, a, b) -> bool:
    return a is not None and (set(a) == set(b) if form == "people" else a == b)


def test_the_table_covers_every_form():
    assert {form for _, form, _ in CASES} == set(QUERIES)
    assert len({text for text, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize("text, form, expected", CASES)
def test_no_wrong_final_answer_earns_any_reward_in_any_form(text, form, expected):
    assert read_answer(text, entry(form, GOLDS[form][0])) == expected
    trl = make_reward(format_bonus=0.2)
    for gold in GOLDS[form]:
        e = entry(form, gold)
        pays = [score_answer(text, e), reward(text, e), reward(text, e, format_bonus=0.2),
                *trl(completions=[text], answer=[answer_text(gold)], form=[form], query=[e["query"]],
                     people=[META["people"]])]
        process = reward(text, e, format_bonus=0.2, process_weight=0.5)
        bonus = 0.2 * has_answer_tag(text)
        if same(form, expected, gold):
            assert pays == [1.0, 1.0, 1.0 + bonus, 1.0 + bonus], gold
            assert 0.5 + bonus <= process <= 1.0 + bonus
        else:
            assert pays + [process] == [0.0] * 5, gold


def test_think_open_replies_of_every_form():
    for text, form, gold in [("Ben is her brother.</think><answer>Ben</answer>", "person", "Ben"),
                             ("so two brothers</think>\nAnswer: 2", "count", 2),
                             ("she is his wife</think> No.", "yesno", "no")]:
        e = entry(form, gold)
        assert score_answer(text, e, think_open=True) == 1.0 and reward(text, e, think_open=True) == 1.0
        cut = text.split("</think>")[0]
        assert score_answer(cut, e, think_open=True) == 0.0
        assert make_reward(think_open=True)(completions=[cut], answer=[answer_text(gold)], form=[form],
                                            query=[e["query"]], people=[META["people"]]) == [0.0]


def test_partial_sets_score_f1_but_earn_nothing():
    e = entry("people", ["Ben", "Carl"])
    assert set_f1("<answer>Ben</answer>", e) == pytest.approx(2 / 3)
    assert set_f1("<answer>Carl, Ben</answer>", e) == 1.0 and set_f1("nothing", e) == 0.0
    assert reward("<answer>Ben</answer>", e, format_bonus=0.1) == 0.0
    assert reward("<answer>Ben, Carl, Dora</answer>", e) == 0.0  # a name too many
    assert set_f1("<answer>2</answer>", entry("count", 2)) == 1.0 and set_f1("<answer>3</answer>", entry("count", 2)) == 0


def test_answers_given_as_text_are_read_back_by_form():
    assert typed_answer("people", "Ben, Mary-Jo") == ["Ben", "Mary-Jo"] and typed_answer("count", "0") == 0
    assert answer_text(["Ben", "Mary-Jo"]) == "Ben, Mary-Jo" and answer_text(3) == "3"
    assert score_answer("<answer>Mary-Jo, Ben</answer>", entry("people", "Ben, Mary-Jo")) == 1.0
    assert score_answer("<answer>3</answer>", entry("count", "3")) == 1.0


def test_the_process_part_of_another_form_is_the_claims_precision():
    e = entry("person", "Dora")
    faithful = "<think>Dora is Ben's wife. Ben is Anna's brother. So Dora is Anna's sister-in-law.</think>Dora"
    false = "<think>Dora is Ben's sister. Ben is Anna's brother. So Dora is Anna's sister-in-law.</think>Dora"
    judged = process_reward(faithful, e)
    assert process_score(judged, "person") == judged.precision == 1.0
    assert reward(faithful, e, process_weight=0.5) == 1.0
    assert reward(false, e, process_weight=0.5) == pytest.approx(0.5 + 0.5 * process_score(process_reward(false, e),
                                                                                         "person"))
    assert reward(false, e, process_weight=0.5) < 0.75
    assert reward("Dora", e, process_weight=0.5) == 0.5  # no claims: no process part
    with pytest.raises(ValueError, match="metadata with its people"):
        score_answer("Dora", {"form": "person", "answer": "Dora", "query": ["Anna"]})


@pytest.fixture(scope="module")
def mixed_items():
    config = DatasetConfig(size=10, k=(2, 3), noise=("supporting",), generator=GeneratorConfig(question="mixed"))
    return config, list(make_dataset(config, seed=1))


def test_procedural_items_carry_their_rows_typed_answers(mixed_items):
    config, items = mixed_items
    assert {x["form"] for x in items} == {"relation", "person", "people", "count", "yesno"}
    for i, item in enumerate(items):
        k, noise = [(k, n) for k in config.k for n in config.noise][i % 2]
        rec = make_example(config.generator, k, noise, 1, i // 2, "train").record
        names = [p["name"] for p in rec["people"]]
        assert json.loads(json.dumps(item)) == item
        assert (item["form"], item["answer"], item["query"]) == (rec["form"], rec["answer"],
                                                                 [names[j] for j in rec["query"]])
        assert item["question"].endswith("\n" + rec["question"]) or item["form"] == "relation"
        assert type(item["answer"]) is {"people": list, "count": int}.get(item["form"], str)
        right = f"<think>...</think><answer>{answer_text(item['answer'])}</answer>"
        assert reward(right, item, format_bonus=0.1) == pytest.approx(1.1)


def test_hf_rows_of_every_form_concatenate_and_the_trl_reward_reads_them(mixed_items):
    import datasets

    _, items = mixed_items
    relation = list(make_dataset(DatasetConfig(size=2), seed=0))
    ds = datasets.concatenate_datasets([to_hf_dataset(items), to_hf_dataset(relation)])
    assert ds.features["answer"].dtype == "string" and ds["form"][-2:] == ["relation", "relation"]
    rows = ds.to_list()
    person = next(r for r in rows if r["form"] == "person")
    assert "one person's name" in person["prompt"][0]["content"] and person["query"] == [person["query"][0]]
    columns = {key: [row[key] for row in rows] for key in rows[0] if key != "prompt"}
    fn = make_reward(format_bonus=0.1)
    assert fn(completions=[f"<answer>{r['answer']}</answer>" for r in rows], **columns) == [1.1] * len(rows)
    wrong = [f"<answer>{'no' if r['answer'] == 'yes' else 'yes' if r['form'] == 'yesno' else 'Zelda'}</answer>"
             for r in rows]
    assert fn(completions=wrong, **columns) == [0.0] * len(rows)
    without_people = {k: v for k, v in columns.items() if k != "people"}
    with pytest.raises(ValueError, match="^clutrr_reward needs the dataset column.s. people "):
        fn(completions=wrong, **without_people)
    plain = to_rows(items[:5], style="plain", system_prompt="Be brief.")
    assert all(r["prompt"][0] == {"role": "system", "content": "Be brief."} for r in plain)


def test_file_items_of_a_form_folder_ask_their_questions(tmp_path_factory):
    folder = generated_folder(tmp_path_factory, "rl-forms", "--question", "mixed", "--k", "2", "--test-k", "3",
                              "--train-rows", "5", "--test-rows", "10", "--noise", "supporting")
    records = [json.loads(line) for line in (folder / "2.3_test.jsonl").read_text().splitlines()]
    ds = FileDataset(folder)
    items = list(ds)
    assert len(items) == len(records) == 10
    for item, rec in zip(items, records):
        names = [p["name"] for p in rec["people"]]
        assert (item["form"], item["answer"], item["query"]) == (rec["form"], rec["answer"],
                                                                 [names[j] for j in rec["query"]])
        assert ds.score_answer(answer_text(item["answer"]), item) == 1.0
