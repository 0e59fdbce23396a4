"""``clutrr`` as a reasoning-gym dataset: importing this module registers it.

    import reasoning_gym
    import clutrr.integrations.reasoning_gym_dataset  # registers "clutrr"
    ds = reasoning_gym.create_dataset("clutrr", min_k=2, max_k=4, size=100, seed=0)
    ds.score_answer("<answer>aunt</answer>", ds[0])

The dataset is a reasoning-gym ``ProceduralDataset`` (so composite datasets and curriculum
experiments take it); its items are :mod:`clutrr.rl` items with reasoning-gym's
``metadata["difficulty"]``. The curriculum raises k (attribute ``k``, levels 2..10, range
fields ``min_k``/``max_k``) and the noise (attribute ``noise``: none, supporting,
irrelevant, disconnected, all). Scoring follows the answer protocol of :mod:`clutrr.llm.extract`.

``question`` asks another question form (docs/questions.md: ``person``, ``people``, ``count``,
``yesno`` or ``mixed``); as reasoning-gym expects, an item's ``answer`` is then text (names
joined by ", ", a count in digits, yes or no) and ``metadata["form"]`` names its form.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reasoning_gym.coaching import BaseCurriculum
from reasoning_gym.coaching.attributes import RangeAttributeDefinition, ScalarAttributeDefinition
from reasoning_gym.dataset import ProceduralDataset
from reasoning_gym.factory import DATASETS, register_dataset

from clutrr.core.noise import NOISE_KINDS, PATH_NOISE_KINDS
from clutrr.questions.forms import RELATION, answer_text, check_kind
from clutrr.rl.dataset import DatasetConfig, make_dataset
from clutrr.rl.reward import score_answer
from clutrr.story.generator import GeneratorConfig

NAME = "clutrr"


@dataclass
class ClutrrConfig:
    """reasoning-gym's view of a :class:`clutrr.rl.DatasetConfig`: chain lengths min_k..max_k,
    noise types, split, question form, size and seed (reasoning-gym sets ``seed`` and ``size``);
    ``kinship`` tells the stories in a kinship system's terms (as ``clutrr generate --kinship``)."""

    min_k: int = 2
    max_k: int = 3
    noise: list[str] = field(default_factory=lambda: ["none"])
    split: str = "train"
    kb: str = "kinship"
    question: str = RELATION
    seed: int | None = None
    size: int = 500
    kinship: str | None = None

    def validate(self) -> None:
        """Raise ValueError for an impossible configuration."""
        if not 1 <= self.min_k <= self.max_k:
            raise ValueError(f"need 1 <= min_k <= max_k, got {self.min_k}..{self.max_k}")
        if isinstance(self.noise, str):
            self.noise = [self.noise]
        unknown = [n for n in self.noise if n not in NOISE_KINDS]
        if not self.noise or unknown:
            raise ValueError(f"noise must list types from {', '.join(NOISE_KINDS)}, got {self.noise}")
        check_kind(self.question)


class ClutrrDataset(ProceduralDataset):
    """CLUTRR stories as a reasoning-gym procedural dataset."""

    def __init__(self, config: ClutrrConfig) -> None:
        super().__init__(config=config, seed=config.seed, size=config.size)
        self._items = make_dataset(DatasetConfig(size=config.size, k=tuple(range(config.min_k, config.max_k + 1)),
                                                 noise=tuple(config.noise), split=config.split,
                                                 generator=GeneratorConfig(question=config.question),
                                                 kinship=config.kinship), self.seed)

    def __getitem__(self, idx: int) -> dict[str, Any]:
        item = self._items[idx]
        item["answer"] = answer_text(item["answer"])
        item["metadata"].update(source_dataset=NAME, form=item["form"],
                                difficulty={"k": item["metadata"]["k"], "noise": item["metadata"]["noise"]})
        return item

    def score_answer(self, answer: str | None, entry: dict[str, Any]) -> float:
        """1.0 if ``answer`` gives the entry's answer by the answer protocol, else 0.0."""
        return score_answer(answer, entry, self._items.kb if self.config.kinship else self.config.kb)


class ClutrrCurriculum(BaseCurriculum):
    """Harder levels: longer chains (k), then noisier stories."""

    def __init__(self) -> None:
        super().__init__(ClutrrCurriculum.__name__, ClutrrConfig)
        self._define_attributes(
            RangeAttributeDefinition(name="k", levels=list(range(2, 11)), lower_field_name="min_k",
                                     upper_field_name="max_k", description="relations in the chain"),
            ScalarAttributeDefinition(name="noise", field_name="noise", levels=[[n] for n in PATH_NOISE_KINDS],
                                      description="the kind of extra facts in the story"),
        )


def register() -> None:
    """Register ``clutrr`` with reasoning-gym (done on import; a second call does nothing)."""
    if NAME not in DATASETS:
        register_dataset(NAME, ClutrrDataset, ClutrrConfig, ClutrrCurriculum)


register()
