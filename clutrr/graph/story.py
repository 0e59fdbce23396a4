"""A story's graph as plain data: the typed record every input is turned into.

The form is the typed record of a dataset folder's ``*.jsonl`` files (and of
``Example.record``), keeping what a picture or a graph needs::

    id, k, noise (the file's noise type or None), pattern, story, target
    people   [{name, gender}]
    edges    [{head, tail, relation, predicate, noise}]   chain facts first, in order
    query    [head, tail]                                   indices into people
    noise_inferred   False for a typed record, True when the kinds were read off the graph's shape
    file, answers    for a story of ``clutrr eval``'s items: its test file and the models' answers
                     ([{model, answer, correct, sample}])

An edge says "tail is head's relation". ``noise`` is ``none`` on a chain fact, else
``supporting``, ``irrelevant`` or ``disconnected``.

A CSV row (ours or a released CLUTRR file) and an item of ``clutrr.eval.items.make_item``
do not name the noise kinds; they are read off the shape, which is how the generator
defines them: after the k chain facts (the first k story edges, a path from the first
query person to the second), every path of noise facts that joins two chain people is
supporting, one that touches one chain person is irrelevant, one that touches none is
disconnected. For our files this gives exactly the kinds of the JSONL records. The
released files give no relation word for noise facts: their ``relation`` and ``predicate``
are None.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from clutrr.core.kb import load_kb
from clutrr.core.noise import TASK_OF_NOISE
from clutrr.errors import UsageError
from clutrr.core.records import StoryRow

NOISE_KINDS = ("supporting", "irrelevant", "disconnected")


class StoryGraphError(UsageError, ValueError):
    """An input that does not describe a story graph (its chain is not a path, an index is out of range)."""


@lru_cache(maxsize=1)
def _word_table() -> dict[str, tuple[str, str]]:
    """Relation word (and the released files' spellings) -> (the kinship KB's word, predicate name)."""
    kb = load_kb("kinship")
    table = {w: (w, kb.predicates[p].name) for w, (p, _) in kb.word_index.items()}
    original = load_kb("clutrr_v1")
    for alias, (p, g) in original.word_index.items():
        word = original.word(p, g)
        if alias not in table and word in table:
            table[alias] = table[word]
    return table


def canonical_word(word: str) -> str:
    """The kinship KB's spelling of a relation word (``neice`` -> ``niece``); others lower-cased."""
    key = word.strip().lower()
    hit = _word_table().get(key)
    return hit[0] if hit else key


def predicate_of(word: str | None) -> str | None:
    """The kinship KB predicate of a relation word (``neice`` accepted), or None when unknown."""
    if word is None:
        return None
    hit = _word_table().get(word.strip().lower())
    return hit[1] if hit else None


def infer_noise_kinds(edges: list[tuple[int, int]], k: int) -> list[str]:
    """The noise kind of each edge: ``none`` for the first ``k`` (the chain), else by shape.

    Noise facts that meet at a person off the chain belong to one path; a path joining two or
    more chain people is supporting, one touching one is irrelevant, one touching none is
    disconnected.
    """
    chain = {p for e in edges[:k] for p in e}
    owner: dict[int, int] = {}  # person off the chain -> a noise edge of their path
    parent = list(range(len(edges)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(k, len(edges)):
        for p in edges[i]:
            if p in chain:
                continue
            if p in owner:
                parent[find(i)] = find(owner[p])
            else:
                owner[p] = i
    touched: dict[int, set[int]] = {}
    for i in range(k, len(edges)):
        touched.setdefault(find(i), set()).update(p for p in edges[i] if p in chain)
    kinds = ["none"] * min(k, len(edges))
    for i in range(k, len(edges)):
        n = len(touched[find(i)])
        kinds.append("supporting" if n >= 2 else "irrelevant" if n == 1 else "disconnected")
    return kinds


def _check_chain(edges: list[tuple[int, int]], k: int, query: tuple[int, int], n_people: int, what: str) -> None:
    """StoryGraphError unless every index names a person and the first ``k`` edges lead from
    the first query person to the second."""
    if any(not (0 <= p < n_people) for e in [*edges, query] for p in e):
        raise StoryGraphError(f"{what}: an edge or the query names a person missing from the people")
    chain = edges[:k]
    linked = all(b == a for (_, b), (a, _) in zip(chain, chain[1:]))
    if k < 1 or len(chain) < k or not linked or chain[0][0] != query[0] or chain[-1][1] != query[1]:
        raise StoryGraphError(f"{what}: the first {k} facts are not a chain from the first query person to the second")


def _from_facts(ident: str, people: list[dict], facts: list[tuple[int, str | None, int]], k: int,
                query: tuple[int, int], extra: dict) -> dict:
    edges = [(a, b) for a, _, b in facts]
    _check_chain(edges, k, query, len(people), f"story {ident}")
    kinds = infer_noise_kinds(edges, k)
    return {
        "id": ident, "k": k, "people": people,
        "edges": [{"head": a, "tail": b, "relation": w, "predicate": predicate_of(w), "noise": kind}
                  for (a, w, b), kind in zip(facts, kinds)],
        "query": list(query), "noise_inferred": True, **extra,
    }


def noise_of_task(task_name: str) -> str | None:
    """The noise type a task name gives (``task_3.4``: irrelevant), or None."""
    number = task_name.removeprefix("task_").split(".")[0]
    return next((kind for kind, n in TASK_OF_NOISE.items() if str(n) == number), None)


def record_from_row(row: StoryRow, noise: str | None = None) -> dict:
    """The typed record of a CSV row; ``noise`` is the file's noise type (default: from its task name)."""
    k = row.k
    types = list(row.edge_types)
    facts = [(int(a), types[i] if i < len(types) else None, int(b)) for i, (a, b) in enumerate(row.story_edges)]
    people = [{"name": name, "gender": gender} for name, gender in row.genders]
    extra = {"noise": noise or noise_of_task(row.task_name), "pattern": row.f_comb, "story": row.story, "target": row.target}
    return _from_facts(row.id, people, facts, k, (int(row.query_edge[0]), int(row.query_edge[1])), extra)


def record_from_item(item: dict) -> dict:
    """The typed record of an item of ``clutrr.eval.items.make_item`` (its metadata holds the facts)."""
    meta = item.get("metadata") or {}
    if "facts" not in meta or "people" not in meta:
        raise StoryGraphError(f"item {item.get('id')}: no metadata facts and people to draw")
    facts = [(int(f["head"]), f["relation"], int(f["tail"])) if isinstance(f, dict) else (int(f[0]), f[1], int(f[2]))
             for f in meta["facts"]]  # {head, relation, tail}, or [head, relation, tail] in items of 0.2
    query = tuple(int(i) for i in meta["query_edge"])
    extra = {"noise": meta.get("noise"), "pattern": meta.get("pattern"), "story": item.get("story", ""),
             "target": item.get("answer")}
    return _from_facts(str(item["id"]), list(meta["people"]), facts, int(meta["k"]), query, extra)


def typed_record(source: Any) -> dict:
    """The typed record (module docstring) of a record dict, an ``Example``, a ``StoryRow`` or an item."""
    if isinstance(source, StoryRow):
        return record_from_row(source)
    if hasattr(source, "record") and isinstance(source.record, dict):  # an Example of the generator
        source = source.record
    if not isinstance(source, dict):
        raise TypeError(f"cannot read a story graph from {type(source).__name__}")
    if "edges" not in source:
        return record_from_item(source)
    record = {key: source.get(key) for key in ("id", "k", "noise", "pattern", "story", "target")}
    record["people"] = [{"name": p["name"], "gender": p["gender"]} for p in source["people"]]
    record["edges"] = [{"head": e["head"], "tail": e["tail"], "relation": e.get("relation"),
                        "predicate": e.get("predicate"), "noise": e.get("noise", "none")} for e in source["edges"]]
    record["query"] = list(source["query"])
    record["noise_inferred"] = bool(source.get("noise_inferred", False))
    if record["k"] is None:
        record["k"] = sum(e["noise"] == "none" for e in record["edges"])
    _check_chain([(e["head"], e["tail"]) for e in record["edges"]], record["k"], tuple(record["query"]),
                 len(record["people"]), f"story {record['id']}")
    for key in ("file", "answers"):  # an eval item's test file and the models' answers
        if source.get(key) is not None:
            record[key] = source[key]
    return record


def answer_lines(record: Any) -> list[str]:
    """One line per model answer of a record (its ``answers``, from an eval's items); none for other sources."""
    lines = []
    for a in (record.get("answers") if isinstance(record, dict) else None) or []:
        sample = f" (sample {a['sample']})" if a.get("sample") else ""
        answer = a["answer"] if a.get("answer") is not None else "(no answer read)"
        lines.append(f"{a.get('model')}{sample} answered: {answer}   ({'right' if a.get('correct') else 'wrong'})")
    return lines
