"""networkx views of a story: ``to_networkx`` and its reverse, ``from_networkx``.

Nodes are person indices (0 is the first query person); edges are the story's facts, head to
tail, keyed by their index in the story, so a ``MultiDiGraph`` keeps every fact even when two
join the same pair. networkx is imported only when these functions run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clutrr.errors import UsageError
from clutrr.graph.story import typed_record

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx

GRAPH_KEYS = ("id", "k", "noise", "pattern", "story", "target", "noise_inferred", "file", "answers")
INSTALL_HINT = "pip install 'clutrr[graph]'"


def require_networkx() -> Any:
    """The networkx module, or UsageError naming the extra that installs it."""
    try:
        import networkx
    except ImportError:
        raise UsageError(f"story graphs need networkx: {INSTALL_HINT}") from None
    return networkx


def to_networkx(source: Any) -> "nx.MultiDiGraph":
    """A ``MultiDiGraph`` of a story: a typed record, an ``Example``, a CSV ``StoryRow`` or an eval item.

    Node ``i`` has ``name``, ``gender`` and ``role`` (``head`` and ``tail`` of the query,
    ``chain``, or ``noise``). The edge ``(a, b, key=i)`` is fact ``i`` of the story, "b is a's
    relation", with ``relation`` (the word, None when the file gives none), ``predicate``
    (the KB predicate or None), ``noise`` (``none`` on the chain, else its kind) and
    ``position`` (0-based place in the chain, None for noise). ``G.graph`` holds ``query``
    (head, tail), ``target`` and the story's ``id``, ``k``, ``noise``, ``pattern``, ``story``,
    ``noise_inferred`` and, for a story of an eval's items, ``file`` and ``answers``.
    """
    nx = require_networkx()
    record = typed_record(source)
    head, tail = record["query"]
    chain = {p for e in record["edges"] if e["noise"] == "none" for p in (e["head"], e["tail"])}
    graph = nx.MultiDiGraph(query=(head, tail), **{key: record.get(key) for key in GRAPH_KEYS if key in record})
    for i, person in enumerate(record["people"]):
        role = "head" if i == head else "tail" if i == tail else "chain" if i in chain else "noise"
        graph.add_node(i, name=person["name"], gender=person["gender"], role=role)
    position = 0
    for i, e in enumerate(record["edges"]):
        on_chain = e["noise"] == "none"
        graph.add_edge(e["head"], e["tail"], key=i, relation=e["relation"], predicate=e["predicate"],
                       noise=e["noise"], position=position if on_chain else None)
        position += on_chain
    return graph


def from_networkx(graph: "nx.MultiDiGraph") -> dict:
    """The typed record of a graph made by :func:`to_networkx` (or built alike by hand):
    people in node order, facts in key order. ``to_networkx(from_networkx(G))`` equals ``G``."""
    nodes = sorted(graph.nodes)
    if nodes != list(range(len(nodes))):
        raise ValueError("the graph's nodes must be the person indices 0..n-1")
    record: dict = {key: graph.graph.get(key) for key in GRAPH_KEYS if key in graph.graph}
    record["people"] = [{"name": graph.nodes[i]["name"], "gender": graph.nodes[i]["gender"]} for i in nodes]
    facts = sorted(graph.edges(keys=True, data=True), key=lambda e: e[2])
    record["edges"] = [{"head": a, "tail": b, "relation": d.get("relation"), "predicate": d.get("predicate"),
                        "noise": d.get("noise", "none")} for a, b, _, d in facts]
    record["query"] = list(graph.graph["query"])
    if record.get("k") is None:
        record["k"] = sum(e["noise"] == "none" for e in record["edges"])
    return typed_record(record)
