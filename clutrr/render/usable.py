"""The templates the generator uses: a bank without its flagged templates, with the one-fact
clauses it lacks filled in from a fallback bank.

Flagging a bank (:func:`clutrr.render.bank_check.flag_entries`) takes a few seconds, so the
ids of the dropped templates are cached in a user cache folder (``$CLUTRR_CACHE_DIR``, else
``$XDG_CACHE_HOME/clutrr``, else ``~/.cache/clutrr``), keyed by a hash of the templates and
of the checker's source. The cache only saves time: a missing or unwritable folder gives the
same templates, and nothing is ever written into the installed package.
"""
from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from clutrr.core.kb import GENDERS, load_kb
from clutrr.render.templates import Bank, Template, load_bank

NO_FALLBACK = "none"
_CHECKER_SOURCES = ("statements.py", "bank_check.py", "usable.py")


def cache_dir() -> Path:
    """The folder of cached flags (it may not exist yet)."""
    if os.environ.get("CLUTRR_CACHE_DIR"):
        return Path(os.environ["CLUTRR_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "clutrr"


def _key(templates: list[Template], kb_name: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    here = Path(__file__).resolve().parent
    for name in _CHECKER_SOURCES:
        h.update((here / name).read_bytes())
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
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    table = _flag(templates, kb_name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(table), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass
    return table


def _without(bank: Bank, drop: dict[str, list[str]], name: str) -> Bank:
    return Bank([t for t in bank.templates() if t.id not in drop], name)


@lru_cache(maxsize=8)
def usable_bank(source: str, kb_name: str = "kinship") -> Bank:
    """The bank ``source`` (see :func:`~clutrr.render.templates.load_bank`) without the templates
    the checker flags; ``dropped`` counts them per rule (a template once per rule) and in
    ``total``. A train/test pair keeps its holdout, both halves filtered."""
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
