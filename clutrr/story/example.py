"""A generated example and its two views, the JSON record and the CLUTRR CSV row.

The generator keeps what it built (names, edges, pieces, proof) and makes each view on
first use: a worker that writes only JSONL never builds the CSV row, and the writer reads
the story, label and pattern of each row without building either.
"""
from __future__ import annotations

import json
from typing import Final, cast

from clutrr.core.chainer import Chain
from clutrr.core.difficulty import difficulty
from clutrr.core.family import Family
from clutrr.core.kb import GENDERS, KB
from clutrr.core.native import mypyc_attr
from clutrr.core.records import StoryRow
from clutrr.kinship.kintypes import kin_type
from clutrr.questions.forms import RELATION, Question
from clutrr.render.stitching import Piece

Fact = tuple[int, int, int]
# the gender words by gender, as a static list: compiled, GENDERS (a pair) indexed by a variable is boxed
# into a new tuple per read
GENDER_WORDS: Final[list[str]] = list(GENDERS)


@mypyc_attr(serializable=True)  # compiled, it pickles as in Python (its __init__ is not called to load it)
class Example:
    """A generated example: its JSON ``record`` and its CSV ``row`` (both made on first use),
    and the family, chain and noise it was built from.

    The fields the writer needs on every row (``story``, ``target``, ``pattern``,
    ``heldout``, ``pieces``, ``chain_words``, ``chain_heads``, ``names``) are plain attributes.
    """

    __slots__ = ("kb", "id", "split", "task", "k", "noise_kind", "seed", "index", "names", "genders", "people",
                 "edges", "words", "chain_words", "chain_heads", "query", "query_pred", "target", "pattern", "heldout",
                 "proof", "story", "clean_pieces", "pieces", "target_piece", "context", "chain", "noise", "family",
                 "question", "with_difficulty", "_record", "_row")

    def __init__(self, kb: KB, *, id: str, split: str, task: int, k: int, noise_kind: str, seed: int, index: int,
                 names: list[str], genders: list[int], people: list[int], edges: list[tuple[int, int, int, str]],
                 words: list[str], chain_words: tuple[str, ...], chain_heads: tuple[str, ...],
                 query: tuple[int, int], query_pred: int, target: str, pattern: str, heldout: bool,
                 proof: list[tuple[Fact, Fact, Fact]], story: str, clean_pieces: list[Piece], pieces: list[Piece],
                 target_piece: Piece, context: dict | None, chain: Chain, noise: list[tuple[str, list[Fact]]],
                 family: Family, with_difficulty: bool = False) -> None:
        self.kb = kb
        self.id, self.split, self.task, self.k, self.noise_kind = id, split, task, k, noise_kind
        self.seed, self.index = seed, index
        self.names, self.genders, self.people = names, genders, people  # people: family ids, in story order
        self.edges, self.words = edges, words  # edges: (head, predicate, tail, noise kind) over story people
        self.chain_words, self.chain_heads = chain_words, chain_heads  # the chain's words and its facts' heads' genders
        self.query, self.query_pred, self.target = query, query_pred, target
        self.pattern, self.heldout, self.proof = pattern, heldout, proof  # proof over family ids
        self.story, self.clean_pieces, self.pieces, self.target_piece = story, clean_pieces, pieces, target_piece
        self.context = context
        self.chain, self.noise, self.family = chain, noise, family
        self.question: Question | None = None  # set for --question other than relation (clutrr.questions)
        self.with_difficulty = with_difficulty  # records carry "difficulty" (clutrr.core.difficulty)
        self._record: dict | None = None
        self._row: StoryRow | None = None

    def _positions(self) -> list[int]:
        """Story index by family id, for the people of the story (a family id not in the story
        gets one past the last index: naming that person raises IndexError)."""
        people = self.people
        top = 0  # the largest family id (a loop: compiled, max() is a generic call with a tuple of arguments)
        for q in people:
            if q > top:
                top = q
        pos = [len(people)] * (top + 1)
        for i, q in enumerate(people):
            pos[q] = i
        return pos

    @property
    def clean_story(self) -> str:
        """The chain's pieces alone, in chain order."""
        return " ".join([p[0] for p in self.clean_pieces])

    @property
    def record(self) -> dict:
        """The typed JSON record (the JSONL format; see :mod:`clutrr.io.schema`)."""
        if self._record is None:
            self._record = self._built_record()
        return self._record

    def _built_record(self) -> dict:
        """A new :attr:`record`."""
        names, genders, pred_names = self.names, self.genders, self.kb.pred_names
        gender_words = GENDER_WORDS
        qa, qb = self.query
        proof = []
        if self.proof:
            pos, words_of = self._positions(), kb_words(self.kb).flat
            proof = [{"goal": named(g, pos, names, genders, words_of),
                      "rule": [pred_names[f1[1]], pred_names[f2[1]]],
                      "by": [named(f1, pos, names, genders, words_of), named(f2, pos, names, genders, words_of)]}
                     for g, f1, f2 in self.proof]
        record = {
            "id": self.id, "split": self.split, "task": self.task, "k": self.k, "noise": self.noise_kind,
            "seed": self.seed, "index": self.index,
            "people": [person_entry(n, gender_words[g]) for n, g in zip(names, genders)],
            "edges": [edge_entry(e, w, pred_names) for e, w in zip(self.edges, self.words)],
            "query": [qa, qb], "target": self.target, "target_predicate": pred_names[self.query_pred],
            "pattern": self.pattern, "pattern_heldout": self.heldout, "proof": proof,
            "story": self.story, "clean_story": self.clean_story, "text_target": [self.target_piece[0]],
            "pieces": [piece_entry(p) for p in self.pieces], "target_template": self.target_piece[1],
        }
        if self.question is not None:
            record.update(self._asked())
        if self.context is not None:
            record["context"] = self.context
        if self.with_difficulty:
            record["difficulty"] = difficulty(self.edges, len(self.people), self.k, self.query, len(self.chain.people))
        if self.kb.system:  # a kinship system's terms: the pair's kin type, the terms defined
            record["kin_type"] = self.kin_type
            record["glossary"] = self.glossary
        return record

    def _asked(self) -> dict:
        """The record's fields of the question asked: form, question text, answer, and the
        query (story indices) and relation word it names, with that word's predicate."""
        q = cast(Question, self.question)
        return {"query": list(q.query), "target": q.target,
                "target_predicate": self.kb.pred_names[self.kb.fact_predicate(q.target, self.genders[q.query[0]])],
                "form": q.form, "question": q.text(self.names), "answer": q.answer}

    @property
    def question_cells(self) -> list[str]:
        """The CSV cells of the question asked (:data:`clutrr.io.csv_format.QUESTION_COLUMNS`)."""
        q = cast(Question, self.question)
        return [q.form, q.text(self.names), json.dumps(q.answer, ensure_ascii=False), json.dumps(list(q.query)),
                q.target]

    @property
    def kin_type(self) -> str:
        """The kin type of the answer person from the person asked about (``B``, ``FZS``); for a
        question of another form, of each person its answer is about, joined by commas in story
        order (none for a count of 0)."""
        q = self.question
        if q is not None and q.form != RELATION:
            return ",".join(kin_type(self.family, self.people[q.query[0]], self.people[b]) for b in q.about)
        qa, qb = self.query
        return kin_type(self.family, self.people[qa], self.people[qb])

    @property
    def glossary(self) -> list[str]:
        """The definitions of the KB's words the story states or its question names, in the KB's
        word order (none for a KB without a glossary)."""
        used = set(self.words)
        if self.question is not None and self.question.form != RELATION:
            used.add(self.question.target)
        return [self.kb.glossary[w] for w in self.kb.words if w in used and w in self.kb.glossary]

    @property
    def row(self) -> StoryRow:
        """The CLUTRR CSV row."""
        if self._row is None:
            names, genders = self.names, self.genders
            qa, qb = self.query
            pos, words_of = self._positions(), kb_words(self.kb).flat

            def name(fact: Fact) -> tuple[str, str, str]:
                a, w, b = named(fact, pos, names, genders, words_of)
                return a, w, b
            self._row = StoryRow(
                id=self.id,
                story=self.story,
                query=(names[qa], names[qb]),
                target=self.target,
                clean_story=self.clean_story,
                proof_state=[{name(goal): [name(f1), name(f2)]} for goal, f1, f2 in self.proof],
                f_comb=self.pattern,
                task_name=f"task_{self.task}.{self.k}",
                story_edges=[(a, b) for a, _, b, _ in self.edges],
                edge_types=self.words,
                query_edge=(qa, qb),
                genders=[(n, GENDER_WORDS[g]) for n, g in zip(names, genders)],
                node_mapping={p: i for i, p in enumerate(self.people)},
                task_split=self.split,
                text_target=[self.target_piece.text],
            )
            if self.kb.system:
                self._row.kin_type, self._row.glossary = self.kin_type, self.glossary
        return self._row


class KBWords:
    """A KB's gendered words by predicate index, read once per KB (a predicate is a Python object):
    as (male, female) pairs, and flat (the word of predicate ``p`` for gender ``g`` at ``2 * p + g``)."""

    def __init__(self, kb: KB) -> None:
        self.kb = kb
        self.pairs: list[tuple[str | None, str | None]] = [p.words for p in kb.predicates]
        self.flat: list[str | None] = [w for pair in self.pairs for w in pair]


_WORDS: dict[int, tuple[KB, KBWords]] = {}  # id(kb) -> the KB and its words


def kb_words(kb: KB) -> KBWords:
    """The :class:`KBWords` of ``kb``, made once per KB (kept by ``id(kb)``; KBs loaded one after
    another, as in tests, keep only the recent ones)."""
    got = _WORDS.get(id(kb))
    if got is None or got[0] is not kb:
        if len(_WORDS) >= 64:
            _WORDS.clear()
        got = _WORDS[id(kb)] = (kb, KBWords(kb))
    return got[1]


def predicate_words(kb: KB) -> list[tuple[str | None, str | None]]:
    """The KB's gendered words by predicate index, as (male, female) pairs."""
    return kb_words(kb).pairs


def person_entry(name: str, gender_word: str) -> dict:
    """A record's entry of a story person."""
    return {"name": name, "gender": gender_word}


def edge_entry(edge: tuple[int, int, int, str], word: str, pred_names: list[str]) -> dict:
    """A record's entry of a story edge (head, predicate, tail, noise kind) stated by ``word``."""
    a, p, b, kind = edge
    return {"head": a, "tail": b, "relation": word, "predicate": pred_names[p], "noise": kind}


def piece_entry(piece: Piece) -> dict:
    """A record's entry of a story piece: its template and the edges it states."""
    return {"template": piece[1], "edges": list(piece[2])}


def named(fact: Fact, pos: list[int], names: list[str], genders: list[int], words: list[str | None]) -> list[str]:
    """A fact over family ids named as a list: [head's name, relation word, tail's name]
    (``pos`` from :meth:`Example._positions`, ``words`` from :attr:`KBWords.flat`)."""
    a = pos[fact[0]]
    b = pos[fact[2]]
    return [names[a], cast(str, words[2 * fact[1] + genders[b]]), names[b]]
