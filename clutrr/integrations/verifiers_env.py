"""A verifiers (0.4) taskset of CLUTRR items, and ``load_environment()``: a single-turn environment.

    from clutrr.integrations.verifiers_env import load_environment
    env = load_environment(size=200, k=(2, 3), format_weight=0.1, process_weight=0.5)

verifiers 0.4 builds an environment from a taskset named by a plain module name; importing
this module makes it known to verifiers as ``clutrr_kinship`` (so
``verifiers.v1.load_environment(config)`` with ``taskset.id = "clutrr_kinship"`` also works
in this process). Each task asks one item's question under the ``tagged`` system prompt (of
its question form: ``question="mixed"`` asks every form of docs/questions.md); the agent runs verifiers' ``null`` harness (one chat reply, no tools, no code). The rubric,
by the answer protocol of :mod:`clutrr.llm.extract`, the parts of :func:`clutrr.rl.reward`
(:class:`clutrr.rl.reward.RewardParts`) weighted so that the rubric's reward is that
function's number for the same reply and weights:

- ``correct`` (weight ``1 - process_weight``): 1 when the reply's final answer is the item's
  (the relation; the name, the exact set of names, the count or yes/no);
- ``format`` (weight ``format_weight``): 1 for a right answer given in exactly one
  ``<answer>`` tag outside the reasoning;
- ``process`` (weight ``process_weight``, at most 1): the process reward's score of a right
  answer's reasoning (:mod:`clutrr.llm.process`);

so a reply whose final answer is wrong earns nothing. The claim precision, whether the
claims connect the query's people, whether the reply gives an answer and the set F1 of a
``people`` answer (partial sets: a metric, never paid) are recorded as metrics. With ``think_open`` the replies
start inside a reasoning block (a chat template that opens ``<think>`` in the prompt).
"""
from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

import verifiers.v1 as vf
from verifiers.v1.envs.single_agent.env import SingleAgentEnvConfig

from clutrr.llm.process import process_reward
from clutrr.llm.prompts import build_form_messages
from clutrr.questions.forms import RELATION, answer_text, check_kind
from clutrr.rl.dataset import DatasetConfig, make_dataset
from clutrr.rl.reward import RewardParts, check_weights, read_answer, reward_parts, set_f1
from clutrr.story.generator import GeneratorConfig

TASKSET_ID = "clutrr_kinship"


class ClutrrTaskData(vf.TaskData):
    """One item: the question (``prompt``), its ``answer`` as text and the item itself (for the
    scores: its typed answer, form and story)."""

    answer: str
    item: dict
    think_open: bool = False
    kb: str = "kinship"  # the KB whose words answer (a kinship system's compiled KB with ``kinship``)


class ClutrrTask(vf.Task[ClutrrTaskData, vf.State, vf.TaskConfig]):
    """Scores a reply by the answer protocol; see the module docstring for the rubric."""

    def _parts(self, trace: vf.Trace) -> RewardParts:
        return reward_parts(trace.last_reply, self.data.item, self.data.kb, process=True,
                            think_open=self.data.think_open)

    @vf.reward(weight=1.0)
    async def correct(self, trace: vf.Trace) -> float:
        """1.0 when the final answer is the item's (its relation, name, set, count or yes/no)."""
        return self._parts(trace).correct

    @vf.reward(weight=0.0)
    async def format(self, trace: vf.Trace) -> float:
        """1.0 for a right answer in exactly one <answer> tag outside the reasoning."""
        return self._parts(trace).format

    @vf.reward(weight=0.0)
    async def process(self, trace: vf.Trace) -> float:
        """The process reward's score of a right answer's reasoning, else 0."""
        return self._parts(trace).process

    @vf.metric
    async def claims(self, trace: vf.Trace) -> dict[str, float]:
        """The claim precision (0 without claims), whether true claims connect the query's people,
        whether the reply gives an answer, and the set F1 of its answer."""
        item, reply, think_open, kb = self.data.item, trace.last_reply, self.data.think_open, self.data.kb
        judged = process_reward(reply, item, kb=kb)
        return {"claim_precision": judged.precision or 0.0, "claims_connect": float(judged.connected),
                "parsed": float(read_answer(reply, item, kb, think_open=think_open) is not None),
                "set_f1": set_f1(reply, item, kb, think_open=think_open)}


class ClutrrTasksetConfig(vf.TasksetConfig):
    """Which items load: a procedural dataset's size, chain lengths, noise types, split, seed and
    question form."""

    size: int = 100
    k: list[int] = [2, 3]
    noise: list[str] = ["none"]
    split: str = "train"
    seed: int = 0
    kb: str = "kinship"
    think_open: bool = False
    question: str = RELATION
    kinship: str | None = None  # tell the stories in a kinship system's terms (as clutrr generate --kinship)


class ClutrrTaskset(vf.Taskset[ClutrrTask, ClutrrTasksetConfig]):
    """The items of :func:`clutrr.rl.make_dataset` as single-turn tasks."""

    def load(self) -> Iterable[ClutrrTask]:
        c = self.config
        items = make_dataset(DatasetConfig(size=c.size, k=tuple(c.k), noise=tuple(c.noise), split=c.split,
                                           generator=GeneratorConfig(question=c.question), kinship=c.kinship), c.seed)
        kb = items.kb if c.kinship else c.kb
        for item in items:
            system, user = build_form_messages(item, kb=kb)
            yield ClutrrTask(ClutrrTaskData(id=item["id"], prompt=user["content"], system_prompt=system["content"],
                                            answer=answer_text(item["answer"]), item=item, think_open=c.think_open,
                                            kb=kb), c.task)


__all__ = ["ClutrrTaskset"]
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])


def load_environment(size: int = 100, k: Sequence[int] = (2, 3), noise: Sequence[str] = ("none",), seed: int = 0,
                     split: str = "train", format_weight: float = 0.0, process_weight: float = 0.0,
                     harness: str = "null", think_open: bool = False, question: str = RELATION,
                     kinship: str | None = None) -> vf.Env:
    """A single-agent verifiers environment over ``size`` procedural items asking ``question``
    (a form of docs/questions.md, or ``mixed``; see the module docstring), told in a kinship
    system's terms with ``kinship``."""
    check_weights(format_weight, process_weight)
    check_kind(question)
    task = vf.TaskConfig(rewards={"correct": vf.RewardFunctionConfig(weight=1.0 - process_weight),
                                  "format": vf.RewardFunctionConfig(weight=format_weight),
                                  "process": vf.RewardFunctionConfig(weight=process_weight)})
    config = SingleAgentEnvConfig(
        taskset=ClutrrTasksetConfig(id=TASKSET_ID, size=size, k=list(k), noise=list(noise), seed=seed, split=split,
                                    task=task, think_open=think_open, question=question, kinship=kinship),
        agent=vf.AgentConfig(harness={"id": harness}))
    return vf.load_environment(config)
