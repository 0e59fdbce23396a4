"""One example for (k, noise, seed, index, split): family, target, chain, noise, story.

Everything random is drawn from generators seeded by a hash of those arguments, so an
example is the same whatever order, process or machine produces it.
"""
from __future__ import annotations

import hashlib
import random
from typing import Final, cast
from dataclasses import dataclass, field
from functools import lru_cache

import yaml

from clutrr.core.chainer import Chain, backward_chain, present_targets, target_pairs, word_pairs
from clutrr.core.closed_among import closed_among
from clutrr.core.distractors import CONNECTED, MAX_NOISE_FACTS, connected_noise
from clutrr.core.draws import sample_indices, seeded, shuffle
from clutrr.core.entailment import chain_entailment, story_closure
from clutrr.core.native import mypyc_attr
from clutrr.core.family import DENSE_MAX_PEOPLE, Family, FamilyConfig
from clutrr.core.kb import GENDERS, KB, KBError, load_kb
from clutrr.core.large_family import draw_family
from clutrr.core.memo import FactMemo
from clutrr.core.memory import (MEMORY_TASK, QUERY_KINDS, chain_targets, check_retrieval, pick_stated, row_kind,
                                story_facts)
from clutrr.core.names import load_names
from clutrr.core.noise import NOISE_KINDS, TASK_OF_NOISE, add_noise
from clutrr.core.padding import with_surnames
from clutrr.core.soundness import check_sound
from clutrr.core.vocabulary import WordMask, load_vocabulary, reachable_targets, vocabulary_names, word_mask
from clutrr.errors import UsageError
from clutrr.kinship.sampling import BLOCKS_SHARED, FAMILIES_KEPT as KIN_FAMILIES_KEPT, expandable_pairs
from clutrr.questions.forms import RELATION, Question, check_kind, form_of, yes_of
from clutrr.questions.pick import pick_question
from clutrr.render.placement import parse_depth
from clutrr.render.stitching import PathPlan, path_plan, render_fact, render_plan
from clutrr.render.bank_files import load_bank
from clutrr.render.templates import Bank
from clutrr.render.usable import split_banks
from clutrr.story.example import GENDER_WORDS, Example, predicate_words
from clutrr.story.long_context import MAX_CONTEXT_WORDS, Padding, pad_story

MAX_K = 100
MAX_ATTEMPTS: Final = 400
CHAINS_PER_FAMILY = 4
LARGE_FAMILY_K = 13
WINDOW_K = 31  # from here on, families are windows of a larger genealogy (clutrr.core.large_family)
WINDOW_GENERATIONS = 8
WINDOW_NOISE_FACTS = 50
PROBE_FAMILIES = 40
FAMILY_CHECK_MAX: Final = 64  # up to this size, checking a whole family once is cheaper than each story
FAMILIES_KEPT = 16  # per context: the families of the last few blocks
WINDOW_FAMILIES_KEPT: Final = 4  # of families above half DENSE_MAX_PEOPLE (about 11 MB each at 600 people)
HELDOUT_MEMO_K: Final = 3  # held-out flags of patterns up to this length are remembered (longer ones rarely repeat)
SHAPE_FACTS = 16_384  # per context: chain shapes kept, counted in facts (each holds a render plan)
SHAPE_MEMO_K: Final = 6  # chain shapes are kept up to this k (a longer chain's shape almost never comes again)
NOISE_PLAN_SLOTS: Final = 1 << 16  # the largest table of noise paths' plans by path_key (2 facts of 11 predicates: 3,872)
SET_REDRAWS = 8  # stories drawn for a people question before the first whose set has one name is taken
CYK_MAX_K: Final = 8  # clean chains up to this length are checked by their CYK table instead
SPLITS = ("train", "test")
Fact = tuple[int, int, int]


@mypyc_attr(native_class=False)
class GenerationError(RuntimeError):
    """The generator could not build an example within its attempt budget."""


@mypyc_attr(native_class=False)
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
    stories_per_family: int = 32
    relations: str = "all"
    query: str = "reasoning"  # reasoning (tasks 1-5), memory (task 6) or mixed (task 7): clutrr.core.memory
    context_words: int = 0  # pad stories to about this many words (0: no padding): clutrr.story.long_context
    depth: str = "spread"  # where a padded story's own sentences go: a share of the padding, or spread
    question: str = RELATION  # the question form (relation, person, people, count, yesno, mixed): clutrr.questions
    difficulty: bool = False  # records carry a difficulty record (clutrr.core.difficulty)

    def validate(self) -> None:
        """Raise UsageError naming the first bad setting."""
        try:
            self.family.validate()
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not 1 <= self.noise_facts <= MAX_NOISE_FACTS:
            raise UsageError(f"--noise-facts must be in 1..{MAX_NOISE_FACTS:,}, got {self.noise_facts}")
        if not 0.0 <= self.holdout < 1.0:
            raise UsageError(f"--holdout must be in [0, 1), got {self.holdout}")
        if not 1 <= self.max_piece <= 3:
            raise UsageError(f"--max-piece must be 1, 2 or 3, got {self.max_piece}")
        if self.stories_per_family < 1:
            raise UsageError("stories_per_family must be at least 1")
        if self.relations not in vocabulary_names():
            raise UsageError(f"unknown --relations {self.relations!r} (choose from {', '.join(vocabulary_names())})")
        vocabulary = load_vocabulary(self.relations)
        for words in (vocabulary.edges, vocabulary.targets):
            word_mask(load_kb(self.kb), words)
        if self.query not in QUERY_KINDS:
            raise UsageError(f"unknown query kind {self.query!r} (choose from {', '.join(QUERY_KINDS)})")
        if not 0 <= self.context_words <= MAX_CONTEXT_WORDS:
            raise UsageError(f"context words must be in 0..{MAX_CONTEXT_WORDS:,}, got {self.context_words}")
        try:
            if parse_depth(self.depth) != self.depth:
                raise UsageError(f"depth {self.depth!r} is not in canonical form (use {parse_depth(self.depth)!r})")
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        self._validate_question()
        _kb(self)

    def _validate_question(self) -> None:
        try:
            check_kind(self.question)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if self.question != RELATION and (self.query != "reasoning" or self.context_words):
            raise UsageError(f"--question {self.question} goes with --query reasoning and no --context-words")


def stable_hash(*parts: object, size: int = 8) -> int:
    """A hash of ``size`` bytes of the parts' reprs, stable across processes and Python versions."""
    text = "\x1f".join(map(repr, parts))
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=size).digest(), "big")


# BLAKE2b's methods and int.from_bytes, called with their object (compiled: no method looked up by name per call)
_COPY: Final = hashlib.blake2b.copy
_UPDATE: Final = hashlib.blake2b.update
_DIGEST: Final = hashlib.blake2b.digest
_HEXDIGEST: Final = hashlib.blake2b.hexdigest
_FROM_BYTES: Final = int.from_bytes


class _HashPrefix:
    """:func:`stable_hash` of parts that start with the same few, with those hashed once."""

    __slots__ = ("_state",)

    def __init__(self, *parts: object, size: int = 8) -> None:
        self._state = hashlib.blake2b(("\x1f".join(map(repr, parts)) + "\x1f").encode(), digest_size=size)

    def __call__(self, *rest: object) -> int:
        """``stable_hash(*parts, *rest)`` (``rest`` not empty)."""
        return self.of_ints("\x1f".join(map(repr, rest)).encode())

    def of_ints(self, ints: bytes) -> int:
        """``self(a, b)`` for ``ints = ints_part(a, b)``, with no tuple or reprs built (a story's two
        hashes continue with the same ints, made once)."""
        return _FROM_BYTES(_DIGEST(self._continued(ints)), "big")

    def of_int(self, n: int) -> int:
        """``self(n)``, with no tuple, map or join made."""
        return self.of_ints(str(n).encode())

    def of_text(self, text: str) -> int:
        """``self(text)``, with no tuple, map or join made."""
        return self.of_ints(repr(text).encode())

    def uuid4_of_ints(self, ints: bytes) -> str:
        """``str(uuid.UUID(int=self(a, b), version=4))`` for ``ints = ints_part(a, b)`` and a prefix of
        16 bytes, from the hash's hex digits."""
        return uuid4_hex(_HEXDIGEST(self._continued(ints)))

    def _continued(self, data: bytes) -> hashlib.blake2b:
        """The prefix's hash, continued with ``data``."""
        h = _COPY(self._state)
        _UPDATE(h, data)
        return h


def ints_part(a: int, b: int) -> bytes:
    """What :class:`_HashPrefix` hashes for two ints after its prefix, as ``self(a, b)`` does (an
    int's repr is its digits)."""
    return f"{a}\x1f{b}".encode()


_VARIANT: Final = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}  # a UUID's variant digit, by the digit it replaces


def uuid4_hex(h: str) -> str:
    """``str(uuid.UUID(int=int(h, 16), version=4))`` for 32 hex digits ``h``, without the object: the
    version digit (the 13th) becomes 4, the variant digit (the 17th) keeps its two low bits under binary 10."""
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:]}"


def pattern_heldout(pattern: str, k: int, seed: int, fraction: float) -> bool:
    """Whether a relation-word pattern of length k > 2 is reserved for test (remembered for
    short patterns, which repeat; long ones rarely do)."""
    if k > HELDOUT_MEMO_K:
        return _heldout(pattern, k, seed, fraction)
    return _heldout_memo(pattern, k, seed, fraction)


def _heldout(pattern: str, k: int, seed: int, fraction: float) -> bool:
    return k > 2 and fraction > 0 and _pattern_hash(seed).of_text(pattern) < fraction * 2**64


_PATTERN_HASHES: Final[dict[int, _HashPrefix]] = {}


def _pattern_hash(seed: int) -> _HashPrefix:
    """``stable_hash("pattern", seed, ...)`` with its first parts hashed once per seed."""
    hit = _PATTERN_HASHES.get(seed)
    if hit is None:
        if len(_PATTERN_HASHES) >= 64:
            _PATTERN_HASHES.clear()
        hit = _PATTERN_HASHES[seed] = _HashPrefix("pattern", seed)
    return hit


_heldout_memo: Final = lru_cache(maxsize=1 << 16)(_heldout)


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
    family = _family_config(config, k, noise)
    try:
        family.validate()
    except ValueError as exc:
        grown = f" (these stories use at least {family.generations} generations)" \
            if family is not config.family else ""
        raise UsageError(f"k={k}{grown}: {exc}") from None
    kb = load_kb(config.kb)
    if family.expected_size() > DENSE_MAX_PEOPLE and kb.system:
        raise UsageError(f"k={k}, noise={noise}: stories from families of more than {DENSE_MAX_PEOPLE} people "
                         f"(k >= {WINDOW_K}, over {WINDOW_NOISE_FACTS} connected distractors or a large --generations) "
                         "are not supported with --kinship yet: a kin type needs the whole family, not a window")
    if kb.generations and family.generations > kb.generations:
        fix = f"lower --generations to {kb.generations}" if family is config.family else \
            f"drop k={k} or its distractors (these stories use {family.generations} generations)"
        raise UsageError(f"k={k}: stories from families of {family.generations} generations, but the rules of KB "
                         f"{kb.name!r} are proved only for families of at most {kb.generations} generations; {fix}")


def _kb(config: GeneratorConfig) -> KB:
    kb = load_kb(config.kb)
    if not kb.sound:
        raise UsageError(f"KB {kb.name!r} is marked unsound; generation needs a sound KB")
    if any(p.definition is None for p in kb.predicates):
        raise UsageError(f"KB {kb.name!r} lacks genealogy definitions; generation needs them")
    check_sound(kb)
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
    except KBError:  # the KB's fault (a definition), not the templates'
        raise
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise UsageError(f"cannot load templates {source!r} (fallback {fallback!r}): {exc}") from None
    if source not in ("synthetic", "paraphrase") and not len(load_bank(source)):
        raise UsageError(f"--templates {source}: no template found (an empty file?); "
                         f"the fallback bank would write every story alone")
    kb = load_kb(kb_name)
    for split, part in zip(SPLITS, parts):
        missing = [w for w in kb.words if not any(part.choices((w,), g) for g in GENDERS)]
        if missing:
            raise UsageError(f"templates {source!r} ({split} split, fallback {fallback!r}) have no one-fact template "
                             f"for {', '.join(missing)}")
    return tuple(zip(SPLITS, parts))


def _family_config(config: GeneratorConfig, k: int, noise: str = "none") -> FamilyConfig:
    """Long chains need room: from LARGE_FAMILY_K on, families have at least 4 generations;
    from WINDOW_K on, or for more than WINDOW_NOISE_FACTS connected distractors, at least
    WINDOW_GENERATIONS (stories then come from a window of the family)."""
    wide = k >= WINDOW_K or (noise == CONNECTED and config.noise_facts > WINDOW_NOISE_FACTS)
    least = WINDOW_GENERATIONS if wide else 4 if k >= LARGE_FAMILY_K else 0
    if config.family.generations < least:
        return FamilyConfig(**{**config.family.__dict__, "generations": least})
    return config.family


def _family(ctx: _Context, key: tuple[int, ...]) -> Family:
    """The family of ``key`` (a block's ``(block, tries)``, or one index's ``(index, attempt, tries)``), sampled
    from its own seeded source; the last few are kept (the indices of a block share their families)."""
    families = ctx.families
    fam = families.get(key)
    if fam is None:
        hashed = ctx.family_hash.of_ints(ints_part(key[0], key[1])) if len(key) == 2 else ctx.family_hash(*key)
        fam = draw_family(ctx.family, ctx.kb, seeded(hashed))
        kept = WINDOW_FAMILIES_KEPT if fam.size > DENSE_MAX_PEOPLE // 2 else ctx.knobs.families_kept
        if len(families) >= kept:
            for old in list(families)[:len(families) - kept + 1]:  # the oldest
                families.pop(old, None)
        families[key] = fam
    return fam


@lru_cache(maxsize=64)
def _probe(config: GeneratorConfig, k: int, candidates: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The candidate targets for which the chainer finds a chain of k allowed facts in some
    of PROBE_FAMILIES fixed families (the same for every seed and split)."""
    kb = _kb(config)
    edges = load_vocabulary(config.relations).edges
    allowed = None if edges is None else word_mask(kb, edges)
    fc = _family_config(config, k)
    families: list[Family] = []
    found = []
    for pred, gender in candidates:
        for i in range(PROBE_FAMILIES):
            if i == len(families):
                families.append(draw_family(fc, kb, random.Random(stable_hash("probe", config.relations, k, i))))
            family = families[i]
            rng = random.Random(stable_hash("probe chain", config.relations, k, i, pred, gender))
            pairs = target_pairs(family, pred, gender)
            if any(backward_chain(family, kb, k, x, z, rng, allowed)
                   for x, z in rng.sample(pairs, min(len(pairs), chains_per_family(k)))):
                found.append((pred, gender))
                break
    return tuple(found)


def offered_targets(config: GeneratorConfig, k: int) -> tuple[tuple[int, int], ...]:
    """The target words (predicate, gender) that stories of k facts are balanced over.

    Every word the KB's rules can prove from k facts of the vocabulary; for a restricted
    vocabulary (``--relations``) or a kinship system's KB (whose rules may prove a word only
    through chains that repeat a person: a son-in-law is a wife's son-in-law), only those the
    probe finds chains for.
    """
    kb = _kb(config)
    vocabulary = load_vocabulary(config.relations)
    targets = tuple(reachable_targets(kb, vocabulary, k))
    if vocabulary.edges is not None or kb.system:
        targets = _probe(config, k, targets)
    if not targets and kb.system:
        raise UsageError(f"no word of kinship system {kb.system!r} has a chain of {k} facts in families of "
                         f"--generations {config.family.generations}")
    if not targets:
        raise UsageError(f"--relations {config.relations}: no target word can be proved from {k} allowed facts")
    return targets


def relations_report(config: GeneratorConfig, ks: list[int]) -> dict:
    """The relation vocabulary for config.json, with the target words left out at each k."""
    kb = _kb(config)
    vocabulary = load_vocabulary(config.relations)
    askable = [w for w in kb.words if vocabulary.targets is None or w in vocabulary.targets]
    left_out = {}
    for k in sorted(set(ks)):
        offered = {kb.word(p, g) for p, g in offered_targets(config, k)}
        left_out[str(k)] = [w for w in askable if w not in offered]
    return {
        "name": vocabulary.name, "description": vocabulary.description,
        "edges": "all" if vocabulary.edges is None else list(vocabulary.edges),
        "targets": "all" if vocabulary.targets is None else list(vocabulary.targets),
        "targets_left_out": left_out,
        "left_out_because": "no chain of k facts of the vocabulary proves them under the KB's rules, "
                            f"or none was found in {PROBE_FAMILIES} sampled families",
    }


def _target_order(targets_hash: _HashPrefix, block: int, n: int) -> tuple[int, ...]:
    """Block ``block``'s order of n target words, given ``_HashPrefix("targets", seed, split, k, kind)``."""
    order = list(range(n))
    shuffle(seeded(targets_hash.of_int(block)), order)  # Random(stable_hash(..., block)).shuffle's order
    return tuple(order)


class _RecentOrder:
    """The target words' order of the block asked for last, and its kind (a run asks for block after block);
    the order hash of the kind made last (``stable_hash("targets", seed, split, k, hash_kind, ...)``)."""

    def __init__(self) -> None:
        self.kind = ""
        self.block = -1
        self.order: tuple[int, ...] = ()
        self.hash_kind = ""
        self.targets_hash: _HashPrefix | None = None


def _target_word(ctx: _Context, words: tuple[tuple[int, int], ...], seed: int, split: str, k: int, noise: str,
                 index: int) -> tuple[int, int]:
    """Stratified target: each block of len(words) indices uses every word once (in an order
    seeded per block, kept in ``ctx.orders``; the last one asked for at hand in ``ctx.recent_order``)."""
    n = len(words)
    block = index // n
    recent = ctx.recent_order
    if recent.block != block or recent.kind != noise:
        orders = ctx.orders
        order = orders.get((noise, block))
        if order is None:
            if len(orders) > 1024:
                orders.clear()
            targets_hash = recent.targets_hash
            if targets_hash is None or recent.hash_kind != noise:
                targets_hash = recent.targets_hash = _HashPrefix("targets", seed, split, k, noise)
                recent.hash_kind = noise
            order = orders[noise, block] = _target_order(targets_hash, block, n)
        recent.kind, recent.block, recent.order = noise, block, order
    return words[recent.order[index % n]]


@dataclass(frozen=True)
class _Context:
    """What every example of one (config, seed, split, k, noise) shares, worked out once."""

    kb: KB
    bank: Bank
    allowed: WordMask | None  # story-edge words (None: all)
    target_ok: WordMask
    targets: tuple[tuple[int, int], ...]  # target words offered at this k
    stated: tuple[tuple[int, int], ...]  # target words of memory queries (those one fact can state)
    family: FamilyConfig  # what families of this k are sampled with
    example_hash: _HashPrefix  # stable_hash("example", seed, split, k, noise, ...)
    id_hash: _HashPrefix  # stable_hash("id", seed, split, k, noise, ..., size=16)
    family_hash: _HashPrefix  # stable_hash("family", seed, split, k, noise, ...)
    words: list[tuple[str | None, str | None]]  # [predicate][gender]: KB.word, read without a call
    male_names: list[str]  # clutrr.core.names.load_names(), read without a call
    female_names: list[str]
    male_marks: list[str]  # the names in brackets, as stories show them
    female_marks: list[str]
    knobs: _Knobs  # the config's settings and the context's constants a story reads
    families: dict = field(default_factory=dict, compare=False)  # family key -> Family (the last few)
    shapes: FactMemo = field(default_factory=lambda: FactMemo(SHAPE_FACTS), compare=False)  # chain -> _Shape
    # [path_key]: a noise path's PathPlan once made (empty when the keys' range is too wide: _Knobs.noise_slots)
    noise_plans: list[PathPlan | None] = field(default_factory=list, compare=False)
    # the target words' order per (kind, block)
    orders: dict[tuple[str, int], tuple[int, ...]] = field(default_factory=dict, compare=False)
    recent_order: _RecentOrder = field(default_factory=_RecentOrder, compare=False)


@dataclass(init=False)  # a compiled __init__ (the one dataclass writes runs as Python: at k=10, once a story)
class _Shape:
    """What a chain's predicates and its people's genders decide, worked out once per context."""

    words: tuple[str, ...]  # the relation word of each fact
    pattern: str
    heldout: bool
    heads: tuple[str, ...]  # the gender of each fact's first person
    plan: PathPlan | None  # how the bank renders the chain (made when a story first renders it: _chain_plan)
    entailed: int  # what the chain's predicates entail (chain_entailment), once computed (else -1)

    def __init__(self, words: tuple[str, ...], pattern: str, heldout: bool, heads: tuple[str, ...]) -> None:
        self.words, self.pattern, self.heldout, self.heads = words, pattern, heldout, heads
        self.plan = None
        self.entailed = -1

@lru_cache(maxsize=64)
def _context(config: GeneratorConfig, seed: int, split: str, k: int, noise: str) -> _Context:
    check_request(k, noise, split, config)
    kb = _kb(config)
    vocabulary = load_vocabulary(config.relations)
    allowed = None if vocabulary.edges is None else word_mask(kb, vocabulary.edges)
    knobs = _Knobs(config, kb, k, noise)
    return _Context(kb, banks(config, seed)[split], allowed, word_mask(kb, vocabulary.targets),
                    offered_targets(config, k), offered_targets(config, 1) if config.query != "reasoning" else (),
                    _family_config(config, k, noise), _HashPrefix("example", seed, split, k, noise),
                    _HashPrefix("id", seed, split, k, noise, size=16), _HashPrefix("family", seed, split, k, noise),
                    predicate_words(kb), *_name_pools(), knobs, noise_plans=[None] * knobs.noise_slots)


class _Knobs:
    """What a story reads of its config, KB, k and noise kind, copied once per context: reads of
    a native object's fields (the config is a Python class: each of its reads is a lookup)."""

    def __init__(self, config: GeneratorConfig, kb: KB, k: int, noise: str) -> None:
        self.relation_question = config.question == RELATION
        self.query = config.query
        self.mixed = config.query == "mixed"
        self.block_size = config.stories_per_family * (BLOCKS_SHARED if kb.system else 1)  # clutrr.kinship.sampling
        self.kinship = bool(kb.system)
        self.families_kept = KIN_FAMILIES_KEPT if kb.system else FAMILIES_KEPT  # a kinship system's blocks need more
        self.tries_per_family = chains_per_family(k)
        self.connected = noise == CONNECTED
        self.noise_facts = config.noise_facts
        self.holdout = config.holdout
        self.max_piece = config.max_piece
        self.brackets = config.brackets
        self.context_words = config.context_words
        self.depth = config.depth
        self.difficulty = config.difficulty
        self.task = TASK_OF_NOISE[noise]
        # a chain's edge indices and people: ranges, which rendering reads without a list made of them
        self.facts = range(k)
        self.chain_people = range(k + 1)
        self.table: list[list[int]] = kb.table  # kb.compose, read without a call
        self.int_shapes = len(kb.predicates) ** k << (k + 1) < 1 << 62  # a chain shape's key fits an unboxed int
        self.keep_shapes = k <= SHAPE_MEMO_K
        # noise paths' plans: a table indexed by path_key while the keys of paths of up to their length are few
        self.predicates = len(kb.predicates)
        longest = 1 if self.connected else config.noise_facts  # a connected distractor is a path of one fact
        slots = 2 * (4 * self.predicates) ** longest
        self.noise_slots = slots if noise != "none" and slots <= NOISE_PLAN_SLOTS else 0


def _shape_key(ctx: _Context, chain: Chain, genders: list[int]) -> object:
    """The chain's predicates and its people's genders: as the digits of one int (k is the context's)
    while that fits a machine word, else as a tuple."""
    if not ctx.knobs.int_shapes:
        return (*chain.preds, *[genders[person] for person in chain.people])
    key = 0
    base = len(ctx.words)
    for p in chain.preds:
        key = key * base + p
    for person in chain.people:
        key = key * 2 + genders[person]
    return key


def _shape(ctx: _Context, seed: int, chain: Chain, genders: list[int]) -> _Shape:
    """The chain's :class:`_Shape`, kept per context for chains of up to SHAPE_MEMO_K facts."""
    if not ctx.knobs.keep_shapes:
        return _new_shape(ctx, seed, chain, genders)
    key = _shape_key(ctx, chain, genders)
    hit = ctx.shapes.get(key)
    if hit is None:
        hit = ctx.shapes.keep(key, _new_shape(ctx, seed, chain, genders), chain.k)
    return hit


def _new_shape(ctx: _Context, seed: int, chain: Chain, genders: list[int]) -> _Shape:
    """The chain's :class:`_Shape`, worked out."""
    people = [genders[p] for p in chain.people]
    k, word, knobs = chain.k, ctx.words, ctx.knobs
    words = tuple([cast(str, word[p][people[i + 1]]) for i, p in enumerate(chain.preds)])
    pattern = "-".join(words)
    gender_words = GENDER_WORDS
    heads = tuple([gender_words[g] for g in people[:-1]])
    return _Shape(words, pattern, pattern_heldout(pattern, k, seed, knobs.holdout), heads)


def _chain_plan(ctx: _Context, shape: _Shape) -> PathPlan:
    """The shape's render plan, made on first use: a chain held out of train, or whose noise finds no
    room, is never rendered (at k > SHAPE_MEMO_K every story's shape is new)."""
    plan = shape.plan
    if plan is None:
        plan = shape.plan = path_plan(ctx.bank, shape.words, shape.heads, ctx.knobs.max_piece, keep=False)
    return plan


def path_key(key: int, pred: int, head_gender: int, tail_gender: int, base: int) -> int:
    """A sequence of facts' int key continued with a fact of ``pred`` (of ``base`` predicates) between
    people of these genders: a sequence's key starts at 1 and takes each fact's digits in turn, so it
    determines its facts' relation words and heads' genders (the leading 1 tells lengths apart), and the
    key of n facts is below ``2 * (4 * base) ** n``. Noise paths' render plans are kept per context in a
    table indexed by it (``_Context.noise_plans``): no key is hashed, compared or kept."""
    return ((key * base + pred) * 2 + head_gender) * 2 + tail_gender


class _Recent:
    """The context asked for last and what it was asked for (a run asks for one many times in a row)."""

    def __init__(self) -> None:
        self.config: GeneratorConfig | None = None
        self.seed = 0
        self.split = ""
        self.k = 0
        self.noise = ""
        self.ctx: _Context | None = None


_RECENT: Final = _Recent()


def forget_recent_context() -> None:
    """Forget the context asked for last (tests, to start cold)."""
    _RECENT.config = _RECENT.ctx = None


def _recent_context(config: GeneratorConfig, seed: int, split: str, k: int, noise: str) -> _Context:
    """``_context(...)``, with the last one asked for at hand without the cache's lookup."""
    recent = _RECENT
    ctx = recent.ctx
    if ctx is None or recent.config is not config or recent.seed != seed or recent.split != split \
            or recent.k != k or recent.noise != noise:
        ctx = _context(config, seed, split, k, noise)
        recent.config, recent.seed, recent.split, recent.k, recent.noise, recent.ctx = \
            config, seed, split, k, noise, ctx
    return ctx


def chains_per_family(k: int) -> int:
    """How many chains (from distinct pairs) an example tries in one family before sampling another."""
    return max(CHAINS_PER_FAMILY, k)


def make_example(
    config: GeneratorConfig, k: int, noise: str, seed: int, index: int, split: str = "train", attempt: int = 0
) -> Example:
    """The example for these arguments; the same arguments always give the same example.

    ``attempt`` > 0 asks for a different example at the same index (used to replace a
    duplicate story). Raises UsageError for bad arguments, GenerationError if the family
    sampler never yields a chain (only with extreme family knobs).

    With ``config.question`` other than ``relation``, the story is built as for ``relation``
    and its question is then chosen from it (:mod:`clutrr.questions`); a story without a
    question of the row's form gives way to the next story drawn for the same index.
    """
    ctx = _recent_context(config, seed, split, k, noise)
    if ctx.knobs.relation_question:
        return _story(ctx, k, noise, seed, index, split, attempt)
    form, nth = form_of(config.question, index, stable_hash("forms", seed, split, k, noise, index // 5))
    yes = yes_of(nth, stable_hash("yesno", seed, split, k, noise, form, nth // 2) & 1)
    single = None  # a people question's first story whose set has one name, kept while larger ones are sought
    for redraw in range(MAX_ATTEMPTS):
        ex = _story(ctx, k, noise, seed, index, split, attempt, redraw)
        if form == RELATION:
            ex.question = Question(RELATION, ex.query, ex.target, ex.target)
            return ex
        rng = random.Random(stable_hash("question", seed, split, k, noise, index, attempt, redraw))
        ex.question = pick_question(ex.kb, ex.family, ex.people, ex.genders, ex.names,
                                    [(a, p, b) for a, p, b, _ in ex.edges], form, ctx.target_ok, yes, rng)
        if ex.question is not None and (form != "people" or len(cast(list, ex.question.answer)) > 1):
            return ex
        single = single or (ex if ex.question is not None else None)
        if single is not None and redraw + 1 >= SET_REDRAWS:
            return single
    raise GenerationError(f"no story for k={k}, noise={noise} has a {form} question after {MAX_ATTEMPTS} stories")


def _story(ctx: _Context, k: int, noise: str, seed: int, index: int, split: str, attempt: int,
           redraw: int = 0) -> Example:
    """The story of :func:`make_example` (``redraw`` > 0: another story for the same arguments)."""
    kb, knobs = ctx.kb, ctx.knobs
    ints = ints_part(index, attempt)  # the example's and its id's hashes end with them
    rng = seeded(ctx.example_hash.of_ints(ints) if not redraw else ctx.example_hash(index, attempt, redraw))
    coin = stable_hash("mixed", seed, split, k, noise, index // 2) & 1 if knobs.mixed else 0
    memory, nth = row_kind(knobs.query, index, coin)
    if memory:
        want = _target_word(ctx, ctx.stated, seed, split, k, f"{noise}/memory", nth)
    elif redraw:  # another story for a question of another form: any chain target (the question asks another)
        want = ctx.targets[rng.randrange(len(ctx.targets))]
    else:
        want = _target_word(ctx, ctx.targets, seed, split, k, noise, nth)
    block = index // knobs.block_size
    tries_per_family = knobs.tries_per_family
    for tries in range(MAX_ATTEMPTS):
        # the indices of a block share their families, so retries mostly hit the cache
        family = _family(ctx, (block, tries) if attempt == 0 else (index, attempt, tries))
        table = word_pairs(family)
        if memory:  # the word asked is a stated fact's: chains likely to state it first, then any
            likely = chain_targets(kb, want[0], k) if tries < MAX_ATTEMPTS // 4 else None
            targets = [(p, g) for p, g in present_targets(family) if likely is None or p in likely]
            if not targets:
                continue
            pred, gender = rng.choice(targets)
            span = table.spans.get((pred, gender), (0, 0))
        elif tries < MAX_ATTEMPTS // 2:
            found = table.spans.get(want)  # the word's pairs (one lookup, no tuple made)
            if found is None:
                continue
            pred, gender = want
            span = found
        else:
            targets = [(p, g) for p, g in present_targets(family) if ctx.target_ok[p][g]]
            if not targets:
                continue
            pred, gender = rng.choice(targets)
            span = table.spans.get((pred, gender), (0, 0))
        start, count = span
        xs, ys = table.xs, table.ys
        if knobs.kinship and k > 1:  # a terminology's wide terms: only pairs the chainer's first step can expand
            xs, ys = expandable_pairs(family, kb, (pred, gender))
            start, count = 0, len(xs)
        for j in sample_indices(rng, count, min(count, tries_per_family)):
            x, z = xs[start + j], ys[start + j]
            chain = backward_chain(family, kb, k, x, z, rng, ctx.allowed)
            if chain is None:
                continue
            shape = _shape(ctx, seed, chain, family.genders)
            if split == "train" and shape.heldout:
                continue
            noise_paths = connected_noise(family, chain, knobs.noise_facts, rng, ctx.allowed) \
                if knobs.connected else add_noise(family, chain, noise, knobs.noise_facts, rng, ctx.allowed)
            if noise_paths is None:
                continue
            query = None
            if memory:
                query = pick_stated(kb, family, story_facts(chain.facts(), noise_paths),
                                    want if tries < MAX_ATTEMPTS // 2 else None, ctx.target_ok, rng)
                if query is None:
                    continue
            return _assemble(ctx, family, chain, shape, noise_paths, rng, query, ints,
                             k=k, noise=noise, seed=seed, index=index, split=split, attempt=attempt)
    raise GenerationError(f"no example for k={k}, noise={noise} after {MAX_ATTEMPTS} families")


def _assemble(ctx: _Context, family: Family, chain: Chain, shape: _Shape, noise_paths: list[tuple[str, list[Fact]]],
              rng: random.Random, query: Fact | None, ints: bytes, *, k: int, noise: str, seed: int, index: int,
              split: str, attempt: int) -> Example:
    kb, bank, knobs = ctx.kb, ctx.bank, ctx.knobs
    people = chain.people
    edges: list[tuple[int, int, int, str]] = [(i, p, i + 1, "none") for i, p in enumerate(chain.preds)]
    family_genders = family.genders
    words = list(shape.words)
    pos: list[int] = []  # [family id]: story person, or -1
    paths: list[tuple[int, list[int]]] = []  # each noise path's first edge index and people, over story people
    path_keys: list[int] = []  # each noise path's path_key
    if noise_paths or query is not None:
        people = list(people)
        pos = [-1] * family.size
        for i, p in enumerate(people):
            pos[p] = i
        word = ctx.words
        base = knobs.predicates
        for kind, facts in noise_paths:
            path: list[int] = []
            paths.append((len(edges), path))
            ib = -1
            key = 1
            for a, p, b in facts:
                key = path_key(key, p, family_genders[a], family_genders[b], base)
                ia = pos[a]
                if ia < 0:
                    ia = pos[a] = len(people)
                    people.append(a)
                ib = pos[b]
                if ib < 0:
                    ib = pos[b] = len(people)
                    people.append(b)
                edges.append((ia, p, ib, kind))
                words.append(cast(str, word[p][family_genders[b]]))
                path.append(ia)
            path.append(ib)
            path_keys.append(key)
    genders = [family_genders[p] for p in people]
    names, marks = _names(genders, rng, ctx)
    if knobs.context_words:  # a stream of its own: the story is the same at every padded length
        context_rng = seeded(stable_hash("context", seed, split, k, noise, index, attempt))
        names = with_surnames(names, context_rng)
        marks = [f"[{n}]" for n in names] if knobs.brackets else names

    _check(kb, knobs.table, family, chain, shape, edges, people)
    qa, qb, qpred = (0, k, chain.target) if query is None else (pos[query[0]], pos[query[2]], query[1])
    if query is not None:
        check_retrieval(kb, [(a, p, b) for a, p, b, _ in edges], (qa, qpred, qb))

    used: set[str] = set()  # no template twice in one story
    chain_pieces = render_plan(bank, _chain_plan(ctx, shape), knobs.facts, knobs.chain_people, marks, genders, rng, used)
    story_pieces = list(chain_pieces)
    gender_words = GENDER_WORDS
    noise_plans = ctx.noise_plans
    for i, (first, path) in enumerate(paths):
        stop = first + len(path) - 1
        key = path_keys[i]
        in_table = key < len(noise_plans)
        plan = noise_plans[key] if in_table else None
        if plan is None:  # path_plan(...): kept in the table when the key is in it, else on the bank
            heads = tuple([gender_words[genders[path[j]]] for j in range(stop - first)])  # each fact's head's gender
            plan = path_plan(bank, tuple(words[first:stop]), heads, knobs.max_piece, keep=not in_table)
            if in_table:
                noise_plans[key] = plan
        story_pieces += render_plan(bank, plan, range(first, stop), path, marks, genders, rng, used)
    shuffle(rng, story_pieces)
    target_word = cast(str, ctx.words[qpred][genders[qb]])
    target_piece = render_fact(bank, target_word, qa, qb, marks, genders, rng)
    task = MEMORY_TASK if query is not None else knobs.task
    story = " ".join([p.text for p in story_pieces])
    context = None
    if knobs.context_words:
        padding = Padding(knobs.context_words, knobs.depth, ctx.family, ctx.allowed, knobs.max_piece, knobs.brackets)
        story, context = pad_story(kb, bank, padding, story_pieces, k, names, [(a, p, b) for a, p, b, _ in edges],
                                   (qa, qb), qpred, context_rng)
    return Example(
        kb, id=ctx.id_hash.uuid4_of_ints(ints), split=split, task=task,
        k=k, noise_kind=noise, seed=seed, index=index, names=names, genders=genders, people=people, edges=edges,
        words=words, chain_words=shape.words, chain_heads=shape.heads, query=(qa, qb), query_pred=qpred,
        target=target_word, pattern=shape.pattern,
        heldout=shape.heldout, proof=chain.proof if query is None else [],  # a memory query's answer is stated
        story=story, clean_pieces=chain_pieces, pieces=story_pieces, target_piece=target_piece, context=context,
        chain=chain, noise=noise_paths, family=family, with_difficulty=knobs.difficulty)


def _name_pools() -> tuple[list[str], list[str], list[str], list[str]]:
    """The male and female first names, then the same in brackets (as stories show them)."""
    pools = load_names()
    male, female = pools["male"], pools["female"]
    return male, female, [f"[{n}]" for n in male], [f"[{n}]" for n in female]


def _names(genders: list[int], rng: random.Random, ctx: _Context) -> tuple[list[str], list[str]]:
    """Distinct first names of the given genders (0: male, 1: female), men drawn first, and their
    marks (the names as a story shows them: in brackets, unless the config says no)."""
    n = len(genders)
    names = [""] * n
    brackets = ctx.knobs.brackets
    marks = [""] * n if brackets else names
    women = 0
    for g in genders:
        women += g
    for g in range(2):
        pool, pool_marks = (ctx.female_names, ctx.female_marks) if g else (ctx.male_names, ctx.male_marks)
        count = women if g else n - women
        if count:
            picks = sample_indices(rng, len(pool), count)
            j = 0
            for i in range(n):
                if genders[i] == g:
                    names[i] = pool[picks[j]]
                    if brackets:
                        marks[i] = pool_marks[picks[j]]
                    j += 1
    return names, marks


def _check(kb: KB, table: list[list[int]], family: Family, chain: Chain, shape: _Shape,
           edges: list[tuple[int, int, int, str]], people: list[int]) -> None:
    """Assert the guarantees: a simple path of true facts that entails exactly the target.

    ``edges`` are ``(head, predicate, tail, kind)`` over story people, whose family ids are
    ``people`` (``table`` is ``kb.table``). The chain's proof shows that one bracketing derives
    the target. When the family's relations among the story's people are closed under the KB (always, for a sound
    KB), everything the story entails is true, and the query pair has one true relation: so
    every bracketing, and the whole noisy story, entails exactly the target. Otherwise, and
    for short clean chains (where it is cheaper), what the chain and the story entail is
    computed (CYK table, closure).
    """
    k, x, z = chain.k, chain.people[0], chain.people[-1]
    if len(chain.people) != k + 1 or not _distinct(chain.people):
        raise AssertionError("chain is not a simple path")
    rows = family.rows
    for a, p, b, _ in edges:
        if not rows[p][people[a]] >> people[b] & 1:
            raise AssertionError("the story states a fact that is false in the family")
    if family.relation(x, z) != chain.target or not _proof_derives(table, chain):
        raise AssertionError("the chain's proof does not derive the query pair's one relation")
    if len(edges) > k or k > CYK_MAX_K:
        if _family_closed(kb, family):
            return
        if closed_among(kb, family, people):
            return
    target_bits = 1 << chain.target
    if shape.entailed < 0:  # a pure function of the chain's predicates, part of its shape
        shape.entailed = _chain_entailment(kb, tuple(chain.preds))
    if shape.entailed != target_bits:
        raise AssertionError("chain does not uniquely entail its target")
    if len(edges) > k and story_closure(kb, [(a, p, b) for a, p, b, _ in edges]).get((0, k), 0) != target_bits:
        raise AssertionError("noise changed what the story entails")


def _distinct(people: list[int]) -> bool:
    """Whether no person id occurs twice (by bits: no set built)."""
    seen = 0
    for person in people:
        if seen >> person & 1:
            return False
        seen |= 1 << person
    return True


_ENTAILED: Final[dict[tuple, tuple[KB, int]]] = {}


def _chain_entailment(kb: KB, preds: tuple[int, ...]) -> int:
    """:func:`chain_entailment`, remembered per (KB, predicates): a pure function of them."""
    hit = _ENTAILED.get((id(kb), preds))
    if hit is None or hit[0] is not kb:  # the entry keeps its KB alive, so a reused id is another KB
        if len(_ENTAILED) > 1 << 16:
            _ENTAILED.clear()
        hit = _ENTAILED[id(kb), preds] = (kb, chain_entailment(kb, list(preds)))
    return hit[1]


def _family_closed(kb: KB, family: Family) -> bool:
    """Whether all of a small family's relations are closed under the KB (then so are any
    people's among them); checked once per family, for families of up to FAMILY_CHECK_MAX."""
    hit = family.cache.get("closed")
    if hit is None:
        hit = family.cache["closed"] = family.size <= FAMILY_CHECK_MAX and \
            closed_among(kb, family, list(range(family.size)))
    return hit


def _proof_derives(table: list[list[int]], chain: Chain) -> bool:
    """Replay the proof: the target fact, rewritten rule by rule, becomes exactly the chain.

    The facts being rewritten always form a path, held as ``pred[head]`` and ``tail[head]``
    for the fact "tail[head] is head's pred[head]" (``tail[head]`` is -1 for a person who heads
    none; a step that would bring a person back into the path fails: the chain is a simple
    path). Those are lists over the chain's person ids: a step naming anyone beyond them fails,
    as such a person would be left in the path. ``table`` is the KB's ``kb.table`` (its compose).
    """
    people = chain.people
    n = 0
    for person in people:
        n = max(n, person + 1)
    x, z = people[0], people[-1]
    pred = [-1] * n
    tail = [-1] * n
    pred[x], tail[x] = chain.target, z
    for goal, f1, f2 in chain.proof:
        a, r, b = goal
        c = f1[2]
        r1, r2 = f1[1], f2[1]
        if not (0 <= a < n and 0 <= c < n) or table[r1][r2] != r or f1[0] != a or f2[0] != c or f2[2] != b \
                or tail[a] < 0 or pred[a] != r or tail[a] != b or tail[c] >= 0 or c == z:
            return False
        pred[a], tail[a] = r1, c
        pred[c], tail[c] = r2, b
    head = x
    for i, p in enumerate(chain.preds):
        if pred[head] != p or tail[head] != people[i + 1]:
            return False
        head = tail[head]
    return len(chain.proof) + 1 == chain.k  # each step added one person: the path's heads are the chain's
