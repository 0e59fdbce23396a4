"""Template banks: story templates keyed by clause (the relation words of 1-3 facts).

The format is described in ``paraphrases/README.md``. A template's id is a short hash of
its clause, gender key and text, so ids survive reordering and additions.

Template text holds slots in braces: ``{A}`` is entity A's name; ``{A.he}``, ``{A.him}``,
``{A.his}``, ``{A.hers}``, ``{A.himself}`` (or their female forms ``she``, ``hers``,
``herself``) are A's pronouns, rendered from A's gender; ``{A.man|woman}`` is a gendered
noun, male form first. A slot name that starts with a capital letter (``{A.He}``,
``{B.Son|Daughter}``) renders capitalised. ``her`` is refused: it may be ``him`` or ``his``.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from clutrr.core.memo import FactMemo
from clutrr.errors import yaml_error_line
from clutrr.render.normalise import normalise
from clutrr.render.slots import slot_forms

GENDER_KEYS = ("any", "male", "female")
# Share of each clause's templates held out for test, by the clause's number of facts: measured so
# that test stories (k=2..10) and training stories (k=2,3) have about the same share of distinct
# sentence frames (`clutrr paraphrases check` prints it; docs/text.md).
TEST_SHARE = {1: 0.6, 2: 0.35, 3: 0.25}
# render plans kept per bank and chain shape (clutrr.render.stitching.path_plan), counted in chain facts
COVER_FACTS = 16_384
SLOT = re.compile(r"\{([A-D])(?:\.([^{}]*))?\}")


def compile_text(text: str) -> tuple:
    """Split template text into parts: a literal string, ``(entity, None)`` for a name, or
    ``(entity, (male text, female text))`` for a pronoun or gendered word."""
    parts: list = []
    pos = 0
    for m in SLOT.finditer(text):
        if m.start() > pos:
            parts.append(text[pos:m.start()])
        entity = ord(m.group(1)) - 65
        parts.append((entity, None if m.group(2) is None else slot_forms(m.group(2))))
        pos = m.end()
    if pos < len(text):
        parts.append(text[pos:])
    return tuple(parts)


@dataclass(frozen=True)
class Template:
    """One template: ``text`` has placeholders {A}..{D}; ``gender`` constrains A (any/male/female)."""

    id: str
    clause: tuple[str, ...]
    gender: str
    text: str
    source: str
    parts: tuple = field(default=(), compare=False, repr=False)
    _plan: tuple = field(default=(), compare=False, repr=False)

    def compiled(self) -> tuple:
        """The text as rendered (:func:`~clutrr.render.normalise.normalise`: end punctuation
        added, tokenised spacing joined) split into literal strings and slots; compiled once."""
        if not self.parts:
            object.__setattr__(self, "parts", compile_text(normalise(self.text)))
        return self.parts

    def compile_plan(self) -> tuple:
        """(leading text, ((entity, forms or None, following text), ...)) for :meth:`render`."""
        if self._plan:
            return self._plan
        head, slots = "", []
        for part in self.compiled():
            if isinstance(part, str):
                if slots:
                    slots[-1][2] += part
                else:
                    head += part
            else:
                slots.append([part[0], part[1], ""])
        plan = (head, tuple(tuple(s) for s in slots))
        object.__setattr__(self, "_plan", plan)
        return plan

    def render(self, names: list[str], genders: list[int]) -> str:
        """The text with entity i named ``names[i]`` and gendered by ``genders[i]`` (0 male, 1 female)."""
        head, slots = self._plan or self.compile_plan()
        out = [head]
        for ent, forms, tail in slots:
            out.append(names[ent] if forms is None else forms[genders[ent]])
            out.append(tail)
        return "".join(out)

    def fits(self, head_gender: str) -> bool:
        """Whether the template may render a clause whose first entity has ``head_gender``."""
        return self.gender == "any" or self.gender == head_gender


_new = object.__new__
_set = object.__setattr__


def made_template(tid: str, clause: tuple[str, ...], gender: str, text: str, source: str, plan: tuple) -> Template:
    """``Template(tid, clause, gender, text, source, _plan=plan)``, its fields set at once: a frozen
    dataclass's own ``__init__`` sets each field through ``object.__setattr__``, about three times
    slower, which a bank of thousands of templates read from the cache pays at every start."""
    t = _new(Template)
    _set(t, "__dict__", {"id": tid, "clause": clause, "gender": gender, "text": text, "source": source,
                         "parts": (), "_plan": plan})
    return t


def template_id(clause: tuple[str, ...], gender: str, text: str) -> str:
    """A stable id: the clause, then 8 hex digits of a hash of gender and text."""
    digest = hashlib.blake2b(f"{'-'.join(clause)}|{gender}|{text}".encode(), digest_size=4).hexdigest()
    return f"{'-'.join(clause)}#{digest}"


class Bank:
    """Templates indexed by clause. ``fallback_ids`` are the ids of templates filled in from a
    fallback bank; ``dropped`` counts the flagged templates left out, per writing rule."""

    def __init__(self, templates: list[Template], name: str = "bank",
                 holdout: tuple["Bank", "Bank"] | None = None, fallback_ids: frozenset[str] = frozenset(),
                 dropped: dict[str, int] | None = None) -> None:
        self.name = name
        self.holdout = holdout
        self.fallback_ids = fallback_ids
        self.dropped = dropped or {}
        self.by_clause: dict[tuple[str, ...], list[Template]] = {}
        for t in templates:
            self.by_clause.setdefault(t.clause, []).append(t)
        self.max_len = max((len(c) for c in self.by_clause), default=0)
        self._choices: dict[tuple[tuple[str, ...], str], list[Template]] = {}
        self.covers = FactMemo(COVER_FACTS)  # cover tables of clutrr.render.stitching.sample_cover
        self._ids: dict[tuple[tuple[str, ...], str], frozenset[str]] = {}
        self._by_id: dict[str, Template] | None = None
        # rendering's view of the templates (clutrr.render.stitching.forms): template id -> Form,
        # (clause, head gender) -> the Forms of its choices, relation word -> its one-fact Forms by head gender,
        # head gender -> the empty clause, from which rendering and the text measures reach clauses word by word
        self.forms: dict = {}
        self.choice_forms: dict = {}
        self.fact_forms: dict = {}
        self.clause_roots: dict = {}
        self.clause_prefixes: frozenset = frozenset()  # the proper prefixes of its clauses (set with clause_roots)
        # the text measures' counts of a short chain's own-template spans: words + heads -> counts
        # (clutrr.render.measures.own_counts)
        self.chain_own: dict = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_clause.values())

    def templates(self) -> list[Template]:
        """Every template, clause by clause."""
        return [t for ts in self.by_clause.values() for t in ts]

    def choices(self, clause: tuple[str, ...], head_gender: str) -> list[Template]:
        """Templates that can render ``clause`` with a first entity of ``head_gender``."""
        key = (clause, head_gender)
        hit = self._choices.get(key)
        if hit is None:
            hit = self._choices[key] = [t for t in self.by_clause.get(clause, ()) if t.fits(head_gender)]
        return hit

    def choice_ids(self, clause: tuple[str, ...], head_gender: str) -> frozenset[str]:
        """The ids of :meth:`choices` (kept: one set per clause and gender)."""
        key = (clause, head_gender)
        hit = self._ids.get(key)
        if hit is None:
            hit = self._ids[key] = frozenset(t.id for t in self.choices(clause, head_gender))
        return hit

    def by_id(self) -> dict[str, Template]:
        """Id -> template (built on first use)."""
        if self._by_id is None:
            self._by_id = {t.id: t for t in self.templates()}
        return self._by_id

    def split(self, seed: int, test_share: dict[int, float] | None = None) -> tuple["Bank", "Bank"]:
        """A fixed, seeded (train, test) split of each clause's templates.

        A clause of L facts with n >= 2 templates sends round(n * share[L]) of them (at least
        one) to test; a clause with a single template keeps it in train only. The default
        shares (:data:`TEST_SHARE`) follow where each split's stories draw their text: long
        test chains are told mostly with one-fact templates, short training chains mostly
        with two- and three-fact ones, so both splits' stories are about as varied. A bank
        loaded from a train/test pair of files returns that pair instead.
        """
        if self.holdout is not None:
            return self.holdout
        share = TEST_SHARE if test_share is None else test_share
        train: list[Template] = []
        test: list[Template] = []
        seeded = hashlib.blake2b(f"{seed}|".encode(), digest_size=8)
        for clause, ts in self.by_clause.items():
            order = sorted(ts, key=lambda t: split_key(seeded, t.id))
            n_test = max(1, round(len(ts) * share.get(len(clause), 0.2))) if len(ts) >= 2 else 0
            test += order[:n_test]
            train += order[n_test:]
        return Bank(train, f"{self.name}:train"), Bank(test, f"{self.name}:test")


def split_key(seeded: hashlib.blake2b, tid: str) -> bytes:
    """``blake2b(f"{seed}|{tid}", digest_size=8)``, the order of a template in :meth:`Bank.split`, from
    ``seeded`` (that hash of ``f"{seed}|"`` alone) copied: about twice as quick for a bank of thousands."""
    h = seeded.copy()
    h.update(tid.encode())
    return h.digest()


def parse_bank_file(path: Path) -> list[Template]:
    """Read one YAML file of clause blocks."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or []
    except yaml.YAMLError as exc:
        raise ValueError(f"{path}:{yaml_error_line(exc)}") from None
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of clause blocks")
    out = []
    for block in data:
        if not isinstance(block, dict) or "clause" not in block:
            raise ValueError(f"{path}: every block needs a 'clause' key")
        words = block["clause"]
        clause = tuple(str(w) for w in words) if isinstance(words, list) else tuple(split_clause(str(words)))
        for g in GENDER_KEYS:
            for text in block.get(g) or []:
                out.append(Template(template_id(clause, g, str(text)), clause, g, str(text), str(path)))
    return out


def split_clause(key: str) -> list[str]:
    """Split ``brother-son-in-law`` into relation words (hyphenated words kept whole)."""
    from clutrr.core.records import split_f_comb

    return split_f_comb(key)
