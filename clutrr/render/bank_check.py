"""Validate a template bank and measure it (``clutrr paraphrases check``).

Checks, per template: the file parses into clause blocks; placeholders are well formed
and are exactly the clause's entities; pronouns agree with a gender that some entity of
the clause is known to have; the relation implied between the first and the last entity
(composed with the KB) is not named, unless that word also states a fact of the clause;
no wording hedges a gender ("his aunt or uncle" belongs under a male/female key); a fact
whose relation has several senses (its KB definition is a union: sibling-in-law,
nephew/niece, uncle/aunt) is stated with its word or its inverse's word, never by one
sense ("married {A}'s sister"), which is false in families where the other holds; no
text repeats within a clause; the clause is a walk that occurs in some family, and the
gender key is a possible gender of its first person. Measures follow
``paraphrases/README.md``; the targets are those of the bank's issue.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations
from pathlib import Path

import numpy as np
import yaml

from clutrr.errors import yaml_error_line
from clutrr.render.amt_templates import amt_pair, read_amt
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.core.genealogy import compose
from clutrr.core.kb import GENDERS, KB, load_kb
from clutrr.core.names import load_names
from clutrr.render.bank_files import bank_paths
from clutrr.render.normalise import normalise, respell
from clutrr.render.slots import SlotError, slot_forms
from clutrr.render.statements import Facts, Flag, analyse, extra_names, lexicon, text_flags, tokenize
from clutrr.render.grammar import grammar_flags
from clutrr.render.world import meaning_flags
from clutrr.render.templates import GENDER_KEYS, SLOT, Template, split_clause, template_id

TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?")
PLACEHOLDER = re.compile(r"\{([A-D])\}")
BRACED = re.compile(r"\{[^{}]*\}")
PRONOUNS = {
    "male": re.compile(r"\b(he|him|his|himself)\b"),
    "female": re.compile(r"\b(she|her|hers|herself)\b"),
}
HEDGED_PAIRS = (("he", "she"), ("him", "her"), ("his", "her"), ("himself", "herself"), ("man", "woman"),
                ("boy", "girl"))
ENTITY_TOKEN = "ent"
WORLD_FAMILIES = 60

TARGETS = {
    "k1_per_gender": 40,
    "k2_per_gender": 15,
    "k3_per_clause": 8,
    "k3_clauses": 150,
    "total": 6000,
    "jaccard_unigram": 0.20,
    "jaccard_bigram": 0.09,
    "unique_words": 3600,
}


@dataclass(frozen=True)
class Entry:
    """A template as read, with where it came from (``path:line``)."""

    template: Template
    where: str


@dataclass
class KStats:
    """Measures of the clauses with k facts."""

    k: int
    clauses: int
    templates: int
    min_count: int
    min_clause: str
    unique_words: int
    jaccard_unigram: float
    jaccard_bigram: float
    flagged: int = 0


@dataclass
class Report:
    """The outcome of checking a bank: ``errors`` make it unusable as it is (a file that does
    not read); ``flags`` mark templates the generator drops (unless the flag says repaired)."""

    entries: list[Entry]
    errors: list[str] = field(default_factory=list)
    flags: list[tuple[Entry, Flag]] = field(default_factory=list)
    stats: dict[int, KStats] = field(default_factory=dict)
    unique_words: int = 0
    unmet: list[str] = field(default_factory=list)
    counts: dict[tuple[str, ...], dict[str, int]] = field(default_factory=dict)

    @property
    def problems(self) -> list[str]:
        """Errors, then one line per flag: ``where: clause [gender]: rule N (...): message: «span»``."""
        return self.errors + [flag_line(e, f) for e, f in self.flags]

    @property
    def dropped(self) -> set[str]:
        """Ids of the templates the generator drops."""
        return {e.template.id for e, f in self.flags if f.drops}

    def by_rule(self) -> dict[str, int]:
        """Dropped templates per rule (a template counts once per rule it breaks)."""
        pairs = {(e.template.id, f.rule) for e, f in self.flags if f.drops}
        return dict(sorted(Counter(r for _, r in pairs).items(), key=lambda kv: _rule_order(kv[0])))

    @property
    def repaired(self) -> set[str]:
        """Ids of kept templates with prose repaired when rendered."""
        return {e.template.id for e, f in self.flags if not f.drops and f.rule == "8"} - self.dropped

    def kinds(self) -> dict[str, int]:
        """Templates per finer class of flag (role-only, unstated, dangling, world, extra-person,
        repeated-name), each counted once; dropped ones and kept ones (a crowd bank keeps an
        unstated fact, every bank keeps a repeated name) alike."""
        pairs = {(e.template.id, f.kind) for e, f in self.flags if f.kind}
        return dict(Counter(k for _, k in pairs))

    def by_file(self) -> dict[str, int]:
        """Dropped templates per file."""
        ids = {e.template.id: e.template.source for e, f in self.flags if f.drops}
        return dict(sorted(Counter(ids.values()).items()))

    @property
    def ok(self) -> bool:
        """No errors, no template dropped or repaired, and every checked target met (notes,
        such as a name repeated in a sentence, are kept)."""
        return not self.errors and not self.dropped and not self.repaired and not self.unmet


def _rule_order(rule: str) -> tuple[int, str]:
    return (0, rule.zfill(2)) if rule.isdigit() else (1, rule)


def flag_line(e: Entry, f: Flag) -> str:
    """One flag as printed."""
    return f"{e.where}: {'-'.join(e.template.clause)} [{e.template.gender}]: {f}"


def _slot_text(m: re.Match, both: bool) -> str:
    """A slot as measured text: a name is ``ent``; a gendered slot its male form (or both forms)."""
    if m.group(2) is None:
        return ENTITY_TOKEN
    try:
        male, female = slot_forms(m.group(2))
    except SlotError:
        return " "
    return f" {male} {female} " if both else male


def tokens(text: str) -> list[str]:
    """Measure tokens: lower-cased, each name slot replaced by the token ``ent`` and each
    gendered slot by its male form."""
    return TOKEN.findall(SLOT.sub(lambda m: _slot_text(m, False), text).lower())


def is_entity_token(token: str) -> bool:
    """Whether a token is an entity mention (``ent`` or ``ent's``)."""
    return token == ENTITY_TOKEN or token.startswith(ENTITY_TOKEN + "'")


def jaccard(a: frozenset, b: frozenset) -> float:
    """|a & b| / |a | b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


# --- reading -------------------------------------------------------------------------


def _read_yaml(path: Path) -> tuple[list[Entry], list[str]]:
    """Entries of one YAML bank file and the structural problems found while reading it."""
    try:
        root = yaml.compose(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError) as exc:
        return [], [f"{path}: cannot read: {exc}"]
    except yaml.YAMLError as exc:
        return [], [f"{path}:{yaml_error_line(exc)}"]
    if root is None:
        return [], []
    if not isinstance(root, yaml.SequenceNode):
        return [], [f"{path}:{root.start_mark.line + 1}: expected a list of clause blocks"]
    entries: list[Entry] = []
    problems: list[str] = []
    str_tag = "tag:yaml.org,2002:str"
    for block in root.value:
        at = f"{path}:{block.start_mark.line + 1}"
        if not isinstance(block, yaml.MappingNode):
            problems.append(f"{at}: a clause block must be a mapping")
            continue
        keys = [k.value for k, _ in block.value]
        values = {k.value: v for k, v in block.value}
        for dup in sorted({k for k in keys if keys.count(k) > 1}):
            problems.append(f"{at}: duplicate key {dup!r} in one block")
        for extra in sorted(set(keys) - {"clause", *GENDER_KEYS}):
            problems.append(f"{at}: unknown key {extra!r} (use clause, any, male, female)")
        clause_node = values.get("clause")
        if isinstance(clause_node, yaml.SequenceNode) and clause_node.value and \
                all(isinstance(n, yaml.ScalarNode) and str(n.value).strip() for n in clause_node.value):
            clause = tuple(str(n.value).strip() for n in clause_node.value)  # words given one by one
        elif not isinstance(clause_node, yaml.ScalarNode) or not str(clause_node.value).strip():
            problems.append(f"{at}: every block needs a 'clause' key")
            continue
        else:
            clause = tuple(split_clause(str(clause_node.value).strip()))
        for key in GENDER_KEYS:
            node = values.get(key)
            if node is None or (isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null")):
                continue
            if not isinstance(node, yaml.SequenceNode):
                problems.append(f"{path}:{node.start_mark.line + 1}: '{key}' must be a list of strings")
                continue
            for item in node.value:
                line = f"{path}:{item.start_mark.line + 1}"
                if not isinstance(item, yaml.ScalarNode) or item.tag != str_tag:
                    problems.append(f"{line}: {'-'.join(clause)} [{key}]: a template must be a string")
                    continue
                text = item.value
                entries.append(Entry(Template(template_id(clause, key, text), clause, key, text, str(path)), line))
    return entries, problems


def resolve_files(source: str) -> list[Path]:
    """The bank files behind ``synthetic``, ``paraphrase``, a YAML/JSON file, an AMT pair or a dir."""
    pair = amt_pair(source)
    if pair is not None:
        return list(pair)
    p = Path(source)
    if p.is_dir():
        return sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml", ".json") and q.is_file())
    return bank_paths(source)


def read_bank(files: list[Path]) -> tuple[list[Entry], list[str]]:
    """Entries and reading problems of every file (JSON files in the AMT format)."""
    entries: list[Entry] = []
    problems: list[str] = []
    for path in files:
        if path.suffix == ".json":
            templates, found = read_amt(path)
            entries += [Entry(t, str(path)) for t in templates]
        else:
            more, found = _read_yaml(path)
            entries += more
        problems += found
    return entries, problems


# --- the world: which walks occur -------------------------------------------------------


@lru_cache(maxsize=4)
def possible_heads(kb_name: str = "kinship") -> dict[tuple[str, ...], frozenset[str]]:
    """For every walk of 1 or 2 relation words found in sampled families, the genders its
    first person can have. A 2-word walk x -> y -> z needs z != x (a simple path)."""
    kb = load_kb(kb_name)
    n_pred = len(kb.predicates)
    out: dict[tuple[str, ...], set[str]] = {}
    for seed in range(WORLD_FAMILIES):
        fam = sample_family(FamilyConfig(generations=3 + seed % 2), kb, random.Random(seed))
        masks = fam.masks
        gender = fam.gender
        of_gender = [gender == g for g in (0, 1)]
        n = len(gender)
        # [y, p2 * n + z]: z is y's p2, as float32 rows of the people of each gender
        then = masks.transpose(1, 0, 2).reshape(n, n_pred * n).astype(np.float32)
        then_of = [then[of_gender[g]] for g in (0, 1)]
        for p1 in range(n_pred):
            for g1 in (0, 1):
                m1 = masks[p1][:, of_gender[g1]]
                heads = np.nonzero(m1.any(axis=1))[0]
                for g in {int(gender[x]) for x in heads}:
                    out.setdefault((kb.word(p1, g1),), set()).add(GENDERS[g])
                # every second predicate at once: walks[p2, x, z] when some y has x -p1-> y -p2-> z, z not x
                walks = compose(m1, then_of[g1], then_float=then_of[g1]).reshape(n, n_pred, n).transpose(1, 0, 2)
                walks[:, np.arange(n), np.arange(n)] = False
                for gx in (0, 1):
                    for gz in (0, 1):
                        found = walks[:, of_gender[gx], :][:, :, of_gender[gz]].any(axis=(1, 2))
                        for p2 in np.nonzero(found)[0].tolist():
                            out.setdefault((kb.word(p1, g1), kb.word(p2, gz)), set()).add(GENDERS[gx])
    return {c: frozenset(g) for c, g in out.items()}


def clause_heads(kb: KB, clause: tuple[str, ...], kb_name: str = "kinship") -> frozenset[str]:
    """Genders the first person of ``clause`` can have (empty: the clause never occurs).

    A 3-word clause is judged by its two 2-word windows: the second window starts at B,
    whose gender is that of the first word.
    """
    walks = possible_heads(kb_name)
    if len(clause) <= 2:
        return walks.get(clause, frozenset())
    if len(clause) != 3:
        return frozenset()
    second = walks.get(clause[1:], frozenset())
    if GENDERS[kb.parse_word(clause[0])[1]] not in second:
        return frozenset()
    return walks.get(clause[:2], frozenset())


def k2_targets(kb_name: str = "kinship") -> dict[tuple[str, str], frozenset[str]]:
    """The valid k=2 clauses: walks whose two words compose under a KB rule, with A's genders."""
    kb = load_kb(kb_name)
    out = {}
    for clause, heads in possible_heads(kb_name).items():
        if len(clause) == 2 and kb.compose(kb.parse_word(clause[0])[0], kb.parse_word(clause[1])[0]) >= 0:
            out[clause] = heads
    return dict(sorted(out.items()))


def implied_word(kb: KB, clause: tuple[str, ...]) -> tuple[int, int] | None:
    """(predicate, gender) of the last entity to the first, when the KB composes the clause."""
    pred = kb.parse_word(clause[0])[0]
    for word in clause[1:]:
        pred = kb.compose(pred, kb.parse_word(word)[0])
        if pred < 0:
            return None
    return pred, kb.parse_word(clause[-1])[1]


def fact_words(kb: KB, t: Template) -> set[str]:
    """Words that state a fact of the template's clause: its own words and their inverses
    ("B is A's son" is also "A is B's father"), in every gender the earlier person may have."""
    out = set(t.clause)
    for i, word in enumerate(t.clause):
        inverse = kb.predicates[kb.parse_word(word)[0]].inverse
        if inverse < 0:
            continue
        if i:
            genders = [kb.parse_word(t.clause[i - 1])[1]]
        else:
            genders = [0, 1] if t.gender == "any" else [GENDERS.index(t.gender)]
        out.update(kb.word(inverse, g) for g in genders)
    return out


@lru_cache(maxsize=4)
def hedge_pattern(relation_pairs: tuple[tuple[str, str], ...]) -> re.Pattern:
    """Matches "aunt or uncle", "his/her" and the like: a word and its other-gender twin."""
    pairs = relation_pairs + HEDGED_PAIRS
    alternatives = "|".join(f"{re.escape(a)}{sep}{re.escape(b)}" for x, y in pairs for a, b in ((x, y), (y, x))
                            for sep in (" or ", "/"))
    return re.compile(rf"(?<![a-z-])(?:{alternatives})(?![a-z-])")


def _names_word(text: str, word: str) -> bool:
    return re.search(rf"(?<![a-z-]){re.escape(word)}s?(?![a-z-])", text) is not None


# --- checks -----------------------------------------------------------------------------


def _placeholder_flags(text: str, n_entities: int) -> list[Flag]:
    out = []
    wanted = {chr(65 + i) for i in range(n_entities)}
    for m in BRACED.finditer(text):
        slot = SLOT.fullmatch(m.group(0))
        if slot is None or slot.group(1) not in wanted:
            out.append(Flag("1", f"placeholder {m.group(0)} is not one of the clause's entities", m.group(0)))
        elif slot.group(2) is not None:
            try:
                slot_forms(slot.group(2))
            except SlotError as exc:
                out.append(Flag("format", str(exc).replace("{X.", "{" + slot.group(1) + "."), m.group(0)))
    rest = BRACED.sub("", text)
    if "{" in rest or "}" in rest:
        out.append(Flag("format", "stray brace", text[-40:]))
    missing = sorted(wanted - set(PLACEHOLDER.findall(text)))
    if missing:
        out.append(Flag("1", f"does not mention {', '.join('{' + m + '}' for m in missing)}", text[:40]))
    return out


def _word_flags(kb: KB, t: Template, lowered: str, literal: str, slot_bank: bool = True) -> list[Flag]:
    """Word-level checks: pronouns of a gender nobody has, hedged genders, a many-sense
    relation stated by one sense, the implied relation named."""
    out = []
    known = {GENDERS[kb.parse_word(w)[1]] for w in t.clause}
    if t.gender != "any":
        known.add(t.gender)
    for gender, pattern in PRONOUNS.items():
        m = pattern.search(literal)
        if m and gender not in known and slot_bank:  # literal pronouns: the reader checks them
            out.append(Flag("4", f"pronoun {m.group(0)!r} but no entity is known to be {gender}", m.group(0)))
    hedge = hedge_pattern(tuple(p.words for p in kb.predicates if None not in p.words and p.words[0] != p.words[1])).search(literal)
    if hedge:
        out.append(Flag("2", "hedges the gender: write male/female templates or a slot", hedge.group(0)))
    for word in t.clause:
        pred = kb.predicates[kb.parse_word(word)[0]]
        if pred.definition and "|" in pred.definition:
            named = {w for w in (*pred.words, *(kb.predicates[pred.inverse].words if pred.inverse >= 0 else ())) if w}
            spaced = lowered.replace(" in law", "-in-law")
            if not any(_names_word(spaced, w) for w in named):
                out.append(Flag("6", f"states {word!r} without naming it: a description may fit only one of its "
                                     "senses", t.text[:40]))
    if len(t.clause) >= 2:
        implied = implied_word(kb, t.clause)
        if implied is not None:
            word = kb.word(*implied)
            if word not in fact_words(kb, t) and _names_word(lowered, word):
                out.append(Flag("6", f"names the implied relation: {word!r}", word))
    return out


def _reading_flags(kb: KB, t: Template, slot_bank: bool) -> list[Flag]:
    """Flags of the statements and prose, over every gender A may have; a flag found for one
    gender only says so."""
    text = normalise(t.text)
    heads = (0, 1) if t.gender == "any" else (GENDERS.index(t.gender),)
    lex = lexicon(kb)
    found: dict[Flag, set[int]] = {}
    for g in heads:
        facts = Facts.of(kb, t.clause, g)
        toks = tokenize(text, facts.genders)
        for f in analyse(toks, facts, text, slot_bank)[1]:
            found.setdefault(f, set()).add(g)
    toks = tokenize(t.text, Facts.of(kb, t.clause, heads[0]).genders)
    out = text_flags(t.text, toks, slot_bank, lex) + meaning_flags(t.text)
    out += [Flag("1", f"names a person outside the clause ({name!r})", name, kind="extra-person")
            for name in extra_names(toks, first_names())]
    for f, gs in found.items():
        if len(gs) < len(heads):
            f = replace(f, message=f"{f.message} (when {{A}} is {GENDERS[next(iter(gs))]})")
        out.append(f)
    return out


@lru_cache(maxsize=1)
def first_names() -> frozenset[str]:
    """The first names the generator gives people (a text naming one names someone extra)."""
    return frozenset(n for names in load_names().values() for n in names)


def template_flags(kb: KB, t: Template, kb_name: str = "kinship") -> list[Flag]:
    """Every flag of one template (empty when it follows the rules the checker can see)."""
    if not t.text.strip():
        return [Flag("format", "empty template", "")]
    unknown = [w for w in t.clause if w not in kb.word_index]
    if unknown:
        return [Flag("format", f"{', '.join(unknown)} is not a relation word of KB {kb.name}", "-".join(t.clause))]
    if not 1 <= len(t.clause) <= 3:
        return [Flag("format", f"a clause has 1 to 3 facts, not {len(t.clause)}", "-".join(t.clause))]
    out = _placeholder_flags(t.text, len(t.clause) + 1)
    heads = clause_heads(kb, t.clause, kb_name)
    if not heads:
        out.append(Flag("format", "this walk never occurs in a family (not a valid clause)", "-".join(t.clause)))
    elif t.gender != "any" and t.gender not in heads:
        out.append(Flag("format", f"the first person of this clause cannot be {t.gender}", t.gender))
    if any(f.rule in ("1", "format") for f in out):
        return out
    lowered = respell(SLOT.sub(lambda m: _slot_text(m, True) if m.group(2) else " ", t.text).lower())
    literal = SLOT.sub(" ", t.text).lower()
    slot_bank = not t.source.endswith(".json")
    out += _word_flags(kb, t, lowered, literal, slot_bank)
    out += _reading_flags(kb, t, slot_bank)
    out += grammar_flags(kb, t, frozenset(lexicon(kb)))
    return out


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def clause_jaccard(texts: list[str]) -> tuple[float, float] | None:
    """Mean unigram and bigram Jaccard over all pairs of ``texts`` (None for fewer than two)."""
    if len(texts) < 2:
        return None
    toks = [tokens(t) for t in texts]
    unis = [frozenset(tk) for tk in toks]
    bis = [frozenset(zip(tk, tk[1:])) for tk in toks]
    pairs = list(combinations(range(len(texts)), 2))
    return (sum(jaccard(unis[i], unis[j]) for i, j in pairs) / len(pairs),
            sum(jaccard(bis[i], bis[j]) for i, j in pairs) / len(pairs))


def _measure(report: Report) -> None:
    """Counts and diversity of the templates the generator would use (flagged ones left out)."""
    dropped = report.dropped
    flagged: Counter = Counter(len(e.template.clause) for e in report.entries if e.template.id in dropped)
    by_clause: dict[tuple[str, ...], list[Template]] = {}
    for e in report.entries:
        if e.template.id not in dropped:
            by_clause.setdefault(e.template.clause, []).append(e.template)
    vocab_all: set[str] = set()
    for k in sorted({len(e.template.clause) for e in report.entries}):
        clauses = {c: ts for c, ts in by_clause.items() if len(c) == k}
        if not clauses:
            report.stats[k] = KStats(k, 0, 0, 0, "-", 0, 0.0, 0.0, flagged[k])
            continue
        vocab: set[str] = set()
        uni_scores, bi_scores = [], []
        for ts in clauses.values():
            vocab.update(w for t in ts for w in tokens(t.text) if not is_entity_token(w))
            scores = clause_jaccard([t.text for t in ts])
            if scores is not None:
                uni_scores.append(scores[0])
                bi_scores.append(scores[1])
        min_clause = min(clauses, key=lambda c: (len(clauses[c]), c))
        report.stats[k] = KStats(
            k, len(clauses), sum(len(ts) for ts in clauses.values()), len(clauses[min_clause]), "-".join(min_clause),
            len(vocab), _mean(uni_scores), _mean(bi_scores), flagged[k],
        )
        vocab_all |= vocab
    report.unique_words = len(vocab_all)
    for clause, ts in sorted(by_clause.items()):
        report.counts[clause] = {g: sum(t.gender == g for t in ts) for g in GENDER_KEYS}


def _per_gender(counts: dict[str, int], gender: str) -> int:
    return counts.get("any", 0) + counts.get(gender, 0)


def _targets(report: Report, kb: KB, kb_name: str) -> None:
    walks = possible_heads(kb_name)
    need = TARGETS
    for word in kb.words:
        counts = report.counts.get((word,), {})
        for g in sorted(walks.get((word,), ())):
            n = _per_gender(counts, g)
            if n < need["k1_per_gender"]:
                report.unmet.append(f"k=1 {word} (A {g}): {n} templates, need {need['k1_per_gender']}")
    for clause, heads in k2_targets(kb_name).items():
        counts = report.counts.get(clause, {})
        for g in sorted(heads):
            n = _per_gender(counts, g)
            if n < need["k2_per_gender"]:
                report.unmet.append(f"k=2 {'-'.join(clause)} (A {g}): {n} templates, need {need['k2_per_gender']}")
    k3 = {c: sum(n.values()) for c, n in report.counts.items() if len(c) == 3}
    full = sum(n >= need["k3_per_clause"] for n in k3.values())
    if full < need["k3_clauses"]:
        report.unmet.append(f"k=3: {full} clauses with >= {need['k3_per_clause']} templates, need {need['k3_clauses']}")
    for clause, n in k3.items():
        if n < need["k3_per_clause"]:
            report.unmet.append(f"k=3 {'-'.join(clause)}: {n} templates, need {need['k3_per_clause']}")
    total = sum(s.templates for s in report.stats.values())
    if total < need["total"]:
        report.unmet.append(f"total: {total} templates, need {need['total']}")
    for s in report.stats.values():
        if s.jaccard_unigram > need["jaccard_unigram"]:
            report.unmet.append(f"k={s.k} unigram Jaccard {s.jaccard_unigram:.3f} > {need['jaccard_unigram']}")
        if s.jaccard_bigram > need["jaccard_bigram"]:
            report.unmet.append(f"k={s.k} bigram Jaccard {s.jaccard_bigram:.3f} > {need['jaccard_bigram']}")
    if report.unique_words < need["unique_words"]:
        report.unmet.append(f"unique words: {report.unique_words}, need {need['unique_words']}")


def flag_entries(entries: list[Entry], kb_name: str = "kinship") -> list[tuple[Entry, Flag]]:
    """Every flag of every entry, a repeated text (same clause) flagged where it repeats."""
    kb = load_kb(kb_name)
    out: list[tuple[Entry, Flag]] = []
    seen: dict[tuple[tuple[str, ...], str], str] = {}
    for e in entries:
        t = e.template
        out += [(e, f) for f in template_flags(kb, t, kb_name)]
        key = (t.clause, _normal(t.text))
        if key in seen:
            out.append((e, Flag("8", f"duplicate of the template at {seen[key]}", t.text[:40])))
        else:
            seen[key] = e.where
    return out


def check_entries(entries: list[Entry], kb_name: str = "kinship", targets: bool = True) -> Report:
    """Check and measure already-read entries."""
    kb = load_kb(kb_name)
    report = Report(list(entries), flags=flag_entries(entries, kb_name))
    if entries:
        _measure(report)
        if targets:
            _targets(report, kb, kb_name)
    elif targets:
        report.unmet.append("the bank holds no templates")
    return report


def check_bank(source: str = "paraphrase", kb_name: str = "kinship", targets: bool = True) -> Report:
    """Read and check the bank ``source`` (see :func:`resolve_files`)."""
    entries, errors = read_bank(resolve_files(source))
    report = check_entries(entries, kb_name, targets)
    report.errors[:0] = errors
    return report


def format_stats(report: Report) -> list[str]:
    """The statistics table, one line per k and a total."""
    lines = [f"{'k':>3} {'clauses':>8} {'templates':>10} {'flagged':>8} {'min/clause':>11}  {'(clause)':28} "
             f"{'unique words':>12} {'Jaccard-1':>9} {'Jaccard-2':>9}"]
    for s in report.stats.values():
        lines.append(f"{s.k:>3} {s.clauses:>8} {s.templates:>10} {s.flagged:>8} {s.min_count:>11}  "
                     f"{s.min_clause[:28]:28} {s.unique_words:>12} {s.jaccard_unigram:>9.3f} {s.jaccard_bigram:>9.3f}")
    stats = report.stats.values()
    lines.append(f"{'all':>3} {sum(s.clauses for s in stats):>8} {sum(s.templates for s in stats):>10} "
                 f"{sum(s.flagged for s in stats):>8} {'':>11}  {'':28} {report.unique_words:>12}")
    lines.append("(templates the generator uses; flagged ones are left out of every measure)")
    return lines
