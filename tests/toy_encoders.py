"""A user's hypothesis-only classifier for ``clutrr audit --encoder toy_encoders:by_length``."""
from __future__ import annotations


def by_length(train_texts, train_labels, train_groups, test_texts, seed=0):
    """The first label (sorted) for a hypothesis of even length, the second for an odd one: a
    rule that tells hypotheses apart without learning anything."""
    labels = sorted(set(train_labels))
    scores = [[1.0, 0.0] if len(t) % 2 == 0 else [0.0, 1.0] for t in test_texts]
    return {"predictions": [labels[len(t) % 2] for t in test_texts], "scores": scores,
            "info": {"dev_items": 0, "dev_accuracy": None, "epochs_run": 1, "best_epoch": 1}}


def broken(train_texts, train_labels, train_groups, test_texts, seed=0):
    """Forgets to say what it predicts."""
    return {"labels": sorted(set(train_labels))}
