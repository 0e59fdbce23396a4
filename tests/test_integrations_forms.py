"""The reasoning-gym and verifiers plug-ins on every question form, with the real installed
libraries (TRL's reward and a GRPO run on every form: tests/test_rl_forms.py and
tests/test_integrations.py)."""
from __future__ import annotations

import asyncio

import pytest

from clutrr.integrations.trl_reward import make_reward
from clutrr.questions.forms import FORMS
from clutrr.rl import reward, to_hf_dataset


def wrong_answer(form: str, answer: str, names: list[str]) -> str:
    """A wrong answer as text: another name, yes for no, the count plus one, a set missing a name
    (or another set)."""
    if form == "yesno":
        return "no" if answer == "yes" else "yes"
    if form == "count":
        return str(int(answer) + 1)
    if form == "people" and ", " in answer:
        return answer.rsplit(", ", 1)[0]
    if form == "relation":
        return "uncle" if answer != "uncle" else "aunt"
    return next(n for n in names if n not in answer.split(", "))


def test_reasoning_gym_speaks_every_form():
    import reasoning_gym
    from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec

    import clutrr.integrations.reasoning_gym_dataset  # noqa: F401  (registers "clutrr")

    ds = reasoning_gym.create_dataset("clutrr", min_k=3, max_k=3, noise=["supporting"], question="mixed", size=5,
                                      seed=0)
    assert {x["metadata"]["form"] for x in ds} == set(FORMS)
    for item in ds:
        form, answer = item["metadata"]["form"], item["answer"]
        names = [p["name"] for p in item["metadata"]["people"]]
        assert isinstance(answer, str) and item["metadata"]["difficulty"]["k"] == 3
        assert ds.score_answer(f"<think>hmm</think><answer>{answer}</answer>", item) == 1.0
        assert ds.score_answer(f"<answer>{wrong_answer(form, answer, names)}</answer>", item) == 0.0
        assert ds.score_answer(f"<think><answer>{answer}</answer>", item) == 0.0
        # reasoning-gym entries kept as question, answer and metadata are still read by their form
        kept = {key: item[key] for key in ("question", "answer", "metadata")}
        assert ds.score_answer(f"<answer>{answer}</answer>", kept) == 1.0
    with pytest.raises(ValueError, match="unknown question form"):
        reasoning_gym.create_dataset("clutrr", question="why")
    mixed = CompositeDataset(CompositeConfig(size=6, seed=1, datasets=[
        DatasetSpec("clutrr", 1.0, {"min_k": 2, "max_k": 2, "question": "people"}),
        DatasetSpec("family_relationships", 1.0, {})]))
    ours = [mixed[i] for i in range(6) if mixed[i]["metadata"]["source_dataset"] == "clutrr"]
    assert ours and all(x["metadata"]["form"] == "people" for x in ours)


def _score(task, reply: str):
    import verifiers.v1 as vf
    from verifiers.v1.trace import AgentInfo, Trace, TraceTask

    trace = Trace(task=TraceTask(type="ClutrrTask", data=task.data), agent=AgentInfo(config=vf.AgentConfig()))
    trace.root_reply = reply
    asyncio.run(task.score(trace))
    return trace


def test_verifiers_rubric_and_trl_reward_agree_on_every_form():
    from clutrr.integrations.verifiers_env import load_environment

    weights = [(0.0, 0.0), (0.1, 0.5)]
    envs = {w: load_environment(size=5, k=(3,), noise=("supporting",), seed=2, format_weight=w[0],
                                process_weight=w[1], question="mixed") for w in weights}
    tasks = {w: list(env.taskset) for w, env in envs.items()}
    assert {t.data.item["form"] for t in tasks[weights[0]]} == set(FORMS)
    for position, task in enumerate(tasks[weights[0]]):
        item, answer = task.data.item, task.data.answer
        form = item["form"]
        if form != "relation":
            assert "<answer>" in task.data.system_prompt and "relation word" not in task.data.system_prompt
            assert task.data.prompt == item["question"]
        names = [p["name"] for p in item["metadata"]["people"]]
        facts = " ".join(f"{names[f['tail']]} is {names[f['head']]}'s {f['relation']}."
                         for f in item["metadata"]["facts"])
        replies = {"right": f"<think>{facts}</think><answer>{answer}</answer>", "plain": f"Answer: {answer}",
                   "wrong": f"<think>{facts}</think><answer>{wrong_answer(form, answer, names)}</answer>",
                   "open": f"<think>{facts} so the answer is {answer}"}
        row = {key: [value] for key, value in to_hf_dataset([item]).to_list()[0].items() if key != "prompt"}
        for fb, w in weights:
            trl = make_reward(format_bonus=fb, process_weight=w)
            for kind, reply in replies.items():
                trace = _score(tasks[fb, w][position], reply)
                expected = reward(reply, item, format_bonus=fb, process_weight=w)
                assert trl(completions=[reply], **row) == [expected], (form, kind)
                assert trace.reward == pytest.approx(expected), (form, kind, fb, w)
                assert (expected > 0) == (kind in ("right", "plain")), (form, kind)
                assert trace.metrics["parsed"] == float(kind != "open")
        if form == "people" and ", " in answer:
            partial = _score(task, f"<answer>{wrong_answer(form, answer, names)}</answer>")
            assert partial.reward == 0.0 and 0.0 < partial.metrics["set_f1"] < 1.0
