"""The audit's partial-input models, and how they are trained and scored per split.

A model is a *fitter*: given training items, their labels and groups, and the items to
predict, it returns a :class:`Fitted` (predictions, and per item whether the model had no
preference at all: every label scored the same). Built in: the majority label, multinomial Naive Bayes
over a featurizer, and fixed rules (heuristics that need no training). A text classifier
from elsewhere (the hypothesis-only encoder of the baselines) plugs in through
:func:`text_classifier`, so this package never imports it.

A test split is scored by models trained on the folder's training split; a training split
(or every split of a folder without one) by k-fold cross-validation, the items of one group
(the two hypotheses of a story) always in one fold.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from clutrr.diagnostics.naive_bayes import MultinomialNB, tied_rows
from clutrr.errors import UsageError

FOLDS = 5

Featurizer = Callable[[Any], list[str]]


@dataclass
class Fitted:
    """One model's output on the items it was asked to predict."""

    predictions: list[str]
    tied: list[bool]  # every label scored the same: the prediction is the tie-break
    info: dict | None = None  # what the model reports about its training (e.g. development accuracy)


Fitter = Callable[[Sequence[Any], Sequence[str], Sequence[object], Sequence[Any], int], Fitted]


def majority_label(labels: Sequence[str]) -> str:
    """The most common label; ties go to the first in sorted order."""
    counts = Counter(labels)
    return min(counts, key=lambda lab: (-counts[lab], lab))


def majority() -> Fitter:
    """The training items' majority label for every item (it cannot tell items apart)."""

    def fit(train, labels, groups, test, seed) -> Fitted:
        return Fitted([majority_label(labels)] * len(test), [True] * len(test))

    return fit


def naive_bayes(featurize: Featurizer) -> Fitter:
    """Multinomial Naive Bayes over the features ``featurize`` gives an item."""

    def fit(train, labels, groups, test, seed) -> Fitted:
        model = MultinomialNB().fit([featurize(r) for r in train], labels)
        preds, tied = model.predict_ties([featurize(r) for r in test])
        return Fitted(preds, tied)

    return fit


def rule(decide: Callable[[Any], str]) -> Fitter:
    """A fixed rule: ``decide(item)`` is its label; the training items are not used."""

    def fit(train, labels, groups, test, seed) -> Fitted:
        return Fitted([decide(r) for r in test], [False] * len(test))

    return fit


def text_classifier(fit_predict: Callable[..., dict], text: Callable[[Any], str]) -> Fitter:
    """A plugged-in classifier of texts: ``fit_predict(train_texts, train_labels, train_groups,
    test_texts, seed)`` returns ``predictions`` and, optionally, ``scores`` (one row of class
    scores per test text) and ``info``."""

    def fit(train, labels, groups, test, seed) -> Fitted:
        out = fit_predict([text(r) for r in train], list(labels), list(groups), [text(r) for r in test], seed)
        if not isinstance(out, dict) or "predictions" not in out:
            raise UsageError(f"{getattr(fit_predict, '__name__', 'the classifier')} must return a dict with "
                             "'predictions'")
        preds = list(out["predictions"])
        if len(preds) != len(test):
            raise UsageError(f"{getattr(fit_predict, '__name__', 'the classifier')} returned {len(preds)} "
                             f"predictions for {len(test)} items")
        scores = out.get("scores")
        tied = tied_rows(np.asarray(scores, dtype=float)) if scores is not None and len(test) else [False] * len(test)
        return Fitted(preds, tied, out.get("info"))

    return fit


@dataclass
class Predictions:
    """Per-item predictions (and ties) of each model for one split, and how they were made."""

    by_model: dict[str, list[str]]
    evaluation: str
    tied: dict[str, list[bool]] = field(default_factory=dict)
    info: dict[str, list[dict]] = field(default_factory=dict)  # per model, one entry per training

    def subset(self, idx: Sequence[int]) -> "Predictions":
        """The predictions of the items ``idx``."""
        return Predictions({m: [p[i] for i in idx] for m, p in self.by_model.items()}, self.evaluation,
                           {m: [t[i] for i in idx] for m, t in self.tied.items()}, self.info)


def _fit_all(train: Sequence, test: Sequence, label: Callable[[Any], str], groups: Sequence[object],
             models: dict[str, Fitter], seed: int) -> dict[str, Fitted]:
    gold = [label(r) for r in train]
    return {name: fit(train, gold, groups, test, seed) for name, fit in models.items()}


def predict_items(items: Sequence, train_items: Sequence, is_train: bool, label: Callable[[Any], str],
                  models: dict[str, Fitter], seed: int = 0,
                  group: Callable[[Any], object] | None = None) -> Predictions:
    """Each model's predictions for ``items``: trained on ``train_items``, or cross-validated
    when the items are a training split or no training items are given. Items of one
    ``group`` (e.g. the two hypotheses of one story) always share a fold."""
    if train_items and not is_train:
        groups = [group(it) for it in train_items] if group is not None else list(range(len(train_items)))
        fitted = _fit_all(train_items, items, label, groups, models, seed)
        return Predictions({m: f.predictions for m, f in fitted.items()}, "trained on the training split",
                           {m: f.tied for m, f in fitted.items()},
                           {m: [f.info] for m, f in fitted.items() if f.info is not None})
    keys = [group(it) for it in items] if group is not None else list(range(len(items)))
    order = list(dict.fromkeys(keys))
    folds = min(FOLDS, len(order))
    random.Random(seed).shuffle(order)
    fold_of_key = {key: n % folds for n, key in enumerate(order)}
    fold_of = [fold_of_key[key] for key in keys]
    out = Predictions({name: [""] * len(items) for name in models},
                      f"{folds}-fold cross-validation" + (" by story" if group is not None else ""),
                      {name: [False] * len(items) for name in models})
    for f in range(folds):
        test_ids = [i for i in range(len(items)) if fold_of[i] == f]
        train_ids = [i for i in range(len(items)) if fold_of[i] != f] or test_ids
        fitted = _fit_all([items[i] for i in train_ids], [items[i] for i in test_ids], label,
                          [keys[i] for i in train_ids], models, seed + f)
        for name, fit in fitted.items():
            for i, lab, tie in zip(test_ids, fit.predictions, fit.tied):
                out.by_model[name][i] = lab
                out.tied[name][i] = tie
            if fit.info is not None:
                out.info.setdefault(name, []).append(fit.info)
    return out


def predict_splits(splits: dict[str, tuple[Sequence, bool]], train_items: Sequence, label: Callable[[Any], str],
                   models: dict[str, Fitter], seed: int = 0,
                   group: Callable[[Any], object] | None = None) -> dict[str, Predictions]:
    """:func:`predict_items` for every split of ``splits`` (name -> (items, is_train)), with the
    models trained once on ``train_items`` for all the splits that are not cross-validated."""
    tested = [name for name, (items, is_train) in splits.items() if items and train_items and not is_train]
    out: dict[str, Predictions] = {}
    if tested:
        pooled = [it for name in tested for it in splits[name][0]]
        both = predict_items(pooled, train_items, False, label, models, seed, group)
        start = 0
        for name in tested:
            n = len(splits[name][0])
            out[name] = both.subset(range(start, start + n))
            start += n
    for name, (items, is_train) in splits.items():
        if items and name not in out:
            out[name] = predict_items(items, train_items, is_train, label, models, seed, group)
    return {name: out[name] for name in splits if name in out}


def memoized(featurize: Featurizer) -> Featurizer:
    """``featurize`` computed once per item object (the audit asks several times)."""
    cache: dict[int, tuple[Any, list[str]]] = {}

    def run(item: Any) -> list[str]:
        hit = cache.get(id(item))
        if hit is None:  # the entry keeps the item alive, so its id is never reused
            hit = cache[id(item)] = (item, featurize(item))
        return hit[1]

    return run
