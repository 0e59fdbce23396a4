"""Where each person goes in a picture: one row per generation, the chain read left to right.

The generation step of a fact comes from the kinship KB's definitions (``parent`` one
generation up, ``child`` one down, ``spouse`` and ``sibling`` level), so the picture reads
like a family tree: elders on top. Chain person i stands in column i; noise people sit
beside the chain people they hang from; a path not connected to the chain is drawn below,
from the left. A fact with no relation word (noise in the released files) counts as level.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

from clutrr.core.genealogy import parse_definition
from clutrr.core.kb import KBError, load_kb

GAP = 1.0  # least distance between two people of one generation
LEVEL = 0.85  # vertical distance between generations
RELAX_ROUNDS = 30


def _steps(tree: tuple, trees: dict[str, tuple], owner: str) -> int | None:
    """Generations up from head to tail along a definition; None when its branches disagree."""
    op = tree[0]
    if op == "name":
        name = tree[1]
        if name == "parent" and (owner == "parent" or name not in trees):
            return 1
        if name in ("spouse", "self") and (owner == name or name not in trees):
            return 0
        return _steps(trees[name], trees, name) if name in trees else None
    if op == "~":
        inner = _steps(tree[1], trees, owner)
        return None if inner is None else -inner
    left, right = _steps(tree[1], trees, owner), _steps(tree[2], trees, owner)
    if op == ".":
        return None if left is None or right is None else left + right
    if op == "|":
        return left if left == right else None
    return left  # "a - b": a's step


@lru_cache(maxsize=4)
def generation_steps(kb_name: str = "kinship") -> dict[str, int]:
    """Predicate name -> generations from a fact's head up to its tail (parent 1, child -1),
    for every predicate of the KB whose definition fixes it."""
    kb = load_kb(kb_name)
    trees = {}
    for p in kb.predicates:
        if p.definition is None:
            raise KBError(f"KB {kb.name}: predicate {p.name!r} has no definition")
        trees[p.name] = parse_definition(p.definition)
    out = {}
    for name, tree in trees.items():
        step = _steps(tree, trees, name)
        if step is not None:
            out[name] = step
    return out


def _chain_order(graph: Any) -> list[int]:
    head, _ = graph.graph["query"]
    facts = sorted((d["position"], b) for _, b, d in graph.edges(data=True) if d["position"] is not None)
    return [head] + [b for _, b in facts]


def _generations(graph: Any, start: list[int], gen: dict[int, int]) -> list[int]:
    """Give every person reachable from ``start`` (already in ``gen``) a generation; the order reached."""
    steps = generation_steps()
    order, frontier = [], list(start)
    while frontier:
        nxt = []
        for u in frontier:
            out = ((v, steps.get(d["predicate"], 0)) for _, v, d in graph.out_edges(u, data=True))
            into = ((v, -steps.get(d["predicate"], 0)) for v, _, d in graph.in_edges(u, data=True))
            for v, step in (*out, *into):
                if v not in gen:
                    gen[v] = gen[u] + step
                    order.append(v)
                    nxt.append(v)
        frontier = nxt
    return order


def _relax(neighbours: dict[int, list[int]], x: dict[int, float], free: list[int]) -> None:
    """Move each free person towards the mean column of their neighbours (fixed people stay)."""
    for _ in range(RELAX_ROUNDS):
        for v in free:
            x[v] = sum(x[u] for u in neighbours[v]) / len(neighbours[v])


def _place(level: list[float], want: float) -> float:
    """The free spot of a generation nearest to ``want`` (half-column steps)."""
    for i in range(200):
        cand = want + (i + 1) // 2 * 0.5 * (1 if i % 2 else -1)
        if all(abs(cand - other) >= GAP - 1e-9 for other in level):
            return cand
    return max(level) + GAP


def layered_layout(graph: Any) -> dict[int, tuple[float, float]]:
    """(x, y) of every person of a graph from :func:`clutrr.graph.to_networkx`."""
    chain = _chain_order(graph)
    gen = {chain[0]: 0}
    x: dict[int, float] = {p: float(i) for i, p in enumerate(chain)}
    steps = generation_steps()
    for a, b in zip(chain, chain[1:]):
        data = next(d for _, t, d in graph.out_edges(a, data=True) if t == b and d["position"] is not None)
        gen[b] = gen[a] + steps.get(data["predicate"], 0)
    hanging = _generations(graph, chain, gen)
    undirected = graph.to_undirected(as_view=True)
    neighbours = {v: list(undirected.neighbors(v)) for v in hanging}
    for v in hanging:  # start beside the person they were reached from
        x[v] = x[next(u for u in neighbours[v] if u in x)]
    _relax(neighbours, x, hanging)
    rows: dict[int, list[float]] = {}
    for p in chain:
        rows.setdefault(gen[p], []).append(x[p])
    for v in hanging:
        x[v] = _place(rows.setdefault(gen[v], []), round(x[v] * 2) / 2)
        rows[gen[v]].append(x[v])
    pos = {p: (x[p], gen[p] * LEVEL) for p in x}
    _place_apart(graph, pos)
    return pos


def _place_apart(graph: Any, pos: dict[int, tuple[float, float]]) -> None:
    """Lay the people not connected to the chain below it, one path after another from the left."""
    bottom = min(y for _, y in pos.values()) if pos else 0.0
    left = 0.0
    for person in sorted(graph.nodes):
        if person in pos:
            continue
        gen = {person: 0}
        part = [person, *_generations(graph, [person], gen)]
        top = max(gen.values())
        order = sorted(part)
        for i, p in enumerate(order):
            pos[p] = (left + i * GAP, bottom - 1.6 * LEVEL - (top - gen[p]) * LEVEL)
        left += len(order) * GAP + GAP
