"""The reader of one reading (one gender for every person): who each pronoun refers to, and the
clause and subject helpers the shapes use. :mod:`clutrr.render.shapes.registry` lists the shapes
it reads with; :mod:`clutrr.render.shapes.checks` checks what they read."""
from __future__ import annotations

from clutrr.render.shapes.words import (
    ADVERB_OPENERS, ARTICLES, CLAUSE_OPENERS, COORDINATORS, COPULAS, FRAME_CLOSERS, FUNCTION, MARRY, PREPOSITIONS,
    QUOTES, REFLEXIVE, RELATIVES, REPORT_OPENERS, REPORTING_VERBS, SAYING, SENTENCE_END, SUBORDINATORS, TAKING, Facts,
    Flag, Statement, Tok, lexicon,
)


class Reader:
    """One pass over the tokens of one reading: the pronouns' referents (resolved when it is
    made), the statement read last, the flags raised so far."""

    def __init__(self, toks: list[Tok], facts: Facts, text: str, slot_bank: bool = True) -> None:
        self.toks, self.facts, self.text, self.slot_bank = toks, facts, text, slot_bank
        self.lex = lexicon(facts.kb)
        self.flags: list[Flag] = []
        self.referent: dict[int, tuple[int, ...]] = {}  # token index -> resolved person(s) of a pronoun
        self.dangling: list[tuple[int, int]] = []  # token spans of relation nouns attached to no one
        self.last: Statement | None = None  # the statement read last ("his son {C} and daughter {D}")
        self.married: set[frozenset[int]] = set()  # the couples whose marriage is told as an event
        self._ends: list[int] | None = None  # the sentence ends, found when first needed
        self._resolve_pronouns()

    def sentence_of(self, i: int) -> int:
        """The number of the sentence holding token i (0 for the first)."""
        if self._ends is None:
            self._ends = [k for k, t in enumerate(self.toks) if t.text in SENTENCE_END] + [len(self.toks)]
        return next(n for n, e in enumerate(self._ends) if i <= e)

    def quote(self, a: int, b: int) -> str:
        """The text from token a to token b (inclusive)."""
        a, b = max(a, 0), min(b, len(self.toks) - 1)
        return " ".join(self.text[self.toks[a].start:self.toks[b].end].split())

    def _resolve_pronouns(self) -> None:
        genders = self.facts.genders
        mentioned: list[int] = []
        for i, t in enumerate(self.toks):
            if t.kind == "ent" and t.ent >= 0:
                if t.ent not in mentioned:
                    mentioned.append(t.ent)
                continue
            if t.kind != "pron":
                continue
            if t.gender is None:  # they / their / them
                if t.low == "their":
                    couple = self.couple(mentioned) or self.last_group(i)
                    if couple:
                        self.referent[i] = couple
                continue
            head = self.toks[i - 2].ent if i >= 2 and self.toks[i - 1].text == "," and self.toks[i - 2].kind == "ent" \
                and not self.toks[i - 2].poss else -1  # in "Y, his R" the pronoun is not Y's
            if head < 0 and not t.slot and i >= 1 and self.toks[i - 1].kind == "ent" and not self.toks[i - 1].poss \
                    and self.determiner(i):
                head = self.toks[i - 1].ent  # "asked {C} his grandfather": nor in "Y his R"
            others = [e for e in mentioned if genders[e] == t.gender and e != t.ent and e != head]
            if t.slot:
                self.referent[i] = (t.ent,)
                if t.ent not in mentioned:
                    self.flags.append(Flag("4", f"the {t.low!r} of {{{chr(65 + t.ent)}}} comes before {{{chr(65 + t.ent)}}} "
                                                "is named (it refers forward)", self.quote(i - 2, i + 1)))
                elif others and t.form not in REFLEXIVE:
                    who = ", ".join("{" + chr(65 + e) + "}" for e in others)
                    self.flags.append(Flag("4", f"the {t.low!r} of {{{chr(65 + t.ent)}}} could also refer to {who}",
                                           self.quote(i - 2, i + 1)))
                if t.ent not in mentioned:
                    mentioned.append(t.ent)
                continue
            named = self.named_after(i)
            if named >= 0 and genders[named] == t.gender:
                self.referent[i] = (named,)  # "... her brother. His name is {A}."
                continue
            cands = [e for e in mentioned if genders[e] == t.gender and e != head] or \
                [e for e in mentioned if genders[e] == t.gender]
            if not cands:
                later = [u.ent for u in self.toks[i + 1:] if u.kind == "ent" and u.ent >= 0 and genders[u.ent] == t.gender]
                if not self._unnamed_before(i, t.gender):
                    if later:
                        self.flags.append(Flag("4", f"{t.low!r} refers forward to {self.name(later[0])}, named "
                                                    "after it", self.quote(i - 2, i + 1)))
                    elif not self.slot_bank and self._tells_fact(i):
                        self.flags.append(Flag("4", f"{t.low!r}: nobody in the text has its gender",
                                               self.quote(i - 2, i + 1)))
                continue
            best, rivals = self._reading(i, t, cands)
            if rivals and self._states(i, best, rivals):
                who = ", ".join(self.name(e) for e in (best, *rivals))
                self.flags.append(Flag("4", f"{t.low!r} could refer to {who}", self.quote(i - 2, i + 1)))
            else:
                self.referent[i] = (best,)

    def _states(self, i: int, best: int, rivals: list[int]) -> bool:
        """Whether the reading of the pronoun at i changes a kinship fact: it owns a relation
        noun ("her son {C}") or is the subject of one ("she is {B}'s aunt", "he married") and
        the readings do not all make the same true statement ("his sister {D}" where both
        readings are brothers of {D}). "Her birthday" or "with him" change no fact."""
        toks = self.toks
        k = i + 1
        while k < len(toks) and k <= i + 3 and toks[k].kind == "word" and toks[k].low not in FUNCTION \
                and toks[k].low not in self.lex:
            k += 1
        if k < len(toks) and toks[k].kind == "word" and toks[k].low in self.lex and self.determiner(i):
            pred = self.lex[toks[k].low][0]
            after = k + 1 + (k + 1 < len(toks) and toks[k + 1].text == ",")
            if after < len(toks) and toks[after].kind == "ent" and toks[after].ent >= 0:
                y = toks[after].ent
                f = self.facts
                holds = [f.rel.get((c, y)) == pred or f.implied.get((c, y)) == pred for c in (best, *rivals)]
                return not all(holds)
            return True
        return self._tells_fact(i)

    def _tells_fact(self, i: int) -> bool:
        """Whether the pronoun at i carries a kinship fact: it owns a relation noun ("her son"),
        or is the subject of "married" or of a copula before a relation noun ("she is {B}'s
        aunt"); "he would pray" or "she was sick" tell none."""
        toks = self.toks
        k = i + 1
        while k < len(toks) and k <= i + 3 and toks[k].kind == "word" and toks[k].low not in FUNCTION \
                and toks[k].low not in self.lex:
            k += 1
        if k < len(toks) and self.is_relation(k) and self.determiner(i):
            return True
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if nxt is None or toks[i].form != "he":
            return False
        return nxt.low in MARRY or (nxt.low in COPULAS and any(self.is_relation(c) for c in range(i + 2, min(i + 7, len(toks)))))

    # -- how a reader takes a pronoun -------------------------------------------------------

    def clause_start(self, i: int) -> int:
        """The first token of the clause holding token i: after a sentence end, ; or :, a
        subordinator, a verb of saying before its subject pronoun ("said she ..."), or a
        coordinator that opens a clause (after a comma, or before a subject pronoun: "and she
        ...", not "her son and daughter")."""
        toks = self.toks
        comma = -1
        for k in range(i - 1, -1, -1):
            t = toks[k]
            if t.text in SENTENCE_END or t.text in (";", ":"):
                return k + 1
            if t.text == "," and comma < 0:
                comma = k
            if t.low in SAYING and k + 1 < i and self._sayer(k + 1 + (toks[k + 1].low == "that")) >= 0:
                return k + 1
            if k + 1 == i and t.low in ("but", "so") and k and toks[k - 1].text == ",":
                return i  # "..., but her brother {C} was missing"
            if t.low in CLAUSE_OPENERS and k + 1 < i:
                if t.low in SUBORDINATORS and comma > k and (k == 0 or toks[k - 1].text in SENTENCE_END):
                    return comma + 1  # "When {C} left, {B} rang her brother": the main clause
                if t.low not in COORDINATORS:
                    return k + 1
                after = toks[k + 1]
                if (k and toks[k - 1].text == ",") or (after.kind == "pron" and after.form == "he") \
                        or after.low in ("they", "it"):
                    return k + 1
        return 0

    def subject(self, start: int, end: int) -> int:
        """The person who is the subject of the clause from token start: the first person
        named or resolved there ("{A}'s sister {B}" and "{A}'s sister, {B}," give {B}), or -1
        when a verb or a preposition comes first."""
        return self._subject_at(start, end)[0]

    def _subject_at(self, start: int, end: int) -> tuple[int, int]:
        """(the subject of the clause from token start, its token index), or (-1, -1)."""
        toks = self.toks
        if 1 <= start < len(toks) and toks[start - 1].low == "who" and toks[start].kind != "ent":
            who = self.antecedent(start - 1)  # "{C} who has since lost his son": {C}
            if who >= 0:
                return who, start - 1
        k = start
        while k < min(end, len(toks)):
            t = toks[k]
            if t.kind == "ent" and t.ent >= 0 and not t.poss:
                return t.ent, k
            if t.kind == "pron" and t.form == "he" and k in self.referent:
                return self.referent[k][0], k
            if (t.kind == "ent" and t.ent >= 0) or (t.kind == "pron" and t.form == "his"):
                k += 1  # a possessive: "{A}'s older sister {B}", "his older sister, {B}"
                while k < len(toks) and toks[k].kind == "word" and toks[k].low not in FUNCTION:
                    k += 1
                if k < len(toks) and toks[k].text == ",":
                    k += 1
                continue
            if t.kind == "word" and t.low not in ADVERB_OPENERS and t.low not in ("and", "or", "both"):
                if t.low not in FUNCTION or t.low in PREPOSITIONS:
                    comma = next((c for c in range(k, min(end, len(toks))) if toks[c].text == ","), -1)
                    if comma > 0 and not any(toks[c].kind in ("ent", "pron") for c in range(start, comma)):
                        return self._subject_at(comma + 1, end)  # "Having forgotten, {B} ...": the subject follows
                    return -1, -1
            k += 1
        return -1, -1

    def _previous_subject(self, start: int) -> int:
        """The subject of the nearest clause before the one starting at ``start`` that has one."""
        k = start - 1
        while k > 0:
            begin = self.clause_start(k)
            found = self.subject(begin, k)
            if found >= 0:
                return found
            k = begin - 1
        return -1

    def _reading(self, i: int, t: Tok, cands: list[int]) -> tuple[int, list[int]]:
        """(the referent a reader takes, the others a careful reader could also take).

        Each person mentioned before the pronoun with its gender scores: a subject pronoun
        continues the subject of the clause before (subject continuity); a possessive takes
        the subject of its own clause (a clause without one inherits the one before), or the
        nearest person of its clause, or the person of a parallel possessive ("her sister
        {B} and her son {C}"); an object pronoun never takes a subject of its own clause; a
        reflexive always does. The most recent person scores a little more, more still when
        the others are in earlier sentences. A pronoun inside what a verb of asking or
        telling reports ("asked {B} if she ...") can be the asker's or the one asked; one in a
        clause opening a sentence can be the subject after it ("When his wife left, {A} ...").
        Two readings within 2 points of each other are both open to a careful reader."""
        toks = self.toks
        if len(cands) == 1:
            return cands[0], []
        start = self.clause_start(i)
        subjects = self.subjects(start, i)
        subject = subjects[0] if subjects else -1
        anchor = subject if subject in cands else self._previous_subject(start)
        recent_at = next(k for k in range(i - 1, -1, -1) if toks[k].kind == "ent" and toks[k].ent in cands)
        recent = toks[recent_at].ent
        score = dict.fromkeys(cands, 0)
        sentence_start = next((k + 1 for k in range(i - 1, -1, -1) if toks[k].text in SENTENCE_END), 0)
        alone = not any(toks[k].kind == "ent" and toks[k].ent in cands and toks[k].ent != recent
                        for k in range(sentence_start, i))
        score[recent] += 2 if recent_at >= sentence_start and alone else 1
        form = t.form
        if form == "his" and t.low == "her" and not self.determiner(i):
            form = "him"
        if form in REFLEXIVE:
            return (subject if subject in cands else recent), []
        if form == "his" and i + 1 < len(toks) and toks[i + 1].low == "own" and subject in cands:
            return subject, []  # "she knits for her as for her own children": the subject's own
        if form == "he":
            if start == i or subject < 0:
                subject = anchor
            if subject in score:
                score[subject] += 3
            sayer = self._sayer(i)
            if sayer in score:
                score[sayer] = max(score.values()) + 3
        elif form in ("his", "hers"):
            self._score_possessive(i, start, anchor, subject, score)
        elif i and toks[i - 1].low == "with" and any(toks[k].low in TAKING for k in range(start, i)):
            if subject in score:
                score[subject] += 3  # "took {D} with her": her is the taker
        else:  # him, her (object): never a subject of its own clause
            for who in subjects:
                score.pop(who, None)
            if not score:
                return recent, []
            if len(score) == 1:
                return next(iter(score)), []
        later = self._fronted_subject(start, i, t.gender)
        if later >= 0:
            score[later] = max(score.values())  # "When his wife left, {A} ...": his may be {A}'s
        asked = self._asked(start)
        if asked is not None:
            top = max(score.values()) + 3
            for who in asked:
                if who in score:
                    score[who] = top
        ranked = sorted(score, key=lambda e: -score[e])
        best = ranked[0]
        return best, [e for e in ranked[1:] if score[best] - score[e] < 2]

    def _score_possessive(self, i: int, start: int, anchor: int, subject: int, score: dict[int, int]) -> None:
        """The scores of the readings of a possessive pronoun at i (see :meth:`_reading`): the
        clause's subject or the one before it (``anchor``), a fronted subordinate subject, a
        person joined by "and", a parallel possessive."""
        toks = self.toks
        if anchor in score:
            score[anchor] += 3
        fronted = self._subordinate_subject(start)
        if fronted in score and fronted != anchor:
            # "When {C} left, {B} hugged her brother": {B}'s, {C} less so; but "After {A} was
            # born, his father {B} showed him his brothers": {A} stays the topic, either reads
            score[fronted] += 3 if self._subject_told_by_possessive(start, i) == fronted else 2
        nearest = self._coordinated(i)  # "{C} and her sister {D}", "{C}, and her brother", "him and his"
        if nearest in score and nearest != anchor:
            # "watch {C} and her brother {D}": {C}'s brother, whoever the subject; after a
            # comma only where no clause follows ("from {C}, and her sister {D}.")
            if toks[i - 2].text != "," or self._ends_phrase(i):
                score[nearest] = max(score[nearest] + 4, max(score.values()) + 2)
            else:
                score[nearest] += 2
        parallel = self._parallel(i, start, subject >= 0)
        if parallel in score:
            # opening its clause, it continues the earlier possessive's person over the
            # person that possessive introduced ("Her mother {A} came, but her brother")
            score[parallel] = max(score.values()) + 2 if self._opens(i, start) else score[parallel] + 4

    def subjects(self, start: int, end: int) -> list[int]:
        """The subject of the clause from token start and the people joined to it by "and"."""
        first, k = self._subject_at(start, end)
        if first < 0:
            return []
        toks = self.toks
        out = [first]
        while k + 1 < end and toks[k + 1].low == "and":
            k += 2
            while k < end and (toks[k].kind == "pron" and toks[k].form == "his" or
                               (toks[k].kind == "word" and toks[k].low not in FUNCTION)):
                k += 1
            if k < end and toks[k].kind == "ent" and not toks[k].poss:
                out.append(toks[k].ent)
            else:
                break
        return out

    def _coordinated(self, i: int) -> int:
        """The person a possessive at i is joined to by "and"/"or": "{C} and her sister", "{C},
        and her brother", "him and his sister" (a resolved object pronoun), or -1."""
        toks = self.toks
        if i < 2 or toks[i - 1].low not in ("and", "or"):
            return -1
        c = i - 2 - (toks[i - 2].text == "," and i >= 3)
        t = toks[c]
        if t.kind == "ent" and not t.poss:
            return t.ent
        if t.kind == "pron" and t.form == "him" and c in self.referent:
            return self.referent[c][0]
        return -1

    def _sayer(self, i: int) -> int:
        """The person who says or thinks what follows, for a subject pronoun right after the
        verb ("{B} said she had to stay", "{B} decided that he ..."), or -1."""
        toks = self.toks
        v = i - 1 - (i >= 2 and toks[i - 1].low == "that")
        if v < 1 or toks[v].low not in SAYING:
            return -1
        return self.person_at(v - 1, poss=False) if toks[v - 1].kind in ("ent", "pron") else -1

    def _unnamed_before(self, i: int, gender: int | None) -> bool:
        """Whether a relation noun of this gender naming no one comes before token i ("took
        her husband out ... found him"): the pronoun may be that person's."""
        toks = self.toks
        for k in range(i):
            t = toks[k]
            if t.kind == "word" and t.low in self.lex and self.lex[t.low][1] == gender and not (
                    k + 1 < len(toks) and toks[k + 1].kind == "ent"):
                return True
        return False

    def named_after(self, i: int) -> int:
        """The person in "his name is {A}" (the pronoun at i), or -1."""
        toks = self.toks
        if i + 3 < len(toks) and toks[i + 1].low == "name" and toks[i + 2].low in ("is", "was") \
                and toks[i + 3].kind == "ent":
            return toks[i + 3].ent
        return -1

    def _fronted_subject(self, start: int, i: int, gender: int | None) -> int:
        """In a clause opening a sentence with a subordinator ("When his wife ..., {A} called"),
        the subject after the comma, when of the pronoun's gender: a reader may take it."""
        toks = self.toks
        opener = start - 1
        if opener < 0 or toks[opener].low not in SUBORDINATORS or (opener and toks[opener - 1].text not in SENTENCE_END):
            return -1
        comma = next((k for k in range(i + 1, len(toks)) if toks[k].text in (",", ".", ";")), -1)
        if comma < 0 or toks[comma].text != "," or comma + 1 >= len(toks):
            return -1
        nxt = toks[comma + 1]
        return nxt.ent if nxt.kind == "ent" and nxt.ent >= 0 and self.facts.genders[nxt.ent] == gender else -1

    def determiner(self, i: int) -> bool:
        """Whether "her" at i is a determiner ("her son") rather than an object ("saw her")."""
        nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
        return nxt is not None and nxt.kind == "word" and (nxt.low not in FUNCTION or nxt.low in self.lex)

    def _parallel(self, i: int, start: int, own_subject: bool = False) -> int:
        """In "her sister {B} and her son {C}" (or, in a clause without a subject of its own,
        "was his son, {C}, next was his son {A}") the second possessive of a relation noun
        takes the first one's person."""
        toks = self.toks
        if i < 1 or not self.is_relation(i + 1):
            return -1
        if self._opens(i, start):
            # the possessive opens its clause, owning its subject ("Her mother {A} came, but her
            # brother {C} ...", "His parents came. Sadly, his brother ..."): the earlier one's person
            first = next((k + 1 for k in range(start - 2, -1, -1) if toks[k].text in SENTENCE_END), 0)
        elif toks[i - 1].low in ("and", "or", ","):
            b = i - 2 - (i >= 3 and toks[i - 2].text == ",")
            while b >= 2 and toks[b].kind == "ent" and toks[b - 1].low in (",", "and") and toks[b - 2].kind == "ent":
                b -= 2  # back over a list of names: "her sons, {B} and {A}, and her niece"
            if b >= 1 and toks[b].kind == "ent" and not toks[b].poss and not self.is_relation(b - 1 - (toks[b - 1].text == ",")):
                return -1  # "mind {C} and her brother": the conjunct before is a bare name, not "her R {C}"
            first = start
        elif own_subject:
            return -1
        else:
            first = next((k + 1 for k in range(i - 1, -1, -1) if toks[k].text in SENTENCE_END), 0)
        for k in range(i - 2, first - 1, -1):
            if toks[k].kind == "pron" and toks[k].form == "his" and k in self.referent and self.is_relation(k + 1):
                return self.referent[k][0]
        return -1

    def _subordinate_subject(self, start: int) -> int:
        """The subject of a clause opening the sentence with a subordinator, when the clause at
        start is the main clause after it ("When {C} passed, {B} ..." gives {C}), or -1."""
        toks = self.toks
        if start < 3 or toks[start - 1].text != ",":
            return -1
        first = next((k + 1 for k in range(start - 2, -1, -1) if toks[k].text in SENTENCE_END), 0)
        if toks[first].low not in SUBORDINATORS or self.clause_start(start - 1) != first + 1:
            return -1
        return self.subject(first + 1, start - 1)

    def _ends_phrase(self, i: int) -> bool:
        """Whether the possessive at i heads a phrase "her R {D}" that ends at a comma or the
        end of the sentence (an object in a list, not the subject of a clause that follows)."""
        toks = self.toks
        k = i + 1
        while k < len(toks) and toks[k].kind == "word" and toks[k].low not in FUNCTION:
            k += 1
        k += k < len(toks) and toks[k].text == ","
        return k < len(toks) and toks[k].kind == "ent" and (k + 1 == len(toks) or toks[k + 1].text in FRAME_CLOSERS)

    def _subject_told_by_possessive(self, start: int, i: int) -> int:
        """The person of the possessive pronoun that tells the subject of the clause at start
        ("his father {B} introduced him ...": the person of "his"), or -1."""
        toks = self.toks
        _, k = self._subject_at(start, i)
        q = k - 1 - (k >= 1 and toks[k - 1].text == ",")
        while q > start and toks[q].kind == "word" and toks[q].low not in FUNCTION:
            q -= 1
        if start <= q < k - 1 and toks[q].kind == "pron" and toks[q].form == "his" and self.is_relation(q + 1) \
                and len(self.referent.get(q, ())) == 1:
            return self.referent[q][0]
        return -1

    def _opens(self, i: int, start: int) -> bool:
        """Whether the possessive at i opens its clause (after adverbs, commas, a coordinator)
        and so owns the clause's subject ("Sadly, his brother {D} ...")."""
        toks = self.toks
        return i >= 1 and all(toks[k].text == "," or toks[k].low in ADVERB_OPENERS or toks[k].low in COORDINATORS
                              or (toks[k].low.endswith("ly") and toks[k + 1].text == ",") for k in range(start, i))

    def _asked(self, start: int) -> tuple[int, int] | None:
        """(asker, person asked) when the clause at start reports what a verb of asking or
        telling says ("{A} asked {B} if ...", "{A} told {B} that ...")."""
        toks = self.toks
        if start < 3 or toks[start - 1].low not in REPORT_OPENERS:
            return None
        obj = start - 2
        if toks[obj].text == ",":
            obj -= 1
        if obj < 1 or toks[obj].kind != "ent" or toks[obj].ent < 0:
            return None
        for k in range(obj - 1, max(obj - 5, -1), -1):
            if toks[k].low in REPORTING_VERBS:
                subject = self.subject(self.clause_start(k), k)
                return (subject, toks[obj].ent) if subject >= 0 else None
        return None

    def name(self, e: int) -> str:
        return "{" + chr(65 + e) + "}"

    def last_group(self, i: int) -> tuple[int, ...]:
        """The people of the nearest clause before token i whose subject names two or more
        ("{C} and his brother {B} went ... Their father {A}"), or ()."""
        k = i
        while k > 0:
            begin = self.clause_start(k)
            group = self.subjects(begin, k)
            if len(group) >= 2:
                return tuple(dict.fromkeys(group))
            k = begin - 1
        # else the last list of names in this sentence or the one before ("his daughters {C} and
        # {B} ... They visit their grandfather")
        toks = self.toks
        ends = [k for k in range(i) if toks[k].text in SENTENCE_END]
        first = ends[-2] + 1 if len(ends) >= 2 else 0
        def conjunct_before(k: int) -> int:
            """The name joined by "and" before the name at k, over "her brother," between, or -1."""
            q = k - 1
            q -= q >= 0 and toks[q].text == ","
            while q >= 0 and toks[q].kind == "word" and self.is_relation(q):
                q -= 1
            q -= q >= 0 and toks[q].kind == "pron" and toks[q].form == "his"
            if q < 1 or toks[q].low != "and":
                return -1
            q -= 1
            q -= toks[q].text == ","
            return q if q >= first and toks[q].kind == "ent" and toks[q].ent >= 0 and not toks[q].poss else -1

        for k in range(i - 1, first, -1):
            t = toks[k]
            q = conjunct_before(k) if t.kind == "ent" and t.ent >= 0 and not t.poss else -1
            if q >= 0:
                group = [t.ent, toks[q].ent]
                while q >= 2 and toks[q - 1].text == "," and toks[q - 2].kind == "ent" and toks[q - 2].ent >= 0 \
                        and not toks[q - 2].poss:
                    q -= 2
                    group.append(toks[q].ent)
                return tuple(dict.fromkeys(reversed(group)))
        return ()

    def couple(self, mentioned: list[int]) -> tuple[int, ...]:
        for a, b in reversed(self.facts.couples):
            if a in mentioned and b in mentioned:
                return (a, b)
        return tuple(mentioned) if len(mentioned) == 2 else ()

    # -- statements ----------------------------------------------------------------------
    def mark_dangling(self, j: int) -> bool:
        """Record a relation noun phrase set off by a comma after something that is not a
        person ("texts from the night bus, a sister who worries"): it attaches to no one named."""
        toks = self.toks
        k = j - 1
        while k >= 0 and toks[k].kind == "word" and not toks[k].poss and toks[k].low not in FUNCTION \
                and toks[k].low not in self.lex:
            k -= 1
        if k < 2 or toks[k].low not in ARTICLES or toks[k - 1].text != ",":
            return False
        before = toks[k - 2]
        if before.kind in ("ent", "pron") and not before.poss:
            return False
        self.dangling.append((k, j))
        return True

    def person_at(self, i: int, poss: bool | None = None) -> int:
        """The person at token i (a mention, or a resolved singular pronoun), or -1."""
        if not 0 <= i < len(self.toks):
            return -1
        t = self.toks[i]
        if poss is not None and t.poss != poss:
            return -1
        if t.kind == "ent":
            return t.ent
        if t.kind == "pron" and t.gender is not None and i in self.referent:
            return self.referent[i][0]
        return -1

    def is_title(self, j: int) -> bool:
        t = self.toks[j]
        return t.text[:1].isupper() and j + 1 < len(self.toks) and self.toks[j + 1].kind == "ent"

    def is_relation(self, i: int) -> bool:
        return 0 <= i < len(self.toks) and self.toks[i].kind == "word" and self.toks[i].low in self.lex

    def haver(self, h: int) -> int:
        """The person who "has" at token h: the name or pronoun before it, the antecedent of
        "who"/"that" ("{C} has a niece {B} who has a son"), else the clause's subject."""
        toks = self.toks
        if h >= 1 and toks[h - 1].kind in ("ent", "pron"):
            return self.person_at(h - 1, poss=False)
        if h >= 1 and toks[h - 1].low in RELATIVES:
            return self.antecedent(h - 1)
        return self.subject(self.clause_start(h), h) if h else -1

    def antecedent(self, w: int) -> int:
        """The person a relative pronoun at w refers to: the name just before it, with or
        without a comma ("{B}, who ...", "{B} who ..."), or -1."""
        b = w - 1 - (w >= 2 and self.toks[w - 1].text == ",")
        return self.person_at(b, poss=False) if b >= 0 and self.toks[b].kind == "ent" else -1

    def speaker(self, k: int) -> int:
        """The speaker of a quotation holding token k ("'My wife drives,' {A} said"): the first
        person named in the sentence before the quotation, else the first after it; -1 outside quotes."""
        toks = self.toks
        marks = [i for i, t in enumerate(toks) if t.text in QUOTES]
        opening = [i for i in marks if i < k]
        if len(opening) % 2 == 0:
            return -1
        o = opening[-1]
        closing = next((i for i in marks if i > k), len(toks))
        start = o
        while start > 0 and toks[start - 1].text not in SENTENCE_END:
            start -= 1
        for i in range(start, o):
            if toks[i].kind == "ent" and toks[i].ent >= 0:
                return toks[i].ent
        for i in range(closing + 1, min(closing + 4, len(toks))):
            if toks[i].kind == "ent" and toks[i].ent >= 0 and not toks[i].poss:
                return toks[i].ent
        return -1
