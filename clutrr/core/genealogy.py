"""Relations derived from primitive genealogy (parent, spouse) by the KB's definitions.

A definition is an expression over relation matrices: ``parent`` and ``spouse`` are the
primitives, ``self`` is the identity, other names are predicates of the file (inside the
definition of a predicate that shares a primitive's name, that name is the primitive). Operators: ``a . b`` (composition: b of a), ``a | b`` (union), ``a - b``
(difference), ``~a`` (inverse), parentheses. ``M[x, y]`` is true when y is x's relation.
"""
from __future__ import annotations

import re

import numpy as np

from clutrr.core.kb import KB, KBError

_TOKEN = re.compile(r"\s*(?:([A-Za-z_][\w-]*)|(.))")


def _tokens(expr: str) -> list[str]:
    out = []
    for name, op in _TOKEN.findall(expr):
        if name:
            out.append(name)
        elif op.strip():
            out.append(op)
    return out


class _Parser:
    """Recursive-descent parser to a tree: expr := term (('|' | '-') term)*; term := factor ('.' factor)*."""

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        tok = self.peek()
        if tok is None:
            raise KBError("definition ends too early")
        self.pos += 1
        return tok

    def expr(self) -> tuple:
        left = self.term()
        while self.peek() in ("|", "-"):
            op = self.take()
            left = (op, left, self.term())
        return left

    def term(self) -> tuple:
        left = self.factor()
        while self.peek() == ".":
            self.take()
            left = (".", left, self.factor())
        return left

    def factor(self) -> tuple:
        tok = self.take()
        if tok == "~":
            return ("~", self.factor())
        if tok == "(":
            val = self.expr()
            if self.take() != ")":
                raise KBError("unbalanced parentheses in definition")
            return val
        if tok in ("|", "-", ".", ")"):
            raise KBError(f"unexpected {tok!r} in definition")
        return ("name", tok)


def parse_definition(text: str) -> tuple:
    """Parse a definition into a tree of ('name', x), ('~', t), ('.', a, b), ('|', a, b), ('-', a, b)."""
    parser = _Parser(_tokens(text))
    tree = parser.expr()
    if parser.peek() is not None:
        raise KBError(f"definition {text!r} has trailing {parser.peek()!r}")
    return tree


_TREES: dict[int, dict[str, tuple]] = {}


def _trees(kb: KB) -> dict[str, tuple]:
    trees = _TREES.get(id(kb))
    if trees is None:
        trees = {}
        for p in kb.predicates:
            if p.definition is None:
                raise KBError(f"predicate {p.name!r} has no definition")
            trees[p.name] = parse_definition(p.definition)
        _TREES[id(kb)] = trees
    return trees


def relation_masks(kb: KB, parent: np.ndarray, spouse: np.ndarray) -> np.ndarray:
    """Boolean array ``[predicate, x, y]``: y is x's predicate, by the KB's definitions.

    ``parent[x, y]`` is true when y is a parent of x; ``spouse`` is symmetric.
    The diagonal is always false: nobody is their own relative.
    """
    n = parent.shape[0]
    base = {"parent": parent.astype(bool), "spouse": spouse.astype(bool), "self": np.eye(n, dtype=bool)}
    trees = _trees(kb)
    done: dict[str, np.ndarray] = {}
    active: set[str] = set()

    def evaluate(tree: tuple, owner: str) -> np.ndarray:
        op = tree[0]
        if op == "name":
            return lookup(tree[1], owner)
        if op == "~":
            return evaluate(tree[1], owner).T
        left, right = evaluate(tree[1], owner), evaluate(tree[2], owner)
        if op == ".":
            return (left.astype(np.uint8) @ right.astype(np.uint8)) > 0
        return (left | right) if op == "|" else (left & ~right)

    def lookup(name: str, owner: str = "") -> np.ndarray:
        if name in done:
            return done[name]
        if name in base and (name == owner or name not in trees):
            return base[name]
        if name not in trees:
            raise KBError(f"unknown name {name!r} in a definition")
        if name in active:
            raise KBError(f"definition of {name!r} refers to itself")
        active.add(name)
        val = evaluate(trees[name], name) & ~base["self"]
        active.discard(name)
        done[name] = val
        return val

    return np.stack([lookup(p.name) for p in kb.predicates])


def relation_bits(masks: np.ndarray) -> np.ndarray:
    """Collapse ``[predicate, x, y]`` masks into one ``uint32`` bitmask per pair."""
    out = np.zeros(masks.shape[1:], dtype=np.uint32)
    for i in range(masks.shape[0]):
        out |= masks[i].astype(np.uint32) << np.uint32(i)
    return out
