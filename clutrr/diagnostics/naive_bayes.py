"""A multinomial Naive Bayes classifier over bags of string features (the audit's baselines)."""
from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence

import numpy as np


class MultinomialNB:
    """Multinomial Naive Bayes with add-``alpha`` smoothing; features unseen in training are ignored.

    Ties between labels go to the label first in sorted order, so predictions are deterministic.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self.alpha = alpha
        self.labels: list[str] = []
        self.vocab: dict[str, int] = {}
        self._log_prior = np.zeros(0)
        self._log_lik = np.zeros((0, 0))

    def fit(self, features: Sequence[Iterable[str]], labels: Sequence[str]) -> "MultinomialNB":
        """Learn label priors and per-label feature distributions."""
        if len(features) != len(labels) or not labels:
            raise ValueError("need the same, non-zero number of feature bags and labels")
        self.labels = sorted(set(labels))
        lab_index = {lab: i for i, lab in enumerate(self.labels)}
        bags = [Counter(f) for f in features]
        self.vocab = {w: i for i, w in enumerate(sorted({w for bag in bags for w in bag}))}
        n_labels, n_words = len(self.labels), len(self.vocab)
        flat, weights = [], []
        for bag, lab in zip(bags, labels):
            base = lab_index[lab] * n_words
            flat += [base + self.vocab[w] for w in bag]
            weights += bag.values()
        counts = np.bincount(np.array(flat, dtype=np.int64), weights=np.array(weights, dtype=float),
                             minlength=n_labels * n_words).reshape(n_labels, n_words)
        prior = np.bincount([lab_index[lab] for lab in labels], minlength=n_labels).astype(float)
        self._log_prior = np.log(prior / prior.sum())
        smoothed = counts + self.alpha
        self._log_lik = np.log(smoothed / smoothed.sum(axis=1, keepdims=True))
        return self

    def scores(self, features: Sequence[Iterable[str]]) -> np.ndarray:
        """Log joint probabilities, one row per feature bag, one column per label (``labels`` order)."""
        out = np.zeros((len(features), len(self.labels)))
        for i, bag in enumerate(features):
            ids = [self.vocab[w] for w in bag if w in self.vocab]
            out[i] = self._log_prior + self._log_lik[:, ids].sum(axis=1)
        return out

    def predict(self, features: Sequence[Iterable[str]]) -> list[str]:
        """The most probable label of each feature bag."""
        return [self.labels[int(i)] for i in np.argmax(self.scores(features), axis=1)]

    def predict_ties(self, features: Sequence[Iterable[str]]) -> tuple[list[str], list[bool]]:
        """The most probable label of each bag, and whether every label scores the same (the
        model has no preference: the tie goes to the first label in sorted order)."""
        scores = self.scores(features)
        best = np.argmax(scores, axis=1)
        return [self.labels[int(i)] for i in best], tied_rows(scores)


def tied_rows(scores: np.ndarray, tolerance: float = 1e-9) -> list[bool]:
    """For each row of a score matrix, whether every column scores the same (no preference)."""
    if scores.shape[0] == 0:
        return []
    return (scores.max(axis=1) - scores.min(axis=1) <= tolerance).tolist()
