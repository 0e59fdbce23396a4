"""Render a path of facts as text by covering it with templates of 1..max_piece facts."""
from __future__ import annotations

import random
from typing import Final, NamedTuple, Sequence, cast

from clutrr.core.draws import below_rng
from clutrr.core.kb import GENDERS
from clutrr.core.native import mypyc_attr
from clutrr.render.templates import Bank, Template


class Piece(NamedTuple):
    """Rendered text for consecutive facts ``facts`` (indices into the story's edges)."""

    text: str
    template_id: str
    facts: tuple[int, ...]


_piece: Final = tuple.__new__  # Piece(text, id, facts) without the Python-level constructor
_PIECE: Final = Piece  # compiled: the class read from a static, not looked up in the module's dict per call


@mypyc_attr(native_class=False)
class NoCoverError(ValueError):
    """No cover of the path by templates exists (a relation word has no 1-fact template)."""


class Fill:
    """A template's text for one gendering of its entities, split at its name slots: ``texts[0]``,
    then the name of entity ``names[0]`` and ``texts[1]``, and so on (pronouns are in the texts).
    A fill of two to four names also holds its parts as fields (``t0``, ``a0``, ``t1``, ...), which
    rendering reads straight from the object, not from its two lists."""

    __slots__ = ("texts", "names", "n", "t0", "t1", "t2", "t3", "t4", "a0", "a1", "a2", "a3")

    def __init__(self, texts: list[str], names: list[int]) -> None:
        self.texts = texts
        self.names = names
        self.n: int = len(names)
        t = texts + [""] * (5 - len(texts))
        a = names + [0] * (4 - len(names))
        self.t0, self.t1, self.t2, self.t3, self.t4 = t[0], t[1], t[2], t[3], t[4]
        self.a0, self.a1, self.a2, self.a3 = a[0], a[1], a[2], a[3]


class Form:
    """A template as rendering reads it: its id and its text split at its name slots for each
    gendering of its entities (``fills[g]`` when bit i of g says entity i is female), made on first use.
    ``fills`` is a tuple, made again when a fill is added (at most once per gendering): a read finds
    the fill in the tuple itself, where a list holds its items one pointer further."""

    __slots__ = ("template", "id", "head", "slots", "fills")

    def __init__(self, template: Template) -> None:
        self.template = template
        self.id: str = template.id
        head, slots = template.compile_plan()
        self.head: str = head
        self.slots: tuple[tuple[int, tuple[str, str] | None, str], ...] = slots
        self.fills: tuple[Fill | None, ...] = (None,) * (1 << (len(template.clause) + 1))

    def fill(self, genders: int) -> Fill:
        """``fills[genders]``: the kept split, or made now."""
        hit = self.fills[genders]
        if hit is None:
            texts = [self.head]
            names = []
            for ent, forms, tail in self.slots:
                if forms is None:
                    names.append(ent)
                    texts.append(tail)
                else:
                    texts[-1] += forms[genders >> ent & 1] + tail
            hit = Fill(texts, names)
            self.fills = self.fills[:genders] + (hit,) + self.fills[genders + 1:]
        return hit

    def render(self, genders: int, marks: list[str], people: list[int], i: int) -> str:
        """The text for entities gendered by ``genders`` whose entity j is person ``people[i + j]``,
        named ``marks[person]`` (as :meth:`Template.render` writes it). A sentence of two to four
        names is one f-string of its fill's fields (one string built, no list of its parts)."""
        fill = self.fills[genders]
        if fill is None:
            fill = self.fill(genders)
        n = fill.n
        if n == 2:
            return f"{fill.t0}{marks[people[i + fill.a0]]}{fill.t1}{marks[people[i + fill.a1]]}{fill.t2}"
        if n == 3:
            return (f"{fill.t0}{marks[people[i + fill.a0]]}{fill.t1}{marks[people[i + fill.a1]]}{fill.t2}"
                    f"{marks[people[i + fill.a2]]}{fill.t3}")
        if n == 4:
            return (f"{fill.t0}{marks[people[i + fill.a0]]}{fill.t1}{marks[people[i + fill.a1]]}{fill.t2}"
                    f"{marks[people[i + fill.a2]]}{fill.t3}{marks[people[i + fill.a3]]}{fill.t4}")
        t, at = fill.texts, fill.names
        out = [t[0]]
        for j in range(n):
            out.append(marks[people[i + at[j]]])
            out.append(t[j + 1])
        return "".join(out)


_NO_FORMS: Final[tuple[Form, ...]] = ()


def forms(bank: Bank, clause: tuple[str, ...], head_gender: str) -> tuple[Form, ...]:
    """The :class:`Form` of each of ``bank.choices(clause, head_gender)`` (kept on the bank, one per template).
    A tuple: rendering reads its items from the object itself (a list's are one pointer further)."""
    templates: list[Template] | None = bank.by_clause.get(clause)
    if templates is None:  # most longer clauses a path meets: no templates to look through
        return _NO_FORMS
    key = (clause, head_gender)
    hit: tuple[Form, ...] | None = bank.choice_forms.get(key)
    if hit is None:
        made: list[Form] = []
        by_id: dict[str, Form] = bank.forms
        for t in templates:
            gender: str = t.gender
            if gender != "any" and gender != head_gender:  # bank.choices, as Template.fits picks them
                continue
            form = by_id.get(t.id)
            if form is None:
                form = by_id[t.id] = Form(t)
            made.append(form)
        hit = bank.choice_forms[key] = tuple(made)
    return hit


def fact_forms(bank: Bank, word: str, head: int) -> tuple[Form, ...]:
    """:func:`forms` of the one-fact clause ``word`` whose first entity has gender ``head`` (0 male, 1 female)."""
    hit: list[tuple[Form, ...]] | None = bank.fact_forms.get(word)
    if hit is None:
        hit = bank.fact_forms[word] = [forms(bank, (word,), g) for g in GENDERS]
    return hit[head]


def _open(templates: tuple[Form, ...], used: set[str] | frozenset[str]) -> bool:
    return any(t.id not in used for t in templates)


class Clause:
    """What a bank holds for one clause (its relation words) and the gender of its first person,
    reached word by word from the empty clause of that gender: the Forms of each of its prefixes
    (``options[L - 1]`` for the first L words, the clause itself last), the lengths L among them
    that have a template (``valid``), whether the bank's own templates (not ones filled from a
    fallback) render the clause (``own``), the ids of its templates when it has several facts and
    a template (``multi_ids``, else None), whether a longer clause of the bank starts with its words
    (``further``: when not, no clause reached from it has a template) and the clauses one word
    longer (made on first use)."""

    __slots__ = ("words", "head", "options", "valid", "own", "multi_ids", "further", "longer")

    def __init__(self, words: tuple[str, ...], head: str, options: tuple[tuple[Form, ...], ...], valid: list[int],
                 own: bool, multi_ids: frozenset[str] | None, further: bool) -> None:
        self.words = words
        self.head = head
        self.options = options
        self.valid = valid
        self.own = own
        self.multi_ids = multi_ids
        self.further = further
        self.longer: dict[str, Clause] = {}

    def then(self, bank: Bank, word: str) -> Clause:
        """The clause with ``word`` added at its end."""
        hit = self.longer.get(word)
        if hit is None:
            hit = self.longer[word] = _longer(bank, self, word)
        return hit


def _longer(bank: Bank, shorter: Clause, word: str) -> Clause:
    words = shorter.words + (word,)
    ts = forms(bank, words, shorter.head)
    fallback: frozenset[str] = bank.fallback_ids
    own = any(f.id not in fallback for f in ts)
    valid = shorter.valid + [len(words)] if ts else shorter.valid
    multi_ids = frozenset([f.id for f in ts]) if ts and len(words) > 1 else None  # bank.choice_ids, no call
    prefixes: frozenset[tuple[str, ...]] = bank.clause_prefixes
    return Clause(words, shorter.head, shorter.options + (ts,), valid, own, multi_ids, words in prefixes)


def clause_prefixes(bank: Bank) -> frozenset[tuple[str, ...]]:
    """Every proper prefix of a clause of the bank, the empty one included (whatever the gender of its templates)."""
    return frozenset([c[:L] for c in bank.by_clause for L in range(len(c))])


def clause_roots(bank: Bank) -> dict[str, Clause]:
    """The bank's empty clause for each gender of a first person (kept on the bank, with its
    :func:`clause_prefixes`, which tell each clause reached whether a longer one may have templates)."""
    roots: dict[str, Clause] = bank.clause_roots
    if not roots:
        bank.clause_prefixes = clause_prefixes(bank)
        for g in GENDERS:
            roots[g] = Clause((), g, (), [], False, None, bool(bank.by_clause))
    return roots


def clause(bank: Bank, words: tuple[str, ...], head_gender: str) -> Clause:
    """The bank's :class:`Clause` of ``words`` whose first entity has ``head_gender``."""
    node = clause_roots(bank)[head_gender]
    for w in words:
        node = node.then(bank, w)
    return node


class PathPlan:
    """What rendering one sequence of relation words (with the genders of each fact's first
    person) needs from a bank, worked out once and kept on the bank: the valid piece lengths
    at each position, the weighted count of covers from each position, the templates of
    every piece, the template ids of each valid multi-fact piece and the fewest ids of one of them."""

    __slots__ = ("words", "heads", "longest", "valid", "count", "multi", "fewest", "options", "ones")

    def __init__(self, bank: Bank, words: tuple[str, ...], heads: tuple[str, ...], longest: int) -> None:
        self.words, self.heads, self.longest = words, heads, longest
        n = len(words)
        roots = clause_roots(bank)
        self.valid: list[list[int]] = []
        self.multi: list[frozenset[str]] = []  # the template ids of each valid multi-fact piece
        # [i][L - 1]: templates of words[i:i+L], up to the longest piece from i that a clause of the bank starts
        self.options: list[tuple[tuple[Form, ...], ...]] = []
        for i in range(n):
            node = roots[heads[i]]
            for j in range(i, min(i + longest, n)):
                node = node.then(bank, words[j])
                ids = node.multi_ids
                if ids is not None:
                    self.multi.append(ids)
                if not node.further:  # no longer piece from i has a template: its clauses are not reached
                    break
            self.valid.append(node.valid)
            self.options.append(node.options)
        self.count = _counts(self.valid)
        self.fewest = _fewest(self.multi)
        # the one cover when every piece must be one fact, drawn without the random source
        self.ones = [1] * n if self.count[0] == 1 and not self.multi else None

    def exhausted(self, used: set[str] | frozenset[str]) -> bool:
        """Whether ``used`` holds every template of one of the plan's multi-fact pieces (never while it
        holds fewer ids than the piece with fewest templates: no set of ids is read then)."""
        if len(used) < self.fewest:
            return False
        for ids in self.multi:
            if ids <= used:
                return True
        return False

    def cover(self, bank: Bank, rng: random.Random, used: set[str] | frozenset[str] = frozenset()) -> list[int]:
        """Piece lengths drawn as :func:`sample_cover` describes."""
        return self.draw(rng, used)

    def draw(self, rng: random.Random, used: set[str] | frozenset[str]) -> list[int]:
        """:meth:`cover` (``bank`` is not read)."""
        valid, count = self.valid, self.count
        if used and self.exhausted(used):
            valid = [[L for L in ls if L == 1 or _open(self.options[i][L - 1], used)] for i, ls in enumerate(valid)]
            count = _counts(valid)
        n = len(valid)
        if count[0] == 0:
            missing = [self.words[i] for i in range(n) if 1 not in valid[i]]
            raise NoCoverError(f"no template covers the relation word(s) {missing}")
        if count[0] == 1:  # the one cover of weight 1 is all one-fact pieces: nothing to draw
            return [1] * n
        lengths = []
        i = 0
        while i < n:
            pick = below_rng(rng, count[i])
            for L in valid[i]:
                if pick < L * count[i + L]:
                    lengths.append(L)
                    i += L
                    break
                pick -= L * count[i + L]
        return lengths


def _fewest(multi: list[frozenset[str]]) -> int:
    """The size of the smallest of ``multi`` (0 when there is none), without a generic call of ``min``."""
    fewest = len(multi[0]) if multi else 0
    for ids in multi:
        if len(ids) < fewest:
            fewest = len(ids)
    return fewest


def _counts(valid: list[list[int]]) -> list[int]:
    """The weighted count of covers from each position, given each position's valid piece lengths."""
    n = len(valid)
    count = [0] * (n + 1)
    count[n] = 1
    for i in range(n - 1, -1, -1):
        total = 0
        for L in valid[i]:
            total += L * count[i + L]
        count[i] = total
    return count


def path_plan(bank: Bank, words: tuple[str, ...], heads: tuple[str, ...], max_piece: int,
              keep: bool = True) -> PathPlan:
    """The bank's :class:`PathPlan` for these words and head genders (pieces of at most ``max_piece`` facts),
    kept on the bank unless ``keep`` is false (for a caller that keeps its plans itself, such as the
    generator's chain shapes: a plan is quick to make, but a kept one costs its memo a key and an entry)."""
    longest = min(max_piece, bank.max_len)
    if not keep:
        return PathPlan(bank, words, heads, longest)
    # one flat tuple (a kept key compared is one object read, not three); the longest piece is not in it:
    # a kept plan for another longest piece (another max_piece on the same bank) is replaced
    key = words + heads
    plan: PathPlan | None = bank.covers.get(key)
    if plan is None or plan.longest != longest:
        plan = cast(PathPlan, bank.covers.keep(key, PathPlan(bank, words, heads, longest), len(words)))
    return plan


def sample_cover(bank: Bank, words: list[str], head_genders: list[str], max_piece: int, rng: random.Random,
                 used: set[str] | frozenset[str] = frozenset()) -> list[int]:
    """Piece lengths covering ``words``, drawn among all valid covers with probability
    proportional to the product of their piece lengths.

    Weighting a piece by its length favours multi-fact pieces: with every piece valid,
    about 73% of a long chain's facts land in multi-fact pieces, against about 62% when
    every cover is equally likely. A piece of length L at position i is valid when the bank has a template for
    ``words[i:i+L]`` that fits the gender of the piece's first entity and is not in
    ``used`` (a one-fact piece is always valid when it has a template at all).
    The table of valid pieces is kept per bank for each (words, head genders); it is
    worked out again only when ``used`` holds every template of one of its multi-fact pieces.
    """
    return path_plan(bank, tuple(words), tuple(head_genders), max_piece).cover(bank, rng, used)


def mention(name: str, brackets: bool) -> str:
    """How a name appears in a story."""
    return f"[{name}]" if brackets else name


def render_path(
    bank: Bank,
    edges: list[int],
    people: list[int],
    words: list[str],
    names: list[str],
    genders: list[int],
    rng: random.Random,
    max_piece: int = 3,
    brackets: bool = True,
    used: set[str] | None = None,
) -> list[Piece]:
    """Render consecutive facts: fact i says "people[i+1] is people[i]'s words[i]".

    ``edges[i]`` is the story-edge index of fact i; ``names``/``genders`` are indexed by
    person (story index). Templates whose ids are in ``used`` are avoided (a one-fact
    clause reuses one only when all of its templates are used), and the ids chosen are
    added to it.
    """
    plan = path_plan(bank, tuple(words), tuple([GENDERS[genders[p]] for p in people[:-1]]), max_piece)
    marks = [mention(n, brackets) for n in names]
    return render_plan(bank, plan, edges, people, marks, genders, rng, set() if used is None else used)


def render_plan(bank: Bank, plan: PathPlan, edges: Sequence[int], people: Sequence[int], marks: list[str],
                genders: list[int], rng: random.Random, used: set[str]) -> list[Piece]:
    """:func:`render_path` for a path whose plan is known, with each person's ``marks`` (their
    name as it appears in the story) made beforehand. A range of ``edges`` or ``people`` (the
    chain's, a noise path's edges) is read without a list made of it."""
    lengths = plan.ones or plan.draw(rng, used)
    options = plan.options
    at = _as_list(people)
    first = _range_start(edges)  # consecutive edges from here, or -1: then read them from a list
    edge = _NONE if first >= 0 else list(edges)
    new_piece, piece_type = _piece, _PIECE
    pieces = []
    i = 0
    for L in lengths:
        ts = options[i][L - 1]
        form = ts[below_rng(rng, len(ts))]  # rng.choice(ts), with its draws
        tid = form.id
        if tid in used:
            fresh = [t for t in ts if t.id not in used]
            if fresh:
                form = rng.choice(fresh)
                tid = form.id
        used.add(tid)
        facts = _span(first + i, L) if first >= 0 else tuple(edge[i:i + L])
        mask = genders[at[i]] | genders[at[i + 1]] << 1  # bit j: whether entity j of the piece is female
        for j in range(2, L + 1):
            mask |= genders[at[i + j]] << j
        pieces.append(new_piece(piece_type, (form.render(mask, marks, at, i), tid, facts)))
        i += L
    return pieces


_NONE: Final[list[int]] = []
_COUNTING: Final[list[int]] = []  # [i] is i: people given as range(n) are read from it (grown when needed)
_SPANS: Final[list[list[tuple[int, ...]]]] = []  # [start][L - 1] is (start, ..., start + L - 1)


def _range_start(items: Sequence[int]) -> int:
    """The first of ``items`` when they are a range of consecutive non-negative ints, else -1."""
    if isinstance(items, range):
        start: int = items.start
        if start >= 0 and items.step == 1:
            return start
    return -1


def _as_list(items: Sequence[int]) -> list[int]:
    """``items`` as a list to index: itself, a kept counting list for a range from 0, or a copy."""
    if isinstance(items, list):
        return items
    if _range_start(items) == 0:
        n = len(items)
        while len(_COUNTING) < n:
            _COUNTING.append(len(_COUNTING))
        return _COUNTING
    return list(items)


def _span(start: int, length: int) -> tuple[int, ...]:
    """The facts ``(start, ..., start + length - 1)`` of a piece, one kept tuple for each."""
    while len(_SPANS) <= start:
        _SPANS.append([])
    row = _SPANS[start]
    while len(row) < length:
        row.append(tuple(range(start, start + len(row) + 1)))
    return row[length - 1]


def render_fact(bank: Bank, word: str, head: int, tail: int, marks: list[str], genders: list[int],
                rng: random.Random, edge: int = -1) -> Piece:
    """One fact alone ("tail is head's word"), as :func:`render_path` renders a path of one
    fact with no template used yet (the same draws); ``edge`` is its edge index."""
    ts = fact_forms(bank, word, genders[head])
    if not ts:
        raise NoCoverError(f"no template covers the relation word(s) {[word]}")
    form = ts[below_rng(rng, len(ts))]  # rng.choice(ts), with its draws
    text = form.render(genders[head] | genders[tail] << 1, marks, [head, tail], 0)
    return _piece(_PIECE, (text, form.id, _span(edge, 1) if edge >= 0 else (edge,)))
