"""Families too large for whole relation tables (up to 10,000 people), used a window at a time.

A family whose expected size is above :data:`~clutrr.core.family.DENSE_MAX_PEOPLE` is sampled as
its genealogy only (four lists of ints). A story is drawn from a window of up to
:data:`WINDOW_PEOPLE` of its people, found by a breadth-first walk over parent, child and spouse
links from a random person. The relations between the window's people are worked out from the
KB's definitions over the whole genealogy, one person at a time (each definition step's row and
column of a person, remembered), so they are the relations those people hold in the whole family,
whoever links them. The window is an ordinary :class:`~clutrr.core.family.Family` holding those
relations; memory grows with the window, not with the family.
"""
from __future__ import annotations

import random
from collections import deque

from clutrr.core.family import DENSE_MAX_PEOPLE, Family, FamilyConfig, Genealogy, sample_family, sample_genealogy
from clutrr.core.genealogy import definition_steps
from clutrr.core.kb import KB

WINDOW_PEOPLE = 600  # people of a large family one story may name


class _Relations:
    """Each definition step's people for one person, computed on demand over a whole genealogy.

    ``related(slot, x, True)``: the people y with "y is x's <slot>"; with False, the people y
    with "x is y's <slot>" (the slot's column).
    """

    def __init__(self, kb: KB, genealogy: Genealogy) -> None:
        base, steps, outputs = definition_steps(kb)
        self.genders, self.father, self.mother, self.spouse = genealogy
        self.base = {name: i for i, name in enumerate(base)}
        self.nbase = len(base)
        self.steps = steps
        self.outputs = outputs
        children: list[list[int]] = [[] for _ in self.genders]
        for c, dad in enumerate(self.father):
            if dad >= 0:
                children[dad].append(c)
                children[self.mother[c]].append(c)
        self.children = children
        self.memo: dict[tuple[int, int, bool], frozenset[int]] = {}

    def _base(self, slot: int, x: int, forward: bool) -> frozenset[int]:
        if slot == self.base["parent"]:
            if forward:
                return frozenset(p for p in (self.father[x], self.mother[x]) if p >= 0)
            return frozenset(self.children[x])
        if slot == self.base["spouse"]:
            return frozenset((self.spouse[x],)) if self.spouse[x] >= 0 else frozenset()
        if slot == self.base["self"]:
            return frozenset((x,))
        sex = 0 if slot == self.base["male"] else 1
        return frozenset((x,)) if self.genders[x] == sex else frozenset()

    def related(self, slot: int, x: int, forward: bool) -> frozenset[int]:
        """The people related to ``x`` by a slot (see the class docstring)."""
        key = (slot, x, forward)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        if slot < self.nbase:
            out = self._base(slot, x, forward)
        else:
            op, a, b = self.steps[slot - self.nbase]
            if op == ".":  # b of a: forward through a then b, backward through b then a
                first, then = (a, b) if forward else (b, a)
                found: set[int] = set()
                for y in self.related(first, x, forward):
                    found |= self.related(then, y, forward)
                out = frozenset(found)
            elif op == "~":
                out = self.related(a, x, not forward)
            elif op == "|":
                out = self.related(a, x, forward) | self.related(b, x, forward)
            elif op == "-":
                out = self.related(a, x, forward) - self.related(b, x, forward)
            else:  # noself
                out = self.related(a, x, forward) - {x}
        self.memo[key] = out
        return out


def window_people(genealogy: Genealogy, start: int, size: int) -> list[int]:
    """Up to ``size`` people nearest ``start`` by parent, child and spouse links (breadth
    first, in id order per step), sorted by id."""
    genders, father, mother, spouse = genealogy
    children: list[list[int]] = [[] for _ in genders]
    for c, dad in enumerate(father):
        if dad >= 0:
            children[dad].append(c)
            children[mother[c]].append(c)
    seen = {start}
    queue = deque([start])
    while queue and len(seen) < size:
        x = queue.popleft()
        for y in sorted((father[x], mother[x], spouse[x], *children[x])):
            if y >= 0 and y not in seen and len(seen) < size:
                seen.add(y)
                queue.append(y)
    return sorted(seen)


def window_family(genealogy: Genealogy, kb: KB, people: list[int]) -> Family:
    """The family of ``people`` (a window of the genealogy) holding their relations in the
    whole genealogy. Parents are kept only when both are in the window, spouses when in it."""
    import numpy as np

    relations = _Relations(kb, genealogy)
    genders, father, mother, spouse = genealogy
    pos = {p: i for i, p in enumerate(people)}
    m = len(people)
    masks = np.zeros((len(relations.outputs), m, m), dtype=bool)
    for pred, slot in enumerate(relations.outputs):
        for i, x in enumerate(people):
            js = [pos[y] for y in relations.related(slot, x, True) if y in pos]
            masks[pred, i, js] = True
    local_father, local_mother = [], []
    for x in people:
        both = father[x] in pos and mother[x] in pos
        local_father.append(pos[father[x]] if both else -1)
        local_mother.append(pos[mother[x]] if both else -1)
    local_spouse = [pos.get(spouse[x], -1) for x in people]
    return Family([genders[x] for x in people], local_father, local_mother, local_spouse, kb, masks)


def draw_family(config: FamilyConfig, kb: KB, rng: random.Random) -> Family:
    """A family of ``config``: whole when its expected size is at most DENSE_MAX_PEOPLE, else
    a window of up to WINDOW_PEOPLE people around a random person of a larger genealogy."""
    if config.expected_size() <= DENSE_MAX_PEOPLE:
        return sample_family(config, kb, rng)
    genealogy = sample_genealogy(config, rng)
    start = int(rng.random() * len(genealogy[0]))
    return window_family(genealogy, kb, window_people(genealogy, start, WINDOW_PEOPLE))
