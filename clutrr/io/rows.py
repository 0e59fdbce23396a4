"""The encoded rows of a task: what a worker sends back and a shard writer writes.

A task names a file and positions in it (with the attempt of each, 0 unless the row
replaces a duplicate story). Its result holds only finished rows: the CSV line, the JSONL
line, the Parquet-ready record when asked, a 128-bit hash of each story, and the row's
label and pattern for the statistics. It never holds family or chain objects. The worker
that fills it is :func:`clutrr.pipeline.tasks.run_task`.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from clutrr.core.kb import GENDERS, KB
from clutrr.core.native import mypyc_attr
from clutrr.story.example import Example, edge_entry, per_kb, person_entry, piece_entry


def _orjson() -> Any:
    """The orjson module, or None (optional, pip install 'clutrr[fast]': the same bytes, several times faster)."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - depends on the environment
        return None
    return orjson


orjson = _orjson()
_NEWLINE = 0 if orjson is None else orjson.OPT_APPEND_NEWLINE

_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


@mypyc_attr(native_class=False)  # pickled to the workers
@dataclass(frozen=True)
class Task:
    """Positions of one logical file; ``attempts`` is None when every attempt is 0."""

    number: int
    file: int
    positions: range | tuple[int, ...]
    attempts: tuple[int, ...] | None = None


@mypyc_attr(native_class=False)  # pickled back from the workers
@dataclass
class TaskResult:
    """Finished rows of a task, in the task's order."""

    task: Task
    csv: list[bytes] = field(default_factory=list)  # UTF-8 lines, encoded by the worker
    jsonl: list[bytes] = field(default_factory=list)
    records: list[dict] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)  # 16 bytes per row
    labels: Counter = field(default_factory=Counter)
    patterns: Counter = field(default_factory=Counter)
    heldout: int = 0  # rows whose pattern is held out of training
    heldout_in_train: int = 0
    text: dict = field(default_factory=dict)  # the counts of a TextTally over the rows

    @property
    def rows(self) -> int:
        """Rows in the result."""
        return len(self.hashes)


def json_line(record: dict) -> bytes:
    """A JSONL line in UTF-8: compact JSON with non-ASCII text kept. orjson, when installed,
    writes exactly these bytes (the tests compare both); integers beyond 64 bits go to ``json``."""
    if orjson is not None:
        try:
            return orjson.dumps(record, option=_NEWLINE)
        except TypeError:
            pass
    return (_COMPACT.encode(record) + "\n").encode()


def example_line(ex: Example) -> bytes:
    """The JSONL line of ``ex``: the bytes of ``json_line(ex.record)``. With orjson, the entries of
    its people, edges and pieces are JSON kept from earlier stories (:class:`EntryJson`), so the
    record of dicts is never built."""
    if orjson is not None:
        try:
            parts = entry_json(ex.kb)
            return orjson.dumps(ex.record_with(parts.people(ex), parts.edges(ex), parts.pieces(ex)), option=_NEWLINE)
        except TypeError:  # what orjson refuses (an integer beyond 64 bits): json_line writes it
            pass
    return json_line(ex.record)


ENTRY_JSON_LIMIT = 1 << 16  # entries an EntryJson keeps (it starts again beyond): well under 100 MB
EDGE_KEY = 1 << 10  # an edge's head, tail and predicate below this make one int key


class EntryJson:
    """The JSON of the record entries of one KB's stories (people, edges, pieces), as
    ``orjson.Fragment`` objects keyed by what makes each: a story reuses most of them."""

    def __init__(self, kb: KB) -> None:
        self.kb = kb
        self.pred_names: list[str] = kb.pred_names
        self.gender_words: list[str] = list(GENDERS)
        self.by_person: list[dict[str, object]] = [{} for _ in GENDERS]  # by gender, then name
        self.by_edge: dict[int, dict[str, dict[str, object]]] = {}  # by head, tail, predicate; noise kind; word
        self.by_piece: dict[str, dict[tuple[int, ...], object]] = {}  # by template, then its edges
        self.size = 0
        self.edge_key = EDGE_KEY  # read once (a module's global is a dict lookup per read)

    def _made(self, entry: dict) -> object:
        """The JSON of a new entry. The caches start again when they hold too many (an entry
        made meanwhile may go to a table no longer kept: it is made again when next met)."""
        self.size += 1
        if self.size > ENTRY_JSON_LIMIT:
            self.size = 1
            for people in self.by_person:
                people.clear()
            self.by_edge.clear()
            self.by_piece.clear()
        # an exact-size copy: the bytes orjson returns keep its write buffer's capacity (about 4 KB)
        return orjson.Fragment(bytes(memoryview(orjson.dumps(entry))))

    def people(self, ex: Example) -> list:
        """The JSON of the entries of ``ex.people``."""
        out: list = []
        for name, g in zip(ex.names, ex.genders):
            known = self.by_person[g]
            got = known.get(name)
            if got is None:
                got = known[name] = self._made(person_entry(name, self.gender_words[g]))
            out.append(got)
        return out

    def edges(self, ex: Example) -> list:
        """The JSON of the entries of ``ex.edges``."""
        out: list = []
        n = self.edge_key
        for edge, word in zip(ex.edges, ex.words):
            a, p, b, kind = edge
            if a >= n or b >= n or p >= n:  # beyond what a key holds: not kept
                out.append(edge_entry(edge, word, self.pred_names))
                continue
            key = (a * n + b) * n + p  # an int: a tuple key is boxed, hashed and compared
            kinds = self.by_edge.get(key)
            if kinds is None:
                kinds = self.by_edge[key] = {}
            words = kinds.get(kind)
            if words is None:
                words = kinds[kind] = {}
            got = words.get(word)
            if got is None:
                got = words[word] = self._made(edge_entry(edge, word, self.pred_names))
            out.append(got)
        return out

    def pieces(self, ex: Example) -> list:
        """The JSON of the entries of ``ex.pieces``."""
        out: list = []
        for piece in ex.pieces:
            facts = self.by_piece.get(piece[1])
            if facts is None:
                facts = self.by_piece[piece[1]] = {}
            got = facts.get(piece[2])
            if got is None:
                got = facts[piece[2]] = self._made(piece_entry(piece))
            out.append(got)
        return out


_ENTRY_JSON: dict[int, tuple[KB, EntryJson]] = {}  # id(kb) -> the KB and its EntryJson


def entry_json(kb: KB) -> EntryJson:
    """The :class:`EntryJson` of ``kb`` (one per KB in a process)."""
    return per_kb(_ENTRY_JSON, kb, EntryJson)


_BLAKE2B_16: Final = hashlib.blake2b(digest_size=16)  # copied per story: no arguments parsed, no lookup


def story_hash(story: str) -> bytes:
    """The 128-bit key under which stories are de-duplicated (BLAKE2b of the UTF-8 story)."""
    h = _BLAKE2B_16.copy()
    h.update(story.encode())
    return h.digest()
