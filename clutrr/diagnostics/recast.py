"""Recast CLUTRR stories as NLI pairs, in the style of the Diverse NLI Collection.

Labels come from the KB, not from the file's target column. For each story the KB closes
the story's typed facts (composition, inverse, symmetry) and reads the relations it derives
for the query pair (A, B):

- the ``entailed`` hypothesis "B is A's <target>." is written only when the target is among
  them (and fits B's gender); otherwise the story is dropped and counted;
- the ``not-entailed`` hypothesis names a relation of B's gender that the KB does not
  derive, that the world model allows between people of A's and B's genders (never
  "Edward is Kevin's husband"), and that no pair of people is seen to hold together with a
  derived relation (so it is false, not merely unproven). A story with no such relation is
  dropped and counted.

The not-entailed hypotheses of the recasting papers (White et al., 2017; Poliak et al.'s
Diverse NLI Collection, 2018) hold both contradictions and neutral statements. ``negatives``
chooses: ``contradiction`` (the default, above), ``neutral`` (a relation the story neither
entails nor refutes, witnessed in worlds of the world model (:mod:`clutrr.diagnostics.witness`):
for the query pair, or for a pair of people whose relation the story leaves open; a story
without one is dropped and counted) or ``mixed`` (a neutral hypothesis for half the stories
that have one, drawn at random, a contradiction for the others).
Each not-entailed record names its kind in ``negative``.

With ``labels=3`` the records take the three labels of SNLI-style NLI instead: each story
gives an ``entailed``, a ``neutral`` and a ``contradiction`` hypothesis (each balanced against
the gold relations as above); a story lacking either kind of negative is dropped and counted.

"Contradiction" rests on the world model's bans (:mod:`clutrr.diagnostics.worlds`): among
them, that nobody marries a relative, so a named relation can be surely false only because
two relations cannot hold between the same two people in any world of that model.

Negatives are balanced: within each gender of B they are a rearrangement of the split's own
gold relations (items laid on a circle grouped by relation, each taking the relation of the
item half a circle away; an invalid pick is swapped with another item's), so each relation
word appears equally often under both labels and the hypothesis alone says nothing. Where
that is impossible (one relation holds more than half of a gender's stories, or no swap
helps) the negative is drawn from the folder-wide prior among the valid relations; the
summary counts those and reports how far the two labels' relation words then differ.
"""
from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable, Sequence

from clutrr.core.entailment import story_closure
from clutrr.core.kb import GENDERS, KB, bits
from clutrr.diagnostics.verify import row_facts
from clutrr.diagnostics.witness import neutral_relations
from clutrr.diagnostics.worlds import WorldFacts, world_facts
from clutrr.errors import UsageError
from clutrr.io.csv_format import StoryRow
from clutrr.io.datadir import Split

ENTAILED = "entailed"
NOT_ENTAILED = "not-entailed"
CONTRADICTION, NEUTRAL, MIXED = "contradiction", "neutral", "mixed"
NEGATIVES = (CONTRADICTION, NEUTRAL, MIXED)
BOTH = "both"  # three labels: each story needs a contradiction and a neutral relation
LABEL_COUNTS = (2, 3)
DROP_UNPARSABLE = "unparsable"
DROP_TARGET = "target not entailed by the story"
DROP_NEGATIVE = "no relation is surely false"
DROP_NEUTRAL = "no neutral relation witnessed"


def premise_text(story: str) -> str:
    """The story with the name brackets removed."""
    return story.replace("[", "").replace("]", "")


def hypothesis_text(head: str, tail: str, relation: str) -> str:
    """'B is A's relation.' for query (A, B)."""
    return f"{tail} is {head}'s {relation}."


@dataclass
class RecastSummary:
    """Counts of one split's recast."""

    stories: int
    pairs: Counter
    dropped: Counter = field(default_factory=Counter)
    fallback_negatives: int = 0
    imbalance: float = 0.0  # total variation distance between the two labels' relation words
    kinds: Counter = field(default_factory=Counter)  # not-entailed records by kind (contradiction, neutral)

    @property
    def kept(self) -> int:
        """Stories that gave a pair of each label."""
        return self.stories - sum(self.dropped.values())

    def as_dict(self) -> dict:
        """A JSON-ready dict."""
        return {"stories": self.stories, "kept": self.kept, "dropped": dict(sorted(self.dropped.items())),
                "pairs": dict(self.pairs), "negatives": {k: self.kinds.get(k, 0) for k in (CONTRADICTION, NEUTRAL)},
                "fallback_negatives": self.fallback_negatives,
                "word_balance": "balanced" if self.imbalance == 0 else "broken",
                "relation_word_imbalance": round(self.imbalance, 4)}

    def line(self, name: str) -> str:
        """One line for the terminal."""
        drops = "; ".join(f"{n} {why}" for why, n in sorted(self.dropped.items()))
        text = (f"{name}: {self.stories} stories -> {sum(self.pairs.values())} pairs"
                f" ({self.kept} kept{'; dropped: ' + drops if drops else ''})")
        if self.kinds.get(NEUTRAL):
            text += f"; negatives: {self.kinds[CONTRADICTION]} contradiction, {self.kinds[NEUTRAL]} neutral"
        if self.fallback_negatives:
            text += f"; {self.fallback_negatives} negatives from the fallback prior"
        if self.imbalance > 0:
            text += (f"; word balance broken: the relation words of the labels differ "
                     f"(total variation {self.imbalance:.2f}), so the hypothesis alone hints at the label")
        return text


@dataclass(frozen=True)
class Item:
    """A story the KB settles: its gold relation word, the words that are surely false for the
    query pair, and the witnessed neutral words, each with the pair (head, tail names) it is
    neutral for (the query pair when it can be)."""

    row: StoryRow
    gold: str
    negatives: frozenset[str]
    neutral: dict[str, tuple[str, str]] = field(default_factory=dict)

    def allowed(self, kind: str) -> frozenset[str]:
        """The words a not-entailed hypothesis of ``kind`` (contradiction, neutral, or either) may name."""
        if kind == CONTRADICTION:
            return self.negatives
        if kind == NEUTRAL:
            return frozenset(self.neutral)
        return self.negatives | frozenset(self.neutral)


def check_kb(kb: KB) -> None:
    """Raise UsageError unless ``kb`` can settle labels (sound, with definitions)."""
    if not kb.sound or any(p.definition is None for p in kb.predicates):
        raise UsageError(f"recast takes its labels from the KB's closure, so it needs a sound KB with definitions "
                         f"(kinship or kinship-blood); {kb.name!r} is not one")


def _false_words(kb: KB, world: WorldFacts, derived: tuple[int, ...], head_gender: int,
                 tail_gender: int) -> frozenset[str]:
    """Words of the tail's gender naming a relation that is not derived, is possible for these
    genders, and cannot hold together with some derived relation."""
    out = set()
    for p in kb.predicates:
        i = p.index
        if i in derived or not world.possible(i, head_gender, tail_gender):
            continue
        if any(world.excludes(i, d) for d in derived):
            out.add(kb.word(i, tail_gender))
    return frozenset(out)


def _neutral_words(kb: KB, row: StoryRow, facts: list[tuple[int, int, int]], genders: list[int],
                   closure: dict[tuple[int, int], int]) -> dict[str, tuple[str, str]]:
    """Witnessed neutral words: for the query pair, then for each pair the story leaves open.
    None for a story with facts the KB cannot read (released noise edges carry no relation
    word): a world that ignores them might hold what they refute."""
    if len(row.edge_types) < len(row.story_edges) or not all(row.edge_types):
        return {}
    derived = {pair: set(bits(v)) for pair, v in closure.items()}
    n = len(genders)
    pairs = [tuple(row.query_edge)] + [(x, y) for x in range(n) for y in range(n)
                                       if x != y and not derived.get((x, y)) and (x, y) != tuple(row.query_edge)]
    names = [name for name, _ in row.genders]
    out: dict[str, tuple[str, str]] = {}
    for (x, y), preds in neutral_relations(kb, facts, genders, pairs, derived).items():
        for p in preds:
            out.setdefault(kb.word(p, genders[y]), (names[x], names[y]))
    return out


def settle(rows: Sequence[StoryRow], kb: KB, step: Callable[[], object] | None = None,
           negatives: str = CONTRADICTION) -> tuple[list[Item], Counter]:
    """The rows the KB settles, as items, and the count of the others per reason. With
    ``negatives`` neutral or mixed, each item also gets its witnessed neutral words."""
    world = world_facts(kb)
    cache: dict[tuple, frozenset[str]] = {}
    items, dropped = [], Counter()
    for row in rows:
        if step is not None:
            step()
        try:
            facts = row_facts(kb, row)
            closure = story_closure(kb, facts)
            h, t = row.query_edge
            derived = tuple(bits(closure.get((h, t), 0)))
            pred, g = kb.parse_word(row.target)
            genders = [GENDERS.index(gender) for _, gender in row.genders]
            head_g, tail_g = genders[h], genders[t]
        except (KeyError, ValueError, IndexError):
            dropped[DROP_UNPARSABLE] += 1
            continue
        if pred not in derived or g != tail_g:
            dropped[DROP_TARGET] += 1
            continue
        key = (derived, head_g, tail_g)
        if key not in cache:
            cache[key] = _false_words(kb, world, derived, head_g, tail_g)
        neutral = _neutral_words(kb, row, facts, genders, closure) if negatives != CONTRADICTION else {}
        item = Item(row, kb.word(pred, tail_g), cache[key], neutral)
        if negatives == BOTH and not (item.negatives and item.neutral):
            dropped[DROP_NEGATIVE if not item.negatives else DROP_NEUTRAL] += 1
            continue
        if not item.allowed(negatives):
            dropped[DROP_NEUTRAL if negatives == NEUTRAL else DROP_NEGATIVE] += 1
            continue
        items.append(item)
    return items, dropped


def _word_gender(kb: KB, word: str) -> int:
    return kb.parse_word(word)[1]


def label_prior(items: Sequence[Item], kb: KB) -> dict[int, Counter]:
    """Gold-word counts per gender over ``items``, plus one for every KB word (smoothing)."""
    prior: dict[int, Counter] = {g: Counter() for g in range(len(GENDERS))}
    for word in kb.words:
        prior[_word_gender(kb, word)][word] += 1
    for it in items:
        prior[_word_gender(kb, it.gold)][it.gold] += 1
    return prior


def _draw(prior: Counter, allowed: frozenset[str], rng: random.Random) -> str:
    words = sorted(w for w in prior if w in allowed) or sorted(allowed)
    return rng.choices(words, weights=[prior.get(w, 1) for w in words])[0]


def negative_relations(items: Sequence[Item], kb: KB, prior: dict[int, Counter], rng: random.Random,
                       kinds: Sequence[str] | None = None) -> tuple[list[str], int]:
    """A not-entailed relation for each item, of the kind ``kinds[i]`` (default: surely false),
    balanced against the gold relations.

    Returns the relations and the number drawn from ``prior`` because no rearrangement of
    the gold relations fitted.
    """
    by_gender: dict[int, list[int]] = defaultdict(list)
    for i, it in enumerate(items):
        by_gender[_word_gender(kb, it.gold)].append(i)
    out = [""] * len(items)
    fallback = 0
    for g in sorted(by_gender):
        group = by_gender[g]
        labels = sorted({items[i].gold for i in group})
        rng.shuffle(labels)
        rank = {lab: n for n, lab in enumerate(labels)}
        jitter = {i: rng.random() for i in group}
        circle = sorted(group, key=lambda i: (rank[items[i].gold], jitter[i]))
        shift = len(circle) // 2
        for pos, i in enumerate(circle):
            out[i] = items[circle[(pos + shift) % len(circle)]].gold
        allowed = {i: items[i].allowed(kinds[i] if kinds else CONTRADICTION) for i in group}
        for pos, i in enumerate(circle):
            if out[i] in allowed[i]:
                continue
            for step in range(1, len(circle)):
                j = circle[(pos + step) % len(circle)]
                if out[j] in allowed[i] and out[i] in allowed[j]:
                    out[i], out[j] = out[j], out[i]
                    break
            else:
                out[i] = _draw(prior[g], allowed[i], rng)
                fallback += 1
    return out, fallback


def imbalance(entailed: Sequence[str], negative: Sequence[str]) -> float:
    """Total variation distance between the relation words of the two labels (0: the same)."""
    a, b = Counter(entailed), Counter(negative)
    na, nb = sum(a.values()) or 1, sum(b.values()) or 1
    return round(0.5 * sum(abs(a[w] / na - b[w] / nb) for w in sorted(set(a) | set(b))), 6)


def three_way_items(split_name: str, items: Sequence[Item], kb: KB, prior: dict[int, Counter],
                    seed: int = 0) -> tuple[list[dict], int, float]:
    """Three NLI records per item (entailed, neutral, contradiction), the number of fallback
    negatives, and the larger relation-word imbalance of the two negative labels against the
    entailed one."""
    rng = random.Random(f"recast3:{seed}:{split_name}")
    gold = [it.gold for it in items]
    chosen, fallback, gaps = {}, 0, []
    for kind in (CONTRADICTION, NEUTRAL):
        chosen[kind], n = negative_relations(items, kb, prior, rng, [kind] * len(items))
        fallback += n
        gaps.append(imbalance(gold, chosen[kind]))
    records = []
    for i, it in enumerate(items):
        head, tail = it.row.query
        for label, relation in ((ENTAILED, it.gold), (NEUTRAL, chosen[NEUTRAL][i]),
                                (CONTRADICTION, chosen[CONTRADICTION][i])):
            h, t = it.neutral[relation] if label == NEUTRAL else (head, tail)
            records.append({"premise": premise_text(it.row.story), "hypothesis": hypothesis_text(h, t, relation),
                            "label": label, "source_id": it.row.id, "k": it.row.k, "split": split_name,
                            "relation": relation})
    return records, fallback, max(gaps, default=0.0)


def recast_items(split_name: str, items: Sequence[Item], kb: KB, prior: dict[int, Counter],
                 seed: int = 0, negatives: str = CONTRADICTION) -> tuple[list[dict], int, float]:
    """NLI records (one entailed and one not-entailed pair per item), the number of fallback
    negatives, and the relation-word imbalance between the labels."""
    rng = random.Random(f"recast:{seed}:{split_name}")
    if negatives == MIXED:  # half the stories that have a neutral relation get one, the others a contradiction
        kinds = [NEUTRAL if it.neutral and rng.random() < 0.5 else CONTRADICTION for it in items]
    else:
        kinds = [negatives] * len(items)
    chosen, fallback = negative_relations(items, kb, prior, rng, kinds)
    records = []
    for it, neg, want in zip(items, chosen, kinds):
        head, tail = it.row.query
        premise = premise_text(it.row.story)
        kind = NEUTRAL if want == NEUTRAL or neg not in it.negatives else CONTRADICTION
        neg_head, neg_tail = (head, tail) if kind == CONTRADICTION else it.neutral[neg]
        for label, (h, t), relation in ((ENTAILED, (head, tail), it.gold), (NOT_ENTAILED, (neg_head, neg_tail), neg)):
            rec = {
                "premise": premise,
                "hypothesis": hypothesis_text(h, t, relation),
                "label": label,
                "source_id": it.row.id,
                "k": it.row.k,
                "split": split_name,
                "relation": relation,
            }
            if label == NOT_ENTAILED:
                rec["negative"] = kind
            records.append(rec)
    return records, fallback, imbalance([it.gold for it in items], chosen)


def recast_splits(splits: Sequence[Split], kb: KB, seed: int = 0, step: Callable[[], object] | None = None,
                  negatives: str = CONTRADICTION, labels: int = 2) -> list[tuple[Split, list[dict], RecastSummary]]:
    """Recast every split; the fallback prior pools the settled items of all splits.
    ``step`` is called once per story (a progress bar's update); ``negatives`` is the kind of
    the not-entailed hypotheses (contradiction, neutral or mixed) with ``labels=2``; with
    ``labels=3`` every story gives an entailed, a neutral and a contradiction record."""
    check_kb(kb)
    if negatives not in NEGATIVES:
        raise UsageError(f"negatives must be one of {', '.join(NEGATIVES)}, not {negatives!r}")
    if labels not in LABEL_COUNTS:
        raise UsageError(f"labels must be 2 or 3, not {labels!r}")
    settled = [settle(s.rows, kb, step, BOTH if labels == 3 else negatives) for s in splits]
    prior = label_prior([it for items, _ in settled for it in items], kb)
    out = []
    for split, (items, dropped) in zip(splits, settled):
        if labels == 3:
            records, fallback, gap = three_way_items(split.name, items, kb, prior, seed)
        else:
            records, fallback, gap = recast_items(split.name, items, kb, prior, seed, negatives)
        summary = RecastSummary(len(split.rows), Counter(r["label"] for r in records), dropped, fallback, gap,
                                Counter(r.get("negative") or r["label"] for r in records if r["label"] != ENTAILED))
        out.append((split, records, summary))
    return out
