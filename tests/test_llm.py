"""Prompt builders, shot selection and the response cache."""
from __future__ import annotations

import json

import pytest

from clutrr.core.kb import load_kb
from clutrr.llm.client import ChatSettings, ResponseCache, request_key
from clutrr.llm.prompts import PLAIN_REQUEST, build_messages, question_text, select_shots
from clutrr.rl import DatasetConfig, make_dataset


@pytest.fixture(scope="module")
def items():
    return list(make_dataset(DatasetConfig(size=30, k=(2, 3)), seed=1))


def test_question_drops_brackets_and_asks_tail_to_head():
    q = question_text("[Ann] met her son [Bob].", "Ann", "Bob")
    assert q == "Ann met her son Bob.\nHow is Bob related to Ann?"


def test_tagged_prompt_with_shots(items):
    shots = select_shots(items[:20], 3, seed=4)
    msgs = build_messages(items[25], shots)
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    system = msgs[0]["content"]
    assert "<answer></answer>" in system and all(w in system for w in load_kb("kinship").words)
    assert msgs[2]["content"] == f"<answer>{shots[0]['answer']}</answer>"
    assert msgs[-1]["content"] == items[25]["question"] and "[" not in msgs[-1]["content"]


def test_plain_prompt_is_one_user_message(items):
    msgs = build_messages(items[0], select_shots(items[1:], 2), style="plain")
    assert len(msgs) == 1 and msgs[0]["role"] == "user"
    assert msgs[0]["content"].endswith(items[0]["question"] + "\n" + PLAIN_REQUEST)
    assert "<answer>" not in msgs[0]["content"] and msgs[0]["content"].count("Answer: ") == 2
    with pytest.raises(ValueError, match="unknown prompt style"):
        build_messages(items[0], style="fancy")


def test_shots_are_deterministic_and_varied(items):
    a, b = select_shots(items, 5, seed=7), select_shots(items, 5, seed=7)
    assert [x["id"] for x in a] == [x["id"] for x in b]
    assert len({x["answer"] for x in a}) == 5
    assert [x["id"] for x in select_shots(items, 5, seed=8)] != [x["id"] for x in a]
    assert len(select_shots(items[:3], 5)) == 3 and select_shots(items, 0) == []


def test_cache_survives_a_torn_last_line(tmp_path):
    path = tmp_path / "c.jsonl"
    cache = ResponseCache(path)
    body = ChatSettings("http://x/v1", "m").body([{"role": "user", "content": "hi"}])
    key = request_key(body)
    cache.put(key, {"model": "m", "content": "aunt"})
    with open(path, "a") as fh:
        fh.write('{"key": "abc", "content": "unfinished')
    again = ResponseCache(path)
    assert len(again) == 1 and again.get(key)["content"] == "aunt"
    assert request_key(ChatSettings("http://other/v1", "m").body(body["messages"])) == key  # URL is not in the key
    assert request_key(ChatSettings("http://x/v1", "m", temperature=0.7).body(body["messages"])) != key


def test_endpoint_url_gets_the_chat_completions_path():
    assert ChatSettings("http://h:1/v1/", "m").endpoint == "http://h:1/v1/chat/completions"
    assert ChatSettings("http://h:1/v1/chat/completions", "m").endpoint == "http://h:1/v1/chat/completions"
    assert json.dumps(ChatSettings("u", "m", extra={"seed": 3}).body([]))  # plain JSON


def test_system_prompt_template_and_completion_prompt(items):
    from clutrr.llm.prompts import PromptTemplate, build_completion_prompt

    words = load_kb("kinship").words
    msgs = build_messages(items[0], system_prompt="Use one of: {words}")
    assert msgs[0] == {"role": "system", "content": "Use one of: " + ", ".join(words)}
    assert [m["role"] for m in build_messages(items[0], system_prompt="")] == ["user"]
    template = PromptTemplate("Story: {story}\nWho is {tail} to {head}? ({words})")
    head, tail = items[0]["query"]
    asked = build_messages(items[0], style="plain", template=template)[-1]["content"]
    assert asked.startswith("Story: ") and f"Who is {tail} to {head}?" in asked and "[" not in asked
    with pytest.raises(ValueError, match="unknown placeholder"):
        PromptTemplate("{story} {answer}")
    with pytest.raises(ValueError, match="shows no story"):
        PromptTemplate("Who is {tail} to {head}?")
    text = build_completion_prompt(items[0], items[1:3])
    assert text.endswith(items[0]["question"] + "\nAnswer:")
    assert text.count("\nAnswer: ") == 2 and f"Answer: {items[1]['answer']}" in text
    # the head line reads the question's direction as the questions are written: "How is A related to B?" asks
    # for A's relation to B, A being the query's tail
    head, tail = items[0]["query"]
    assert items[0]["question"].endswith(f"How is {tail} related to {head}?")
    assert 'The question "How is A related to B?" is answered with A\'s relation to B' in text


def test_sample_keys_and_seeds():
    s = ChatSettings("http://h/v1", "m", temperature=0.7, seed=10)
    msgs = [{"role": "user", "content": "hi"}]
    assert len({s.key(msgs, i) for i in range(4)}) == 4
    assert s.body(msgs, 3)["seed"] == 13 and s.key(msgs, 0) == request_key(s.body(msgs))
    assert ChatSettings("http://h/v1", "m", api="completions").endpoint == "http://h/v1/completions"
    assert ChatSettings("http://h/v1/completions", "m").endpoint == "http://h/v1/chat/completions"
