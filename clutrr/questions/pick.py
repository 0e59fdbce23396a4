"""Choose a story's question of a given form: one its facts answer, and answer truly.

Sound rules make every entailed relation true, so the people the facts make X's aunt are
among X's aunts in the story; a question about X's aunts is asked only where the two sets
are equal, so no story person the facts leave undetermined is in truth one of them.
"""
from __future__ import annotations

import random

from clutrr.core.family import Family, FamilyConfig, sample_family
from clutrr.core.kb import KB, bits
from clutrr.core.vocabulary import WordMask
from clutrr.questions.forms import Question
from clutrr.questions.proofs import Closure, Word, all_placed, closure_of, prove, sexes_of, term_pairs

SAMPLED_FAMILIES = 40  # families (default knobs, fixed seeds) in which words held twice are sought
_SHARED: dict[tuple[str, str], frozenset] = {}


def shared_words(kb: KB) -> frozenset[str]:
    """The words someone holds for two or more people in some of SAMPLED_FAMILIES sampled
    families: "how many" and "which people" ask only these (nobody has two mothers, so "how
    many are X's mothers?" is never asked)."""
    key = (kb.name, kb.path)
    if key not in _SHARED:
        found = set()
        for i in range(SAMPLED_FAMILIES):
            family = sample_family(FamilyConfig(), kb, random.Random(i))
            for word, pairs in term_pairs(kb).items():
                for x in range(family.size):
                    held = 0
                    for p, g in pairs:
                        held |= family.rows[p][x] & family.gender_bits[g]
                    if held.bit_count() > 1:
                        found.add(word)
                        break
        _SHARED[key] = frozenset(found)
    return _SHARED[key]


def asked_words(kb: KB, askable: WordMask) -> dict[str, tuple[Word, ...]]:
    """The words a question may name (some pair of theirs askable) and their pairs, in order."""
    return {w: pairs for w, pairs in term_pairs(kb).items() if any(askable[p][g] for p, g in pairs)}


def exact_sets(kb: KB, family: Family, people: list[int], genders: list[int], closure: Closure,
               askable: WordMask) -> list[tuple[int, str, list[int]]]:
    """(X, word, people) for every story person X and askable word whose entailed holders
    among the story people are exactly its true holders there (in story order; empty sets
    included)."""
    n = len(genders)
    npred = len(kb.predicates)
    rows = family.rows
    words = asked_words(kb, askable)
    out = []
    for x in range(n):
        entailed: dict[str, list[int]] = {}
        true: dict[str, list[int]] = {}
        px = people[x]
        for b in range(n):
            if b == x:
                continue
            g, pb = genders[b], people[b]
            for p in bits(closure.get((x, b), 0)):
                _add(entailed, kb.word(p, g), b)
            for p in range(npred):
                if rows[p][px] >> pb & 1:
                    _add(true, kb.word(p, g), b)
        for word in words:
            held = entailed.get(word, [])
            if held == true.get(word, []):
                out.append((x, word, held))
    return out


def _add(holders: dict[str, list[int]], word: str | None, b: int) -> None:
    """Person ``b`` holds ``word`` (once, however many predicates say so)."""
    if word is not None:
        listed = holders.setdefault(word, [])
        if not listed or listed[-1] != b:
            listed.append(b)


def _about_sets(kb, family, people, genders, names, closure, form, askable, rng) -> Question | None:
    sets = exact_sets(kb, family, people, genders, closure, askable)
    sexes = {w: sexes_of(pairs) for w, pairs in term_pairs(kb).items()}
    if form != "person":
        shared = shared_words(kb)
        sets = [s for s in sets if s[1] in shared]
    if form == "person":
        found = [s for s in sets if len(s[2]) == 1]
    elif form == "people":  # a set of two or more when the story has one
        found = [s for s in sets if len(s[2]) > 1] or [s for s in sets if s[2]]
    else:  # the count first, uniformly among those the story offers, so no count dominates
        found = [s for s in sets if s[2] or any(g in sexes[s[1]] for b, g in enumerate(genders) if b != s[0])
                 and all(all_placed(closure, genders, s[0], g) for g in sexes[s[1]])]
        if found:
            size = rng.choice(sorted({len(s[2]) for s in found}))
            found = [s for s in found if len(s[2]) == size]
    if not found:
        return None
    x, word, held = rng.choice(found)
    answer = names[held[0]] if form == "person" else [names[b] for b in held] if form == "people" else len(held)
    return Question(form, (x,), word, answer, tuple(held))


def _yesno(kb, family, people, genders, closure, askable, yes, rng) -> Question | None:
    pairs = []
    for (x, y), held in sorted(closure.items()):
        if x != y and held & (held - 1) == 0:
            p = held.bit_length() - 1
            if family.relation(people[x], people[y]) == p and askable[p][genders[y]]:
                pairs.append((x, y, p))
    if not pairs:
        return None
    x, y, p = rng.choice(pairs)
    g = genders[y]
    word = kb.word(p, g)
    if yes:
        return Question("yesno", (x, y), word, "yes", (y,))
    named = term_pairs(kb)
    others = list(dict.fromkeys(
        kb.word(q, g) for q in range(len(kb.predicates))
        if q != p and askable[q][g] and kb.word(q, g) not in (None, word)
        and not any(family.holds(people[x], r, people[y]) for r, h in named[kb.word(q, g)] if h == g)))
    if not others:
        return None
    return Question("yesno", (x, y), rng.choice(others), "no", (y,))


def pick_question(kb: KB, family: Family, people: list[int], genders: list[int], names: list[str],
                  facts: list[tuple[int, int, int]], form: str, askable: WordMask, yes: bool,
                  rng: random.Random) -> Question | None:
    """A question of ``form`` (not ``relation``) about the story, or None when it has none.

    ``people`` are the story people's family ids, ``facts`` the story's ``(a, predicate, b)``
    over story indices, ``askable`` the words questions may name, ``yes`` (yesno only) the
    answer wanted. The answer is proved again from the facts alone before it is returned.
    """
    closure = closure_of(kb, facts)
    if form == "yesno":
        q = _yesno(kb, family, people, genders, closure, askable, yes, rng)
    else:
        q = _about_sets(kb, family, people, genders, names, closure, form, askable, rng)
    if q is not None and prove(kb, closure, genders, names, form, q.query, q.target) != q.answer:
        raise AssertionError(f"the {form} question's answer is not what the story's facts prove")
    return q
