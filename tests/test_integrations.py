"""The libraries people train with, tested with the real installed packages: HF datasets, TRL,
reasoning-gym and verifiers (pinned in the ``test`` extra of pyproject.toml)."""
from __future__ import annotations

import asyncio
import subprocess
import sys

import datasets
import pytest

from clutrr.rl import DatasetConfig, FileDataset, make_dataset, reward, to_hf_dataset
from helpers import REPO, run_generate


@pytest.fixture(scope="module")
def items():
    return list(make_dataset(DatasetConfig(size=6, k=(2, 3), noise=("none", "irrelevant")), seed=0))


@pytest.fixture(scope="module")
def file_items(tmp_path_factory):
    out = tmp_path_factory.mktemp("hf") / "d"
    res = run_generate("--k", "2", "--test-k", "2", "--train-rows", "4", "--test-rows", "4", "--out", str(out))
    assert res.returncode == 0, res.stderr
    return list(FileDataset(out))


def test_dataset_from_list_takes_procedural_and_file_items_alike(items, file_items):
    a, b = datasets.Dataset.from_list(items), datasets.Dataset.from_list(file_items)
    both = datasets.concatenate_datasets([a, b])
    assert len(both) == len(items) + len(file_items)
    assert both[0]["metadata"]["facts"][0] == items[0]["metadata"]["facts"][0]
    assert both[-1]["metadata"]["facts"] == file_items[-1]["metadata"]["facts"]


def test_to_hf_dataset_gives_prompt_answer_and_typed_columns(items, file_items):
    ds = datasets.concatenate_datasets([to_hf_dataset(items), to_hf_dataset(file_items, style="plain")])
    assert ds[0]["prompt"][0]["role"] == "system" and ds[0]["prompt"][-1]["content"] == items[0]["question"]
    assert ds[-1]["prompt"][0]["role"] == "user"
    assert ds["answer"] == [x["answer"] for x in items + file_items]
    assert ds.features["k"].dtype == "int64" and ds.features["pattern_heldout"].dtype == "bool"
    assert {"people", "facts", "query_edge", "noise", "split", "seed", "source_index"} <= set(ds.column_names)
    released = dict(file_items[0], metadata=dict(file_items[0]["metadata"], seed=None, pattern_heldout=None))
    assert to_hf_dataset([released])[0]["seed"] is None  # unknown values keep the column types


def test_trl_reward_function_with_grpo_columns(items):
    from clutrr.integrations.trl_reward import clutrr_reward, make_reward

    rows = to_hf_dataset(items[:2]).to_list()
    columns = {key: [row[key] for row in rows] for key in rows[0] if key != "prompt"}
    right = [f"<answer>{row['answer']}</answer>" for row in rows]
    assert clutrr_reward(completions=right, prompts=[r["prompt"] for r in rows], **columns) == [1.0, 1.0]
    chat = [[{"role": "assistant", "content": "<answer>nobody</answer>"}],
            [{"role": "assistant", "content": right[1], "reasoning_content": "irrelevant"}]]
    assert clutrr_reward(completions=chat, **columns) == [0.0, 1.0]
    bonus = make_reward(format_bonus=0.1, process_weight=0.5, name="with_process")
    assert bonus.__name__ == "with_process"
    assert bonus(completions=right, **columns) == [0.6, 0.6]  # no reasoning: half the process part
    with pytest.raises(ValueError):
        make_reward(process_weight=2)


def test_grpo_smoke_run_on_cpu():
    """Two GRPO steps on every question form (``--question mixed``: relation rows among them)."""
    res = subprocess.run([sys.executable, str(REPO / "docs" / "examples" / "grpo_smoke.py"), "--question", "mixed"],
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    lines = res.stdout.splitlines()
    calls = [line for line in lines if line.startswith("reward called on 4 completions")]
    assert len(calls) == 2 and all("answer, " in c and "facts" in c and "form, " in c and "query_edge" in c
                                   for c in calls)
    assert [line.split(":")[0] for line in lines if line.startswith("step ")] == ["step 1", "step 2"]


def test_reasoning_gym_registration_composite_and_curriculum():
    import reasoning_gym
    from reasoning_gym.coaching.curriculum_config import CurriculumAttributeConfig, CurriculumExperimentConfig
    from reasoning_gym.coaching.experiment import CurriculumExperiment
    from reasoning_gym.composite import CompositeConfig, CompositeDataset, DatasetSpec
    from reasoning_gym.factory import create_curriculum

    import clutrr.integrations.reasoning_gym_dataset as rg

    rg.register()  # a second registration does nothing
    ds = reasoning_gym.create_dataset("clutrr", min_k=3, max_k=4, noise=["supporting"], size=5, seed=1)
    assert len(ds) == 5 and {x["metadata"]["k"] for x in ds} <= {3, 4}
    item = ds[2]
    assert item["metadata"]["source_dataset"] == "clutrr" and item["metadata"]["difficulty"]["noise"] == "supporting"
    assert ds.score_answer(f"<think>hmm</think>{item['answer'].upper()}", item) == 1.0
    assert ds.score_answer("<think>" + item["answer"], item) == 0.0
    assert reasoning_gym.get_score_answer_fn("clutrr")(item["answer"], item) == 1.0
    with pytest.raises(ValueError):
        reasoning_gym.create_dataset("clutrr", min_k=4, max_k=2)
    mixed = CompositeDataset(CompositeConfig(size=8, seed=3, datasets=[
        DatasetSpec("clutrr", 1.0, {"min_k": 2, "max_k": 2}), DatasetSpec("family_relationships", 1.0, {})]))
    sources = {mixed[i]["metadata"]["source_dataset"] for i in range(8)}
    assert sources == {"clutrr", "family_relationships"}
    curriculum = create_curriculum("clutrr")
    assert curriculum.increment_attr_level("k") and curriculum.increment_attr_level("noise")
    config = curriculum.generate_configuration({"size": 3, "seed": 0})
    assert (config.min_k, config.max_k, config.noise) == (2, 3, ["supporting"])
    experiment = CurriculumExperiment("e", CurriculumExperimentConfig(curricula={"clutrr": CurriculumAttributeConfig(
        attribute_levels={"k": 3}, weight=1.0)}), size=4, seed=0)
    entry = experiment.get_dataset_entry(1)
    assert 2 <= entry["metadata"]["k"] <= 5
    assert experiment.score_answer_with_id(entry["answer"], entry["metadata"]["entry_id"]) == 1.0


def test_verifiers_environment_and_rubric():
    import verifiers.v1 as vf
    from verifiers.v1.trace import AgentInfo, Trace, TraceTask

    from clutrr.integrations.verifiers_env import ClutrrTaskset, load_environment

    env = load_environment(size=3, k=(2,), seed=4, format_weight=0.1, process_weight=0.5)
    assert isinstance(env, vf.SingleAgentEnv) and isinstance(env.taskset, ClutrrTaskset)
    assert env.config.agent.harness.id == "null"
    tasks = list(env.taskset)
    assert len(tasks) == 3 and tasks[0].data.system_prompt.startswith("You answer questions about family")
    task = tasks[0]
    people = [p["name"] for p in task.data.item["metadata"]["people"]]
    head, tail = task.data.item["query"]
    steps = " ".join(f"{people[f['tail']]} is {people[f['head']]}'s {f['relation']}."
                     for f in task.data.item["metadata"]["facts"])

    def score(reply: str) -> Trace:
        trace = Trace(task=TraceTask(type="ClutrrTask", data=task.data), agent=AgentInfo(config=vf.AgentConfig()))
        trace.root_reply = reply
        asyncio.run(task.score(trace))
        return trace

    concluded = f"{steps} So {tail} is {head}'s {task.data.answer}."
    faithful = score(f"<think>{concluded}</think><answer>{task.data.answer}</answer>")
    assert {k: (r.score, r.weight) for k, r in faithful.rewards.items()} == {
        "correct": (1.0, 0.5), "format": (1.0, 0.1), "process": (1.0, 0.5)}
    assert faithful.reward == pytest.approx(1.1) and faithful.metrics["claim_precision"] == 1.0
    wrong = score(f"<think>{steps}</think><answer>nobody</answer> So {tail} is {head}'s {task.data.answer}.")
    assert wrong.reward == 0.0 and wrong.metrics["claims_connect"] == 1.0
    unclosed = score(f"<think>{steps} so the answer is {task.data.answer}")
    assert unclosed.reward == 0.0


def test_one_reward_definition_across_trl_verifiers_and_reward(items):
    """The TRL reward, the verifiers rubric and reward() give the same number for the same
    reply, item and weights (docs/rl.md)."""
    import verifiers.v1 as vf
    from verifiers.v1.trace import AgentInfo, Trace, TraceTask

    from clutrr.integrations.trl_reward import make_reward
    from clutrr.integrations.verifiers_env import load_environment

    weights = [(0.0, 0.0), (0.1, 0.0), (0.1, 0.5), (0.25, 1.0)]
    envs = {w: load_environment(size=2, k=(3,), seed=7, format_weight=w[0], process_weight=w[1]) for w in weights}
    for position in range(2):
        task = list(envs[weights[0]].taskset)[position]
        item = task.data.item
        people = [p["name"] for p in item["metadata"]["people"]]
        head, tail = item["query"]
        steps = " ".join(f"{people[f['tail']]} is {people[f['head']]}'s {f['relation']}."
                         for f in item["metadata"]["facts"])
        replies = [f"<think>{steps}</think><answer>{item['answer']}</answer>",
                   f"{people[item['metadata']['facts'][0]['tail']]} is {tail}'s nephew. So {tail} is {head}'s "
                   f"{item['answer']}.", f"<answer>{item['answer']}</answer>", "<answer>nobody</answer>",
                   f"{steps} So the answer is {item['answer']}"]
        row = {key: [value] for key, value in to_hf_dataset([item]).to_list()[0].items() if key != "prompt"}
        for fb, w in weights:
            trl = make_reward(format_bonus=fb, process_weight=w)
            for reply in replies:
                trace = Trace(task=TraceTask(type="ClutrrTask", data=task.data),
                              agent=AgentInfo(config=vf.AgentConfig()))
                trace.root_reply = reply
                env_task = list(envs[fb, w].taskset)[position]
                asyncio.run(env_task.score(trace))
                expected = reward(reply, item, format_bonus=fb, process_weight=w)
                assert trl(completions=[reply], **row) == [expected]
                assert trace.reward == pytest.approx(expected), (reply, fb, w)


def test_trl_reward_names_a_missing_column(items):
    from clutrr.integrations.trl_reward import make_reward

    rows = to_hf_dataset(items[:1]).to_list()
    columns = {key: [rows[0][key]] for key in rows[0] if key != "prompt"}
    without_query = {k: v for k, v in columns.items() if k != "query"}
    with pytest.raises(ValueError, match="^clutrr_reward needs the dataset column.s. query "):
        make_reward()(completions=["<answer>aunt</answer>"], **without_query)
    without_people = {k: v for k, v in columns.items() if k != "people"}
    with pytest.raises(ValueError, match="^with_process needs the dataset column.s. people ") as err:
        make_reward(process_weight=0.5, name="with_process")(completions=["aunt"], **without_people)
    assert "\n" not in str(err.value)
