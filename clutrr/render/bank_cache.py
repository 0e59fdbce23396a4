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
from clutrr.render.templates import Bank, Template

try:  # optional (pip install 'clutrr[fast]'): the same data, read about three times faster
    from orjson import loads
except ImportError:  # pragma: no cover - depends on the environment
    from json import loads

FORMAT = 1  # of compiled bank files; their names also change with the code that writes them


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


def _plan(data: list) -> tuple:
    head, slots = data
    return head, tuple((e, f if f is None else (f[0], f[1]), tail) for e, f, tail in slots)


def encode_bank(bank: Bank, flags: dict[str, bool]) -> dict:
    """A compiled bank (its templates' render plans worked out) and the templates' self-possessive
    flags, as JSON-ready data; templates shared by the holdout are stored once. (A template's
    parts, which only the probes read, are worked out again from its text when asked for.)"""
    order: dict[int, int] = {}
    rows: list[list] = []

    def index(part: Bank) -> list[int]:
        out = []
        for t in part.templates():
            if id(t) not in order:
                order[id(t)] = len(rows)
                head, slots = t.compile_plan()
                rows.append([t.id, list(t.clause), t.gender, t.text, t.source, [head, slots]])
            out.append(order[id(t)])
        return out

    def describe(part: Bank) -> dict:
        return {"name": part.name, "templates": index(part), "fallback_ids": sorted(part.fallback_ids),
                "dropped": part.dropped}

    return {"format": FORMAT, "bank": describe(bank),
            "holdout": None if bank.holdout is None else [describe(p) for p in bank.holdout],
            "template_rows": rows, "flags": flags}


def decode_bank(data: object) -> tuple[Bank, dict[str, bool]] | None:
    """The (bank, flags) of :func:`encode_bank`'s data, or None when it is not such data."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return None
    try:
        templates = []
        for tid, clause, gender, text, source, plan in data["template_rows"]:
            templates.append(Template(tid, tuple(clause), gender, text, source, _plan=_plan(plan)))

        def build(part: dict, holdout: tuple[Bank, Bank] | None = None) -> Bank:
            return Bank([templates[i] for i in part["templates"]], part["name"], holdout=holdout,
                        fallback_ids=frozenset(part["fallback_ids"]), dropped=part["dropped"])

        holdout = None if data["holdout"] is None else tuple(build(p) for p in data["holdout"])
        return build(data["bank"], holdout), dict(data["flags"])
    except (KeyError, TypeError, ValueError, IndexError):
        return None
