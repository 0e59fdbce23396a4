"""The BiLSTM baselines: a 2-layer BiLSTM over the anonymised story, pooled by attention or mean."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402
from torch import nn

from clutrr.baselines.data import Story
from clutrr.baselines.neural import TorchModel, TrainingConfig
from clutrr.baselines.registry import register
from clutrr.baselines.text import ENTITY, PAD, UNK, TextBatch, TextSample, WordVocab, bucket_batches, collate, text_samples


class BiLSTMClassifier(nn.Module):
    """Embeddings (words learned, placeholders random and frozen) -> BiLSTM -> [story; head; tail] -> MLP.

    The story vector pools the BiLSTM states by attention, mean or max (InferSent's choice).
    """

    def __init__(self, num_labels: int, vocab_size: int, entity_pool: int = 100, emb_dim: int = 100,
                 hidden: int = 100, layers: int = 2, pooling: str = "attention", mlp_hidden: int = 200,
                 dropout: float = 0.0, packed: bool = True) -> None:
        super().__init__()
        self.packed = packed
        if pooling not in ("attention", "mean", "max"):
            raise ValueError(f"pooling must be attention, mean or max, not {pooling!r}")
        self.pooling = pooling
        self.word_emb = nn.Embedding(vocab_size, emb_dim, padding_idx=PAD)
        self.entity_emb = nn.Embedding(entity_pool, emb_dim)
        self.entity_emb.weight.requires_grad_(False)
        self.lstm = nn.LSTM(emb_dim, hidden, num_layers=layers, bidirectional=True, batch_first=True,
                            dropout=dropout if layers > 1 else 0.0)
        out = 2 * hidden
        self.att_proj = nn.Linear(out, out)
        self.att_vec = nn.Linear(out, 1, bias=False)
        self.mlp = nn.Sequential(
            nn.Linear(3 * out, mlp_hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(mlp_hidden, num_labels)
        )

    def embed(self, batch: TextBatch) -> torch.Tensor:
        """B x T x emb: word embeddings, with each person's placeholder embedding at its tokens."""
        words = self.word_emb(batch.words)
        is_entity = batch.slots >= 0
        entity_ids = batch.entities.gather(1, batch.slots.clamp(min=0))
        return torch.where(is_entity.unsqueeze(-1), self.entity_emb(entity_ids), words)

    def forward(self, batch: TextBatch) -> torch.Tensor:
        """Logits (B x labels).

        ``packed``: the LSTM skips each story's padding, so the backward direction starts at its
        last real token and a story's states do not depend on the longest story of its batch.
        """
        if self.packed:
            lengths = batch.mask.sum(dim=1).cpu()
            packed = nn.utils.rnn.pack_padded_sequence(self.embed(batch), lengths, batch_first=True,
                                                       enforce_sorted=False)
            states, _ = nn.utils.rnn.pad_packed_sequence(self.lstm(packed)[0], batch_first=True,
                                                         total_length=batch.words.shape[1])
        else:
            states, _ = self.lstm(self.embed(batch))
        mask = batch.mask.unsqueeze(-1).float()
        if self.pooling == "attention":
            scores = self.att_vec(torch.tanh(self.att_proj(states))).masked_fill(~batch.mask.unsqueeze(-1), -1e9)
            story = (torch.softmax(scores, dim=1) * states).sum(dim=1)
        elif self.pooling == "max":
            story = states.masked_fill(~batch.mask.unsqueeze(-1), -1e9).max(dim=1).values
        else:
            story = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        head = _mean_at(states, batch.slots == batch.query[:, :1])
        tail = _mean_at(states, batch.slots == batch.query[:, 1:])
        return self.mlp(torch.cat([story, head, tail], dim=-1))


def _mean_at(states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Mean of ``states`` (B x T x D) over the True ``positions`` (B x T) of each row; zeros if none."""
    weights = positions.unsqueeze(-1).float()
    return (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)


@dataclass
class BiLSTMConfig(TrainingConfig):
    """The BiLSTM's settings (Sinha et al. 2019 sizes)."""

    emb_dim: int = 100  # word embeddings learned from scratch; placeholders random and frozen
    hidden: int = 100
    layers: int = 2  # bidirectional
    pooling: str = "attention"  # or mean, or max
    mlp_hidden: int = 200
    dropout: float = 0.0
    packed: bool = True  # skip padding in the LSTM (False: padded batches, faster on CPU)
    word_dropout: float = 0.0  # share of training words replaced by <unk>
    epochs: int = 10
    patience: int = 3


@dataclass
class BiLSTMMeanConfig(BiLSTMConfig):
    """:class:`BiLSTMConfig` with mean pooling."""

    pooling: str = "mean"


@register
class BiLSTMAttention(TorchModel):
    """:class:`BiLSTMClassifier` over the story text with ``@entity-k`` placeholders."""

    name = "bilstm-attn"
    Config = BiLSTMConfig
    reads_text = True

    def __init__(self, config: Any, labels: Any) -> None:
        super().__init__(config, labels)
        self.vocab: WordVocab | None = None

    def prepare(self, train: list[Story]) -> None:
        """The word vocabulary of the training stories."""
        self.vocab = WordVocab.build(train)

    def extra_state(self) -> dict[str, Any]:
        """The vocabulary."""
        return {"vocab": self.vocab.words}

    def load_extra_state(self, state: dict[str, Any]) -> None:
        """Restore the vocabulary."""
        self.vocab = WordVocab(list(state["vocab"]))

    def build_network(self) -> nn.Module:
        """A fresh :class:`BiLSTMClassifier` from the config."""
        c = self.config
        return BiLSTMClassifier(len(self.labels.words), len(self.vocab), c.entity_pool, c.emb_dim, c.hidden,
                                c.layers, c.pooling, c.mlp_hidden, c.dropout, c.packed)

    def samples(self, stories: list[Story], seed: int) -> list[TextSample]:
        """Text samples (see :mod:`clutrr.baselines.text`)."""
        return text_samples(stories, self.vocab, self.config.entity_pool, seed)

    def train_batches(self, samples: list[TextSample], rng: np.random.Generator,
                      gen: torch.Generator) -> Iterator[TextBatch]:
        """Length-bucketed shuffled batches; placeholders redrawn and words dropped as configured."""
        c = self.config
        for idx in bucket_batches([len(s.words) for s in samples], c.batch_size, rng):
            resample = c.resample_entities
            batch = collate([samples[i] for i in idx], c.entity_pool if resample else None, gen if resample else None)
            if c.word_dropout > 0:
                hide = (torch.rand(batch.words.shape, generator=gen) < c.word_dropout) & (batch.words > ENTITY)
                batch.words = batch.words.masked_fill(hide, UNK)
            yield batch

    def eval_batches(self, samples: list[TextSample]) -> Iterator[tuple[list[int], TextBatch]]:
        """Batches of 500 bucketed by length."""
        for idx in bucket_batches([len(s.words) for s in samples], 500, None):
            yield list(idx), collate([samples[i] for i in idx])

    @staticmethod
    def gold(batch: Any) -> torch.Tensor:
        """Label ids of a batch."""
        return batch.labels


@register
class BiLSTMMean(BiLSTMAttention):
    """The BiLSTM with mean pooling."""

    name = "bilstm-mean"
    Config = BiLSTMMeanConfig
