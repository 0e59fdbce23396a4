"""How hard a story is to search: its facts, the distractors touching its chain, and the
paths between the query's two people.

The story graph is undirected: one node per story person, one edge per pair of people some
fact joins. A path is a sequence of distinct people, each joined to the next; its length is
its number of edges. Paths of length at most ``k + 2`` between the query's people are
counted by a depth-first search that never enters a person farther from the query's second
person than the length left; it stops at :data:`PATHS_CAP` paths or after
:data:`SEARCH_STEPS` steps, whichever comes first, and then says the count is capped (a
lower bound). So a story of 1,000 facts costs at most a fixed amount of work.
"""
from __future__ import annotations

from collections import deque

PATHS_CAP = 10_000
SEARCH_STEPS = 200_000
SLACK = 2  # paths up to k + SLACK facts long are counted

Edge = tuple[int, int, int, str]  # (head, predicate, tail, noise kind) over story people


def _neighbours(edges: list[Edge], n: int) -> list[list[int]]:
    sets: list[set[int]] = [set() for _ in range(n)]
    for a, _, b, _ in edges:
        if a != b:
            sets[a].add(b)
            sets[b].add(a)
    return [sorted(s) for s in sets]


def _distances(adjacent: list[list[int]], source: int) -> list[int]:
    far = len(adjacent) + 1
    dist = [far] * len(adjacent)
    dist[source] = 0
    queue = deque([source])
    while queue:
        x = queue.popleft()
        for y in adjacent[x]:
            if dist[y] == far:
                dist[y] = dist[x] + 1
                queue.append(y)
    return dist


def count_paths(edges: list[Edge], n: int, source: int, target: int, max_len: int,
                cap: int = PATHS_CAP, steps: int = SEARCH_STEPS) -> tuple[int, bool]:
    """(simple paths of at most ``max_len`` edges from ``source`` to ``target`` among ``n``
    people, whether the count stopped at ``cap`` paths or ``steps`` search steps)."""
    if source == target:
        return 0, False
    adjacent = _neighbours(edges, n)
    to_target = _distances(adjacent, target)
    if to_target[source] > max_len:
        return 0, False
    on_path = [False] * n
    on_path[source] = True
    stack = [(source, 0)]  # (person, index of the next neighbour to try)
    found = work = 0
    while stack:
        work += 1
        if work > steps:
            return found, True
        x, i = stack[-1]
        nexts = adjacent[x]
        if i == len(nexts):
            stack.pop()
            on_path[x] = False
            continue
        stack[-1] = (x, i + 1)
        y = nexts[i]
        depth = len(stack)  # edges of the path once y is added
        if on_path[y] or depth + to_target[y] > max_len:
            continue
        if y == target:
            found += 1
            if found >= cap:
                return found, True
            continue
        on_path[y] = True
        stack.append((y, 0))
    return found, False


def difficulty(edges: list[Edge], n: int, k: int, query: tuple[int, int], chain_people: int) -> dict[str, int | bool]:
    """The difficulty record of a story: ``edges`` over ``n`` story people, whose first
    ``chain_people`` are the chain's; the query's two people; chain length ``k``."""
    touching = sum(1 for a, _, b, kind in edges if kind != "none" and (a < chain_people or b < chain_people))
    paths, capped = count_paths(edges, n, query[0], query[1], k + SLACK)
    return {"facts": len(edges), "distractors_touching_chain": touching, "paths": paths,
            "path_max_length": k + SLACK, "paths_capped": capped}
