r"""The composer: a rule-learning baseline that answers by composing relations along story paths.

It learns, from the training stories alone, a table saying what ``a`` then ``b`` gives for every
pair of relation words, and answers a query by composing the words along every path from the
query's head to its tail, over every bracketing at once. Nothing is read from a KB file.

Notation
--------
``R`` is the label vocabulary (the 22 kinship words). A fact ``(u, v, r)`` says "v is u's r". The
composition table ``T`` has ``T[a, b, c] = P(z is x's c | y is x's a, z is y's b)`` for ``c`` in
``R``; its rows need not sum to 1: ``rho[a, b] = sum_c T[a, b, c]`` is the belief that ``a . b``
is a rule at all and ``1 - rho[a, b]`` goes to an absorbing symbol ``⊥`` ("no word follows":
``daughter . grandfather`` is a father or a father-in-law, so a sound table leaves it at ``⊥``).

Answering (a CYK over distributions)
------------------------------------
A path ``r_1 .. r_L`` from head to tail follows facts in their stated direction. Its inside
vectors over ``R`` are::

    I(i, i+1) = onehot(r_{i+1})
    I(i, j)   = 1/(j-i-1) * sum_{m=i+1}^{j-1} sum_{a,b} I(i, m)[a] I(m, j)[b] T[a, b, :]

so ``I(0, L)[c]`` is the probability that a random bracketing (each span split at a uniformly
chosen point) derives ``c`` without reaching ``⊥``, summed over the intermediate relations of every
sub-span: the marginal over bracketings. A bracketing that passes through a composition the model
does not believe loses its mass and drops out; the others decide. Facts with no relation word
(the released files' noise edges) derive nothing, so paths through them are skipped.

Noise adds paths (a supporting fact gives a second route between two chain people). The story's
mass is the sum over its directed simple paths ``p`` from head to tail (at most ``max_paths``,
shortest first), and the prediction normalises it::

    M(c) = sum_p I_p(0, L_p)[c],        P(c | story) = M(c) / sum_c' M(c')

(a story with no derivable path gets the training label frequencies).

Speaker sex
-----------
In some kinship systems a term depends on the sex of the person whose relative it names (in
Iroquois a man's sister's son is his *nephew*, a woman's is her *son*), so ``a . b`` has no single
answer over words. With ``speaker_sex`` every relation id carries the sex of its fact's first
person (``2 r`` for a man, ``2 r + 1`` for a woman), the label the sex of the query's head, and
``R`` above is these 2|R| ids; a prediction adds up each word's two ids.

Learning (EM over derivations, Dirichlet MAP)
---------------------------------------------
A derivation ``d`` of label ``y`` from a path is a bracketing tree plus a relation at each inner
node, the root being ``y``; ``P(d) = pi(tree) * prod_nodes T[a, b, c]``. The E-step with
sharpness ``tau`` weighs the derivations of each training story by ``q(d) ∝ P(d)^tau`` and
collects the expected number of uses of each rule ``a . b -> c``. Because the inside mass is
multilinear in the table entries, these counts are ``n = T^tau * grad_{T^tau} sum_s log I_tau(y_s)``,
where ``I_tau`` is the inside mass computed with ``T^tau`` in place of ``T`` (one backward pass).
The M-step is the MAP estimate under a Dirichlet prior with ``gamma/|R|`` pseudo-counts per word
and ``beta`` on ``⊥``::

    T[a, b, c] = (n[a, b, c] + gamma/|R|) / (sum_c n[a, b, c] + gamma + beta)

Training runs three steps:

0. Stated rules. A path of two facts states a rule outright: ``n0[r1, r2, y]`` counts them.
1. Necessity. EM with ``tau > 1``, started from ``n0``; its counts are ``n_o``. The sharpened
   posterior gives a story's count to its most probable derivations, so a rule gains weight only when some story cannot be
   derived without it (with ``tau = 1`` every bracketing of every story claims weight, and ambiguous
   compositions get learned as their majority answer).
2. Consistency. Plain EM (``tau = 1``) from the necessity table. Its counts ``n_c`` credit every
   bracketing that explains a label: they hold rules the data agree with but never require.

The final table keeps the required rules and lends a small share ``lambda`` of each cell's ``⊥``
mass to its consistent answer::

    T = T_o + lambda * (1 - rho_o) * q_c,    T_o = MAP(n_o),    q_c[a, b, :] ∝ n_c[a, b, :] + gamma/|R|

Required rules are near-certain and merely consistent ones weigh at most ``lambda``, so at test time
a derivation through a consistent-only rule matters only when no derivation avoids one. Our
generator's labels always have a derivation through sound rules; the released CLUTRR labels follow
the original, partly unsound rule table, and the weak rules absorb it (``aunt . brother -> uncle``,
which no released training story needs).

Each step runs EM until the training log-likelihood converges (or validation accuracy falls for
``patience`` iterations) and keeps the iteration with the best validation accuracy, ties going to
the later one. Validation stories are as short as training ones, so they guard against a step that
hurts but cannot show its effect on long chains. EM is deterministic: the seed changes nothing.

Related models
--------------
Like the Edge Transformer (Bergen et al. 2021), the inside pass composes a pair of edges
``(i, m), (m, j)`` into ``(i, j)`` for every intermediate ``m``; like NCRL (Cheng et al. 2023) and
R5 (Lu et al. 2022), it reduces a path by composing adjacent relations into one, but it sums over
every order of reduction exactly instead of choosing one, and its rules form a table of
probabilities learned by EM rather than embeddings (CTP, Minervini et al. 2020) or a searched rule
memory (R5). Limits: facts are followed in their stated direction only (no inverse relations), and
training needs stories of two facts to seed the table: from k=3 stories alone EM starts from a
symmetric point and settles on a wrong table.
"""
from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from clutrr.baselines.optional import require_torch

require_torch()

import torch  # noqa: E402

from clutrr.baselines.data import LabelVocab, Story
from clutrr.baselines.registry import Model, register
from clutrr.diagnostics.progress import bar as progress_bar

Paths = dict[int, tuple[torch.Tensor, torch.Tensor]]  # path length -> (story index, relation ids)


@dataclass
class ComposerConfig:
    """Hyper-parameters of :class:`Composer` (see the module docstring for the symbols)."""

    undefined_prior: float = 1.0  # beta: pseudo-count of ⊥ in every cell
    smoothing: float = 1e-4  # gamma: pseudo-count spread over the words of every cell
    sharpness: float = 3.0  # tau of the necessity step
    consistency_weight: float = 1e-2  # lambda: weight of merely consistent evidence
    necessity_iterations: int = 10
    consistency_iterations: int = 10
    patience: int = 2  # iterations of falling validation accuracy before a step stops
    tolerance: float = 1e-4  # a step has converged when the log-likelihood moves less (relative)
    max_paths: int = 16  # directed simple paths kept per story, shortest first
    max_path_length: int = 24
    chunk: int = 4096  # paths per inside pass at prediction time
    speaker_sex: bool = False  # relation ids carry the sex of each fact's first person (see "Speaker sex")


def story_paths(story: Story, unknown: int, max_paths: int, max_length: int,
                speaker_sex: bool = False) -> list[list[int]]:
    """The relation ids along directed simple paths from the query head to its tail.

    Facts typed ``unknown`` are not followed. At most ``max_paths`` paths of at most
    ``max_length`` facts, shortest first (ties in discovery order). With ``speaker_sex`` a fact
    ``(u, v, r)`` has the id ``2 r + 1`` when ``u`` is female, else ``2 r``.
    """
    out_edges: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (u, v), r in zip(story.edges, story.edge_types):
        if r != unknown and u != v:
            out_edges[u].append((v, sexed(r, story, u) if speaker_sex else r))
    head, tail = story.query
    found: list[list[int]] = []
    budget = 20000  # DFS steps: a guard against dense noisy graphs

    def walk(node: int, seen: set[int], rels: list[int]) -> None:
        nonlocal budget
        if node == tail:
            found.append(list(rels))
            return
        if len(rels) == max_length or budget <= 0:
            return
        for nxt, r in out_edges.get(node, ()):
            budget -= 1
            if nxt not in seen:
                seen.add(nxt)
                rels.append(r)
                walk(nxt, seen, rels)
                rels.pop()
                seen.discard(nxt)

    if head != tail:
        walk(head, {head}, [])
    found.sort(key=len)
    return found[:max_paths]


def sexed(relation: int, story: Story, person: int) -> int:
    """The id of ``relation`` said of ``person`` (first person of a fact, or the query's head):
    ``2 relation + 1`` for a woman, else ``2 relation``; ValueError when the story gives no sexes."""
    if not story.sexes:
        raise ValueError(f"story {story.id}: the speaker-sex composer needs each person's gender")
    return 2 * relation + (story.sexes[person] == "female")


def group_paths(stories: list[Story], labels: LabelVocab, config: ComposerConfig) -> Paths:
    """Every story's paths, grouped by length into (story index, relation ids) tensors."""
    groups: dict[int, tuple[list[int], list[list[int]]]] = defaultdict(lambda: ([], []))
    for i, story in enumerate(stories):
        for path in story_paths(story, labels.unknown_relation, config.max_paths, config.max_path_length,
                                config.speaker_sex):
            idx, rels = groups[len(path)]
            idx.append(i)
            rels.append(path)
    return {n: (torch.tensor(idx), torch.tensor(rels)) for n, (idx, rels) in sorted(groups.items())}


def inside(table: torch.Tensor, paths: torch.Tensor) -> torch.Tensor:
    """Inside mass ``I(0, L)`` (B x R) of B paths of the same length L (relation ids, B x L)."""
    r = table.shape[0]
    flat = table.reshape(r * r, r)
    n, length = paths.shape
    leaf = torch.eye(r, dtype=table.dtype)
    span = {(i, i + 1): leaf[paths[:, i]] for i in range(length)}
    for width in range(2, length + 1):
        for i in range(length - width + 1):
            j = i + width
            total = None
            for m in range(i + 1, j):
                pair = (span[i, m][:, :, None] * span[m, j][:, None, :]).reshape(n, r * r)
                part = pair @ flat
                total = part if total is None else total + part
            span[i, j] = total / (width - 1)
    return span[0, length]


def story_mass(table: torch.Tensor, groups: Paths, n_stories: int, chunk: int | None = None) -> torch.Tensor:
    """``M`` (n_stories x R): the inside mass summed over each story's paths."""
    mass = torch.zeros(n_stories, table.shape[0], dtype=table.dtype)
    for idx, rels in groups.values():
        step = chunk or len(idx)
        for lo in range(0, len(idx), step):
            mass = mass.index_add(0, idx[lo:lo + step], inside(table, rels[lo:lo + step]))
    return mass


def stated_counts(groups: Paths, gold: torch.Tensor, r: int) -> torch.Tensor:
    """``n0``: one count of ``r1 . r2 -> y`` for every path of two facts."""
    counts = torch.zeros(r * r * r, dtype=torch.float64)
    if 2 in groups:
        idx, rels = groups[2]
        cell = (rels[:, 0] * r + rels[:, 1]) * r + gold[idx]
        counts.index_add_(0, cell, torch.ones(len(cell), dtype=torch.float64))
    return counts.reshape(r, r, r)


def expected_counts(table: torch.Tensor, groups: Paths, gold: torch.Tensor, sharpness: float) -> tuple[torch.Tensor, float]:
    """E-step: expected rule uses under ``q(d) ∝ P(d)^sharpness``, and the log-likelihood it maximises."""
    powered = (table ** sharpness).requires_grad_(True)
    mass = story_mass(powered, groups, len(gold))
    p_gold = mass[torch.arange(len(gold)), gold]
    derivable = p_gold > 0
    objective = torch.log(p_gold[derivable]).sum()
    if derivable.any() and objective.requires_grad:  # stories of one-fact paths only (memory queries): no rule use
        objective.backward()
        counts = (powered.grad * powered).detach()
    else:
        counts = torch.zeros_like(table)
    return counts, objective.item()


def map_table(counts: torch.Tensor, config: ComposerConfig) -> torch.Tensor:
    """M-step: the Dirichlet-MAP table of expected counts."""
    r = counts.shape[-1]
    return (counts + config.smoothing / r) / (counts.sum(-1, keepdim=True) + config.smoothing + config.undefined_prior)


def combine(necessity: torch.Tensor, consistency: torch.Tensor, config: ComposerConfig) -> torch.Tensor:
    """The final table: required rules, and with weight ``lambda`` of their ⊥ mass the consistent answer."""
    required = map_table(necessity, config)
    r = consistency.shape[-1]
    consistent = (consistency + config.smoothing / r) / (consistency.sum(-1, keepdim=True) + config.smoothing)
    undefined = 1.0 - required.sum(-1, keepdim=True)
    return required + config.consistency_weight * undefined * consistent


def normalise(mass: torch.Tensor, prior: torch.Tensor) -> torch.Tensor:
    """Rows of ``mass`` scaled to sum to 1; a row with no mass becomes ``prior``."""
    total = mass.sum(-1, keepdim=True)
    return torch.where(total > 0, mass / total.clamp_min(1e-300), prior.expand_as(mass))


@dataclass
class _Split:
    """A story list prepared once: its paths and gold labels."""

    groups: Paths
    gold: torch.Tensor

    @property
    def size(self) -> int:
        return len(self.gold)


@register
class Composer(Model):
    """Learns an explicit composition table by EM and answers by CYK over story paths."""

    name = "composer"
    Config = ComposerConfig

    def __init__(self, config: ComposerConfig, labels: LabelVocab) -> None:
        super().__init__(config, labels)
        r = self._ids()
        self.necessity_counts = torch.zeros(r, r, r, dtype=torch.float64)
        self.consistency_counts = torch.zeros(r, r, r, dtype=torch.float64)
        self.prior = torch.full((r,), 1.0 / r, dtype=torch.float64)
        self.table: torch.Tensor | None = None
        self.history: list[dict[str, Any]] = []

    def _ids(self) -> int:
        """The number of relation ids: the words, twice with ``speaker_sex``."""
        return len(self.labels.words) * (2 if self.config.speaker_sex else 1)

    # -- learning ---------------------------------------------------------------------------
    def _split(self, stories: list[Story]) -> _Split:
        gold = torch.tensor([sexed(s.label, s, s.query[0]) if self.config.speaker_sex else s.label
                             for s in stories], dtype=torch.long)
        return _Split(group_paths(stories, self.labels, self.config), gold)

    def _score(self, table: torch.Tensor, valid: _Split) -> tuple[float, float]:
        probs = normalise(story_mass(table, valid.groups, valid.size), self.prior)
        p_gold = probs[torch.arange(valid.size), valid.gold].clamp_min(1e-12)
        accuracy = float((probs.argmax(-1) == valid.gold).double().mean())
        return float(-torch.log(p_gold).mean()), accuracy

    def fit(self, train: list[Story], valid: list[Story], *, seed: int = 0, progress: bool = True) -> dict[str, Any]:
        """Learn the table from ``train`` (steps 0-2 of the module docstring); select on ``valid``.

        EM is deterministic, so ``seed`` changes nothing. Returns the per-iteration history, the
        CPU and wall seconds and the number of rules (cells with ``rho >= 0.5``).
        """
        cfg, r = self.config, self._ids()
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        tr, va = self._split(train), self._split(valid)
        freq = torch.bincount(tr.gold, minlength=r).double() + 1.0
        self.prior = freq / freq.sum()
        history: list[dict[str, Any]] = []
        bar = progress_bar(cfg.necessity_iterations + cfg.consistency_iterations, "composer EM", unit="iteration",
                           enabled=None if progress else False)

        def run_step(step: str, counts: torch.Tensor, sharpness: float, iterations: int,
                     final: Any) -> torch.Tensor:
            """EM from ``counts``; ``final(counts)`` is the table scored on ``valid``. Returns the
            counts of the iteration with the best validation accuracy (ties: the later one)."""
            best, best_acc, last_ll, stale = counts, -1.0, None, 0
            for it in range(iterations):
                counts, log_lik = expected_counts(map_table(counts, cfg), tr.groups, tr.gold, sharpness)
                row = {"step": step, "iteration": it + 1, "train_log_likelihood": log_lik}
                if va.size:
                    row["valid_nll"], row["valid_accuracy"] = self._score(final(counts), va)
                row["cpu_seconds"] = time.process_time() - start_cpu
                history.append(row)
                bar.update(1)
                acc = row.get("valid_accuracy", 1.0)
                if acc >= best_acc:
                    best, best_acc, stale = counts, acc, 0
                else:
                    stale += 1
                converged = last_ll is not None and abs(log_lik - last_ll) <= cfg.tolerance * abs(last_ll)
                if converged or stale >= cfg.patience:
                    break
                last_ll = log_lik
            return best

        stated = stated_counts(tr.groups, tr.gold, r)
        necessity = run_step("necessity", stated, cfg.sharpness, cfg.necessity_iterations,
                             lambda n: map_table(n, cfg))
        consistency = run_step("consistency", necessity, 1.0, cfg.consistency_iterations,
                               lambda n: combine(necessity, n, cfg))
        bar.close()
        self.necessity_counts, self.consistency_counts = necessity, consistency
        self.table = self._combined()
        self.history = history
        return {
            "history": history,
            "cpu_seconds": time.process_time() - start_cpu,
            "wall_seconds": time.perf_counter() - start_wall,
            "rules": int((self.table.sum(-1) >= 0.5).sum()),
        }

    def _combined(self) -> torch.Tensor:
        return combine(self.necessity_counts, self.consistency_counts, self.config)

    # -- prediction -------------------------------------------------------------------------
    def predict_proba(self, stories: list[Story]) -> np.ndarray:
        """``P(c | story)`` for every story (rows sum to 1)."""
        if self.table is None:
            raise RuntimeError("the composer has not been fitted or loaded")
        groups = group_paths(stories, self.labels, self.config)
        with torch.no_grad():
            mass = story_mass(self.table, groups, len(stories), self.config.chunk)
        prior = self.prior
        if self.config.speaker_sex:  # a word's mass under either sex of the head (only the head's has any)
            mass, prior = mass.reshape(len(stories), -1, 2).sum(-1), prior.reshape(-1, 2).sum(-1)
        return normalise(mass, prior).numpy()

    def composition_table(self) -> np.ndarray:
        """The learned ``T`` (R x R x R, over the 2R sexed ids with ``speaker_sex``); ``1 - T.sum(-1)``
        is the mass of ⊥ per cell."""
        if self.table is None:
            raise RuntimeError("the composer has not been fitted or loaded")
        return self.table.numpy().copy()

    # -- checkpoints ------------------------------------------------------------------------
    def save(self, path: Path) -> None:
        """Write the counts, prior, config and vocabulary to one ``.npz`` file at ``path``."""
        meta = {"config": asdict(self.config), "words": list(self.labels.words), "kb": self.labels.kb_name,
                "history": self.history}
        with open(path, "wb") as fh:
            np.savez(fh, necessity=self.necessity_counts.numpy(), consistency=self.consistency_counts.numpy(),
                     prior=self.prior.numpy(), meta=np.array(json.dumps(meta)))

    @classmethod
    def load(cls, path: Path) -> "Composer":
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            model = cls(ComposerConfig(**meta["config"]), LabelVocab(tuple(meta["words"]), meta["kb"]))
            model.necessity_counts = torch.from_numpy(data["necessity"].copy())
            model.consistency_counts = torch.from_numpy(data["consistency"].copy())
            model.prior = torch.from_numpy(data["prior"].copy())
        model.history = meta["history"]
        model.table = model._combined()
        return model
