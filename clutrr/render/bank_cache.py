"""The user cache of template flags and compiled banks: plain JSON, read only when trusted.

Files live in ``$CLUTRR_CACHE_DIR``, else ``$XDG_CACHE_HOME/clutrr``, else
``~/.cache/clutrr``. They hold data only (no pickle: a planted file cannot run code), and a
file is read only when the user running clutrr owns it and nobody else may write it: a
cache in a shared folder cannot change the stories another user generates. A file that
fails either test, or does not parse, is ignored and the bank is built again.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from clutrr.paths import trusted
from clutrr.render.templates import Bank, made_template

try:  # optional (pip install 'clutrr[fast]'): the same data, read about three times faster
    from orjson import loads
except ImportError:  # pragma: no cover - depends on the environment
    from json import loads

FORMAT = 2  # of compiled bank files; their names also change with the code that writes them


def load(path: Path) -> object | None:
    """The JSON in a trusted cache file, or None (absent, untrusted, unreadable or not JSON)."""
    if not trusted(path):
        return None
    try:
        return loads(path.read_bytes())
    except (OSError, ValueError):  # orjson's decoding error is a ValueError too
        return None


def store(path: Path, data: object) -> None:
    """Write ``data`` as JSON atomically, readable and writable by this user only; a folder
    that cannot be written is no error (the cache only saves time)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
        os.replace(tmp, path)
    except OSError:  # a full disk, say: leave no partial file behind
        with contextlib.suppress(OSError):
            tmp.unlink()


class _Numbered:
    """Values numbered in the order they are first met: a table stored once, that rows refer to."""

    def __init__(self, first: tuple = ()) -> None:
        self.values: list = list(first)
        self._number = {v: i for i, v in enumerate(self.values)}

    def __call__(self, value: object) -> int:
        number = self._number.get(value)
        if number is None:
            number = self._number[value] = len(self.values)
            self.values.append(value)
        return number


def encode_bank(bank: Bank, flags: dict[str, bool]) -> dict:
    """A compiled bank (its templates' render plans worked out) and the templates' self-possessive
    flags, as JSON-ready data; templates shared by the holdout are stored once. A template row is
    ``[id, clause, gender, text, source, plan head, plan slots, flag]``, with clause, gender, source
    and each slot's gendered forms numbers in tables stored once (``forms`` 0: a name), so the
    file is small and quick to read. (A template's parts, which only the probes read, are worked out
    again from its text when asked for.)"""
    order: dict[int, int] = {}
    rows: list[list] = []
    clauses, genders, sources, forms = _Numbered(), _Numbered(), _Numbered(), _Numbered((None,))

    def index(part: Bank) -> list[int]:
        out = []
        for t in part.templates():
            if id(t) not in order:
                order[id(t)] = len(rows)
                head, slots = t.compile_plan()
                rows.append([t.id, clauses(t.clause), genders(t.gender), t.text, sources(t.source), head,
                             [[e, forms(f if f is None else tuple(f)), tail] for e, f, tail in slots], flags[t.id]])
            out.append(order[id(t)])
        return out

    def describe(part: Bank) -> dict:
        return {"name": part.name, "templates": index(part), "fallback_ids": sorted(part.fallback_ids),
                "dropped": part.dropped}

    described = describe(bank), None if bank.holdout is None else [describe(p) for p in bank.holdout]
    return {"format": FORMAT, "bank": described[0], "holdout": described[1], "template_rows": rows,
            "clauses": clauses.values, "genders": genders.values, "sources": sources.values,
            "forms": forms.values[1:]}


def decode_bank(data: object) -> tuple[Bank, dict[str, bool]] | None:
    """The (bank, flags) of :func:`encode_bank`'s data, or None when it is not such data."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    try:
        clauses = [tuple(c) for c in data["clauses"]]
        genders, sources = list(data["genders"]), list(data["sources"])
        forms = [None, *((male, female) for male, female in data["forms"])]
        templates, flags = [], {}
        for tid, clause, gender, text, source, head, slots, flag in data["template_rows"]:
            plan = (head, tuple([(e, forms[f], tail) for e, f, tail in slots]))
            templates.append(made_template(tid, clauses[clause], genders[gender], text, sources[source], plan))
            flags[tid] = flag

        def build(part: dict, holdout: tuple[Bank, Bank] | None = None) -> Bank:
            return Bank([templates[i] for i in part["templates"]], part["name"], holdout=holdout,
                        fallback_ids=frozenset(part["fallback_ids"]), dropped=part["dropped"])

        holdout = None if data["holdout"] is None else tuple(build(p) for p in data["holdout"])
        return build(data["bank"], holdout), flags
    except (KeyError, TypeError, ValueError, IndexError):
        return None
