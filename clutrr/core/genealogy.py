"""Relations derived from primitive genealogy (parent, spouse) by the KB's definitions.

A definition is an expression over relation matrices: ``parent`` and ``spouse`` are the
primitives, ``self`` is the identity, ``male`` and ``female`` hold each man (woman) to himself
(so ``parent . male`` is the father and ``male . parent`` a man's parent), other names are predicates of the file (inside the
definition of a predicate that shares a primitive's name, that name is the primitive). Operators: ``a . b`` (composition: b of a), ``a | b`` (union), ``a - b``
(difference), ``~a`` (inverse), parentheses. ``M[x, y]`` is true when y is x's relation.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from clutrr.core.converse import converse_outputs
from clutrr.core.kb import KB, KBError

if TYPE_CHECKING:
    import numpy as np

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


_BASE = ("parent", "spouse", "self", "male", "female")


class _Program:
    """A KB's definitions compiled to straight-line steps over boolean relation matrices.

    Slots 0-4 hold parent, spouse, self, male and female; each step ``(op, a, b)`` appends a slot.
    Equal subexpressions share one slot, so ``~parent`` is computed once per family.
    """

    def __init__(self, kb: KB) -> None:
        trees = {}
        for p in kb.predicates:
            if p.definition is None:
                raise KBError(f"predicate {p.name!r} has no definition")
            trees[p.name] = parse_definition(p.definition)
        self.steps: list[tuple[str, int, int]] = []
        self._slot: dict[tuple, int] = {("base", name): i for i, name in enumerate(_BASE)}
        self._trees = trees
        self._active: set[str] = set()
        self.outputs = [self._predicate(p.name) for p in kb.predicates]
        used = {a for _, a, _ in self.steps} | {b for _, _, b in self.steps} | set(self.outputs)
        self.sexed = bool(used & {_BASE.index("male"), _BASE.index("female")})
        self.plan: list[tuple[int, int, int, int]] = row_plan(self.steps, self.outputs)
        self.converse = converse_outputs(_BASE, self.steps, self.outputs)
        self.plan_reads_sexes = any(a in (2, 3, 4) and op != _KEEP_ROWS or b in (2, 3, 4) and op != _KEEP_COLS
                                    for op, a, b, _ in self.plan)

    def _emit(self, key: tuple, op: str, a: int, b: int = -1) -> int:
        slot = self._slot.get(key)
        if slot is None:
            self.steps.append((op, a, b))
            slot = self._slot[key] = len(_BASE) + len(self.steps) - 1
        return slot

    def _predicate(self, name: str) -> int:
        key = ("pred", name)
        if key in self._slot:
            return self._slot[key]
        if name in self._active:
            raise KBError(f"definition of {name!r} refers to itself")
        self._active.add(name)
        body = self._compile(self._trees[name], name)
        self._active.discard(name)
        return self._emit(key, "noself", body)

    def _compile(self, tree: tuple, owner: str) -> int:
        op = tree[0]
        if op == "name":
            name = tree[1]
            if name in _BASE and (name == owner or name not in self._trees):
                return self._slot[("base", name)]
            if name not in self._trees:
                raise KBError(f"unknown name {name!r} in a definition")
            return self._predicate(name)
        if op == "~":
            a = self._compile(tree[1], owner)
            return self._emit(("~", a), "~", a)
        a, b = self._compile(tree[1], owner), self._compile(tree[2], owner)
        return self._emit((op, a, b), op, a, b)

    def run(self, parent: np.ndarray, spouse: np.ndarray, gender: np.ndarray | None = None) -> np.ndarray:
        """Every predicate's matrix, stacked in KB order, from the primitive matrices
        (``gender[i]``: 0 male, 1 female; needed only by definitions that use male or female)."""
        import numpy as np

        n = parent.shape[0]
        eye = np.eye(n, dtype=bool)
        others = ~eye
        if gender is None:
            if self.sexed:
                raise KBError("a definition uses male or female, but the people's genders are not given")
            sex = {3: np.ones(n, dtype=bool), 4: np.ones(n, dtype=bool)}
        else:
            is_female = np.asarray(gender).astype(bool)
            sex = {3: ~is_female, 4: is_female}  # the male and female slots' diagonals
        slots = [parent, spouse, eye, np.diag(sex[3]), np.diag(sex[4])]
        floats: dict[int, np.ndarray] = {}  # slot -> its float32 copy, for products

        def as_float(i: int) -> np.ndarray:
            hit = floats.get(i)
            if hit is None:
                hit = floats[i] = slots[i].astype(np.float32)
            return hit

        for op, a, b in self.steps:
            if op == "." and b in sex:  # then a man (woman): keep the columns of men (women)
                out = slots[a] & sex[b][None, :]
            elif op == "." and a in sex:
                out = slots[b] & sex[a][:, None]
            elif op == ".":
                out = compose(slots[a], slots[b], as_float(a), as_float(b))
            elif op == "~":
                out = slots[a].T
            elif op == "|":
                out = slots[a] | slots[b]
            elif op == "-":
                out = slots[a] & ~slots[b]
            else:  # noself: nobody is their own relative
                out = slots[a] & others
            slots.append(out)
        return np.array([slots[i] for i in self.outputs]) if self.outputs else np.zeros((0, n, n), dtype=bool)


    def run_rows(self, father: list[int], mother: list[int], spouse: list[int], female: int) -> list[list[int]]:
        """:meth:`run` over int bitsets: ``out[p][x]`` has bit y when y is x's predicate p, from
        each person's parents (both or neither: -1), spouse (-1: none) and the bitset of women.
        The steps run as :func:`row_plan` orders them (the same bits, fewer lists and ints)."""
        n = len(father)
        parent = [0] * n
        married = [0] * n
        for x in range(n):
            if father[x] >= 0:
                parent[x] = 1 << father[x] | 1 << mother[x]
            if spouse[x] >= 0:
                married[x] = 1 << spouse[x]
        slots = [parent, married]
        if self.plan_reads_sexes:  # self, male and female read as rows (not as the filters below)
            slots += _diagonals(n, female)
        else:
            slots += [[], [], []]
        sexes = (((1 << n) - 1) & ~female, female)  # the people of the male (slot 3) and female (4) slots
        for op, a, b, clear in self.plan:
            first = slots[a]
            if op == _SAME:  # nobody is their own relative already
                slots.append(first)
                continue
            if op == _NOSELF_IN_PLACE:  # nothing else reads ``first``: its rows with a self bit are rewritten
                _drop_self_bits(first)
                slots.append(first)
                continue
            if op == _KEEP_COLS:  # then a man (woman): keep the men (women)
                keep = sexes[b - 3]
                out = [first[x] & keep & ~(clear << x) for x in range(n)]
            elif op == _KEEP_ROWS:  # a man's (woman's) b
                keep, then = sexes[a - 3], slots[b]
                out = [then[x] & ~(clear << x) if keep >> x & 1 else 0 for x in range(n)]
            elif op == _COMPOSE:
                out = compose_rows(first, slots[b], clear)
            elif op == _INVERSE:
                out = transpose_rows(first, n)
                if clear:
                    _drop_self_bits(out)
            elif op == _UNION:
                other = slots[b]
                out = [(first[x] | other[x]) & ~(clear << x) for x in range(n)]
            elif op == _MINUS:
                other = slots[b]
                out = [first[x] & ~other[x] & ~(clear << x) for x in range(n)]
            else:  # _NOSELF: nobody is their own relative
                out = [first[x] & ~(1 << x) for x in range(n)]
            slots.append(out)
        return [slots[i] for i in self.outputs]


def _drop_self_bits(rows: list[int]) -> None:
    """Clear bit x of ``rows[x]`` wherever it is set, in place (nobody is their own relative)."""
    for x in range(len(rows)):
        if rows[x] >> x & 1:
            rows[x] = rows[x] ^ 1 << x


def _diagonals(n: int, female: int) -> list[list[int]]:
    """The rows of ``self``, ``male`` and ``female`` over ``n`` people (bit x of row x: everyone, the men,
    the women)."""
    me, men, women = [0] * n, [0] * n, [0] * n
    for x in range(n):
        bit = 1 << x
        me[x] = bit
        if female & bit:
            women[x] = bit
        else:
            men[x] = bit
    return [me, men, women]


# the operations of a row plan (see row_plan); Final: compiled, each is a constant, not a global looked up
_KEEP_COLS: Final = 0
_KEEP_ROWS: Final = 1
_COMPOSE: Final = 2
_INVERSE: Final = 3
_UNION: Final = 4
_MINUS: Final = 5
_NOSELF: Final = 6
_NOSELF_IN_PLACE: Final = 7
_SAME: Final = 8
_OPS: Final = {"~": _INVERSE, "|": _UNION, "-": _MINUS, "noself": _NOSELF}


def row_plan(steps: list[tuple[str, int, int]], outputs: list[int]) -> list[tuple[int, int, int, int]]:
    """The definition steps as run over bit rows: ``(op, a, b, clear)`` per step (the same slots).

    ``a . male`` (``a . female``) keeps columns and ``male . b`` rows, without a product. A
    ``noself`` whose operand has no self bit by construction (a ``noself``, or made of them by
    inverse, ``|`` both, ``-`` or a sex filter) is the same rows (``_SAME``); one read by nothing
    else is done by the step that makes the operand (its ``clear`` is 1: it drops the self bits as
    it goes), or in place for a base slot; otherwise it copies.
    """
    base = len(_BASE)
    readers = [0] * (base + len(steps))
    for _, a, b in steps:
        readers[a] += 1
        if b >= 0:
            readers[b] += 1
    for slot in outputs:
        readers[slot] += 1
    plan: list[list[int]] = []
    selfless = [False] * base
    for op, a, b in steps:
        if op == "." and b in (3, 4):
            plan.append([_KEEP_COLS, a, b, 0])
            selfless.append(selfless[a])
        elif op == "." and a in (3, 4):
            plan.append([_KEEP_ROWS, a, b, 0])
            selfless.append(selfless[b])
        elif op == ".":
            plan.append([_COMPOSE, a, b, 0])
            selfless.append(False)
        elif op != "noself":
            plan.append([_OPS[op], a, b, 0])
            selfless.append(selfless[a] and (op != "|" or selfless[b]))
        elif selfless[a]:
            plan.append([_SAME, a, -1, 0])
            selfless.append(True)
        elif readers[a] == 1 and a >= base:
            plan[a - base][3] = 1
            plan.append([_SAME, a, -1, 0])
            selfless.append(True)
        else:
            plan.append([_NOSELF_IN_PLACE if readers[a] == 1 else _NOSELF, a, -1, 0])
            selfless.append(True)
    return [(op, a, b, clear) for op, a, b, clear in plan]


def compose_rows(first: list[int], then: list[int], clear: int = 0) -> list[int]:
    """Relation product over bit rows: bit z of ``out[x]`` when some y has bit y of ``first[x]``
    and bit z of ``then[y]`` (and z is not x, when ``clear`` is 1)."""
    out = [0] * len(first)
    for x in range(len(first)):
        middle = first[x]
        reach = 0
        while middle:
            low = middle & -middle
            reach |= then[low.bit_length() - 1]
            middle ^= low
        out[x] = reach & ~(clear << x)
    return out


def transpose_rows(rows: list[int], n: int) -> list[int]:
    """The inverse relation of bit rows over ``n`` people: bit x of ``out[y]`` when bit y of ``rows[x]``."""
    out = [0] * n
    for x in range(len(rows)):
        row = rows[x]
        bit = 1 << x
        while row:
            low = row & -row
            y = low.bit_length() - 1
            out[y] = out[y] | bit  # not |=: compiled, an augmented item assignment is a generic call
            row ^= low
    return out


# OpenBLAS multiplies with one thread up to 65536 * 4 multiply-adds; above that its worker
# threads spin, which costs far more CPU than these small products need
_SINGLE_THREAD_WORK = 65536 * 4


def compose(first: np.ndarray, then: np.ndarray, first_float: np.ndarray | None = None,
            then_float: np.ndarray | None = None) -> np.ndarray:
    """Boolean relation product: ``out[x, z]`` when some y has ``first[x, y]`` and ``then[y, z]``.

    Float products are exact here (counts stay below 2**24); rows go in blocks small
    enough for BLAS to stay on one thread. The float32 copies of the operands may be given.
    """
    import numpy as np

    a = first.astype(np.float32) if first_float is None else first_float
    b = then.astype(np.float32) if then_float is None else then_float
    n, inner = a.shape
    step = max(1, _SINGLE_THREAD_WORK // max(1, inner * b.shape[1]))
    if step >= n:
        return (a @ b) > 0
    return np.concatenate([(a[i:i + step] @ b) > 0 for i in range(0, n, step)])


_PROGRAMS: Final[dict[int, tuple[KB, _Program]]] = {}


def _program(kb: KB) -> _Program:
    hit = _PROGRAMS.get(id(kb))
    if hit is None:  # the entry keeps kb alive, so its id is never reused by another KB
        hit = _PROGRAMS[id(kb)] = (kb, _Program(kb))
    return hit[1]


def definition_steps(kb: KB) -> tuple[tuple[str, ...], list[tuple[str, int, int]], list[int]]:
    """The KB's definitions as straight-line steps: ``(base, steps, outputs)``. Slots
    ``0..len(base)-1`` hold the base relations named in ``base``; step i ``(op, a, b)`` fills slot
    ``len(base) + i`` (ops ``.``, ``~``, ``|``, ``-`` and ``noself``); ``outputs[p]`` is the slot
    of predicate p."""
    program = _program(kb)
    return _BASE, program.steps, program.outputs


def converse_predicates(kb: KB) -> list[int]:
    """Per predicate p, the first predicate whose relation is p's converse by the KB's definitions
    (:func:`~clutrr.core.converse.converse_outputs`: in every family whose marriages are recorded
    on both sides), or -1."""
    return _program(kb).converse


def relation_masks(kb: KB, parent: np.ndarray, spouse: np.ndarray, gender: np.ndarray | None = None) -> np.ndarray:
    """Boolean array ``[predicate, x, y]``: y is x's predicate, by the KB's definitions.

    ``parent[x, y]`` is true when y is a parent of x; ``spouse`` is symmetric; ``gender[x]``
    (0 male, 1 female) is needed when a definition uses ``male`` or ``female``.
    The diagonal is always false: nobody is their own relative.
    """
    import numpy as np

    return _program(kb).run(np.asarray(parent, dtype=bool), np.asarray(spouse, dtype=bool), gender)


def relation_rows(kb: KB, father: list[int], mother: list[int], spouse: list[int], female: int) -> list[list[int]]:
    """:func:`relation_masks` as int bit rows (``out[p][x]``: bit y when y is x's p), from each
    person's parents (both or neither: -1), spouse (-1: none) and the bitset of women."""
    return _program(kb).run_rows(father, mother, spouse, female)


def bit_masks(rows: list[list[int]], n: int) -> np.ndarray:
    """The boolean array ``[i, x, y]`` of bit rows over ``n`` people (the inverse of :func:`bit_rows`)."""
    import numpy as np

    width = (n + 7) // 8
    data = b"".join([row.to_bytes(width, "little") for table in rows for row in table])
    packed = np.frombuffer(data, dtype=np.uint8).reshape(len(rows), n, width)
    return np.unpackbits(packed, axis=2, count=n, bitorder="little").astype(bool)


def bit_rows(masks: np.ndarray) -> list[list[int]]:
    """``out[i][x]``: row x of matrix ``masks[i]`` as an int bitset (bit y set when ``masks[i, x, y]``)."""
    import numpy as np

    count, n = masks.shape[:2]
    packed = np.packbits(masks, axis=2, bitorder="little")
    words = max(1, (packed.shape[2] + 7) // 8)
    buf = np.zeros((count, n, 8 * words), dtype=np.uint8)
    buf[:, :, :packed.shape[2]] = packed
    chunks = buf.view("<u8").reshape(count, n, words)
    if words == 1:
        return chunks[:, :, 0].tolist()
    return [[sum(w << (64 * i) for i, w in enumerate(row)) for row in rows] for rows in chunks.tolist()]
