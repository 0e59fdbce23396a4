"""The templates the generator uses: a bank without its flagged templates, with the one-fact
clauses it lacks filled in from a fallback bank.

Flagging a bank (:func:`clutrr.render.bank_check.flag_entries`) takes a few seconds, so the
ids of the dropped templates are cached in a user cache folder
(:mod:`clutrr.render.bank_cache`), keyed by a hash of the templates, of the checker's
source and of the data it reads (the KB file, the first-name lists that tell an extra named
person). The usable bank itself is cached there too, compiled (each template's text split
into literals and slots, and its self-possessive flag worked out), as JSON keyed by the
bytes of the bank's files, of the KB file and of the code that reads them: a process then
loads the bank without parsing YAML or compiling a template. The caches only save time: a
missing, unwritable or untrusted folder gives the same templates, and nothing is ever
written into the installed package.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from clutrr.core.kb import GENDERS, load_kb, resolve_kb_path
from clutrr.core.names import name_files
from clutrr.paths import cache_dir
from clutrr.render.bank_cache import decode_bank, encode_bank, load, store
from clutrr.render.bank_files import bank_paths, load_bank
from clutrr.render.templates import Bank, Template

NO_FALLBACK = "none"
_CHECKER_SOURCES = ("statements.py", "world.py", "grammar.py", "normalise.py", "bank_check.py", "usable.py")


def _checker_inputs(kb_name: str) -> tuple[Path, ...]:
    """The files a flag depends on besides the templates: the checker's source, the KB file
    and the first-name lists (a name-list change must refresh the cached flags)."""
    here = Path(__file__).resolve().parent
    shapes = sorted((here / "shapes").glob("*.py"))  # the reader's grammar
    return (*(here / name for name in _CHECKER_SOURCES), *shapes, resolve_kb_path(kb_name), *name_files())


def _key(templates: list[Template], kb_name: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for path in _checker_inputs(kb_name):
        h.update(path.read_bytes())
    h.update(kb_name.encode())
    for t in templates:
        h.update(f"\x1f{t.id}\x1e{t.source.endswith('.json')}\x1e{t.text}".encode())
    return h.hexdigest()


def _flag(templates: list[Template], kb_name: str) -> dict[str, list[str]]:
    from clutrr.render.bank_check import Entry, flag_entries

    dropped: dict[str, set[str]] = {}
    for e, f in flag_entries([Entry(t, t.source) for t in templates], kb_name):
        if f.drops:
            dropped.setdefault(e.template.id, set()).add(f.rule)
    return {i: sorted(r) for i, r in sorted(dropped.items())}


def dropped_rules(templates: list[Template], kb_name: str = "kinship") -> dict[str, list[str]]:
    """Id -> the rules it breaks, for every template the generator drops (cached on disk)."""
    path = cache_dir() / f"flags-{_key(templates, kb_name)}.json"
    table = load(path)
    if isinstance(table, dict):
        return table
    table = _flag(templates, kb_name)
    store(path, table)
    return table


def _without(bank: Bank, drop: dict[str, list[str]], name: str) -> Bank:
    return Bank([t for t in bank.templates() if t.id not in drop], name)


_COMPILED_SOURCES = ("templates.py", "slots.py", "bank_files.py", "measures.py", "amt_templates.py", "bank_cache.py")


def _compiled_key(source: str, kb_name: str) -> str | None:
    """A hash of everything the usable bank is made of, or None when a file cannot be read."""
    from clutrr.render.amt_templates import amt_pair

    here = Path(__file__).resolve().parent
    h = hashlib.blake2b(f"{source}\x1f{kb_name}".encode(), digest_size=16)
    pair = amt_pair(source)
    try:
        for path in (*_checker_inputs(kb_name), *(here / name for name in _COMPILED_SOURCES),
                     *(pair if pair is not None else bank_paths(source))):
            h.update(f"\x1f{path}\x1e".encode())
            h.update(path.read_bytes())
    except OSError:
        return None
    return h.hexdigest()


@lru_cache(maxsize=8)
def usable_bank(source: str, kb_name: str = "kinship") -> Bank:
    """The bank ``source`` (see :func:`~clutrr.render.templates.load_bank`) without the templates
    the checker flags; ``dropped`` counts them per rule (a template once per rule) and in
    ``total``. A train/test pair keeps its holdout, both halves filtered. Read from the
    compiled cache when it holds this bank."""
    from clutrr.render.measures import template_self_possessive, known_self_possessives

    key = _compiled_key(source, kb_name)
    path = cache_dir() / f"bank-{key}.json"
    cached = decode_bank(load(path)) if key is not None else None
    if cached is not None:
        known_self_possessives(cached[1])
        return cached[0]
    bank = _usable_bank(source, kb_name)
    templates = bank.templates() + [t for part in bank.holdout or () for t in part.templates()]
    flags = {}
    for t in templates:
        t.compile_plan()
        flags[t.id] = template_self_possessive(t)
    if key is not None:
        store(path, encode_bank(bank, flags))
    return bank


def _usable_bank(source: str, kb_name: str) -> Bank:
    bank = load_bank(source)
    drop = dropped_rules(bank.templates(), kb_name)
    counts = Counter(r for rules in drop.values() for r in rules)
    holdout = None
    if bank.holdout is not None:
        holdout = tuple(_without(part, drop, part.name) for part in bank.holdout)
    return Bank([t for t in bank.templates() if t.id not in drop], bank.name, holdout=holdout,
                dropped={"total": len(drop), **dict(sorted(counts.items()))})


def fill(part: Bank, fallback: Bank, kb_name: str = "kinship") -> Bank:
    """``part`` with, for each relation word and each gender its first person can have, the
    fallback's one-fact templates when ``part`` has none. An ``any`` template filled in for
    one gender is restricted to it."""
    from clutrr.render.bank_check import possible_heads

    kb = load_kb(kb_name)
    added: list[Template] = []
    for word in kb.words:
        missing = [g for g in GENDERS if not part.choices((word,), g)]
        if not missing:
            continue
        heads = possible_heads(kb_name).get((word,), frozenset())
        for g in missing:
            if g in heads:
                added += [t if t.gender == g else replace(t, gender=g) for t in fallback.choices((word,), g)]
    if not added:
        return part
    return Bank(part.templates() + added, part.name, fallback_ids=frozenset(t.id for t in added),
                dropped=part.dropped)


def split_banks(source: str, fallback: str, template_split: bool, seed: int,
                kb_name: str = "kinship") -> tuple[Bank, Bank]:
    """The (train, test) banks of generation: ``source`` without flagged templates, split (or
    not), each half filled from the same half of ``fallback`` (``none``: no filling)."""
    bank = usable_bank(source, kb_name)
    parts = bank.split(seed) if template_split else (bank, bank)
    if fallback in (NO_FALLBACK, "", source):
        return parts[0], parts[1]
    fb = usable_bank(fallback, kb_name)
    fb_parts = fb.split(seed) if template_split else (fb, fb)
    return fill(parts[0], fb_parts[0], kb_name), fill(parts[1], fb_parts[1], kb_name)
