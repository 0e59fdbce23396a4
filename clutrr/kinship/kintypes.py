"""The kin type of a pair in a family: the shortest genealogical path, in F M B Z S D H W letters."""
from __future__ import annotations

from clutrr.core.family import Family

# a step's letter by the sex of the person it reaches (0 male, 1 female); tried in the order F M B Z S D H W
PARENT, SIBLING, CHILD, SPOUSE = ("F", "M"), ("B", "Z"), ("S", "D"), ("H", "W")


class _Steps:
    """Each person's (letter, person) steps to their parents, full siblings, children and
    spouse, in letter order (F M B Z S D H W; people of one letter by ascending id), worked
    out for a person the first time a search reaches them."""

    def __init__(self, family: Family) -> None:
        n = family.size
        self.father, self.mother, self.spouse, self.genders = family.father, family.mother, family.spouse, family.genders
        self.children: list[list[int]] = [[] for _ in range(n)]
        for c in range(n):  # ascending, so each list is sorted
            if self.father[c] >= 0:
                self.children[self.father[c]].append(c)
                self.children[self.mother[c]].append(c)
        self.out: list[list[tuple[str, int]] | None] = [None] * n

    def of(self, x: int) -> list[tuple[str, int]]:
        """The steps out of x."""
        hit = self.out[x]
        if hit is not None:
            return hit
        genders, children = self.genders, self.children
        f, m, s = self.father[x], self.mother[x], self.spouse[x]
        steps = []
        if f >= 0:
            steps.append((PARENT[genders[f]], f))
        if m >= 0:
            steps.append((PARENT[genders[m]], m))
        if f >= 0:
            full = [b for b in children[f] if b != x and self.mother[b] == m]
            steps += [(SIBLING[0], b) for b in full if not genders[b]]
            steps += [(SIBLING[1], b) for b in full if genders[b]]
        kids = children[x]
        steps += [(CHILD[0], c) for c in kids if not genders[c]]
        steps += [(CHILD[1], c) for c in kids if genders[c]]
        if s >= 0:
            steps.append((SPOUSE[genders[s]], s))
        self.out[x] = steps
        return steps


def kin_type(family: Family, x: int, z: int) -> str:
    """The kin type of z from x: the fewest steps, ties broken by the first letter that
    differs in the order F M B Z S D H W (so ``B``, not ``FS``); "" when z is not reachable
    (or is x). Kept per family (a story's row and record both ask it)."""
    cache = family.cache
    found = cache.get("kin_types")
    if found is None:
        found = cache["kin_types"] = {}
        steps = cache["kin_steps"] = _Steps(family)
    else:
        steps = cache["kin_steps"]
    hit = found.get((x, z))
    if hit is None:
        hit = found[(x, z)] = _search(steps, x, z)
    return hit


def _search(steps: _Steps, x: int, z: int) -> str:
    """Breadth first from x, each person's steps in letter order: the first path to reach z."""
    if x == z:
        return ""
    path = {x: ""}
    level = [x]
    while level:
        nxt = []
        for a in level:
            here = path[a]
            for letter, b in steps.of(a):
                if b not in path:
                    path[b] = here + letter
                    if b == z:
                        return path[b]
                    nxt.append(b)
        level = nxt
    return ""
