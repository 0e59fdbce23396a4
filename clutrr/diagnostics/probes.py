"""Probe sets: perturbed copies of test stories, with labels recomputed where the probe changes them.

- ``sentence-shuffle``: the story's sentences in a new order; labels unchanged. A story of
  one sentence (or of identical sentences) has no other order and is skipped.
- ``word-permute``: ``q`` distinct permutations of the story's words per story, each a
  derangement (no word keeps its position); labels unchanged. Row ids get a ``::perm<j>``
  suffix. Stories of 5 words or fewer are dropped (``min_words``; Sinha's thesis drops examples
  with a sentence that short), as is a story without q distinct permutations.
- ``gender-swap``: every person gets a name of the other gender and the target is
  relabelled to the other-gender word of the same predicate. A generated story (its JSONL
  records and ``config.json`` beside the CSV) is re-rendered through its templates with
  every gender flipped: pronoun and gendered-word slots follow the new genders, and only
  the literal relation words flip by the word map. Other stories (released data) are
  rewritten word by word: relation words, their plurals, pronouns and a few gendered nouns.
- ``entity-rename``: every person gets a fresh name of the same gender, unused in the story
  and, where possible, in the training split; labels unchanged.

Every probe is seeded per story, so a probe file is the same on every run.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from clutrr.core.records import StoryRow, split_f_comb
from clutrr.errors import UsageError
from clutrr.core.kb import GENDERS, KB
from clutrr.core.names import load_names
from clutrr.render.amt_templates import SPELLINGS
from clutrr.render.statements import plural
from clutrr.render.stitching import mention
from clutrr.render.bank_files import load_bank
from clutrr.render.templates import Template
from clutrr.diagnostics.kin_flip import kb_counterparts
from clutrr.story.systems import recorded_source

KINDS = ("sentence-shuffle", "word-permute", "gender-swap", "entity-rename")
PERM_SEP = "::perm"
THESIS_Q = 100  # word permutations per story in Sinha's thesis (ch. 4)
THESIS_MIN_WORDS = 6  # the thesis drops examples with a sentence of 5 words or fewer
_DERANGE_TRIES = 200
_UNIQUE_TRIES = 50  # draws per wanted permutation before a story counts as without q distinct ones
SKIP_SHORT = "under {} words"
SKIP_FEW_PERMUTATIONS = "with fewer distinct permutations than q"
SKIP_ONE_ORDER = "with no other sentence order"
SKIP_NO_COUNTERPART = "with a kinship term that has no counterpart of the other sex"

# Gendered words outside the KB, male -> female; "her" is handled apart (his or him).
_EXTRA_PAIRS = (
    ("he", "she"), ("himself", "herself"), ("man", "woman"), ("men", "women"), ("boy", "girl"),
    ("boys", "girls"), ("mr", "mrs"), ("dad", "mom"), ("daddy", "mommy"), ("grandpa", "grandma"),
    ("papa", "mama"), ("gentleman", "lady"), ("gentlemen", "ladies"), ("husbands", "wives"),
)
# After these words (or punctuation, a name, or the end), "her" is an object: "him", not "his".
_OBJECT_FOLLOWERS = frozenset(
    "to and a an the for with at in on out up home about over back from that because as but so when while "
    "if too again yesterday today tomorrow off into around down since after before by or than".split()
)


def source_id(probe_id: str) -> str:
    """The id of the original story behind a probe row (strips a ``::perm<j>`` suffix)."""
    return probe_id.split(PERM_SEP, 1)[0]


def _rng(kind: str, seed: int, row: StoryRow) -> random.Random:
    return random.Random(f"{kind}:{seed}:{row.id}")


def derangement(n: int, rng: random.Random) -> list[int]:
    """A uniformly random permutation of range(n) with no fixed point (n >= 2)."""
    if n < 2:
        raise ValueError("a derangement needs at least two items")
    perm = list(range(n))
    while True:
        rng.shuffle(perm)
        if all(p != i for i, p in enumerate(perm)):
            return perm


def word_derangement(words: Sequence[str], rng: random.Random) -> list[int]:
    """A derangement of positions that, if one is found within a budget, also moves every
    word off a position holding the same word (duplicates included)."""
    perm = derangement(len(words), rng)
    for _ in range(_DERANGE_TRIES):
        if all(words[p] != words[i] for i, p in enumerate(perm)):
            return perm
        perm = derangement(len(words), rng)
    return perm


def split_sentences(story: str) -> list[str]:
    """The story's sentences, each ending in punctuation (a missing final stop is added)."""
    parts = [s.strip() for s in re.split(r"(?<=[.!?])\s+", story.strip()) if s.strip()]
    return [s if s[-1] in ".!?" else s + "." for s in parts]


def sentence_shuffle(row: StoryRow, seed: int) -> list[StoryRow]:
    """The story with its sentences reordered; nothing when no other order exists (one
    sentence, or sentences that are all the same)."""
    sents = split_sentences(row.story)
    if len(set(sents)) < 2:
        return []
    perm = word_derangement(sents, _rng("sentence-shuffle", seed, row))
    story = " ".join(sents[p] for p in perm)
    return [replace(row, story=story)] if story != " ".join(sents) else []


def word_permute(row: StoryRow, seed: int, q: int, min_words: int = THESIS_MIN_WORDS) -> list[StoryRow]:
    """``q`` copies of the row whose story words are deranged, no two alike; nothing for a story
    under ``min_words`` words (and at least two) or without ``q`` distinct permutations."""
    words = row.story.split()
    if len(words) < max(2, min_words):
        return []
    rng = _rng("word-permute", seed, row)
    seen, out = {row.story}, []
    for _ in range(q * _UNIQUE_TRIES):
        if len(out) == q:
            break
        perm = word_derangement(words, rng)
        story = " ".join(words[p] for p in perm)
        if story not in seen:
            seen.add(story)
            out.append(replace(row, id=f"{row.id}{PERM_SEP}{len(out)}", story=story))
    return out if len(out) == q else []


def skip_reason(kind: str, row: StoryRow, min_words: int = THESIS_MIN_WORDS) -> str:
    """Why a probe of ``kind`` wrote nothing for ``row``."""
    if kind == "sentence-shuffle":
        return SKIP_ONE_ORDER
    if kind == "gender-swap":
        return SKIP_NO_COUNTERPART
    short = len(row.story.split()) < max(2, min_words)
    return SKIP_SHORT.format(max(2, min_words)) if short else SKIP_FEW_PERMUTATIONS


def _fresh_names(row: StoryRow, gender_of: Callable[[str], str], avoid: set[str], rng: random.Random) -> dict[str, str]:
    """A new, distinct name for each person, of the gender ``gender_of(old gender)``."""
    pool = load_names()
    taken = {n for n, _ in row.genders}
    mapping = {}
    for name, gender in row.genders:
        if name in mapping:
            continue
        g = gender_of(gender)
        choices = [n for n in pool[g] if n not in taken and n not in avoid]
        if not choices:
            choices = [n for n in pool[g] if n not in taken]
        new = rng.choice(choices)
        mapping[name] = new
        taken.add(new)
    return mapping


def relation_word_map(kb: KB) -> dict[str, str]:
    """Every relation word of the KB, its plural, aliases and common misspellings (lower case)
    -> its other-gender counterpart, both ways (a kinship system's terms: their counterparts
    under the swap, :mod:`clutrr.diagnostics.kin_flip`)."""
    if kb.system:
        flips = kb_counterparts(kb)
        pairs = [pair for t, c in flips.items() for pair in ((t, c), (plural(t), plural(c)))]
    else:
        flips = {w: _flip_word(kb, w) for w in kb.word_index}
        pairs = [pair for p in kb.predicates for pair in ((p.words[0], p.words[1]),
                                                          (plural(p.words[0]), plural(p.words[1])))]
    for alias, word in {**SPELLINGS, **kb.aliases}.items():
        if word in flips:
            pairs.append((alias, flips[word]))
    out = {}
    for m, f in pairs:
        out.setdefault(m, f)
        out.setdefault(f, m)
    return out


def gender_word_map(kb: KB) -> dict[str, str]:
    """Every gendered word (lower case) -> its other-gender counterpart, both ways; not "her"."""
    pairs = list(_EXTRA_PAIRS) + list(relation_word_map(kb).items())
    out = {}
    for m, f in pairs:
        out.setdefault(m, f)
        out.setdefault(f, m)
    out["his"] = "her"
    out["him"] = "her"
    out["hers"] = "his"
    return out


def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    return word[0].upper() + word[1:] if template[0].isupper() else word


class _TextMapper:
    """Rewrites text in one pass: names by ``names``, and (optionally) gendered words flipped."""

    def __init__(self, names: dict[str, str], words: dict[str, str] | None) -> None:
        self.names = names
        self.words = words or {}
        alts = []
        if names:
            alts.append("(?P<name>" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + ")")
        if words:
            vocab = sorted([*words, "her"], key=len, reverse=True)
            alts.append("(?i:(?P<word>" + "|".join(re.escape(w) for w in vocab) + "))")
        self.regex = re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])") if alts else None

    def __call__(self, text: str) -> str:
        if not self.regex or not text:
            return text
        return self.regex.sub(lambda m: self._sub(m, text), text)

    def _sub(self, m: re.Match, text: str) -> str:
        name = m.groupdict().get("name")
        if name:
            return self.names[name]
        word = m.group("word")
        low = word.lower()
        if low == "her":
            nxt = re.match(r"\s*([\[\w]+)?", text[m.end():]).group(1)
            new = "him" if not nxt or nxt.startswith("[") or nxt.lower() in _OBJECT_FOLLOWERS else "his"
        else:
            new = self.words[low]
        return _match_case(word, new)


def _map_literal(value, fn: Callable[[str], str]):
    """Apply ``fn`` to every string inside nested tuples, lists and dicts."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_map_literal(v, fn) for v in value)
    if isinstance(value, list):
        return [_map_literal(v, fn) for v in value]
    if isinstance(value, dict):
        return {_map_literal(k, fn): _map_literal(v, fn) for k, v in value.items()}
    return value


def _flip_word(kb: KB, word: str) -> str:
    if kb.system:
        return kb_counterparts(kb)[kb.word(*kb.parse_word(word))]
    pred, g = kb.parse_word(word)
    return kb.word(pred, 1 - g)


def _rewrite(row: StoryRow, names: dict[str, str], text: _TextMapper, atom: Callable[[str], str],
             gender: Callable[[str], str], target: str, f_comb: str, edge_types: list[str]) -> StoryRow:
    return replace(
        row,
        story=text(row.story), clean_story=text(row.clean_story), syn_story=text(row.syn_story),
        text_query=text(row.text_query), text_target=[text(t) for t in row.text_target],
        query=tuple(names.get(n, n) for n in row.query),
        genders=[(names[n], gender(g)) for n, g in row.genders],
        proof_state=_map_literal(row.proof_state, atom),
        target=target, f_comb=f_comb, edge_types=edge_types,
    )


class Rerenderer:
    """Re-renders generated stories through their templates, with new names and genders.

    Built from the JSONL records beside a CSV and the banks named in the dataset's
    ``config.json``. A template from a slot bank flips only its literal relation words; one
    from an AMT file (literal pronouns) flips every gendered word by the word map.
    """

    def __init__(self, records: dict[str, dict], templates: dict[str, Template], brackets: bool, kb: KB) -> None:
        self.records, self.templates, self.brackets = records, templates, brackets
        self.relation_words = _TextMapper({}, relation_word_map(kb))
        self.all_words = _TextMapper({}, gender_word_map(kb))
        self.rendered = 0
        self._flipped: dict[str, tuple] = {}

    @classmethod
    def beside(cls, csv_path: str | Path, kb: KB) -> "Rerenderer | None":
        """The re-renderer of a generated CSV, or None when its JSONL records, its
        ``config.json`` or one of the banks it names cannot be read."""
        csv_path = Path(csv_path)
        jsonl, config = csv_path.with_suffix(".jsonl"), csv_path.parent / "config.json"
        if not jsonl.is_file() or not config.is_file():
            return None
        try:
            spec = json.loads(config.read_text(encoding="utf-8"))["spec"]["config"]
            records = {}
            with open(jsonl, encoding="utf-8") as fh:
                for line in fh:
                    rec = json.loads(line)
                    records[rec["id"]] = rec
            templates: dict[str, Template] = {}
            for source in (spec.get("fallback_templates", "paraphrase"), spec["templates"]):
                if source == "none":
                    continue
                source = recorded_source(source)
                for where in (source, str(csv_path.parent / source)):
                    try:
                        templates.update((t.id, t) for t in load_bank(where).templates())
                        break
                    except (OSError, ValueError):
                        continue
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return cls(records, templates, bool(spec.get("brackets", True)), kb)

    def _parts(self, t: Template) -> tuple:
        hit = self._flipped.get(t.id)
        if hit is None:
            mapper = self.all_words if t.source.endswith(".json") else self.relation_words
            hit = self._flipped[t.id] = tuple(mapper(p) if isinstance(p, str) else p for p in t.compiled())
        return hit

    def _render(self, template_id: str, people: list[int], names: list[str], genders: list[int],
                flip: bool) -> str | None:
        t = self.templates.get(template_id)
        if t is None:
            return None
        if not flip:
            return t.render([mention(names[p], self.brackets) for p in people], [genders[p] for p in people])
        out = []
        for part in self._parts(t):
            if isinstance(part, str):
                out.append(part)
            elif part[1] is None:
                out.append(mention(names[people[part[0]]], self.brackets))
            else:
                out.append(part[1][genders[people[part[0]]]])
        return "".join(out)

    def _texts(self, rec: dict, names: list[str], genders: list[int], flip: bool) -> dict | None:
        edges = rec["edges"]
        pieces = []
        for p in rec["pieces"]:
            people = [edges[p["edges"][0]]["head"]] + [edges[e]["tail"] for e in p["edges"]]
            text = self._render(p["template"], people, names, genders, flip)
            if text is None:
                return None
            pieces.append((p["edges"], text))
        target = self._render(rec["target_template"], list(rec["query"]), names, genders, flip)
        if target is None:
            return None
        chain = sorted((e, t) for e, t in pieces if max(e) < rec["k"])
        return {"story": " ".join(t for _, t in pieces), "clean_story": " ".join(t for _, t in chain),
                "text_target": [target]}

    def swap(self, row: StoryRow, names: dict[str, str]) -> dict | None:
        """The story, clean story and target text of ``row`` re-rendered with every gender
        flipped and every name replaced by ``names``; None when the row has no record or
        its record does not re-render to the row's own text."""
        rec = self.records.get(row.id)
        if rec is None:
            return None
        old = [p["name"] for p in rec["people"]]
        genders = [GENDERS.index(p["gender"]) for p in rec["people"]]
        same = self._texts(rec, old, genders, False)
        if same is None or same["story"] != row.story or same["clean_story"] != row.clean_story:
            return None
        texts = self._texts(rec, [names.get(n, n) for n in old], [1 - g for g in genders], True)
        if texts is not None:
            self.rendered += 1
        return texts


def _swappable(kb: KB, row: StoryRow) -> bool:
    """Whether every term a kinship system's row states, asks or proves has a counterpart of the other sex."""
    proved = {w for step in row.proof_state for goal, facts in step.items() for _, w, _ in (goal, *facts)}
    return {row.target, *filter(None, row.edge_types), *proved} <= set(kb_counterparts(kb))


def gender_swap(row: StoryRow, seed: int, kb: KB, rerender: Rerenderer | None = None) -> list[StoryRow]:
    """Every person's gender flipped, with names, gendered words and the label to match;
    re-rendered through the story's templates when ``rerender`` knows the row."""
    other = {GENDERS[0]: GENDERS[1], GENDERS[1]: GENDERS[0]}
    if kb.system and not _swappable(kb, row):
        return []
    names = _fresh_names(row, other.__getitem__, set(), _rng("gender-swap", seed, row))
    words = gender_word_map(kb)

    def atom(s: str) -> str:
        if s in names:
            return names[s]
        return _flip_word(kb, s) if s.strip().lower() in kb.word_index else s

    new = _rewrite(
        row, names, _TextMapper(names, words), atom, other.__getitem__,
        target=_flip_word(kb, row.target),
        f_comb="-".join(_flip_word(kb, w) for w in split_f_comb(row.f_comb, set(kb.word_index))),
        edge_types=[_flip_word(kb, w) if w else w for w in row.edge_types],
    )
    texts = rerender.swap(row, names) if rerender is not None else None
    if texts is not None:
        new = replace(new, **texts)
    tail_gender = dict(new.genders)[new.query[1]]
    if not any(p.words[GENDERS.index(tail_gender)] == new.target for p in kb.predicates):
        raise UsageError(f"row {row.id}: target {row.target!r} does not match the gender of {row.query[1]}")
    return [new]


def entity_rename(row: StoryRow, seed: int, avoid: set[str]) -> list[StoryRow]:
    """Every person renamed to a fresh name of the same gender, not in ``avoid`` where possible."""
    names = _fresh_names(row, lambda g: g, avoid, _rng("entity-rename", seed, row))
    return [_rewrite(row, names, _TextMapper(names, None), lambda s: names.get(s, s), lambda g: g,
                     target=row.target, f_comb=row.f_comb, edge_types=list(row.edge_types))]


def iter_probe(kind: str, rows: Iterable[StoryRow], kb: KB, seed: int = 0, q: int = THESIS_Q,
               avoid_names: set[str] | None = None, rerender: Rerenderer | None = None,
               min_words: int = THESIS_MIN_WORDS, skipped: Counter | None = None) -> Iterator[StoryRow]:
    """The probe rows of ``kind`` for ``rows``, one story at a time; raises UsageError for an
    unknown kind or a target outside the KB. ``rerender`` (gender-swap) re-renders generated
    stories through their templates; ``skipped`` counts the stories that gave no row, by reason."""
    if kind not in KINDS:
        raise UsageError(f"unknown probe kind {kind!r} (choose from {', '.join(KINDS)})")
    build: Callable[[StoryRow], list[StoryRow]] = {
        "sentence-shuffle": lambda r: sentence_shuffle(r, seed),
        "word-permute": lambda r: word_permute(r, seed, q, min_words),
        "gender-swap": lambda r: gender_swap(r, seed, kb, rerender),
        "entity-rename": lambda r: entity_rename(r, seed, avoid_names or set()),
    }[kind]
    for r in rows:
        if r.target.strip().lower() not in kb.word_index:
            raise UsageError(f"row {r.id}: target {r.target!r} is not a relation word of KB {kb.name!r}")
        made = build(r)
        if not made and skipped is not None:
            skipped[skip_reason(kind, r, min_words)] += 1
        yield from made


def make_probe(kind: str, rows: Sequence[StoryRow], kb: KB, seed: int = 0, q: int = THESIS_Q,
               avoid_names: set[str] | None = None, rerender: Rerenderer | None = None,
               min_words: int = THESIS_MIN_WORDS, skipped: Counter | None = None) -> list[StoryRow]:
    """The probe rows of ``kind`` for ``rows`` (see :func:`iter_probe`)."""
    return list(iter_probe(kind, rows, kb, seed, q, avoid_names, rerender, min_words, skipped))
