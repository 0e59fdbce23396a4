"""Kinship knowledge bases: relation predicates, their gendered words, and composition rules.

A KB file is YAML (see ``kb_rules/kinship.yaml``). A relation fact ``(a, r, b)`` reads
"b is a's r"; a rule ``r1 . r2 -> r`` says: for distinct people x, y, z, if y is x's r1
and z is y's r2 then z is x's r.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from clutrr.core.draws import random_bit  # noqa: F401  (kept importable from here)
from clutrr.errors import yaml_error_line
from clutrr.paths import data_dir

if TYPE_CHECKING:
    import numpy as np

GENDERS = ("male", "female")
RULE_RE = re.compile(r"^\s*([\w-]+)\s*\.\s*([\w-]+)\s*->\s*([\w-]+)\s*$")


class KBError(ValueError):
    """A rules file failed validation; the message names the file and the rule."""


class _UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml when present
    """A YAML loader that refuses duplicate mapping keys instead of keeping the last."""


def _construct_unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise KBError(f"line {key_node.start_mark.line + 1}: duplicate key {key!r}")
        seen[key] = True
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_unique_mapping)


@dataclass(frozen=True)
class Predicate:
    """A gender-neutral relation such as ``child``, with its gendered surface words.

    In a KB compiled from a kinship terminology (:mod:`clutrr.kinship`) a predicate is one
    term: its word is the same for both genders, or missing (None) for a gender the term
    never names.
    """

    name: str
    index: int
    words: tuple[str | None, str | None]
    inverse: int  # -1 when the KB declares none
    definition: str | None
    speaker: int = -1  # a terminology's term as said by a man (0) or a woman (1) only; -1: by anyone


@dataclass
class KB:
    """A loaded, validated knowledge base."""

    name: str
    path: str
    sound: bool
    description: str
    world_model: str
    predicates: list[Predicate]
    rules: dict[tuple[int, int], int]
    aliases: dict[str, str] = field(default_factory=dict)
    system: str = ""  # the kinship terminology compiled into this KB ("" for a rules file)
    glossary: dict[str, str] = field(default_factory=dict)  # a terminology's word -> its definition
    generations: int = 0  # the rules are proved only for clutrr's families of at most this many generations (0: all)

    def __post_init__(self) -> None:
        self.index = {p.name: p.index for p in self.predicates}
        self.pred_names = [p.name for p in self.predicates]  # by index
        self.word_index: dict[str, tuple[int, int]] = {}
        for p in self.predicates:
            for g, w in enumerate(p.words):
                if w is not None and w not in self.word_index:  # a word of both genders: its male entry
                    self.word_index[w] = (p.index, g)
        for alias, word in self.aliases.items():
            self.word_index[alias] = self.word_index[word]
        n = len(self.predicates)
        self.table = [[-1] * n for _ in range(n)]
        for (a, b), c in self.rules.items():
            self.table[a][b] = c
        # compose_sets results keyed by (a_bits << shift) | b_bits; hot loops read it directly
        self.shift = n
        self.set_cache: dict[int, int] = {}
        self._inverse_cache: dict[int, int] = {}
        self._arrays: tuple[np.ndarray, ...] | None = None
        # by_head[r]: every (r1, r2) with r1 . r2 -> r
        heads: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for pair, c in sorted(self.rules.items()):
            heads[c].append(pair)
        self.by_head = [tuple(h) for h in heads]

    @cached_property
    def words(self) -> tuple[str, ...]:
        """All gendered relation words (the label vocabulary), predicate by predicate, each once."""
        return tuple(dict.fromkeys(w for p in self.predicates for w in p.words if w is not None))

    def word_types(self) -> list[tuple[int, int]]:
        """Every (predicate, gender) that has a word, in word order."""
        return [(p.index, g) for p in self.predicates for g in (0, 1) if p.words[g] is not None]

    def word(self, pred: int, gender: int) -> str:
        """The word for predicate ``pred`` when the person who is that relation has ``gender``."""
        return self.predicates[pred].words[gender]

    def parse_word(self, word: str) -> tuple[int, int]:
        """(predicate index, gender index) of a relation word; raises KeyError if unknown."""
        return self.word_index[word.strip().lower()]

    def fact_predicate(self, word: str, head_gender: int) -> int:
        """The predicate a relation word states about a head of ``head_gender`` (a terminology
        may name one term by two predicates, one per speaker sex); raises KeyError if unknown."""
        p, g = self.parse_word(word)
        canonical = self.predicates[p].words[g]
        for q in self.predicates:
            if canonical in q.words and q.speaker in (-1, head_gender):
                return q.index
        return p

    def compose(self, a: int, b: int) -> int:
        """The predicate that ``a`` then ``b`` gives, or -1 when no rule applies."""
        return self.table[a][b]

    def compose_sets(self, a_bits: int, b_bits: int) -> int:
        """Compose two sets of predicates given as bitmasks; the result is a bitmask."""
        key = a_bits << self.shift | b_bits
        hit = self.set_cache.get(key)
        if hit is not None:
            return hit
        out = 0
        for a in bits(a_bits):
            row = self.table[a]
            for b in bits(b_bits):
                c = row[b]
                if c >= 0:
                    out |= 1 << c
        self.set_cache[key] = out
        return out

    def inverse_sets(self, p_bits: int) -> int:
        """The declared inverses of a set of predicates (bitmask); predicates without one drop out."""
        hit = self._inverse_cache.get(p_bits)
        if hit is None:
            hit = 0
            for p in bits(p_bits):
                inv = self.predicates[p].inverse
                if inv >= 0:
                    hit |= 1 << inv
            self._inverse_cache[p_bits] = hit
        return hit

    def rule_arrays(self) -> tuple[np.ndarray, ...]:
        """(first, second, head) predicate indices of every rule, then the predicates that
        have an inverse and those inverses, as index arrays (built once)."""
        if self._arrays is None:
            import numpy as np

            rules = sorted(self.rules.items())
            has_inverse = [p.index for p in self.predicates if p.inverse >= 0]
            self._arrays = tuple(np.array(v, dtype=np.intp) for v in (
                [a for (a, _), _ in rules], [b for (_, b), _ in rules], [c for _, c in rules],
                has_inverse, [self.predicates[p].inverse for p in has_inverse]))
        return self._arrays


def bits(mask: int) -> list[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


BUILTIN = ("kinship", "kinship-blood", "clutrr_v1")


def resolve_kb_path(name_or_path: str | Path) -> Path:
    """Map a built-in KB name (see ``BUILTIN``) or a file path to a path."""
    text = str(name_or_path)
    if text in BUILTIN:
        return data_dir("kb_rules") / f"{text}.yaml"
    return Path(text)


def _builtin_names() -> str:
    return ", ".join(BUILTIN)


@lru_cache(maxsize=16)
def load_kb(name_or_path: str = "kinship") -> KB:
    """Load and validate a KB by built-in name or path. Raises KBError on any defect."""
    path = resolve_kb_path(name_or_path)
    if not path.exists() and not path.suffix and len(path.parts) == 1:
        raise KBError(f"unknown KB {str(name_or_path)!r} (built-in KBs: {_builtin_names()}; or a rules file path)")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise KBError(f"{path}: cannot read rules file ({exc.strerror}; built-in KBs: {_builtin_names()})") from exc
    except UnicodeDecodeError as exc:
        raise KBError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                      f"save the rules file as UTF-8") from None
    try:
        return parse_kb(text, str(path))
    except KBError as exc:
        msg = str(exc)
        raise KBError(msg if msg.startswith(str(path)) else f"{path}: {msg}") from None


def parse_kb(text: str, path: str = "<string>") -> KB:
    """Parse and validate KB YAML text; ``path`` is used in error messages."""
    try:
        root = yaml.compose(text, Loader=_UniqueKeyLoader)
        data = yaml.load(text, Loader=_UniqueKeyLoader)
    except yaml.YAMLError as exc:
        raise KBError(f"{path}:{yaml_error_line(exc)}") from None
    except RecursionError:
        raise KBError(f"{path}: not a rules file (YAML nested too deeply)") from None
    _check_shape(data, path)
    preds_raw = data["predicates"]
    names = list(preds_raw)
    index = {n: i for i, n in enumerate(names)}
    predicates: list[Predicate] = []
    seen_words: dict[str, str] = {}
    terminology = data.get("terminology") is not None  # compiled from a terminology: one word per term
    for name, spec in preds_raw.items():
        spec = spec or {}
        words = spec.get("words") or {}
        for g in GENDERS:
            if not words.get(g) and not (terminology and any(words.get(h) for h in GENDERS)):
                raise KBError(f"{path}: predicate {name!r} has no {g} word")
        for g in GENDERS:
            if not words.get(g):
                continue
            w = str(words[g])
            if not terminology and w in seen_words:  # a terminology's word may name one term per speaker
                raise KBError(f"{path}: word {w!r} is used by both {seen_words[w]!r} and {name!r}")
            seen_words[w] = name
        if spec.get("symmetric"):
            inverse = name
        else:
            if "inverse" not in spec:
                raise KBError(f"{path}: predicate {name!r} declares neither an inverse nor symmetric: true")
            inverse = spec["inverse"]
            if inverse is not None and inverse not in index:
                raise KBError(f"{path}: predicate {name!r} has unknown inverse {inverse!r}")
        predicates.append(
            Predicate(
                name, index[name], tuple(str(words[g]) if words.get(g) else None for g in GENDERS),
                -1 if inverse is None else index[inverse], spec.get("define"),
                GENDERS.index(spec["speaker"]) if spec.get("speaker") in GENDERS else -1,
            )
        )
    for p in predicates:
        if p.inverse < 0:
            continue
        back = predicates[p.inverse]
        if back.inverse != p.index:
            raise KBError(f"{path}: inverse of {p.name!r} is {back.name!r}, whose inverse is not {p.name!r}")
    rules: dict[tuple[int, int], int] = {}
    rule_lines: dict[tuple[int, int], tuple[int, str]] = {}
    raw_rules = data["rules"] or []
    rule_nodes = _rule_nodes(root)
    for i, rule in enumerate(raw_rules):
        line = rule_nodes[i] if i < len(rule_nodes) else 0
        where = f"{path}:{line}"
        m = RULE_RE.match(str(rule))
        if not m:
            raise KBError(f"{where}: rule {rule!r} is not of the form 'r1 . r2 -> r'")
        for part in m.groups():
            if part not in index:
                raise KBError(f"{where}: rule {rule!r} uses unknown predicate {part!r}")
        a, b, c = (index[x] for x in m.groups())
        if (a, b) in rules:
            prev_line, prev = rule_lines[(a, b)]
            if rules[(a, b)] != c:
                raise KBError(f"{where}: rule {rule!r} conflicts with {prev!r} (line {prev_line})")
            raise KBError(f"{where}: rule {rule!r} repeats {prev!r} (line {prev_line})")
        rules[(a, b)] = c
        rule_lines[(a, b)] = (line, str(rule))
    aliases = {str(k): str(v) for k, v in (data.get("aliases") or {}).items()}
    for alias, word in aliases.items():
        if word not in seen_words:
            raise KBError(f"{path}: alias {alias!r} points to unknown word {word!r}")
    return KB(
        name=str(data["name"]),
        path=path,
        sound=bool(data.get("sound", False)),
        description=str(data.get("description", "")).strip(),
        world_model=str(data.get("world_model", "")).strip(),
        predicates=predicates,
        rules=rules,
        aliases=aliases,
        system=str((data.get("terminology") or {}).get("name", "")) if terminology else "",
        glossary={str(k): str(v) for k, v in (data.get("glossary") or {}).items()},
        generations=_generations(data.get("generations"), path),
    )


def _generations(value: object, path: str) -> int:
    """The ``generations`` key of a rules file: absent (0), or the most generations (at least 2)
    of the families its rules are proved for."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 2:
        raise KBError(f"{path}: 'generations' must be a whole number of at least 2, got {value!r}")
    return value


def _check_shape(data: object, path: str) -> None:
    """KBError unless ``data`` has the shape of a rules file: a mapping with a name, a non-empty
    mapping of predicates (each a mapping of words, inverse, symmetric, define), a list of
    rules and optional aliases."""
    if not isinstance(data, dict):
        raise KBError(f"{path}: expected a mapping at the top level")
    for key in ("name", "predicates", "rules"):
        if key not in data:
            raise KBError(f"{path}: missing top-level key {key!r}")
    preds = data["predicates"]
    if not isinstance(preds, dict) or not preds:
        raise KBError(f"{path}: 'predicates' must be a non-empty mapping")
    for name, spec in preds.items():
        if not isinstance(name, str) or not isinstance(spec, (dict, type(None))):
            raise KBError(f"{path}: predicate {name!r} must be a name with a mapping (words, inverse, ...)")
        spec = spec or {}
        if not isinstance(spec.get("words") or {}, dict):
            raise KBError(f"{path}: the words of predicate {name!r} must be a mapping of male: and female:")
        for key in ("inverse", "define"):
            if not isinstance(spec.get(key), (str, type(None))):
                raise KBError(f"{path}: the {key} of predicate {name!r} must be a name")
    if not isinstance(data["rules"], (list, type(None))):
        raise KBError(f"{path}: 'rules' must be a list of 'r1 . r2 -> r' lines")
    if not isinstance(data.get("aliases"), (dict, type(None))):
        raise KBError(f"{path}: 'aliases' must be a mapping of word: word")


def _rule_nodes(root: yaml.Node | None) -> list[int]:
    """1-based line numbers of the entries of the top-level 'rules' list."""
    if not isinstance(root, yaml.MappingNode):
        return []
    for key, value in root.value:
        if getattr(key, "value", None) == "rules" and isinstance(value, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in value.value]
    return []
