"""Views of the composer's learned table: its rules as data and text, and a comparison with a KB.

A *rule* is a cell ``a . b`` whose belief ``rho = sum_c T[a, b, c]`` is at least ``min_defined``
(default 0.5), read as its most probable word. A *weak belief* is a cell below that level to which
the consistency step gave at least one story's use, most of it to one word (see
:mod:`clutrr.baselines.composer`).

The KB comparison expands each predicate rule ``p1 . p2 -> p`` into its gendered word instances
``word(p1, g1) . word(p2, g2) -> word(p, g2)`` (the result is about the same person as ``p2``),
keeping the instances whose word pair can occur between three distinct people of some family of
the kinship world model (``husband . husband`` cannot). A KB rule is recovered when every such
instance is a learned rule with the KB's word.
"""
from __future__ import annotations

import itertools
import random
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from clutrr.baselines.composer import Composer
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.kb import KB, load_kb


@dataclass(frozen=True)
class Belief:
    """One cell of the learned table read as a rule ``first . second -> result``."""

    first: str
    second: str
    result: str
    probability: float  # T[a, b, result]
    defined: float  # rho[a, b]: belief that a . b gives any word at all
    evidence: float  # expected training-story uses behind it (necessity step; consistency step if weak)

    def __str__(self) -> str:
        return (f"{self.first} . {self.second} -> {self.result}"
                f"  (p={self.probability:.2f}, defined={self.defined:.2f}, uses={self.evidence:.0f})")


def beliefs(model: Composer, min_defined: float = 0.5, weak: bool = False) -> list[Belief]:
    """The learned rules (``weak=False``) or the weak beliefs (``weak=True``), in vocabulary order."""
    table = model.composition_table()
    words = model.labels.words
    defined = table.sum(-1)
    necessity, consistency = model.necessity_counts.numpy(), model.consistency_counts.numpy()
    out = []
    for a, b in itertools.product(range(len(words)), repeat=2):
        is_rule = defined[a, b] >= min_defined
        cell = consistency[a, b]
        if weak and not is_rule and cell.sum() >= 1.0 and cell.max() >= 0.5 * cell.sum():
            c, uses = int(cell.argmax()), cell.sum()
        elif not weak and is_rule:
            c, uses = int(table[a, b].argmax()), necessity[a, b].sum()
        else:
            continue
        out.append(Belief(words[a], words[b], words[c], float(table[a, b, c]), float(defined[a, b]), float(uses)))
    return out


def format_rules(model: Composer, min_defined: float = 0.5) -> str:
    """The learned rules, one per line, in vocabulary order of the first word."""
    return "\n".join(str(rule) for rule in beliefs(model, min_defined))


@lru_cache(maxsize=4)
def possible_word_pairs(words: tuple[str, ...], families: int = 60, seed: int = 0) -> np.ndarray:
    """``[a, b]`` true when some x, y, z (distinct) of a sampled kinship family have y = x's ``a`` and z = y's ``b``."""
    kb = load_kb("kinship")
    rng = random.Random(seed)
    n = len(words)
    parsed = [kb.parse_word(w) for w in words]
    possible = np.zeros((n, n), dtype=bool)
    for _ in range(families):
        fam = sample_family(FamilyConfig(generations=4, p_marry=0.9), kb, rng)
        word_masks = [fam.masks[p] & (fam.gender == g)[None, :] for p, g in parsed]
        for a in range(n):
            for b in range(n):
                if not possible[a, b]:
                    reach = (word_masks[a].astype(np.uint8) @ word_masks[b].astype(np.uint8)) > 0
                    np.fill_diagonal(reach, False)
                    possible[a, b] = bool(reach.any())
    possible.flags.writeable = False  # cached: shared by every caller
    return possible


@dataclass
class RuleCheck:
    """One KB rule and how much of it the table holds."""

    rule: str
    instances: list[str]
    recovered_instances: list[str]
    learned_instead: list[str]  # for each missed instance: what the table says

    @property
    def recovered(self) -> bool:
        return bool(self.instances) and len(self.recovered_instances) == len(self.instances)


@dataclass
class RuleComparison:
    """The learned table against a KB: recovered KB rules and the table's other beliefs."""

    kb: str
    min_defined: float
    checks: list[RuleCheck]
    learned_rules: int
    agreeing: list[Belief] = field(default_factory=list)  # learned rules that are instances of KB rules
    contradicting: list[Belief] = field(default_factory=list)  # the KB gives another word for the pair
    beyond_kb: list[Belief] = field(default_factory=list)  # the KB has no rule for the predicate pair
    weak: dict[str, list[Belief]] = field(default_factory=dict)  # weak beliefs by the same classes

    @property
    def recovered(self) -> int:
        return sum(c.recovered for c in self.checks)

    @property
    def instances(self) -> tuple[int, int]:
        """(recovered, total) gendered instances of the KB's rules."""
        return sum(len(c.recovered_instances) for c in self.checks), sum(len(c.instances) for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for a results report."""
        out = asdict(self)
        out.update(recovered=self.recovered, total=len(self.checks), instances=list(self.instances))
        return out

    def format(self, weak_limit: int = 20) -> str:
        """A readable summary: counts, the missed KB rules, every non-KB rule, and the weak beliefs
        outside the KB (the ``weak_limit`` with most uses)."""
        got, total = self.instances
        lines = [
            f"KB {self.kb}: {self.recovered}/{len(self.checks)} rules recovered "
            f"({got}/{total} gendered instances); {self.learned_rules} learned rules "
            f"(defined >= {self.min_defined}): {len(self.agreeing)} KB instances, "
            f"{len(self.contradicting)} contradict the KB, {len(self.beyond_kb)} beyond it",
        ]
        for check in self.checks:
            if not check.recovered:
                said = [x for x in check.learned_instead if not x.endswith("-> nothing")]
                lines.append(f"  missed {check.rule} ({len(check.recovered_instances)}/{len(check.instances)} "
                             f"instances); the table says {'; '.join(said) or 'nothing for the others'}")
        for name, rows in (("contradicts the KB", self.contradicting), ("beyond the KB", self.beyond_kb)):
            lines.extend(f"  {name}: {row}" for row in rows)
        if self.weak:
            counts = ", ".join(f"{len(v)} {k.replace('_', ' ')}" for k, v in sorted(self.weak.items()))
            lines.append(f"weak beliefs (defined < {self.min_defined}): {counts}")
            outside = [("contradicts the KB", b) for b in self.weak.get("contradicting", [])]
            outside += [("beyond the KB", b) for b in self.weak.get("beyond_kb", [])]
            outside.sort(key=lambda pair: pair[1].evidence, reverse=True)
            lines.extend(f"  weak, {name}: {row}" for name, row in outside[:weak_limit])
            if len(outside) > weak_limit:
                lines.append(f"  ... and {len(outside) - weak_limit} more")
        return "\n".join(lines)


def _classify(belief: Belief, kb: KB) -> str:
    """``agreeing``, ``contradicting`` or ``beyond_kb`` for a learned word rule."""
    p1, _ = kb.parse_word(belief.first)
    p2, g2 = kb.parse_word(belief.second)
    head = kb.compose(p1, p2)
    if head < 0:
        return "beyond_kb"
    return "agreeing" if kb.word(head, g2) == belief.result else "contradicting"


def compare_with_kb(model: Composer, kb: str = "kinship", min_defined: float = 0.5) -> RuleComparison:
    """How many of ``kb``'s rules the learned table recovers, and what else it believes."""
    rules_kb = load_kb(kb)
    words = model.labels.words
    index = {w: i for i, w in enumerate(words)}
    table = model.composition_table()
    possible = possible_word_pairs(tuple(words))
    names = [p.name for p in rules_kb.predicates]
    checks = []
    for (p1, p2), head in sorted(rules_kb.rules.items()):
        check = RuleCheck(f"{names[p1]} . {names[p2]} -> {names[head]}", [], [], [])
        for g1 in (0, 1):
            for g2 in (0, 1):
                a, b = index[rules_kb.word(p1, g1)], index[rules_kb.word(p2, g2)]
                if not possible[a, b]:
                    continue
                expected = rules_kb.word(head, g2)
                instance = f"{words[a]} . {words[b]} -> {expected}"
                check.instances.append(instance)
                said = words[int(table[a, b].argmax())] if table[a, b].sum() >= min_defined else "nothing"
                if said == expected:
                    check.recovered_instances.append(instance)
                else:
                    check.learned_instead.append(f"{words[a]} . {words[b]} -> {said}")
        checks.append(check)
    learned = beliefs(model, min_defined)
    out = RuleComparison(kb, min_defined, checks, len(learned))
    for belief in learned:
        getattr(out, _classify(belief, rules_kb)).append(belief)
    for belief in beliefs(model, min_defined, weak=True):
        out.weak.setdefault(_classify(belief, rules_kb), []).append(belief)
    return out
