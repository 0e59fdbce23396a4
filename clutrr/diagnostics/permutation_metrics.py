"""Permutation acceptance of a trained model (Sinha, ch. 4), from its predictions.

For each story we have its gold label, the model's prediction on the original story and its
predictions on the story's word permutations (``clutrr probe --kind word-permute``):

- Ω_max: share of stories with at least one permutation predicted gold;
- Ω_rand: share of stories with more than 1/|labels| of their permutations predicted gold;
- P^c: mean share of gold-predicted permutations over stories the model got right originally;
- P^f: the same over stories it got wrong originally.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from clutrr.diagnostics.probes import source_id


@dataclass(frozen=True)
class PermutationAcceptance:
    """The four acceptance metrics and the counts behind them (P^c / P^f are None without items)."""

    omega_max: float
    omega_rand: float
    p_correct: float | None
    p_wrong: float | None
    stories: int
    originally_correct: int
    originally_wrong: int

    def as_dict(self) -> dict:
        """A JSON-ready dict."""
        return asdict(self)


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
    shares = [sum(p == g for p in perms) / len(perms) for g, perms in zip(gold, permuted)]
    correct = [s for s, g, o in zip(shares, gold, original) if o == g]
    wrong = [s for s, g, o in zip(shares, gold, original) if o != g]
    n = len(gold)
    return PermutationAcceptance(
        omega_max=sum(s > 0 for s in shares) / n,
        omega_rand=sum(s > 1 / n_labels for s in shares) / n,
        p_correct=sum(correct) / len(correct) if correct else None,
        p_wrong=sum(wrong) / len(wrong) if wrong else None,
        stories=n,
        originally_correct=len(correct),
        originally_wrong=len(wrong),
    )


def group_by_story(probe_ids: Iterable[str], predictions: Iterable[str]) -> dict[str, list[str]]:
    """Predictions on word-permute probe rows grouped by the original story id, in row order."""
    out: dict[str, list[str]] = defaultdict(list)
    for pid, pred in zip(probe_ids, predictions, strict=True):
        out[source_id(pid)].append(pred)
    return dict(out)
