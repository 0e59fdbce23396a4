"""Permutation acceptance of a trained model (Sinha's thesis, ch. 4, after Sinha et al., 2021).

For each story we have its gold label, the model's prediction on the original story and its
predictions on q word-level permutations of the story (``clutrr probe --kind word-permute``).
A permutation is *accepted* when the model predicts the gold label for it; a story's
acceptance is the share of its q permutations accepted.

- Ω_x: share of stories whose acceptance is above x;
- Ω_max: share of stories with at least one accepted permutation (x → 0);
- Ω_rand: Ω_x at chance, x = 1/|labels|;
- P^c: accepted permutations over all permutations of D^c, the stories the model gets right
  originally, i.e. the mean acceptance of those stories (every story has q permutations);
- P^f: the same over D^f, the stories it gets wrong originally *but accepts under some
  permutation* (the wrong stories that count in Ω_max), as the thesis defines it. Its
  denominator is q × |D^f|; P^f is undefined (None) when D^f is empty;
- P^f over every wrong story (``p_wrong_all``, the project's earlier figure): the same
  accepted permutations over q × (stories wrong originally); never above P^f.

A model that guesses uniformly at random among L labels accepts each permutation with
probability 1/L, so Ω_max = 1 - (1 - 1/L)^q for it: with L = 22 and q = 100 that is 0.99.
Ω_max alone says little; the report gives this random-guesser value (and Ω_rand's, the
chance of more than q/L successes in q draws of probability 1/L) beside the model's.

How the figures depend on q: a story whose permutations are each accepted with probability
a reaches Ω_max with probability 1 - (1 - a)^q, so Ω_max grows with q towards the share of
stories with any a > 0. Ω_rand needs more than q/|labels| accepted permutations: when
q < |labels| a single one suffices, so Ω_rand equals Ω_max; only q ≥ |labels| (22 words)
separates them, and larger q estimates each story's acceptance more finely. P^c and P^f
are means and do not drift with q. The thesis uses q = 100, the default of ``clutrr probe``.
"""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np

from clutrr.diagnostics.probes import source_id


@dataclass(frozen=True)
class PermutationAcceptance:
    """The acceptance metrics and the counts behind them (P^c / P^f are None without items)."""

    omega_max: float
    omega_rand: float
    p_correct: float | None
    p_wrong: float | None  # over D^f (the thesis)
    p_wrong_all: float | None  # over every story wrong originally
    stories: int
    originally_correct: int
    originally_wrong: int
    flipped: int  # |D^f|: wrong originally, some permutation accepted
    q: int  # permutations per story (the smallest, when stories differ)
    accepted_correct: int  # P^c = accepted_correct / permutations_correct
    permutations_correct: int
    accepted_wrong: int  # P^f = accepted_wrong / permutations_flipped
    permutations_flipped: int
    permutations_wrong: int  # p_wrong_all = accepted_wrong / permutations_wrong
    n_labels: int
    random_omega_max: float  # what a uniform random guesser over n_labels scores
    random_omega_rand: float

    def as_dict(self) -> dict:
        """A JSON-ready dict."""
        return asdict(self)


def acceptance_shares(gold: Sequence[str], permuted: Sequence[Sequence[str]]) -> list[float]:
    """Each story's acceptance: the share of its permutations predicted with the gold label."""
    return [sum(p == g for p in perms) / len(perms) for g, perms in zip(gold, permuted)]


def omega(shares: Sequence[float], x: float) -> float:
    """Ω_x: the share of stories whose acceptance is above ``x``."""
    return sum(s > x for s in shares) / len(shares)


def omega_curve(shares: Sequence[float], xs: Sequence[float] | None = None) -> list[tuple[float, float]]:
    """(x, Ω_x) for each x (default 0, 0.05, ..., 0.95): the thesis's acceptance curve."""
    xs = [i / 20 for i in range(20)] if xs is None else xs
    return [(x, omega(shares, x)) for x in xs]


def permutation_acceptance(gold: Sequence[str], original: Sequence[str],
                           permuted: Sequence[Sequence[str]], n_labels: int) -> PermutationAcceptance:
    """Ω_max, Ω_rand, P^c and P^f.

    ``gold[i]`` is story i's label, ``original[i]`` the model's prediction on the unpermuted
    story, ``permuted[i]`` its predictions on story i's permutations, and ``n_labels`` the
    size of the label set (Ω_rand's chance threshold is 1/n_labels).
    """
    if not (len(gold) == len(original) == len(permuted)):
        raise ValueError("gold, original and permuted must have one entry per story")
    if not gold:
        raise ValueError("no stories")
    if n_labels < 1:
        raise ValueError("n_labels must be positive")
    if any(len(p) == 0 for p in permuted):
        raise ValueError("every story needs at least one permutation prediction")
    counts = {True: [0, 0, 0], False: [0, 0, 0]}  # originally right?: stories, accepted, permutations
    flipped = flipped_perms = 0
    for g, o, perms in zip(gold, original, permuted):
        c = counts[o == g]
        accepted = sum(p == g for p in perms)
        c[0] += 1
        c[1] += accepted
        c[2] += len(perms)
        if o != g and accepted:
            flipped += 1
            flipped_perms += len(perms)
    shares = acceptance_shares(gold, permuted)
    (n_c, acc_c, perm_c), (n_w, acc_w, perm_w) = counts[True], counts[False]
    qs = [len(p) for p in permuted]
    return PermutationAcceptance(
        omega_max=omega(shares, 0.0),
        omega_rand=omega(shares, 1 / n_labels),
        p_correct=acc_c / perm_c if perm_c else None,
        p_wrong=acc_w / flipped_perms if flipped_perms else None,
        p_wrong_all=acc_w / perm_w if perm_w else None,
        stories=len(gold),
        originally_correct=n_c,
        originally_wrong=n_w,
        flipped=flipped,
        q=min(qs),
        accepted_correct=acc_c,
        permutations_correct=perm_c,
        accepted_wrong=acc_w,
        permutations_flipped=flipped_perms,
        permutations_wrong=perm_w,
        n_labels=n_labels,
        random_omega_max=sum(random_omega(n_labels, q, 0.0) for q in qs) / len(qs),
        random_omega_rand=sum(random_omega(n_labels, q, 1 / n_labels) for q in qs) / len(qs),
    )


def random_omega(n_labels: int, q: int, x: float) -> float:
    """Ω_x of a uniform random guesser over ``n_labels`` labels on a story with ``q``
    permutations: the probability that more than ``x * q`` of q draws, each accepted with
    probability 1/n_labels, are accepted (computed exactly)."""
    p = 1 / n_labels
    need = next((j for j in range(q + 1) if j / q > x), q + 1)  # as :func:`omega` compares shares
    return sum(math.comb(q, j) * p ** j * (1 - p) ** (q - j) for j in range(need, q + 1))


def entropy_bits(probs: np.ndarray) -> np.ndarray:
    """The entropy, in bits, of each row of a probability matrix (the model's confidence)."""
    p = np.asarray(probs, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log2(p), 0.0).sum(axis=-1)


def group_by_story(probe_ids: Iterable[str], predictions: Iterable[str]) -> dict[str, list[str]]:
    """Predictions on word-permute probe rows grouped by the original story id, in row order."""
    out: dict[str, list[str]] = defaultdict(list)
    for pid, pred in zip(probe_ids, predictions, strict=True):
        out[source_id(pid)].append(pred)
    return dict(out)
