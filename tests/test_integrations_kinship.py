"""The reasoning-gym dataset and the verifiers environment in a kinship system's terms."""
from __future__ import annotations

import asyncio

import pytest

from clutrr.core.kb import load_kb
from clutrr.llm.prompts import GLOSSARY_HEAD
from clutrr.story.systems import kinship_fields


def test_reasoning_gym_dataset_in_a_kinship_system():
    reasoning_gym = pytest.importorskip("reasoning_gym")
    import clutrr.integrations.reasoning_gym_dataset  # noqa: F401  (registers "clutrr")

    ds = reasoning_gym.create_dataset("clutrr", min_k=2, max_k=2, size=4, seed=3, kinship="sudanese")
    terms = load_kb(kinship_fields("sudanese")["kb"]).words
    for item in ds:
        assert GLOSSARY_HEAD in item["question"] and item["answer"] in terms
        assert ds.score_answer(f"<answer>{item['answer']}</answer>", item) == 1.0


def test_verifiers_environment_in_a_kinship_system_scores_its_terms():
    vf = pytest.importorskip("verifiers.v1")
    from verifiers.v1.trace import AgentInfo, Trace, TraceTask

    from clutrr.integrations.verifiers_env import load_environment

    env = load_environment(size=3, k=(2,), seed=4, kinship="sudanese")
    for task in env.taskset:
        assert GLOSSARY_HEAD in task.data.prompt
        trace = Trace(task=TraceTask(type="ClutrrTask", data=task.data), agent=AgentInfo(config=vf.AgentConfig()))
        trace.root_reply = f"<answer>{task.data.answer}</answer>"
        asyncio.run(task.score(trace))
        assert trace.rewards["correct"].score == 1.0
