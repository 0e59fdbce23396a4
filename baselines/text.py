"""Text samples: the story's tokens with people anonymised to ``@entity-k`` placeholders.

Placeholder ids are drawn at random per story from a fixed pool; the model embeds them with
a random, frozen table. Word ids come from a vocabulary built on the training stories.
Batches are padded to the longest story in the batch and built from length buckets; the
BiLSTM reads them packed by default, so that it skips each story's padding
(:class:`clutrr.baselines.bilstm.BiLSTMClassifier`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402

from clutrr.baselines.data import Story, story_rng
from clutrr.baselines.graphs import draw_entities

PAD, UNK, ENTITY = 0, 1, 2
SPECIALS = ("<pad>", "<unk>", "<entity>")


@dataclass
class WordVocab:
    """Word to id; ids 0..2 are ``<pad>``, ``<unk>``, ``<entity>``."""

    words: list[str]

    @classmethod
    def build(cls, stories: list[Story], min_count: int = 1) -> "WordVocab":
        """A vocabulary over the training stories' tokens (placeholders excluded)."""
        counts: dict[str, int] = {}
        for s in stories:
            for t, slot in zip(s.tokens, s.slots):
                if slot < 0:
                    counts[t] = counts.get(t, 0) + 1
        kept = sorted(w for w, c in counts.items() if c >= min_count)
        return cls([*SPECIALS, *kept])

    def __post_init__(self) -> None:
        self.index = {w: i for i, w in enumerate(self.words)}

    def __len__(self) -> int:
        return len(self.words)

    def encode(self, story: Story) -> list[int]:
        """Word ids of a story's tokens; person tokens become ``<entity>``."""
        return [ENTITY if s >= 0 else self.index.get(t, UNK) for t, s in zip(story.tokens, story.slots)]


@dataclass
class TextSample:
    """A tokenised story: word ids, per-token person slot (-1 for words), entity ids, query, label."""

    words: list[int]
    slots: list[int]
    entities: list[int]
    query: tuple[int, int]
    label: int

    def query_positions(self) -> tuple[list[int], list[int]]:
        """Token positions of the query's head and tail."""
        head, tail = self.query
        return [i for i, s in enumerate(self.slots) if s == head], [i for i, s in enumerate(self.slots) if s == tail]


def text_samples(stories: list[Story], vocab: WordVocab, pool: int, seed: int) -> list[TextSample]:
    """One text sample per story, placeholders drawn from ``seed`` and the story's id."""
    return [
        TextSample(vocab.encode(s), list(s.slots), draw_entities(len(s.people), pool, story_rng(seed, s)), s.query,
                   s.label)
        for s in stories
    ]


@dataclass
class TextBatch:
    """Padded tensors for a batch of text samples (B stories, T tokens)."""

    words: torch.Tensor  # B x T word ids
    slots: torch.Tensor  # B x T person slot, -1 for words and padding
    entities: torch.Tensor  # B x P entity id per person slot
    mask: torch.Tensor  # B x T, True on real tokens
    query: torch.Tensor  # B x 2 person slots
    labels: torch.Tensor  # B

    def to(self, device: torch.device) -> "TextBatch":
        """The same batch on ``device``."""
        return TextBatch(*(t.to(device) for t in (self.words, self.slots, self.entities, self.mask, self.query, self.labels)))


def collate(samples: list[TextSample], pool: int | None = None, generator: torch.Generator | None = None) -> TextBatch:
    """Pad a list of samples; with ``pool`` and ``generator`` draw fresh placeholders per story."""
    size = len(samples)
    length = max(len(s.words) for s in samples)
    people = max(len(s.entities) for s in samples)
    words = torch.full((size, length), PAD, dtype=torch.long)
    slots = torch.full((size, length), -1, dtype=torch.long)
    entities = torch.zeros((size, people), dtype=torch.long)
    for i, s in enumerate(samples):
        n = len(s.words)
        words[i, :n] = torch.tensor(s.words)
        slots[i, :n] = torch.tensor(s.slots)
        entities[i, : len(s.entities)] = torch.tensor(s.entities)
    if pool is not None and generator is not None:
        entities = torch.rand(size, pool, generator=generator).argsort(dim=1)[:, :people]
    return TextBatch(
        words=words, slots=slots, entities=entities, mask=words != PAD,
        query=torch.tensor([s.query for s in samples], dtype=torch.long),
        labels=torch.tensor([s.label for s in samples], dtype=torch.long),
    )


def bucket_batches(lengths: list[int], batch_size: int, rng: np.random.Generator | None) -> list[list[int]]:
    """Index batches of similar length; shuffled within length ties and across batches when ``rng`` is given."""
    order = np.arange(len(lengths))
    if rng is not None:
        order = rng.permutation(len(lengths))
    order = sorted(order.tolist(), key=lambda i: lengths[i])
    batches = [order[i:i + batch_size] for i in range(0, len(order), batch_size)]
    if rng is not None:
        batches = [batches[i] for i in rng.permutation(len(batches))]
    return batches
