"""The BiLSTM baselines: a 2-layer BiLSTM over the anonymised story, pooled by attention or mean."""
from __future__ import annotations

import torch
from torch import nn

from clutrr.baselines.text import PAD, TextBatch


class BiLSTMClassifier(nn.Module):
    """Embeddings (words learned, placeholders random and frozen) -> BiLSTM -> [story; head; tail] -> MLP."""

    def __init__(self, num_labels: int, vocab_size: int, entity_pool: int = 100, emb_dim: int = 100,
                 hidden: int = 100, layers: int = 2, pooling: str = "attention", mlp_hidden: int = 200,
                 dropout: float = 0.0) -> None:
        super().__init__()
        if pooling not in ("attention", "mean"):
            raise ValueError(f"pooling must be attention or mean, not {pooling!r}")
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
        """Logits (B x labels)."""
        states, _ = self.lstm(self.embed(batch))
        mask = batch.mask.unsqueeze(-1).float()
        if self.pooling == "attention":
            scores = self.att_vec(torch.tanh(self.att_proj(states))).masked_fill(~batch.mask.unsqueeze(-1), -1e9)
            story = (torch.softmax(scores, dim=1) * states).sum(dim=1)
        else:
            story = (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
        head = _mean_at(states, batch.slots == batch.query[:, :1])
        tail = _mean_at(states, batch.slots == batch.query[:, 1:])
        return self.mlp(torch.cat([story, head, tail], dim=-1))


def _mean_at(states: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Mean of ``states`` (B x T x D) over the True ``positions`` (B x T) of each row; zeros if none."""
    weights = positions.unsqueeze(-1).float()
    return (states * weights).sum(dim=1) / weights.sum(dim=1).clamp(min=1.0)
