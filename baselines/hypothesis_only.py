"""A hypothesis-only sentence encoder for recast NLI data (after Poliak et al., 2018).

The hypothesis-only baseline of Poliak et al. encodes the hypothesis alone with a BiLSTM
(InferSent's encoder, max-pooled), classifies the vector with an MLP, picks its epoch on a
development set and is compared with the majority baseline. This module trains the BiLSTM of
:mod:`clutrr.baselines.bilstm` that way: on the hypotheses of the training items, with a
development split held out by story (the two hypotheses of a story stay together) and early
stopping on the development loss. ``clutrr audit`` reaches it by its import path
(:data:`SPEC`), the way ``clutrr robustness`` reaches a model function, so the diagnostics
never import the baselines.

The project's sizes are smaller than InferSent's (hidden 64 instead of 2048, embeddings learned
from scratch instead of GloVe): a recast hypothesis is one short sentence with a closed
vocabulary, and the audit must stay cheap on a CPU.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402

from clutrr.baselines.bilstm import BiLSTMConfig, BiLSTMMean
from clutrr.baselines.data import LabelVocab, Story, tokenize

SPEC = "clutrr.baselines.hypothesis_only:fit_predict"
DEV_SHARE = 0.1
SETTINGS = dict(emb_dim=64, hidden=64, layers=1, pooling="max", mlp_hidden=64, epochs=30, patience=3, lr=0.003,
                batch_size=32, resample_entities=False, device="cpu")


def _story(i: int, text: str, label: int) -> Story:
    tokens, slots = tokenize(text, [])
    # one placeholder person that no token names: the model's head and tail vectors stay zero
    return Story(id=str(i), label=label, k=0, people=["<none>"], edges=[], edge_types=[], query=(0, 0),
                 tokens=tokens, slots=slots)


def dev_split(groups: Sequence[object], share: float, seed: int) -> tuple[list[int], list[int]]:
    """Indices of the training and development items: about ``share`` of the groups (stories),
    drawn with ``seed``, go to development; every group lies wholly on one side."""
    order = list(dict.fromkeys(groups))
    want = max(1, round(share * len(order))) if len(order) > 1 else 0
    held = {order[i] for i in np.random.default_rng(seed).permutation(len(order))[:want]}
    train = [i for i, g in enumerate(groups) if g not in held]
    dev = [i for i, g in enumerate(groups) if g in held]
    return train, dev


def fit_predict(train_texts: Sequence[str], train_labels: Sequence[str], train_groups: Sequence[object],
                test_texts: Sequence[str], seed: int = 0) -> dict[str, Any]:
    """Train the encoder on ``train_texts`` and predict ``test_texts``.

    Returns ``predictions`` (labels), ``scores`` (class probabilities, in ``labels`` order) and
    ``info`` (development size and accuracy, epochs run, best epoch). Runs on one CPU thread, so
    a seed gives the same predictions on a given machine; on a terminal the epochs show a progress bar.
    """
    labels = sorted(set(train_labels))
    index = {lab: i for i, lab in enumerate(labels)}
    stories = [_story(i, t, index[lab]) for i, (t, lab) in enumerate(zip(train_texts, train_labels))]
    fit_idx, dev_idx = dev_split(train_groups, DEV_SHARE, seed)
    config = dataclasses.replace(BiLSTMConfig(), **SETTINGS)
    model = BiLSTMMean(config, LabelVocab(tuple(labels), "nli"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        history = model.fit([stories[i] for i in fit_idx], [stories[i] for i in dev_idx], seed=seed)
        probs = model.predict_proba([_story(i, t, 0) for i, t in enumerate(test_texts)]) if test_texts else \
            np.zeros((0, len(labels)))
    finally:
        torch.set_num_threads(threads)
    best = history["history"][history["best_epoch"] - 1]
    return {
        "predictions": [labels[i] for i in probs.argmax(axis=1)],
        "labels": labels,
        "scores": probs.tolist(),
        "info": {"dev_items": len(dev_idx), "dev_accuracy": best.get("valid_accuracy"),
                 "epochs_run": history["epochs_run"], "best_epoch": history["best_epoch"]},
    }
