"""Permutation acceptance of a trained model (Sinha's thesis, ch. 4, after Sinha et al., 2021).

For each story we have its gold label, the model's prediction on the original story and its
predictions on q word-level permutations of the story (``clutrr probe --kind word-permute``).
A permutation is *accepted* when the model predicts the gold label for it; a story's
acceptance is the share of its q permutations accepted.

- Ω_x: share of stories whose acceptance is above x;
- Ω_max: the thesis's prose reads it as the share of stories with at least one accepted
  permutation (x → 0, ``omega_max``); its formula sets x = 1/|D_test| (``omega_max_thesis``).
  The two differ only when 1/|D_test| reaches 1/q, i.e. on a test set of at most q stories,
  where the formula needs more than q/|D_test| accepted permutations;
- Ω_rand: Ω_x at chance, x = 1/|labels|;
- P^c (eq. 4.3): the mean, over D^c (the stories the model gets right originally), of each
  story's acceptance; a story with fewer permutations weighs as much as one with q;
- P^f: the same mean over D^f, the stories it gets wrong originally *but accepts under some
  permutation* (the wrong stories that count in Ω_max), as the thesis defines it; None when
  D^f is empty;
- P^f over every wrong story (``p_wrong_all``, the project's earlier figure): the same mean
  over every story wrong originally; never above P^f.

The pooled shares (accepted permutations over all permutations of a set) are kept as counts;
they equal the means when every story has the same number of permutations.

Beside them, :func:`accepted_entropy` gives the thesis's entropy comparison (Fig. 4.4): the
mean entropy of the model's distribution over the *accepted* permutations of D^c and of D^f,
with the same stories' original entropy, and :func:`length_acceptance` the acceptance by story
length, for stories right and wrong originally (Fig. 4.5).

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
from fractions import Fraction
from typing import Iterable, Sequence

import numpy as np

from clutrr.diagnostics.probes import source_id


@dataclass(frozen=True)
class PermutationAcceptance:
    """The acceptance metrics and the counts behind them (P^c / P^f are None without items)."""

    omega_max: float  # x → 0: at least one accepted permutation (the thesis's prose)
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
    omega_max_thesis: float = 0.0  # x = 1/|D_test| (the thesis's formula)
    random_omega_max_thesis: float = 0.0

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
    means: dict[str, list[Fraction]] = {"c": [], "f": [], "wrong": []}  # each story's exact acceptance
    for g, o, perms in zip(gold, original, permuted):
        c = counts[o == g]
        accepted = sum(p == g for p in perms)
        c[0] += 1
        c[1] += accepted
        c[2] += len(perms)
        share = Fraction(accepted, len(perms))
        means["c" if o == g else "wrong"].append(share)
        if o != g and accepted:
            flipped += 1
            flipped_perms += len(perms)
            means["f"].append(share)
    shares = acceptance_shares(gold, permuted)
    (n_c, acc_c, perm_c), (n_w, acc_w, perm_w) = counts[True], counts[False]
    qs = [len(p) for p in permuted]
    return PermutationAcceptance(
        omega_max=omega(shares, 0.0),
        omega_rand=omega(shares, 1 / n_labels),
        p_correct=_mean(means["c"]),
        p_wrong=_mean(means["f"]),
        p_wrong_all=_mean(means["wrong"]),
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
        omega_max_thesis=omega(shares, 1 / len(gold)),
        random_omega_max_thesis=sum(random_omega(n_labels, q, 1 / len(gold)) for q in qs) / len(qs),
    )


def _mean(shares: Sequence[Fraction]) -> float | None:
    """The exact mean of per-story acceptances, as a float (None without stories)."""
    return float(sum(shares) / len(shares)) if shares else None


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


def accepted_entropy(gold: Sequence[int], original_probs: np.ndarray, story_index: Sequence[int],
                     probs: np.ndarray) -> dict[str, dict]:
    """The thesis's entropy comparison (Fig. 4.4), for D^c and D^f: the mean entropy (bits) of
    the model's distribution over the accepted permutations of those stories, beside the mean
    entropy of the same stories' originals.

    ``gold[i]`` is story i's label index, ``original_probs[i]`` the model's distribution on it;
    permutation j belongs to story ``story_index[j]`` and has distribution ``probs[j]``. A
    permutation is accepted when its most likely label is the gold one.
    """
    gold = np.asarray(gold)
    original_probs, probs = np.asarray(original_probs, dtype=float), np.asarray(probs, dtype=float)
    story_index = np.asarray(story_index, dtype=int)
    right = original_probs.argmax(axis=1) == gold
    accepted = probs.argmax(axis=1) == gold[story_index]
    any_accepted = np.zeros(len(gold), dtype=bool)
    any_accepted[story_index[accepted]] = True
    ent_perm, ent_orig = entropy_bits(probs), entropy_bits(original_probs)
    out = {}
    for name, members in (("D^c", right), ("D^f", ~right & any_accepted)):
        chosen = accepted & members[story_index]
        out[name] = {"stories": int(members.sum()), "accepted_permutations": int(chosen.sum()),
                     "entropy_accepted": float(ent_perm[chosen].mean()) if chosen.any() else None,
                     "entropy_original": float(ent_orig[members].mean()) if members.any() else None}
    return out


def length_acceptance(lengths: Sequence[int], shares: Sequence[float], right: Sequence[bool],
                      width: int = 10) -> dict[str, list[dict]]:
    """Acceptance by story length (Fig. 4.5 of the thesis): stories grouped by their number of
    words in bins of ``width`` (a bin is named by its first length), the mean acceptance of
    each bin, separately for the stories right and wrong originally."""
    if width < 1:
        raise ValueError("width must be positive")
    bins: dict[str, dict[int, list[float]]] = {"right": defaultdict(list), "wrong": defaultdict(list)}
    for n, share, ok in zip(lengths, shares, right, strict=True):
        bins["right" if ok else "wrong"][n // width * width].append(share)
    return {group: [{"length": b, "stories": len(v), "acceptance": sum(v) / len(v)} for b, v in sorted(found.items())]
            for group, found in bins.items()}
