"""One example for (k, noise, seed, index, split): family, target, chain, noise, story.

Everything random is drawn from generators seeded by a hash of those arguments, so an
example is the same whatever order, process or machine produces it.
"""
from __future__ import annotations

import hashlib
import random
import uuid
from dataclasses import dataclass, field
from functools import lru_cache

import yaml

from clutrr.core.chainer import Chain, backward_chain, pick_pair, present_targets
from clutrr.io.csv_format import StoryRow
from clutrr.core.entailment import chain_entailment, story_closure
from clutrr.errors import UsageError
from clutrr.core.family import Family, FamilyConfig, sample_family
from clutrr.core.kb import GENDERS, KB, load_kb
from clutrr.core.names import load_names
from clutrr.core.noise import NOISE_KINDS, TASK_OF_NOISE, add_noise
from clutrr.render.stitching import Piece, render_path
from clutrr.render.templates import Bank
from clutrr.render.usable import split_banks

MAX_K = 30
MAX_ATTEMPTS = 400
CHAINS_PER_FAMILY = 4
LARGE_FAMILY_K = 13
SPLITS = ("train", "test")


class GenerationError(RuntimeError):
    """The generator could not build an example within its attempt budget."""


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything that shapes an example besides (k, noise, seed, index, split)."""

    kb: str = "kinship"
    family: FamilyConfig = field(default_factory=FamilyConfig)
    noise_facts: int = 2
    holdout: float = 0.1
    templates: str = "paraphrase"
    fallback_templates: str = "paraphrase"
    template_split: bool = True
    max_piece: int = 3
    brackets: bool = True
    stories_per_family: int = 8

    def validate(self) -> None:
        """Raise UsageError naming the first bad setting."""
        try:
            self.family.validate()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if self.noise_facts < 1:
            raise UsageError(f"--noise-facts must be at least 1, got {self.noise_facts}")
        if not 0.0 <= self.holdout < 1.0:
            raise UsageError(f"--holdout must be in [0, 1), got {self.holdout}")
        if not 1 <= self.max_piece <= 3:
            raise UsageError(f"--max-piece must be 1, 2 or 3, got {self.max_piece}")
        if self.stories_per_family < 1:
            raise UsageError("stories_per_family must be at least 1")


@dataclass
class Example:
    """A generated example: the CSV row, its typed JSON record, and facts for checking."""

    row: StoryRow
    record: dict
    chain: Chain
    noise: list[tuple[str, list[tuple[int, int, int]]]]
    family: Family


def stable_hash(*parts: object) -> int:
    """A 64-bit hash of the parts' reprs, stable across processes and Python versions."""
    text = "\x1f".join(repr(p) for p in parts)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def pattern_heldout(pattern: str, k: int, seed: int, fraction: float) -> bool:
    """Whether a relation-word pattern of length k > 2 is reserved for test."""
    return k > 2 and fraction > 0 and stable_hash("pattern", seed, pattern) < fraction * 2**64


def check_request(k: int, noise: str, split: str, config: GeneratorConfig) -> None:
    """Raise UsageError for a request the generator cannot serve."""
    if not isinstance(k, int) or k < 1 or k > MAX_K:
        raise UsageError(f"k must be between 1 and {MAX_K}, got {k}")
    if noise not in NOISE_KINDS:
        raise UsageError(f"unknown noise type {noise!r} (choose from {', '.join(NOISE_KINDS)})")
    if split not in SPLITS:
        raise UsageError(f"split must be 'train' or 'test', got {split!r}")
    if noise in ("supporting", "all") and k < 2:
        raise UsageError("supporting noise needs k >= 2 (it links two chain people other than the query pair)")
    if noise in ("supporting", "all") and config.noise_facts == 1 and k < 3:
        raise UsageError("supporting noise with one fact needs k >= 3 (it links two non-adjacent chain people)")


def _kb(config: GeneratorConfig) -> KB:
    kb = load_kb(config.kb)
    if not kb.sound:
        raise UsageError(f"KB {kb.name!r} is marked unsound; generation needs a sound KB")
    if any(p.definition is None for p in kb.predicates):
        raise UsageError(f"KB {kb.name!r} lacks genealogy definitions; generation needs them")
    return kb


def banks(config: GeneratorConfig, seed: int) -> dict[str, Bank]:
    """The template bank each split draws from (split 80/20 when template_split is on).

    Flagged templates are left out, and one-fact clauses the bank lacks are filled from
    ``config.fallback_templates`` (see :mod:`clutrr.render.usable`). Raises UsageError when
    a bank cannot be read, or when a split still lacks a one-fact template for a relation
    word of the KB (a story using that word could not be rendered).
    """
    return dict(_split_banks(config.templates, config.template_split, seed, config.kb, config.fallback_templates))


@lru_cache(maxsize=8)
def _split_banks(source: str, template_split: bool, seed: int, kb_name: str,
                 fallback: str) -> tuple[tuple[str, Bank], ...]:
    try:
        parts = split_banks(source, fallback, template_split, seed, kb_name)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot load templates {source!r} (fallback {fallback!r}): {exc}") from None
    kb = load_kb(kb_name)
    for split, part in zip(SPLITS, parts):
        missing = [w for w in kb.words if not any(part.choices((w,), g) for g in GENDERS)]
        if missing:
            raise UsageError(f"templates {source!r} ({split} split, fallback {fallback!r}) have no one-fact template "
                             f"for {', '.join(missing)}")
    return tuple(zip(SPLITS, parts))


_FAMILY_CACHE: dict[tuple, Family] = {}


def _family(config: GeneratorConfig, kb: KB, key: tuple, k: int) -> Family:
    fam = _FAMILY_CACHE.get(key)
    if fam is None:
        fc = config.family
        if k >= LARGE_FAMILY_K:
            fc = FamilyConfig(**{**fc.__dict__, "generations": max(fc.generations, 4)})
        fam = sample_family(fc, kb, random.Random(stable_hash("family", *key)))
        if len(_FAMILY_CACHE) > 16:
            _FAMILY_CACHE.clear()
        _FAMILY_CACHE[key] = fam
    return fam


def _target_word(kb: KB, seed: int, split: str, k: int, noise: str, index: int) -> tuple[int, int]:
    """Stratified target: each block of len(words) indices uses every word once."""
    n = len(kb.words)
    order = list(range(n))
    random.Random(stable_hash("targets", seed, split, k, noise, index // n)).shuffle(order)
    return kb.parse_word(kb.words[order[index % n]])


def make_example(
    config: GeneratorConfig, k: int, noise: str, seed: int, index: int, split: str = "train", attempt: int = 0
) -> Example:
    """The example for these arguments; the same arguments always give the same example.

    ``attempt`` > 0 asks for a different example at the same index (used to replace a
    duplicate story). Raises UsageError for bad arguments, GenerationError if the family
    sampler never yields a chain (only with extreme family knobs).
    """
    check_request(k, noise, split, config)
    kb = _kb(config)
    bank = banks(config, seed)[split]
    rng = random.Random(stable_hash("example", seed, split, k, noise, index, attempt))
    want = _target_word(kb, seed, split, k, noise, index)
    block = index // config.stories_per_family
    for tries in range(MAX_ATTEMPTS):
        # the indices of a block share their families, so retries mostly hit the cache
        fam_key = (seed, split, k, noise, block, tries) if attempt == 0 else (seed, split, k, noise, index, attempt, tries)
        family = _family(config, kb, fam_key, k)
        targets = present_targets(family, kb)
        if not targets:
            continue
        if tries < MAX_ATTEMPTS // 2:
            if want not in targets:
                continue
            pred, gender = want
        else:
            pred, gender = rng.choice(targets)
        chain = None
        for _ in range(CHAINS_PER_FAMILY):
            pair = pick_pair(family, pred, gender, rng)
            chain = backward_chain(family, kb, k, pair[0], pair[1], rng) if pair else None
            if chain is not None:
                break
        if chain is None:
            continue
        pattern = "-".join(kb.word(p, int(family.gender[b])) for (_, p, b) in chain.facts())
        heldout = pattern_heldout(pattern, k, seed, config.holdout)
        if split == "train" and heldout:
            continue
        noise_paths = add_noise(family, chain, noise, config.noise_facts, rng)
        if noise_paths is None:
            continue
        return _assemble(config, kb, bank, family, chain, noise_paths, pattern, heldout, rng,
                         k=k, noise=noise, seed=seed, index=index, split=split, attempt=attempt)
    raise GenerationError(f"no example for k={k}, noise={noise} after {MAX_ATTEMPTS} families")


def _assemble(config, kb, bank, family, chain, noise_paths, pattern, heldout, rng, *, k, noise, seed, index, split, attempt) -> Example:
    people = list(chain.people)
    for _, facts in noise_paths:
        for a, _, b in facts:
            for p in (a, b):
                if p not in people:
                    people.append(p)
    pos = {p: i for i, p in enumerate(people)}
    genders = [int(family.gender[p]) for p in people]
    pools = load_names()
    names = [""] * len(people)
    for g in (0, 1):
        idx = [i for i, gg in enumerate(genders) if gg == g]
        for i, name in zip(idx, rng.sample(pools[GENDERS[g]], len(idx))):
            names[i] = name
    edges: list[tuple[int, int, int, str]] = [(pos[a], p, pos[b], "none") for a, p, b in chain.facts()]
    for kind, facts in noise_paths:
        edges += [(pos[a], p, pos[b], kind) for a, p, b in facts]
    words = [kb.word(p, genders[b]) for a, p, b, _ in edges]

    _check(kb, chain, edges, k)

    used: set[str] = set()  # no template twice in one story

    def render(edge_ids: list[int]) -> list[Piece]:
        path = [edges[edge_ids[0]][0]] + [edges[e][2] for e in edge_ids]
        return render_path(bank, edge_ids, path, [words[e] for e in edge_ids], names, genders, rng,
                           config.max_piece, config.brackets, used)

    chain_pieces = render(list(range(k)))
    noise_pieces: list[Piece] = []
    start = k
    for _, facts in noise_paths:
        noise_pieces += render(list(range(start, start + len(facts))))
        start += len(facts)
    story_pieces = chain_pieces + noise_pieces
    rng.shuffle(story_pieces)
    target_word = kb.word(chain.target, genders[k])
    target_piece = render_path(bank, [-1], [0, k], [target_word], names, genders, rng, 1, config.brackets)[0]
    task = TASK_OF_NOISE[noise]

    def named(fact: tuple[int, int, int]) -> tuple[str, str, str]:
        a, p, b = fact
        return (names[pos[a]], kb.word(p, genders[pos[b]]), names[pos[b]])

    proof_state = [{named(goal): [named(f1), named(f2)]} for goal, f1, f2 in chain.proof]
    ident = str(uuid.UUID(int=stable_hash("id", seed, split, k, noise, index, attempt) << 64
                          | stable_hash("id2", seed, split, k, noise, index, attempt), version=4))
    row = StoryRow(
        id=ident,
        story=" ".join(p.text for p in story_pieces),
        query=(names[0], names[k]),
        target=target_word,
        clean_story=" ".join(p.text for p in chain_pieces),
        proof_state=proof_state,
        f_comb=pattern,
        task_name=f"task_{task}.{k}",
        story_edges=[(a, b) for a, _, b, _ in edges],
        edge_types=words,
        query_edge=(0, k),
        genders=[(names[i], GENDERS[genders[i]]) for i in range(len(people))],
        node_mapping={int(p): i for i, p in enumerate(people)},
        task_split=split,
        text_target=[target_piece.text],
    )
    record = {
        "id": ident, "split": split, "task": task, "k": k, "noise": noise, "seed": seed, "index": index,
        "people": [{"name": names[i], "gender": GENDERS[genders[i]]} for i in range(len(people))],
        "edges": [{"head": a, "tail": b, "relation": words[i], "predicate": kb.predicates[p].name, "noise": kind}
                  for i, (a, p, b, kind) in enumerate(edges)],
        "query": [0, k], "target": target_word, "target_predicate": kb.predicates[chain.target].name,
        "pattern": pattern, "pattern_heldout": heldout,
        "proof": [{"goal": list(named(g)), "rule": [kb.predicates[f1[1]].name, kb.predicates[f2[1]].name],
                   "by": [list(named(f1)), list(named(f2))]} for g, f1, f2 in chain.proof],
        "story": row.story, "clean_story": row.clean_story, "text_target": row.text_target,
        "pieces": [{"template": p.template_id, "edges": list(p.facts)} for p in story_pieces],
        "target_template": target_piece.template_id,
    }
    return Example(row, record, chain, noise_paths, family)


def _check(kb: KB, chain: Chain, edges: list, k: int) -> None:
    """Assert the guarantees: a simple path of true facts that entails exactly the target."""
    target_bits = 1 << chain.target
    if len(set(chain.people)) != k + 1:
        raise AssertionError("chain is not a simple path")
    if chain_entailment(kb, chain.preds) != target_bits:
        raise AssertionError("chain does not uniquely entail its target")
    if len(edges) > k:
        # derivations never leave a connected component, so only the query's matters
        component = {0}
        linked = [(a, p, b) for a, p, b, _ in edges]
        grew = True
        while grew:
            grew = False
            for a, _, b in linked:
                if (a in component) != (b in component):
                    component |= {a, b}
                    grew = True
        closure = story_closure(kb, [f for f in linked if f[0] in component])
        if closure.get((0, k), 0) != target_bits:
            raise AssertionError("noise changed what the story entails")
