"""Which of a KB's predicates are converses of each other, and which of its rules hold, by their
definitions alone.

The converse of a defined relation (its columns: x is y's ``~r`` when y is x's r) is worked out
from the definition steps (:func:`~clutrr.core.genealogy.definition_steps`, as
:func:`~clutrr.core.genealogy.converse_predicates` gives them) by the algebra of
relations: ``~(a . b) = ~b . ~a``, ``~(a | b) = ~a | ~b``, ``~(a - b) = ~a - ~b``, ``~~a = a``,
the converse of "a, but not oneself" is "``~a``, but not oneself" (which, twice, is once), and ``self``, ``male``,
``female`` (diagonals) and ``spouse`` (when every marriage is recorded on both sides) are their
own converses. Composition is associative, and union associative, commutative and idempotent,
so two expressions equal in the normal form below are the same relation in every family.

A rule ``r1 . r2 -> r`` holds in every family when "r1's r2, but not oneself" is within r's
definition: by monotony (``a`` within ``a | b``; a composition within one whose factors hold
theirs; "not oneself" of something within "not oneself" of more).
"""
from __future__ import annotations

SYMMETRIC_BASE = ("spouse", "self", "male", "female")


class _Forms:
    """Expressions in normal form, each interned as an int: compositions flattened, unions
    flattened, sorted and without repeats, converses pushed down to the parent relation."""

    def __init__(self, base: tuple[str, ...], steps: list[tuple[str, int, int]]) -> None:
        self.base, self.steps = base, steps
        self.ids: dict[tuple, int] = {}
        self.nodes: list[tuple] = []
        self.memo: dict[tuple[int, bool], int] = {}

    def _intern(self, node: tuple) -> int:
        hit = self.ids.get(node)
        if hit is None:
            hit = self.ids[node] = len(self.nodes)
            self.nodes.append(node)
        return hit

    def _members(self, op: str, form: int) -> tuple:
        node = self.nodes[form]
        return node[1:] if node[0] == op else (form,)

    def within(self, small: int, large: int) -> bool:
        """Whether form ``small`` is within form ``large`` in every family, by monotony."""
        if small == large:
            return True
        inner, outer = self.nodes[small], self.nodes[large]
        if inner[0] == "|":
            return all(self.within(m, large) for m in inner[1:])
        if outer[0] == "|":
            return any(self.within(small, m) for m in outer[1:])
        if inner[0] == "noself":
            return self.within(inner[1], outer[1] if outer[0] == "noself" else large)
        if inner[0] == "." and outer[0] == "." and len(inner) == len(outer):
            return all(self.within(a, b) for a, b in zip(inner[1:], outer[1:]))
        return False

    def composed(self, first: int, then: int) -> int:
        """The form of "``first``'s ``then``, but not oneself"."""
        product = self._intern((".", *self._members(".", first), *self._members(".", then)))
        return self._intern(("noself", product))

    def of(self, slot: int, converse: bool) -> int:
        """The normal form of slot ``slot`` (its converse when ``converse``)."""
        key = (slot, converse)
        hit = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = self._form(slot, converse)
        return hit

    def _form(self, slot: int, converse: bool) -> int:
        if slot < len(self.base):
            name = self.base[slot]
            return self._intern(("base", name, converse and name not in SYMMETRIC_BASE))
        op, a, b = self.steps[slot - len(self.base)]
        if op == "~":
            return self.of(a, not converse)
        if op == "noself":
            inner = self.of(a, converse)
            return inner if self.nodes[inner][0] == "noself" else self._intern(("noself", inner))
        first, second = self.of(a, converse), self.of(b, converse)
        if op == ".":
            if converse:
                first, second = second, first
            return self._intern((".", *self._members(".", first), *self._members(".", second)))
        if op == "|":
            members = sorted({*self._members("|", first), *self._members("|", second)})
            return members[0] if len(members) == 1 else self._intern(("|", *members))
        return self._intern(("-", first, second))


def converse_outputs(base: tuple[str, ...], steps: list[tuple[str, int, int]], outputs: list[int]) -> list[int]:
    """Per output slot of definition steps (``base`` names the first slots), the first output whose
    relation is that one's converse by the algebra above (y is x's p exactly when x is y's q, in
    every family whose marriages are recorded on both sides), or -1 when it shows none."""
    forms = _Forms(base, steps)
    ahead = [forms.of(slot, False) for slot in outputs]
    out = []
    for slot in outputs:
        back = forms.of(slot, True)
        out.append(ahead.index(back) if back in ahead else -1)
    return out


def implied_rules(base: tuple[str, ...], steps: list[tuple[str, int, int]], outputs: list[int],
                  rules: list[tuple[int, int, int]]) -> list[bool]:
    """Per rule ``(r1, r2, r)`` over the predicates of ``outputs``, whether the definitions make it
    hold in every family whose marriages are recorded on both sides (see the module docstring)."""
    forms = _Forms(base, steps)
    ahead = [forms.of(slot, False) for slot in outputs]
    return [forms.within(forms.composed(ahead[r1], ahead[r2]), ahead[r]) for r1, r2, r in rules]
