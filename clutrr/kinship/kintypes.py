"""The kin type of a pair in a family: the shortest genealogical path, in F M B Z S D H W letters."""
from __future__ import annotations

from collections import deque

from clutrr.core.family import Family

# a step's letter by the sex of the person it reaches (0 male, 1 female); tried in this order
STEPS = (("F", "M"), ("B", "Z"), ("S", "D"), ("H", "W"))
ORDER = "FMBZSDHW"


def _neighbours(family: Family) -> list[list[tuple[str, int]]]:
    """``out[x]``: (letter, person) for each parent, full sibling, child and spouse of x, in letter order."""
    hit = family.cache.get("kin_steps")
    if hit is not None:
        return hit
    n, father, mother, spouse, genders = family.size, family.father, family.mother, family.spouse, family.genders
    children: list[list[int]] = [[] for _ in range(n)]
    for c in range(n):
        if father[c] >= 0:
            children[father[c]].append(c)
            children[mother[c]].append(c)
    out: list[list[tuple[str, int]]] = []
    for x in range(n):
        steps = [(p, STEPS[0][genders[p]]) for p in (father[x], mother[x]) if p >= 0]
        if father[x] >= 0:
            steps += [(s, STEPS[1][genders[s]]) for s in children[father[x]] if s != x and mother[s] == mother[x]]
        steps += [(c, STEPS[2][genders[c]]) for c in children[x]]
        if spouse[x] >= 0:
            steps.append((spouse[x], STEPS[3][genders[spouse[x]]]))
        out.append(sorted(((letter, p) for p, letter in steps), key=lambda s: (ORDER.index(s[0]), s[1])))
    family.cache["kin_steps"] = out
    return out


def kin_type(family: Family, x: int, z: int) -> str:
    """The kin type of z from x: the fewest steps, ties broken by the first letter that
    differs in the order F M B Z S D H W (so ``B``, not ``FS``); "" when z is not reachable."""
    steps = _neighbours(family)
    path = {x: ""}
    queue = deque([x])
    while queue:
        a = queue.popleft()
        if a == z:
            return path[a]
        for letter, b in steps[a]:
            if b not in path:
                path[b] = path[a] + letter
                queue.append(b)
    return ""
