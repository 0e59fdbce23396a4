"""Relation statements in story text, and the writing rules a text is checked against.

A text is read as tokens: entity mentions (``{A}`` in a template, ``[Name]`` in a rendered
story), pronouns (a slot such as ``{A.his}``, whose person is known, or a literal word,
resolved to the one person of its gender mentioned so far), words and punctuation.

A *statement* says that a referent is a possessor's relation. The shapes read are:
"X's R Y", "{X.his} R Y", "Y, X's R", "Y, the R of X", "Y is X's R", "the R of X is Y",
"R to X" (with a referent before or after), "their R Y" and "X and Z's R Y" (a couple's
child), "X and Y are Rs", "X married Y"; an R with a referent but no possessor ("Y, a R
who ...", the title "Aunt Y") is a *role*: Y must be someone's R among the clause's people.

:func:`analyse` checks the statements of one reading (one gender for every person) against
the facts of a clause and returns flags naming the writing rule of ``paraphrases/README.md``
they break; :func:`text_flags` holds the checks that need no facts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from clutrr.core.kb import KB
from clutrr.render.normalise import END, repairs
from clutrr.render.slots import SlotError, slot_forms

OTHER = -2  # a kinship word outside the KB (cousin, godmother, ...)
RULE_NAMES = {
    "1": "every person is named",
    "2": "pronouns and gendered words are slots",
    "3": "no self-possessives",
    "4": "unambiguous pronouns",
    "5": "facts point the right way",
    "6": "only the clause's facts",
    "7": "the world model",
    "8": "prose",
    "9": "every fact names its owner",
    "format": "template format",
}

PRONOUN_GENDER = {"he": 0, "him": 0, "his": 0, "himself": 0, "she": 1, "her": 1, "hers": 1, "herself": 1}
REFLEXIVE = frozenset({"himself", "herself"})
SUBJECT_PRONOUNS = frozenset({"he", "she"})
OBJECT_PRONOUNS = frozenset({"him", "her", "them"})
# Words that end a run of modifiers between a possessor and its relation noun.
FUNCTION = frozenset("""
a an the this that these those one another such some any each every no not nor and or but so yet for to of in
on at by with from into onto over under about after before behind beside besides between through during without
within upon off out up down as than then when while where whom who whose which what why how if because though
although since until unless is was were are be been being am has had have having do does did will would shall
should can could may might must it its there here their they them we us our you your i me my mine yours ours
theirs he she him his her hers himself herself named called like
""".split())
NOUN_MODIFIERS = frozenset("kid baby youngest eldest firstborn twin".split())  # "kid brother": a relation noun used as a modifier
ARTICLES = frozenset("a an the one another such this that these those our my your every each".split())
COPULAS = frozenset("is was became becomes remains remained been be as are were".split())
AUXILIARIES = frozenset("""has had have always still also now later soon then once finally recently officially actually
really truly secretly""".split())
MARRY_BEFORE = frozenset("who got finally is was are were been being be happily long".split())
MARRY = frozenset("married marries marry marrying wed weds wedded".split())
ABBREVIATIONS = frozenset("mr mrs ms dr st mt jr sr prof".split())
SENTENCE_END = frozenset(".!?")
# How a reader splits a sentence into clauses, and which verbs report what someone asks or says.
CLAUSE_OPENERS = frozenset("""and but so because when while before after since until unless if though although whereas
then as that whether where who""".split())
ADVERB_OPENERS = frozenset("""then later soon afterwards afterward meanwhile also still now finally suddenly luckily
unfortunately however instead together once""".split())
PREPOSITIONS = frozenset("""with for to at by from of in on into onto behind beside near without about after before
under over around towards toward past like""".split())
HAVING = frozenset("has had have having".split())
PERSON_NOUNS = frozenset("man woman girl boy lady gentleman guy person fellow".split())  # "a woman with a daughter named"
RELATIVES = frozenset("who that whom".split())
MEMBER_OF = frozenset("one another".split())  # "one of {C}'s brothers"
COPULA_ADVERBS = frozenset("also still now really actually truly indeed certainly".split())  # "{D} is also ..."
TAKING = frozenset("take takes took taking taken bring brings brought bringing carry carried carries".split())
COORDINATORS = frozenset("and but so then or".split())
SUBORDINATORS = frozenset("when while before after as since because if although though once until".split())
REPORT_OPENERS = frozenset("if whether that to about".split())
SAYING = frozenset("""said says say thought thinks explained replied answered claimed decided felt knew realized realised
admitted insisted complained mentioned announced""".split())  # "{B} said she ...": she is {B}
REPORTING_VERBS = frozenset("""asked asks ask told tells tell reminded reminds begged begs invited invites called calls
texted texts urged urges convinced convinces persuaded persuades warned warns promised promises assured assures
wanted wants needed needs""".split())
FRAME_CLOSERS = frozenset([",", ")", "\u2014", ".", "!", "?", ";"])  # after "her father, {A}"
QUOTES = frozenset("\"\u201c\u201d")

# Relation nouns outside the KB's word list: (KB word it names, or a predicate name with no gender).
ALIASES = {
    "mom": "mother", "mum": "mother", "mommy": "mother", "mummy": "mother", "mama": "mother", "momma": "mother",
    "dad": "father", "daddy": "father", "papa": "father",
    "grandpa": "grandfather", "grandad": "grandfather", "granddad": "grandfather", "gramps": "grandfather",
    "grandma": "grandmother", "granny": "grandmother", "gran": "grandmother", "nana": "grandmother",
    "hubby": "husband", "bride": "wife", "groom": "husband", "bridegroom": "husband",
    "neice": "niece", "grandaughter": "granddaughter",
}
NEUTRAL = {
    "parent": "parent", "child": "child", "kid": "child", "sibling": "sibling", "spouse": "spouse",
    "grandparent": "grandparent", "grandchild": "grandchild", "grandkid": "grandchild",
    "youngest": "child", "eldest": "child", "firstborn": "child", "youngster": "child", "twin": "sibling",
}
NEUTRAL_PLURALS = {"children": "child", "grandchildren": "grandchild"}
OTHER_RELATIONS = frozenset("""
cousin godfather godmother godson goddaughter godchild godparent fiance fiancé fiancee fiancée boyfriend girlfriend
great-grandfather great-grandmother great-grandson great-granddaughter great-aunt great-uncle grandnephew grandniece
great-nephew great-niece
""".split())
GRAND_TAILS = frozenset("son daughter father mother sons daughters fathers mothers child children".split())
IN_LAW_HEADS = frozenset("son daughter father mother brother sister sons daughters fathers mothers brothers sisters".split())

# Rule 2: literal words that mark a person's gender (relation words of the KB excepted).
GENDERED_WORDS = frozenset("""
man woman men women boy girl boys girls lad lads lass lasses gentleman gentlemen lady ladies guy guys bloke chap
dude mister mr mrs madam ma'am sir dad daddy dads mum mummy mums mom mommy moms mama papa grandpa grandma granny
grandad granddad gramps nana bride brides groom grooms bridegroom widow widower prince princess actor
actress actresses waiter waitress waitresses steward stewardess hostess heroine duke duchess lord monk nun priestess
godfather godmother godson goddaughter fiance fiancé fiancee fiancée boyfriend girlfriend patriarch matriarch
fatherly motherly brotherly sisterly grandfatherly grandmotherly tomboy
""".split())
NOT_GENDERED_MAN = frozenset("human humans german germans roman romans shaman shamans talisman talismans ottoman "
                             "caiman cayman walkman superhuman inhuman ramen amen omen omens stamen abdomen abdomens "
                             "semen yemen specimen specimens regimen regimens acumen hymen afikoman snowman snowmen "
                             "ironman".split())
MAN_SUFFIX = re.compile(r"^[a-z]+(?:wo)?m[ae]n$")

# Rule 7: words that imply a step-, half- or broken family.
_FAMILY = ("(?:mother|father|mom|mum|dad|daddy|mommy|son|daughter|child|children|kid|brother|sister|sibling|parent"
           "|family|families|grandson|granddaughter|grandchild|grandchildren|grandmother|grandfather|grandparent"
           "|grandma|grandpa)")
STEP = re.compile(rf"^(?:step-?{_FAMILY}s?|half-(?:brother|sister|sibling)s?|ex-[a-z-]+|ex|widow|widows|widower"
                  r"|widowers|widowed|adopted|adoptive|adopt|adopts|adoption|divorce|divorced|divorcee|divorcing"
                  r"|remarried|remarry|remarries|remarriage|foster|fostered|fostering)$")
ADOPTING = re.compile(r"^(?:adopted|adopt|adopts|adoption|foster|fostered|fostering)$")
# after "adopted" or "foster", these mean an animal or a thing, not a child
NOT_A_CHILD = frozenset("""
rescue dog dogs cat cats puppy puppies kitten kittens greyhound greyhounds pet pets lamb lambs horse horses pony ponies
tortoise tortoises hedgehog hedgehogs rabbit rabbits parrot parrots donkey donkeys goat goats hen hens chicken chickens
duckling ducklings ferret ferrets beehive highway road motorway stretch tree trees bench animals animal stray strays
""".split())
STEP_BEFORE = frozenset("late former".split())  # before a relation noun or a name
SPOUSE_BEFORE = frozenset("first second third previous".split())  # before a spouse word
SPOUSE_WORDS = frozenset("husband wife spouse husbands wives marriage bride groom".split())
MEETING = frozenset("met meet meets meeting courted courting dated dating".split())  # a couple's first meeting

TOKEN = re.compile(
    r"(?P<slot>\{(?P<e>[A-D])(?:\.(?P<s>[^{}]*))?\})"
    r"|(?P<name>\[(?P<n>[^\[\]]+)\])"
    r"|(?P<word>[A-Za-z0-9\u00C0-\u024F]+(?:[-'\u2019][A-Za-z0-9\u00C0-\u024F]+)*)"
    r"|(?P<apos>['\u2019]s\b)"
    r"|(?P<punct>[^\sA-Za-z0-9])"
)
SLOT_FORM = {"he": "he", "she": "he", "him": "him", "his": "his", "hers": "hers", "himself": "himself",
             "herself": "himself"}


@dataclass(frozen=True)
class Flag:
    """A broken writing rule: the rule's number (or ``format``), what is wrong, and the span quoted."""

    rule: str
    message: str
    span: str
    drops: bool = True
    kind: str = ""  # a finer class counted in reports: role-only, unstated, dangling, repeated-name, world

    def __str__(self) -> str:
        return f"rule {self.rule} ({RULE_NAMES[self.rule]}): {self.message}: \u00ab{self.span}\u00bb"


class Tok:
    """One token. ``ent`` is the person of a mention, of a pronoun slot or of a gendered slot
    (-1 when not known); ``poss`` marks a following 's; ``form`` is a pronoun's kind."""

    __slots__ = ("kind", "text", "low", "ent", "poss", "slot", "start", "end", "gender", "form")

    def __init__(self, kind: str, text: str, start: int, end: int, ent: int = -1, slot: bool = False,
                 gender: int | None = None, form: str = "") -> None:
        self.kind, self.text, self.low = kind, text, text.lower()
        self.start, self.end, self.ent, self.slot, self.gender, self.form = start, end, ent, slot, gender, form
        self.poss = False

    def __repr__(self) -> str:
        return f"Tok({self.kind}, {self.text!r}, ent={self.ent}{', poss' if self.poss else ''})"


def _word_token(text: str, start: int, end: int, ent: int = -1, slot: bool = False) -> Tok:
    low = text.lower()
    if low in PRONOUN_GENDER:
        form = "his" if low == "her" else SLOT_FORM.get(low, low)
        return Tok("pron", text, start, end, ent, slot, PRONOUN_GENDER[low], form)
    if low in ("their", "they", "them", "theirs"):
        return Tok("pron", text, start, end, -1, False, None, low)
    return Tok("word", text, start, end, ent, slot)


def tokenize(text: str, genders: tuple[int, ...] | list[int], names: dict[str, int] | None = None) -> list[Tok]:
    """Tokens of a template (``names`` None: slots are read, rendered with ``genders``) or of a
    rendered text (``names`` maps each bracketed name to its person)."""
    toks: list[Tok] = []
    bare = names is not None and "[" not in text  # names without brackets: match the words
    for m in TOKEN.finditer(text):
        start, end = m.span()
        kind = m.lastgroup
        if kind in ("slot", "e", "s"):
            ent = ord(m.group("e")) - 65
            spec = m.group("s")
            if spec is None:
                toks.append(Tok("ent", m.group(0), start, end, ent))
                continue
            try:
                forms = slot_forms(spec)
            except SlotError:
                continue
            g = genders[ent] if ent < len(genders) else 0
            word = forms[g]
            if "|" not in spec:
                toks.append(Tok("pron", word, start, end, ent, True, g, SLOT_FORM.get(spec.lower(), spec.lower())))
            else:
                tok = _word_token(word, start, end, ent, True)
                tok.kind, tok.slot, tok.ent = "word", True, ent
                toks.append(tok)
        elif kind in ("name", "n"):
            ent = (names or {}).get(m.group("n"), -1)
            toks.append(Tok("ent", m.group(0), start, end, ent))
        elif kind == "word":
            word = m.group(0)
            poss = False
            if len(word) > 2 and word[-2] in "'\u2019" and word[-1] in "sS":
                word, poss = word[:-2], True
            if bare and word in names:
                tok = Tok("ent", word, start, end, names[word])
            else:
                tok = _word_token(word, start, start + len(word))
            tok.poss = poss
            toks.append(tok)
        elif kind == "apos":
            if toks and toks[-1].end == start:
                toks[-1].poss = True
                toks[-1].end = end
        else:
            toks.append(Tok("punct", m.group(0), start, end))
    return _merge_in_law(toks)


def _merge_in_law(toks: list[Tok]) -> list[Tok]:
    """Join "son in law" into the relation word "son-in-law", and "grand daughter" into "granddaughter"."""
    out: list[Tok] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if (t.kind == "word" and t.low == "grand" and not t.poss and i + 1 < len(toks)
                and toks[i + 1].low in GRAND_TAILS):
            nxt = toks[i + 1]
            merged = Tok("word", "grand" + nxt.low, t.start, nxt.end)
            merged.poss = nxt.poss
            out.append(merged)
            i += 2
            continue
        if (t.kind == "word" and t.low in IN_LAW_HEADS and not t.poss and i + 2 < len(toks)
                and toks[i + 1].low == "in" and toks[i + 2].low in ("law", "laws")):
            last = toks[i + 2]
            head = t.low[:-1] if t.low.endswith("s") and last.low == "laws" else t.low
            merged = Tok("word", f"{head}-in-law" + ("s" if t.low.endswith("s") else ""), t.start, last.end)
            merged.poss = last.poss
            out.append(merged)
            i += 3
            continue
        out.append(t)
        i += 1
    return out


# --- the relation lexicon ------------------------------------------------------------------


def plural(word: str) -> str:
    """The plural of a relation word (``wives``, ``sons-in-law``)."""
    if word == "wife":
        return "wives"
    head, sep, rest = word.partition("-")
    return f"{head}s{sep}{rest}" if sep else word + "s"


_LEXICONS: dict[str, dict[str, tuple[int, int | None, bool]]] = {}


def lexicon(kb: KB) -> dict[str, tuple[int, int | None, bool]]:
    """Relation noun (lower case) -> (predicate, gender or None, plural); predicate OTHER for
    kinship words outside the KB."""
    if kb.name in _LEXICONS:
        return _LEXICONS[kb.name]
    out: dict[str, tuple[int, int | None, bool]] = _LEXICONS.setdefault(kb.name, {})
    by_name = {p.name: i for i, p in enumerate(kb.predicates)}
    for i, p in enumerate(kb.predicates):
        for g, w in enumerate(p.words):
            if w is None or w in out:  # a term's word for both genders: its first entry
                continue
            either = None if p.words[0] == p.words[1] else g
            out[w] = (i, either, False)
            out[plural(w)] = (i, either, True)
    for alias, word in {**ALIASES, **kb.aliases}.items():
        if word in kb.word_index:
            pred, g = kb.parse_word(word)
            out.setdefault(alias, (pred, g, False))
            out.setdefault(plural(alias), (pred, g, True))
    for word, name in NEUTRAL.items():
        if name in by_name:
            out.setdefault(word, (by_name[name], None, False))
            out.setdefault(word + "s", (by_name[name], None, True))
    for word, name in NEUTRAL_PLURALS.items():
        if name in by_name:
            out.setdefault(word, (by_name[name], None, True))
    for word in OTHER_RELATIONS:
        out.setdefault(word, (OTHER, None, False))
        out.setdefault(word + "s", (OTHER, None, True))
    return out


# --- facts -------------------------------------------------------------------------------


@dataclass
class Facts:
    """What a clause says under one gender assignment: ``rel[(x, y)]`` is the predicate y has to
    x for adjacent people (both directions); ``implied`` the composed predicate of the others
    (-1 when the KB has no rule); ``couples`` the stated spouse pairs."""

    kb: KB
    genders: tuple[int, ...]
    rel: dict[tuple[int, int], int]
    implied: dict[tuple[int, int], int]
    couples: list[tuple[int, int]]

    @classmethod
    def of(cls, kb: KB, clause: tuple[str, ...], head_gender: int) -> "Facts":
        """The facts of ``clause`` (fact i: person i+1 is person i's clause[i]) with person 0 of ``head_gender``."""
        preds = [kb.parse_word(w) for w in clause]
        genders = (head_gender, *(g for _, g in preds))
        rel: dict[tuple[int, int], int] = {}
        for i, (p, _) in enumerate(preds):
            rel[(i, i + 1)] = p
            inv = kb.predicates[p].inverse
            if inv >= 0:
                rel[(i + 1, i)] = inv
        implied: dict[tuple[int, int], int] = {}
        for i in range(len(preds)):
            p = preds[i][0]
            for j in range(i + 2, len(preds) + 1):
                p = kb.compose(p, preds[j - 1][0]) if p >= 0 else -1
                implied[(i, j)] = p
                implied[(j, i)] = kb.predicates[p].inverse if p >= 0 else -1
        spouse = [i for i, p in enumerate(kb.predicates) if p.name == "spouse"]
        couples = [(i, i + 1) for i, (p, _) in enumerate(preds) if p in spouse]
        return cls(kb, genders, rel, implied, couples)

    def spouse_of(self, x: int) -> int:
        """x's stated spouse in the clause, or -1."""
        for a, b in self.couples:
            if x in (a, b):
                return b if x == a else a
        return -1


@dataclass(frozen=True)
class Statement:
    """``referent`` is ``possessors``' relation (predicate ``pred``, written ``word``); an empty
    ``possessors`` is a role (the referent is someone's relation). ``shape`` says how it was read."""

    possessors: tuple[int, ...]
    referent: int
    pred: int
    gender: int | None
    word: str
    shape: str
    span: tuple[int, int]
    links: tuple[int, ...] = ()  # a possessive chain: both links' predicates, then the first link's gender (-1: any)


# --- reading -----------------------------------------------------------------------------


class _Reader:
    """One pass over the tokens of one reading: pronoun referents, then statements."""

    def __init__(self, toks: list[Tok], facts: Facts, text: str, slot_bank: bool = True) -> None:
        self.toks, self.facts, self.text, self.slot_bank = toks, facts, text, slot_bank
        self.lex = lexicon(facts.kb)
        self.flags: list[Flag] = []
        self.referent: dict[int, tuple[int, ...]] = {}  # token index -> resolved person(s) of a pronoun
        self.dangling: list[tuple[int, int]] = []  # token spans of relation nouns attached to no one
        self._last: Statement | None = None  # the statement read last ("his son {C} and daughter {D}")
        self._resolve_pronouns()

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
                    couple = self._couple(mentioned) or self._last_group(i)
                    if couple:
                        self.referent[i] = couple
                continue
            head = self.toks[i - 2].ent if i >= 2 and self.toks[i - 1].text == "," and self.toks[i - 2].kind == "ent" \
                and not self.toks[i - 2].poss else -1  # in "Y, his R" the pronoun is not Y's
            if head < 0 and not t.slot and i >= 1 and self.toks[i - 1].kind == "ent" and not self.toks[i - 1].poss \
                    and self._determiner(i):
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
            named = self._named_after(i)
            if named >= 0 and genders[named] == t.gender:
                self.referent[i] = (named,)  # "... her brother. His name is {A}."
                continue
            cands = [e for e in mentioned if genders[e] == t.gender and e != head] or \
                [e for e in mentioned if genders[e] == t.gender]
            if not cands:
                later = [u.ent for u in self.toks[i + 1:] if u.kind == "ent" and u.ent >= 0 and genders[u.ent] == t.gender]
                if not self._unnamed_before(i, t.gender):
                    if later:
                        self.flags.append(Flag("4", f"{t.low!r} refers forward to {self._name(later[0])}, named "
                                                    "after it", self.quote(i - 2, i + 1)))
                    elif not self.slot_bank and self._tells_fact(i):
                        self.flags.append(Flag("4", f"{t.low!r}: nobody in the text has its gender",
                                               self.quote(i - 2, i + 1)))
                continue
            best, rivals = self._reading(i, t, cands)
            if rivals and self._states(i, best, rivals):
                who = ", ".join(self._name(e) for e in (best, *rivals))
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
        if k < len(toks) and toks[k].kind == "word" and toks[k].low in self.lex and self._determiner(i):
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
        if k < len(toks) and self._rel(k) and self._determiner(i):
            return True
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if nxt is None or toks[i].form != "he":
            return False
        return nxt.low in MARRY or (nxt.low in COPULAS and any(self._rel(c) for c in range(i + 2, min(i + 7, len(toks)))))

    # -- how a reader takes a pronoun -------------------------------------------------------

    def _clause_start(self, i: int) -> int:
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

    def _subject(self, start: int, end: int) -> int:
        """The person who is the subject of the clause from token start: the first person
        named or resolved there ("{A}'s sister {B}" and "{A}'s sister, {B}," give {B}), or -1
        when a verb or a preposition comes first."""
        return self._subject_at(start, end)[0]

    def _subject_at(self, start: int, end: int) -> tuple[int, int]:
        """(the subject of the clause from token start, its token index), or (-1, -1)."""
        toks = self.toks
        if 1 <= start < len(toks) and toks[start - 1].low == "who" and toks[start].kind != "ent":
            who = self._antecedent(start - 1)  # "{C} who has since lost his son": {C}
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
            begin = self._clause_start(k)
            found = self._subject(begin, k)
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
        start = self._clause_start(i)
        subjects = self._subjects(start, i)
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
        if form == "his" and t.low == "her" and not self._determiner(i):
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

    def _subjects(self, start: int, end: int) -> list[int]:
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
        return self._ent(v - 1, poss=False) if toks[v - 1].kind in ("ent", "pron") else -1

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

    def _named_after(self, i: int) -> int:
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

    def _determiner(self, i: int) -> bool:
        """Whether "her" at i is a determiner ("her son") rather than an object ("saw her")."""
        nxt = self.toks[i + 1] if i + 1 < len(self.toks) else None
        return nxt is not None and nxt.kind == "word" and (nxt.low not in FUNCTION or nxt.low in self.lex)

    def _parallel(self, i: int, start: int, own_subject: bool = False) -> int:
        """In "her sister {B} and her son {C}" (or, in a clause without a subject of its own,
        "was his son, {C}, next was his son {A}") the second possessive of a relation noun
        takes the first one's person."""
        toks = self.toks
        if i < 1 or not self._rel(i + 1):
            return -1
        if self._opens(i, start):
            # the possessive opens its clause, owning its subject ("Her mother {A} came, but her
            # brother {C} ...", "His parents came. Sadly, his brother ..."): the earlier one's person
            first = next((k + 1 for k in range(start - 2, -1, -1) if toks[k].text in SENTENCE_END), 0)
        elif toks[i - 1].low in ("and", "or", ","):
            b = i - 2 - (i >= 3 and toks[i - 2].text == ",")
            while b >= 2 and toks[b].kind == "ent" and toks[b - 1].low in (",", "and") and toks[b - 2].kind == "ent":
                b -= 2  # back over a list of names: "her sons, {B} and {A}, and her niece"
            if b >= 1 and toks[b].kind == "ent" and not toks[b].poss and not self._rel(b - 1 - (toks[b - 1].text == ",")):
                return -1  # "mind {C} and her brother": the conjunct before is a bare name, not "her R {C}"
            first = start
        elif own_subject:
            return -1
        else:
            first = next((k + 1 for k in range(i - 1, -1, -1) if toks[k].text in SENTENCE_END), 0)
        for k in range(i - 2, first - 1, -1):
            if toks[k].kind == "pron" and toks[k].form == "his" and k in self.referent and self._rel(k + 1):
                return self.referent[k][0]
        return -1

    def _subordinate_subject(self, start: int) -> int:
        """The subject of a clause opening the sentence with a subordinator, when the clause at
        start is the main clause after it ("When {C} passed, {B} ..." gives {C}), or -1."""
        toks = self.toks
        if start < 3 or toks[start - 1].text != ",":
            return -1
        first = next((k + 1 for k in range(start - 2, -1, -1) if toks[k].text in SENTENCE_END), 0)
        if toks[first].low not in SUBORDINATORS or self._clause_start(start - 1) != first + 1:
            return -1
        return self._subject(first + 1, start - 1)

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
        if start <= q < k - 1 and toks[q].kind == "pron" and toks[q].form == "his" and self._rel(q + 1) \
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
                subject = self._subject(self._clause_start(k), k)
                return (subject, toks[obj].ent) if subject >= 0 else None
        return None

    def _name(self, e: int) -> str:
        return "{" + chr(65 + e) + "}"

    def _last_group(self, i: int) -> tuple[int, ...]:
        """The people of the nearest clause before token i whose subject names two or more
        ("{C} and his brother {B} went ... Their father {A}"), or ()."""
        k = i
        while k > 0:
            begin = self._clause_start(k)
            group = self._subjects(begin, k)
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
            while q >= 0 and toks[q].kind == "word" and self._rel(q):
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

    def _couple(self, mentioned: list[int]) -> tuple[int, ...]:
        for a, b in reversed(self.facts.couples):
            if a in mentioned and b in mentioned:
                return (a, b)
        return tuple(mentioned) if len(mentioned) == 2 else ()

    # -- statements ----------------------------------------------------------------------

    def statements(self) -> list[Statement]:
        out: list[Statement] = []
        toks = self.toks
        for j, t in enumerate(toks):
            if t.kind != "word":
                continue
            if t.low in self.lex and not t.poss:
                found = self._noun(j)
                out += found
                if found:
                    self._last = found[-1]
            elif t.low in self.lex:
                self._dangling(j)  # "..., a father-in-law's gift": a role owned by nobody named
            elif t.low in MARRY:
                out += self._marry(j)
            elif t.low == "birth":
                out += self._birth(j)
        return out

    def _birth(self, j: int) -> list[Statement]:
        """"{B} gave birth to {A}": {B} is {A}'s mother."""
        toks = self.toks
        parent = [i for i, p in enumerate(self.facts.kb.predicates) if p.name == "parent"]
        if not parent or j < 2 or toks[j - 1].low not in ("gave", "give", "gives", "giving", "given") \
                or j + 2 >= len(toks) or toks[j + 1].low != "to":
            return []
        child = self._ent(j + 2, poss=False)
        c = j - 2
        while c >= 0 and toks[c].low in AUXILIARIES | {"had", "just", "was", "is", "were"}:
            c -= 1
        if c >= 2 and toks[c].low == "who" and toks[c - 1].text == ",":
            c -= 2  # "{B}, who was giving birth to {A}"
        mother = self._ent(c, poss=False) if c >= 0 and toks[c].kind in ("ent", "pron") else -1
        if mother < 0 and c >= 0 and toks[c].low in ("after", "before", "when", "while"):
            mother = self._subject(self._clause_start(c), c) if c else -1
        if child < 0 or mother < 0 or child == mother:
            return []
        return [Statement((child,), mother, parent[0], 1, "gave birth", "after", (c, j + 2))]

    def _dangling(self, j: int) -> bool:
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

    def _ent(self, i: int, poss: bool | None = None) -> int:
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

    def _is_title(self, j: int) -> bool:
        t = self.toks[j]
        return t.text[:1].isupper() and j + 1 < len(self.toks) and self.toks[j + 1].kind == "ent"

    def _rel(self, i: int) -> bool:
        return 0 <= i < len(self.toks) and self.toks[i].kind == "word" and self.toks[i].low in self.lex

    def _noun(self, j: int) -> list[Statement]:
        toks = self.toks
        pred, gender, is_plural = self.lex[toks[j].low]
        if self._rel(j + 1) and not self._is_title(j + 1):
            return []  # "kid brother": the first noun is a modifier
        pair = self._pair_before(j)
        if pair and j + 2 < len(toks) and toks[j + 1].low == "and" and self._rel(j + 2) \
                and not self.lex[toks[j + 2].low][2] and not is_plural:
            # "{C} and {D}, son and father": {C} is {D}'s son and {D} is {C}'s father
            (x, xi), (y, yi) = pair
            other = self.lex[toks[j + 2].low]
            span = (xi, j + 2)
            return [Statement((y,), x, pred, gender, toks[j].low, "pair", span),
                    Statement((x,), y, other[0], other[1], toks[j + 2].low, "pair", span)]
        if j + 6 < len(toks) and toks[j + 1].low == "and" and self._rel(j + 2) and toks[j + 3].text == "," \
                and toks[j + 4].kind == "ent" and toks[j + 5].low == "and" and toks[j + 6].kind == "ent":
            return self._respectively(j)  # "his mother and father, {B} and {C}"
        if (j + 2 < len(toks) and toks[j + 1].low in ("and", "or") and self._rel(j + 2)) or \
                (j >= 2 and toks[j - 1].low in ("and", "or") and self._rel(j - 2)):
            return []  # "husband and wife", "brother and sister"
        group = self._group_after(j) if is_plural and self.facts.kb.predicates[pred].inverse == pred else []
        if len(group) >= 2 and not self._possessed(j):
            # "the three sisters {C}, {B} and {D}": each is each other's
            return [Statement((x,), y, pred, gender, toks[j].low, "mutual", (j, group[-1][1]))
                    for x, _ in group for y, _ in group if x != y]
        if pair and is_plural and self.facts.kb.predicates[pred].inverse == pred:
            # "{B} and {C}, brothers who rarely agree", "{C} and {D}, two sisters": each the other's
            (x, xi), (y, yi) = pair
            return [Statement((y,), x, pred, gender, toks[j].low, "mutual", (xi, j)),
                    Statement((x,), y, pred, gender, toks[j].low, "mutual", (xi, j))]
        # possessor before the noun, over at most three modifiers
        k, mods = j - 1, 0
        while (k >= 0 and mods < 3 and toks[k].kind == "word" and not toks[k].poss and toks[k].low not in FUNCTION
               and (toks[k].low not in self.lex or (k == j - 1 and toks[k].low in NOUN_MODIFIERS))):
            k -= 1
            mods += 1
        possessors: tuple[int, ...] = ()
        start, article, each, had = j - mods, False, False, False
        if k >= 0:
            pk = toks[k]
            if pk.kind == "ent" and pk.poss and pk.ent >= 0:
                possessors, start = (pk.ent,), k
                if k >= 2 and toks[k - 1].low == "and" and toks[k - 2].kind == "ent" and not toks[k - 2].poss \
                        and not (self._rel(k - 3) and not toks[k - 3].poss):
                    # "{B} and {C}'s son {D}"; not "{B}'s brother {A} and {C}'s son {D}" (two facts)
                    possessors, start = (toks[k - 2].ent, pk.ent), k - 2
            elif pk.kind == "word" and pk.poss and pk.low != "who":
                return self._chain(k, j)  # "A's daughter's husband C"
            elif pk.low in ("my", "our") and self._speaker(k) >= 0:
                possessors, start = (self._speaker(k),), k
            elif pk.kind == "pron" and pk.form in ("his", "their"):
                if k not in self.referent:
                    return []
                possessors, start = self.referent[k], k
            elif pk.low == "whose" or (pk.low == "who" and pk.poss):  # "who's" typed for "whose"
                owner = k - 2 if k >= 2 and toks[k - 1].text == "," else k - 1
                who = self._ent(owner, poss=False)
                if who < 0:
                    return []
                possessors, start = (who,), owner
                if (j + 2 < len(toks) and toks[j + 1].kind == "pron" and toks[j + 1].form == "he"
                        and toks[j + 2].low in ("is", "was") and self._ent(j + 1) >= 0):
                    return [Statement(possessors, self._ent(j + 1), pred, gender, toks[j].low, "whose", (owner, j + 2))]
            elif pk.kind == "word" and pk.low in ARTICLES:
                start, article = k, True
                owner = -1
                if k >= 2 and toks[k - 1].low in HAVING and toks[k - 2].low == "they":
                    couple = self._couple(list(dict.fromkeys(t.ent for t in toks[:k] if t.kind == "ent" and t.ent >= 0)))
                    if couple and toks[k].low in ("a", "an", "one", "another"):
                        possessors, start = couple, k - 2  # "{B} and {A} married. They had a son, {C}"
                elif k >= 2 and toks[k - 1].low in HAVING:
                    owner = self._haver(k - 1)  # "{B}, brother of {A}, has a son"
                elif k >= 3 and toks[k - 1].low == "to" and toks[k - 2].low == "birth":
                    owner = self._subject(self._clause_start(k - 2), k - 2)  # "{B} gave birth to a daughter named {A}"
                elif k >= 3 and toks[k - 1].low == "of" and self._rel(k - 2) and not toks[k - 2].poss \
                        and any(toks[q].low in ARTICLES for q in range(max(k - 5, 0), k - 2)):
                    owner = self._subject(self._clause_start(k - 3), k - 3)  # "{B} is the father of a daughter named {A}"
                elif k >= 3 and toks[k - 1].low == "with" and (toks[k - 2].low in PERSON_NOUNS or self._rel(k - 2)) \
                        and any(toks[q].low in ("a", "an") for q in range(max(k - 5, 0), k - 2)):
                    owner = self._subject(self._clause_start(k - 2), k - 2)  # "{B} is a woman with a daughter named {A}"
                if owner >= 0 and toks[k].low in ("a", "an", "one", "another"):
                    possessors, start = (owner,), k - 2  # "{B} has a son, {C}", "{B} had a daughter named {A}"
                    had = toks[k - 1].low in HAVING  # "{B} has a second son {C}": the name may follow directly
            elif pk.low in HAVING and is_plural and k >= 1 and self._haver(k) >= 0:
                possessors, start = (self._haver(k),), k - 1  # "{B} has two sons, {C} and {D}"
        if is_plural and possessors and start >= 2 and toks[start - 1].low == "of" \
                and toks[start - 2].low in MEMBER_OF:
            is_plural, start = False, start - 2  # "one of {C}'s brothers": one member, told as one person
        m = j + 1
        last = self._last
        if not possessors and (not article or toks[start].low in ("a", "an", "another")) and last is not None \
                and last.possessors and start >= 2 and toks[start - 1].low in ("and", ",") \
                and last.span[1] in (start - 2, start - 3) and last.shape == "after" \
                and not (m < len(toks) and toks[m].low in ("of", "to")):
            possessors = last.possessors  # "his son {C} and daughter {D}", "had a son {C} and a daughter {D}"
        if not possessors and m + 1 < len(toks) and toks[m].low in ("of", "to"):
            n = m + 1
            if toks[n].low == "both" and n + 1 < len(toks):
                n += 1  # "the father of both {A} and {C}"
            if self._rel(n) and self._is_title(n):
                n += 1
            elif toks[n].low in ("the", "a") and n + 3 < len(toks):
                # "daughter of the blacksmith {A}": a title before the name
                q = n + 1
                while q < min(n + 4, len(toks)) and toks[q].kind == "word" and toks[q].low not in FUNCTION \
                        and toks[q].low not in self.lex:
                    q += 1
                if q < len(toks) and toks[q].kind == "ent" and q > n + 1:
                    n = q
            who = self._ent(n, poss=False)
            if who < 0 or not (toks[n].kind == "ent" or toks[n].form == "him"):
                return []  # the relation of someone unnamed ("father of the bride")
            possessors, m = (who,), n + 1
            if toks[n - 1].low == "both" and m + 1 < len(toks) and toks[m].low == "and" and self._ent(m + 1, False) >= 0:
                possessors, m, each = (who, self._ent(m + 1)), m + 2, True  # each one's, not a couple's
        inside_of = start >= 1 and toks[start - 1].low == "of"
        referents, shape = self._referents_after(m, is_plural, direct=not article or had or self._is_title(j)), "after"
        if not possessors and not article and referents and start >= 2 and toks[start - 1].low == "and" \
                and toks[start - 2].kind == "ent" and not toks[start - 2].poss \
                and all(toks[start - 2].ent != r for r, _ in referents):
            possessors = (toks[start - 2].ent,)  # "{C} and granddaughter {B}", "{B} and Uncle {A}"
        if not possessors and not article and referents and self._bare(start, j):
            owner = self._subject(self._clause_start(start), start)
            if owner >= 0 and all(owner != r for r, _ in referents):
                possessors = (owner,)  # "{A} spent the day with daughter {C}": the subject's daughter
        framed = [] if inside_of and not possessors else self._referents_after(m, is_plural, comma=True)
        if framed and (framed[-1][1] + 1 == len(toks) or toks[framed[-1][1] + 1].text in FRAME_CLOSERS):
            referents = referents or framed  # "her father, {A}, drove": the name set off by commas
        if toks[start].low == "whose" or (possessors and toks[start + 1].low in ("whose", "who")):
            pass
        elif not referents:
            referents, shape = self._referents_before(start, pred, is_plural)
            if shape == "apposition" and not possessors and self._pairs_nouns(j):
                return []  # "{C}, father and newborn son": the noun describes a pair, not {C}
        if not referents:
            referents, shape = framed or self._after_relative(m) or self._named_next(j), "after"
        if not referents:
            if article and not possessors:
                self._dangling(j)
            return []
        span = (min(start, *(r[1] for r in referents)), max(j, m - 1, *(r[1] for r in referents)))
        out = []
        for ref, _ in referents:
            if shape == "mutual":
                others = [r for r, _ in referents if r != ref]
                out += [Statement((o,), ref, pred, gender, toks[j].low, shape, span) for o in others]
            elif each:
                out += [Statement((x,), ref, pred, gender, toks[j].low, shape, span) for x in possessors]
            else:
                out.append(Statement(possessors, ref, pred, gender, toks[j].low, shape, span))
        return out

    def _bare(self, start: int, j: int) -> bool:
        """Whether the relation noun at j (its modifiers from start) stands bare, without an
        article or a possessive, after a verb or a preposition of its clause ("went fishing
        with son {B}"); a capitalised one is a title ("Aunt {B}")."""
        if start < 1 or not self.toks[j].text[:1].islower():
            return False
        prev = self.toks[start - 1]
        return prev.kind == "word" and not prev.poss and prev.low not in ("of", "and", "or", "to") and (
            prev.low in PREPOSITIONS or prev.low not in FUNCTION) and not self._rel(start - 1)

    def _haver(self, h: int) -> int:
        """The person who "has" at token h: the name or pronoun before it, the antecedent of
        "who"/"that" ("{C} has a niece {B} who has a son"), else the clause's subject."""
        toks = self.toks
        if h >= 1 and toks[h - 1].kind in ("ent", "pron"):
            return self._ent(h - 1, poss=False)
        if h >= 1 and toks[h - 1].low in RELATIVES:
            return self._antecedent(h - 1)
        return self._subject(self._clause_start(h), h) if h else -1

    def _antecedent(self, w: int) -> int:
        """The person a relative pronoun at w refers to: the name just before it, with or
        without a comma ("{B}, who ...", "{B} who ..."), or -1."""
        b = w - 1 - (w >= 2 and self.toks[w - 1].text == ",")
        return self._ent(b, poss=False) if b >= 0 and self.toks[b].kind == "ent" else -1

    def _named_next(self, j: int) -> list[tuple[int, int]]:
        """The person of "His name is {A}." opening the next sentence, for the last relation
        noun of that gender before it ("{B} is proud that her son graduated. His name is
        {A}."), or []."""
        toks = self.toks
        e = next((k for k in range(j + 1, len(toks)) if toks[k].text in SENTENCE_END), -1)
        if e < 0 or e + 4 >= len(toks) or any(self._rel(k) for k in range(j + 1, e)):
            return []
        pron, name, verb, y = toks[e + 1:e + 5]
        gender = self.lex[toks[j].low][1]
        if pron.kind != "pron" or pron.form != "his" or name.low != "name" or verb.low not in ("is", "was") \
                or y.kind != "ent" or y.ent < 0 or (gender is not None and pron.gender != gender):
            return []
        return [(y.ent, e + 4)]

    def _after_relative(self, m: int) -> list[tuple[int, int]]:
        """The name set off by a comma after a relative clause that follows a relation noun
        ("her husband, who is a baker, {B}, ..."), when the clause names nobody and no other
        relation noun."""
        toks = self.toks
        r = m + (m < len(toks) and toks[m].text == ",")
        if r >= len(toks) or toks[r].low not in RELATIVES:
            return []
        for c in range(r + 1, min(r + 12, len(toks) - 1)):
            t = toks[c]
            if t.kind == "ent" or t.text in SENTENCE_END or self._rel(c):
                return []
            if t.text == ",":
                y = toks[c + 1]
                end = c + 2
                if y.kind == "ent" and y.ent >= 0 and not y.poss and (end == len(toks) or toks[end].text in FRAME_CLOSERS):
                    return [(y.ent, c + 1)]
                return []
        return []

    def _chain(self, k: int, j: int) -> list[Statement]:
        """"X's R1's R2 Y": Y is the R2 of X's R1. Read as a statement whose predicate is the
        pair (R1, R2); a chain of more links, or one without a named end, says nothing here."""
        toks = self.toks
        if toks[k].low not in self.lex or k < 1:
            return []
        x = self._ent(k - 1, poss=True) if toks[k - 1].kind == "ent" else (
            self.referent[k - 1][0] if toks[k - 1].kind == "pron" and toks[k - 1].form == "his"
            and k - 1 in self.referent else -1)
        if x < 0:
            return []
        ys = self._referents_after(j + 1, False) or self._referents_after(j + 1, False, comma=True)
        if not ys:
            before, _ = self._referents_before(k - 1, -1, False)
            ys = before
        if not ys:
            return []
        first, second = self.lex[toks[k].low], self.lex[toks[j].low]
        span = (k - 1, max(j, ys[0][1]))
        return [Statement((x,), ys[0][0], -3, second[1], f"{toks[k].low}'s {toks[j].low}", "chain", span,
                          (first[0], second[0], -1 if first[1] is None else first[1]))]

    def _speaker(self, k: int) -> int:
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

    def _respectively(self, j: int) -> list[Statement]:
        """"X's R1 and R2, Y and Z": Y is X's R1 and Z is X's R2, in that order; without an owner
        ("Husband and wife, Y and Z"), Y is Z's R1 and Z is Y's R2."""
        toks = self.toks
        k = j - 1
        possessors: tuple[int, ...] = ()
        if k >= 0 and toks[k].kind == "ent" and toks[k].poss and toks[k].ent >= 0:
            possessors = (toks[k].ent,)
        elif k >= 0 and toks[k].kind == "pron" and toks[k].form == "his" and k in self.referent:
            possessors = self.referent[k]
        if not possessors:
            y, z = toks[j + 4].ent, toks[j + 6].ent
            if (k >= 0 and toks[k].kind == "word" and toks[k].low not in FUNCTION) or y < 0 or z < 0 or y == z:
                return []
            # "Husband and wife, {A} and {B}": each is the other's, in that order
            pred1, gender1, _ = self.lex[toks[j].low]
            pred2, gender2, _ = self.lex[toks[j + 2].low]
            g = self.facts.genders
            if gender1 is not None and g[y] != gender1 and g[z] == gender1 and g[y] == gender2:
                y, z = z, y  # "Husband and wife, Mary and John": the genders say who is who
            return [Statement((z,), y, pred1, gender1, toks[j].low, "pair", (j, j + 6)),
                    Statement((y,), z, pred2, gender2, toks[j + 2].low, "pair", (j, j + 6))]
        out = []
        for noun, name in ((j, j + 4), (j + 2, j + 6)):
            pred, gender, _ = self.lex[toks[noun].low]
            out.append(Statement(possessors, toks[name].ent, pred, gender, toks[noun].low, "after", (k, j + 6)))
        return out

    def _group_after(self, j: int) -> list[tuple[int, int]]:
        """The people listed right after a plural noun: "brothers {C} and {D}", "{C}, {B}, and {D}"."""
        toks = self.toks
        out: list[tuple[int, int]] = []
        r = j + 1
        while r < len(toks) and toks[r].kind == "ent" and not toks[r].poss and toks[r].ent >= 0:
            out.append((toks[r].ent, r))
            r += 1
            while r < len(toks) and toks[r].low in (",", "and"):
                r += 1
        return out

    def _possessed(self, j: int) -> bool:
        """Whether a possessive comes just before the noun at j ("her brothers {B} and {C}")."""
        k = j - 1
        while k >= 0 and self.toks[k].kind == "word" and self.toks[k].low in ("two", "three", "four", "older",
                                                                               "younger", "twin", "little", "big"):
            k -= 1
        return k >= 0 and (self.toks[k].poss or self.toks[k].form in ("his", "their"))

    def _pair_before(self, j: int) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """The two people of "{X} and {Y}, [the two | two | both] R..." before the noun at j."""
        toks = self.toks
        k = j - 1
        while k >= 0 and toks[k].low in ("the", "two", "both", "a", "pair", "of") or (
                k >= 0 and toks[k].kind == "word" and toks[k].low not in FUNCTION and toks[k].low not in self.lex
                and k == j - 1):
            k -= 1
        if k < 3 or toks[k].text != "," or toks[k - 2].low != "and":
            return None
        x, y = toks[k - 3], toks[k - 1]
        if x.kind != "ent" or y.kind != "ent" or x.poss or y.poss or x.ent < 0 or y.ent < 0 or x.ent == y.ent:
            return None
        return (x.ent, k - 3), (y.ent, k - 1)

    def _pairs_nouns(self, j: int) -> bool:
        """Whether another relation noun follows within four words ("son-in-law against father-in-law")."""
        for u in self.toks[j + 1:j + 5]:
            if u.kind != "word":
                return False
            if u.low in self.lex:
                return True
        return False

    def _referents_after(self, m: int, is_plural: bool, direct: bool = True,
                         comma: bool = False) -> list[tuple[int, int]]:
        """The person(s) after the noun: "R Y" and "R is Y" (``direct``), or "R, Y" (``comma``);
        "Rs Y and Z" gives two. A name that starts a clause ("whose son Y married") is none."""
        toks = self.toks
        r = m
        w = m + (m < len(toks) and toks[m].text == ",")
        if w + 3 < len(toks) and toks[w].low == "whose" and toks[w + 1].low == "name" and toks[w + 2].low in ("is", "was") \
                and toks[w + 3].kind == "ent" and toks[w + 3].ent >= 0 and not toks[w + 3].poss:
            return [(toks[w + 3].ent, w + 3)]  # "his grandmother, whose name is {A}"
        if r < len(toks) and comma:
            if toks[r].text not in (",", ":") or r + 1 >= len(toks) or (
                    toks[r + 1].poss and not (r + 2 < len(toks) and toks[r + 2].text == ",")):
                return []  # not "her son, {B}'s house"; but "her son, {B}'s, house" sets {B} off
            r += 1
        elif r + 2 < len(toks) and toks[r].low == "who" and toks[r + 1].low in ("is", "was") \
                and toks[r + 2].kind == "ent" and toks[r + 2].ent >= 0:
            r += 2  # "a grandson who is {B}"
            return [(toks[r].ent, r)]
        elif r < len(toks) and toks[r].low in ("is", "was", "named", "called"):
            r += 1
            if r < len(toks) and toks[r - 1].low in ("is", "was") and toks[r].low in ("named", "called"):
                r += 1  # "{A}'s husband is named {B}"
            if r < len(toks) and toks[r].poss:
                return []
        elif not direct:
            return []
        if r + 1 < len(toks) and toks[r].text == "." and toks[r + 1].kind == "pron" and self._named_after(r + 1) >= 0:
            return [(self._named_after(r + 1), r + 4)]
        if r >= len(toks) or toks[r].kind != "ent" or toks[r].ent < 0:
            return []
        if r + 1 < len(toks) and toks[r + 1].low in MARRY and any(t.low == "whose" for t in toks[max(m - 4, 0):m]):
            return []  # "whose son {B} married later": {B} starts a clause of its own
        out = [(toks[r].ent, r)]
        while is_plural:
            n = r + 1
            while n < len(toks) and toks[n].low in (",", "and"):
                n += 1
            if n == r + 1 or n >= len(toks) or toks[n].kind != "ent" or toks[n].ent < 0 or toks[n].poss:
                break
            r = n
            out.append((toks[r].ent, r))
        return out

    def _referents_before(self, s: int, pred: int, is_plural: bool) -> tuple[list[tuple[int, int]], str]:
        toks = self.toks
        b = s - 1
        if b >= 2 and self._rel(b) and not toks[b].poss and (toks[b - 1].poss or toks[b - 1].form == "his") \
                and toks[s].kind == "ent" and toks[s].poss:
            b -= 2  # "{D}, her brother {C}'s wife": the apposition opens before "her brother"
        if b >= 1 and toks[b].text in (",", "(") and toks[b - 1].kind == "ent" and not toks[b - 1].poss \
                and toks[b - 1].ent >= 0:
            return [(toks[b - 1].ent, b - 1)], "apposition"
        if b >= 0 and toks[b].kind == "ent" and not toks[b].poss and toks[b].ent >= 0 and toks[s].kind == "pron" \
                and not toks[s].slot and s + 2 < len(toks) and toks[s + 2].kind != "ent":
            return [(toks[b].ent, b)], "apposition"  # "left {A} her daughter to ...": {A} is the daughter
        while b >= 2 and toks[b].low in COPULA_ADVERBS and toks[b - 1].low in COPULAS:
            b -= 1
        if b >= 1 and toks[b].low in COPULAS:
            c = b - 1
            if c >= 1 and toks[c].text == "," and toks[c - 1].kind == "ent":
                c -= 1  # "The captain, {B}, is {A}'s wife"
            while c >= 0 and toks[c].low in AUXILIARIES:
                c -= 1
            if c >= 2 and toks[c].low == "who" and toks[c - 1].text == ",":
                c -= 2
            elif c >= 1 and toks[c].low == "who" and toks[c - 1].kind == "ent" and not toks[c - 1].poss:
                c -= 1  # "{D} who is {C}'s grandfather" (no comma)
            who = self._ent(c, poss=False)
            if who < 0:
                return [], ""
            subjects = [(who, c)]
            n = c - 1
            while n >= 1 and toks[n].low in ("and", ","):
                n -= 1 + (toks[n].low == "and" and toks[n - 1].text == "," and n >= 2)
                if toks[n].kind != "ent" or toks[n].poss or toks[n].ent < 0:
                    break
                subjects.insert(0, (toks[n].ent, n))  # "{B}, {C}, and {A} are all sisters"
                n -= 1
            if is_plural and len(subjects) >= 2 and self.facts.kb.predicates[pred].inverse == pred:
                return subjects, "mutual"
            return [subjects[-1]], "copula"
        return [], ""

    def _marry(self, j: int) -> list[Statement]:
        toks = self.toks
        spouse = [i for i, p in enumerate(self.facts.kb.predicates) if p.name == "spouse"]
        if not spouse:
            return []
        obj = j + 1
        if obj < len(toks) and toks[obj].low == "to":
            obj += 1
        if obj + 1 < len(toks) and (toks[obj].low, toks[obj + 1].low) in (("each", "other"), ("one", "another")):
            pair = self._subjects(self._clause_start(j), j)  # "{A} and {B} chose to marry each other"
            if len(pair) != 2 or pair[0] == pair[1]:
                return []
            return [Statement((pair[0],), pair[1], spouse[0], None, toks[j].low, "marry", (j, obj + 1))]
        b = self._ent(obj, poss=False) if obj < len(toks) and (toks[obj].kind == "ent" or toks[obj].form == "him") else -1
        if b < 0 and obj + 2 < len(toks) and (toks[obj].poss or toks[obj].form == "his") and self._rel(obj + 1) \
                and toks[obj + 2].kind == "ent":
            b = toks[obj + 2].ent  # "married to {C.his} son {B}"
        c = j - 1
        while c >= 0 and (toks[c].low in AUXILIARIES or toks[c].low in MARRY_BEFORE):
            c -= 1
        state = j + 1 < len(toks) and toks[j + 1].low == "to"  # "married to": a state, not an event
        if c >= 0 and toks[c].text == "," and (any(t.low == "who" for t in toks[c:j]) or (c == j - 1 and state)):
            c -= 1
        a = self._ent(c, poss=False) if c >= 0 and toks[c].kind in ("ent", "pron") else -1
        if a < 0 and c > 0 and (toks[c].low in SUBORDINATORS or toks[c].low == "and"):
            a = self._subject(self._clause_start(c), c)  # "... since marrying {C}", "... and married {C}"
        if a < 0 and (c < 0 or toks[c].text in SENTENCE_END) and b >= 0:
            # "Married to {B} for years, {A} ...": the subject follows the opening phrase
            comma = next((i for i in range(obj + 1, len(toks)) if toks[i].text in (",", ".", ";")), -1)
            if comma > 0 and toks[comma].text == "," and comma + 1 < len(toks):
                c = comma + 1
                a = self._ent(c, poss=False) if toks[c].kind == "ent" else -1
        if a >= 0 and b < 0 and c >= 2 and toks[c - 1].low == "and":
            b = self._ent(c - 2, poss=False)
        if a < 0 or b < 0 or a == b:
            return []
        return [Statement((a,), b, spouse[0], None, toks[j].low, "married" if state else "marry",
                          (min(c, obj), max(c, obj)))]

    # -- checks --------------------------------------------------------------------------

    def ownership(self, statements: list[Statement]) -> None:
        """Rule 9: each fact of the clause is told with both its people ("{A}'s father {B}",
        "{B.his} son {A}", "{A} married {B}"). A fact told only by a role noun ("{B}, a
        father-in-law who ...", "the husband") or not told at all is flagged, and so is a
        relation noun set off after something that is not a person (a dangling appositive)."""
        f = self.facts
        owned: set[frozenset[int]] = set()
        roles: dict[frozenset[int], Statement] = {}
        for st in statements:
            y = st.referent
            if st.shape == "chain":
                m = self.chain_middle(st)
                if m >= 0:
                    owned.update((frozenset((st.possessors[0], m)), frozenset((m, y))))
                elif self._chain_composes(st) and frozenset((st.possessors[0], y)) in map(frozenset, f.rel):
                    owned.add(frozenset((st.possessors[0], y)))
                continue
            for x in st.possessors:
                if f.rel.get((x, y)) == st.pred or ((x, y) in f.rel and f.rel.get((y, x)) == st.pred):
                    owned.add(frozenset((x, y)))  # a fact told the wrong way round is rule 5's
            if not st.possessors:
                for (x, z), p in f.rel.items():
                    if z == y and p == st.pred:
                        roles.setdefault(frozenset((x, z)), st)
        owned |= self._siblings_by_parent(statements)
        cousins = self._grandchildren_of_one(statements)
        for a, b in self.dangling:
            self.flags.append(Flag("9", f"{self.toks[b].low!r} is set off after something that is not a person: "
                                        "it attaches to no one named (dangling appositive)", self.quote(a - 2, b + 2),
                                   kind="dangling"))
        for i in range(len(f.genders) - 1):
            pair = frozenset((i, i + 1))
            if pair in owned:
                continue
            word = f.kb.word(f.rel[(i, i + 1)], f.genders[i + 1])
            fact = f"{self._name(i + 1)} is {self._name(i)}'s {word}"
            if pair in roles:
                st = roles[pair]
                self.flags.append(Flag("9", f"{fact}, but the text only calls {self._name(st.referent)} "
                                            f"'{st.word}' without saying whose (role-only)", self.quote(*st.span),
                                       kind="role-only"))
                continue
            preds = {f.rel[(i, i + 1)], f.rel.get((i + 1, i), -3)}
            told = {j for st in statements for j in range(st.span[0], st.span[1] + 1) if self.toks[j].low == st.word}
            bare = [j for j, t in enumerate(self.toks) if t.kind == "word" and t.low in self.lex
                    and self.lex[t.low][0] in preds and j not in told]
            if bare:
                self.flags.append(Flag("9", f"{fact}, but {self.toks[bare[0]].low!r} names no owner (role-only)",
                                       self.quote(bare[0] - 2, bare[0] + 1), kind="role-only"))
            elif pair in cousins:
                self.flags.append(Flag("9", f"{fact}, but the text tells both only as grandchildren of one "
                                            "person, who may be cousins", self.quote(*cousins[pair].span),
                                       kind="unstated"))
            else:
                self.flags.append(Flag("9", f"{fact} is not stated in a shape the checker reads", self.quote(0, 6),
                                       drops=self.slot_bank, kind="unstated"))

    def _grandchildren_of_one(self, statements: list[Statement]) -> dict[frozenset[int], Statement]:
        """Pairs of the clause told as grandchildren of one person ("her grandsons {C} and {D}"),
        with a statement telling one of them: siblings and cousins alike fit such a text."""
        f = self.facts
        by_grandparent: dict[int, list[tuple[int, Statement]]] = {}
        for st in statements:
            name = f.kb.predicates[st.pred].name if st.pred >= 0 else ""
            if name == "grandchild" and len(st.possessors) == 1:
                by_grandparent.setdefault(st.possessors[0], []).append((st.referent, st))
            elif name == "grandparent" and len(st.possessors) == 1:
                by_grandparent.setdefault(st.referent, []).append((st.possessors[0], st))
        out: dict[frozenset[int], Statement] = {}
        for kids in by_grandparent.values():
            for a, st in kids:
                for b, _ in kids:
                    if a != b:
                        out.setdefault(frozenset((a, b)), st)
        return out

    def _siblings_by_parent(self, statements: list[Statement]) -> set[frozenset[int]]:
        """Sibling facts of the clause told by telling both people as children of one person
        ("her twin daughters, {C} and {B}", "her son {B} and her daughter {C}") or as siblings
        of one person ("{C} sided with her sisters, {D} and {A}, against her brother {B}"):
        in the world model siblings share both parents, so the fact between them has one
        reading."""
        f = self.facts
        groups: list[set[int]] = []
        by_parent: dict[int, set[int]] = {}
        for st in statements:
            name = f.kb.predicates[st.pred].name if st.pred >= 0 else ""
            if name == "child" and st.shape not in ("mutual", "pair"):
                for parent in st.possessors:
                    by_parent.setdefault(parent, set()).add(st.referent)
            elif name == "parent" and len(st.possessors) == 1 and st.shape not in ("mutual", "pair"):
                by_parent.setdefault(st.referent, set()).add(st.possessors[0])
            elif name == "sibling":
                groups += [{x, st.referent} for x in st.possessors]
        groups += by_parent.values()
        merged: list[set[int]] = []
        for g in groups:
            for m in [m for m in merged if m & g]:
                g = g | m
                merged.remove(m)
            merged.append(set(g))
        out = set()
        for kids in merged:
            for a in kids:
                for b in kids:
                    if a < b and (a, b) in f.rel and f.kb.predicates[f.rel[(a, b)]].name == "sibling":
                        out.add(frozenset((a, b)))
        return out

    def step_contrast(self, statements: list[Statement]) -> None:
        """Rule 7: wording that sets a couple's child apart from one of them reads as a
        step-family, which the world model does not have: the spouse and a child told by two
        pronouns of different partners in one sentence ("{A.his} wife {B} ... {B.his} son
        {C}"), or two children told each as a different partner's anywhere in the text
        ("{B}'s daughter {A}. {C}'s daughter {D} ..."). A child told from one side only ("{B}
        and her husband {A} called on her daughter {C}") has one reading in the world model
        (every child has two married parents) and is not flagged here."""
        f = self.facts
        ends = [i for i, t in enumerate(self.toks) if t.text in SENTENCE_END] + [len(self.toks)]

        def sentence(st: Statement) -> int:
            return next(n for n, e in enumerate(ends) if st.span[0] <= e)

        told: dict[int, set[int]] = {}  # child -> the parents it is told as the child of, one at a time
        children: list[tuple[int, int, Statement]] = []
        for st in statements:
            if len(st.possessors) != 1 or st.shape not in ("after", "apposition", "copula"):
                continue
            name = f.kb.predicates[st.pred].name
            if name in ("child", "parent"):
                parent, child = (st.possessors[0], st.referent) if name == "child" else (st.referent, st.possessors[0])
                told.setdefault(child, set()).add(parent)
                children.append((parent, child, st))
        for sp in statements:
            if sp.shape not in ("after", "apposition") or len(sp.possessors) != 1 or not self._by_pronoun(sp) \
                    or f.kb.predicates[sp.pred].name != "spouse":
                continue
            x, y = sp.possessors[0], sp.referent
            for ch in statements:
                if ch.possessors == (y,) and self._by_pronoun(ch) and ch.referent not in (x, y) \
                        and f.kb.predicates[ch.pred].name == "child" and sentence(ch) == sentence(sp):
                    self.flags.append(Flag("7", f"{self._name(y)} is told as {self._name(x)}'s spouse and "
                                                f"{self._name(ch.referent)} as {self._name(y)}'s child by two "
                                                "pronouns in one sentence: it reads as a step-family",
                                           self.quote(sp.span[0], ch.span[1]), kind="world"))
                    return
        for a, b in f.couples:
            ones = [(c, st) for p, c, st in children if p == a and b not in told[c]]
            others = [(c, st) for p, c, st in children if p == b and a not in told[c]]
            for c1, st1 in ones:
                for c2, st2 in others:
                    if c1 != c2 and c1 not in (a, b) and c2 not in (a, b):
                        first, second = sorted((st1, st2), key=lambda st: st.span[0])
                        self.flags.append(Flag("7", f"{self._name(c1)} is told as {self._name(a)}'s child and "
                                                    f"{self._name(c2)} as {self._name(b)}'s, though {self._name(a)} "
                                                    f"and {self._name(b)} are a couple: it reads as a step-family",
                                               self.quote(first.span[0], second.span[1]), kind="world"))
                        return

    def _by_pronoun(self, st: Statement) -> bool:
        """Whether a statement tells its owner by a possessive pronoun ("{A.his} wife {B}", "{B},
        {A.his} wife, ...")."""
        if st.shape == "apposition":
            return any(t.kind == "pron" and t.form == "his" for t in self.toks[st.span[0]:st.span[1] + 1])
        return self.toks[st.span[0]].kind == "pron"

    def _couple_child(self, a: int, b: int) -> int:
        """A person of the clause who is the child of both a and b, or -1."""
        f = self.facts
        for c in range(len(f.genders)):
            names = [f.kb.predicates[p].name if p >= 0 else "" for p in
                     (f.rel.get((x, c), f.implied.get((x, c), -1)) for x in (a, b))]
            if c not in (a, b) and names == ["child", "child"]:
                return c
        return -1

    def parent_spouse(self, statements: list[Statement]) -> None:
        """Rule 7: a couple's child told only through one parent's spouse reads as a step-family:
        the parent told by the child's pronoun and, later in the same sentence, the other parent
        told by the parent's pronoun as that parent's spouse ("{A} phoned {A.his} dad {B}, and {B.his} wife {C}
        answered"), or the couple's meeting told beside their child ("{B}, the father of {A},
        met a skater ... {B}'s wife {C} is that skater")."""
        f = self.facts
        ends = [i for i, t in enumerate(self.toks) if t.text in SENTENCE_END] + [len(self.toks)]

        def sentence(i: int) -> int:
            return next(n for n, e in enumerate(ends) if i <= e)

        for a, b in f.couples:
            child = self._couple_child(a, b)
            if child < 0:
                continue
            for x, y in ((a, b), (b, a)):
                as_parent = [st for st in statements if f.kb.predicates[st.pred].name in ("child", "parent")
                             and {x, child} == ({st.referent} | set(st.possessors)) and len(st.possessors) == 1]
                told_y = any({y, child} == ({st.referent} | set(st.possessors)) for st in statements)
                for sp in statements:
                    if told_y or sp.possessors != (x,) or sp.referent != y or sp.shape not in ("after", "apposition") \
                            or not self._by_pronoun(sp) or f.kb.predicates[sp.pred].name != "spouse":
                        continue
                    hit = next((st for st in as_parent if sentence(st.span[0]) == sentence(sp.span[0])
                                and st.span[0] < sp.span[0] and st.possessors == (child,)
                                and self.toks[st.span[0]].kind == "pron"), None)
                    if hit is not None:
                        self.flags.append(Flag("7", f"{self._name(y)} is told only as the spouse of "
                                                    f"{self._name(child)}'s parent {self._name(x)}, by a pronoun: "
                                                    "it reads as a step-parent",
                                               self.quote(hit.span[0], sp.span[1]), kind="world"))
                        return
            for i, t in enumerate(self.toks):
                if t.kind == "word" and t.low in MEETING and any(
                        u.kind in ("ent", "pron") and u.ent in (a, b) for u in self.toks[self._clause_start(i):i + 3]):
                    self.flags.append(Flag("7", f"the meeting of {self._name(a)} and {self._name(b)} is told beside "
                                                f"their child {self._name(child)}: it reads as a step-family",
                                           self.quote(self._clause_start(i), min(i + 2, len(self.toks) - 1)),
                                           kind="world"))
                    return

    def check(self, statements: list[Statement]) -> None:
        f = self.facts
        self.married = {frozenset((st.possessors[0], st.referent)) for st in statements if st.shape == "marry"}
        for st in statements:
            y = st.referent
            what = self.quote(*st.span)
            if y < 0 or y >= len(f.genders):
                continue
            if y in st.possessors:
                continue
            if st.shape == "chain":
                self._check_chain(st, what)
                continue
            if not st.possessors:
                if st.pred != OTHER:
                    self._check_role(st, what)
                continue
            if st.gender is not None and st.gender != f.genders[y]:
                self.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {self._name(y)}", what))
                continue
            if st.pred == OTHER:
                self.flags.append(Flag("6", f"names a relation outside the KB ({st.word!r})", what))
                continue
            for x in st.possessors:
                if x == y or x < 0 or x >= len(f.genders):
                    continue
                self._check_pair(st, x, y, what)

    def chain_middle(self, st: Statement, reverse: bool = False) -> int:
        """The person between the ends of a possessive chain that fits the clause's facts, or -1."""
        f = self.facts
        x, y = st.possessors[0], st.referent
        if reverse:
            x, y = y, x
        for m in range(len(f.genders)):
            if m not in (x, y) and f.rel.get((x, m)) == st.links[0] and f.rel.get((m, y)) == st.links[1] \
                    and (reverse or st.links[2] < 0 or f.genders[m] == st.links[2]):
                return m
        return -1

    def _chain_composes(self, st: Statement) -> bool:
        """Whether a chain through someone outside the clause ("{B}'s wife's mother {A}" for
        "A is B's mother-in-law") composes, in the KB, to the fact between its ends."""
        f = self.facts
        x, y = st.possessors[0], st.referent
        if (x, y) not in f.rel:
            return False  # the person between is one of the clause's: the chain must go through them
        composed = f.kb.compose(st.links[0], st.links[1])
        return composed >= 0 and composed == f.rel[(x, y)]

    def _check_chain(self, st: Statement, what: str) -> None:
        """"X's R1's R2 Y" must follow two facts of the clause, through the person between."""
        f = self.facts
        y = st.referent
        said = f"says {self._name(y)} is {self._name(st.possessors[0])}'s {st.word}"
        if OTHER in st.links:
            self.flags.append(Flag("6", f"names a relation outside the KB ({st.word!r})", what))
        elif st.gender is not None and st.gender != f.genders[y]:
            self.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {self._name(y)}", what))
        elif self.chain_middle(st) >= 0 or self._chain_composes(st):
            return
        elif self.chain_middle(st, reverse=True) >= 0:
            self.flags.append(Flag("5", f"{said}: the chain points the other way", what))
        else:
            self.flags.append(Flag("6", f"{said}, which the clause does not say", what))

    def _check_role(self, st: Statement, what: str) -> None:
        """A relation noun beside a name, its possessor unsaid: it must be that person's
        relation to someone of the clause, stated or implied ("spends time with daughter {C}"
        where {C} is the first person's daughter through the clause). One held only by
        another person of the clause is attached to the wrong name (rule 5); one nobody holds
        may concern someone unnamed."""
        f = self.facts
        y = st.referent
        if any(p == st.pred for (x, z), p in f.rel.items() if z == y):
            if st.gender is not None and st.gender != f.genders[y]:
                self.flags.append(Flag("6", f"{st.word!r} does not fit the gender of {self._name(y)}", what))
            return
        if any(p == st.pred for (x, z), p in f.implied.items() if z == y):
            self.flags.append(Flag("6", f"names a relation the clause leaves implicit ({st.word!r})", what,
                                   drops=self.slot_bank))
            return
        holders = [z for (x, z), p in f.rel.items() if p == st.pred and (st.gender is None or f.genders[z] == st.gender)]
        if holders:
            self.flags.append(Flag("5", f"{st.word!r} stands beside {self._name(y)}, but it is "
                                        f"{self._name(holders[0])} who is the {st.word}", what))

    def _check_pair(self, st: Statement, x: int, y: int, what: str) -> None:
        f = self.facts
        stated = (f"says {self._name(x)} married {self._name(y)}" if st.shape in ("marry", "married")
                  else f"says {self._name(y)} is {self._name(x)}'s {st.word}")
        if f.rel.get((x, y)) == st.pred:
            self._check_one_parent(st, x, y, what)
            return
        if (x, y) in f.rel:
            if f.rel.get((y, x)) == st.pred:
                self.flags.append(Flag("5", f"{stated}: the fact points the other way", what))
            else:
                self.flags.append(Flag("6", f"{stated}, which the clause does not say", what))
            return
        if f.implied.get((x, y)) == st.pred:
            if len(st.possessors) < 2:
                answer = {x, y} == {0, len(f.genders) - 1}  # the first-to-last relation gives the answer away
                self.flags.append(Flag("6", f"{stated}: names a relation the clause leaves implicit", what,
                                       drops=self.slot_bank or answer))
            return
        if f.implied.get((y, x)) == st.pred and f.implied.get((x, y)) != st.pred:
            self.flags.append(Flag("5", f"{stated}: the implied relation points the other way", what))
            return
        self.flags.append(Flag("6", f"{stated}, which the clause does not say", what))

    def _check_one_parent(self, st: Statement, x: int, y: int, what: str) -> None:
        """Rule 7: the child of one member of a couple the clause names, told as that member's
        alone beside the couple's marriage told as an event ("{A} married {B} ... {B}'s son
        {C}": the son reads as older than the marriage). In a slot bank also where "their"
        could say it without naming the first-to-last relation (a writing rule): in the world
        model every child has two married parents, so "{B} and her husband {A} ... her
        daughter {C}" has one reading there (C is A's daughter too) and a crowd text that
        only lacks "their" is kept."""
        if len(st.possessors) > 1 or st.shape in ("marry", "married"):
            return
        name = self.facts.kb.predicates[st.pred].name
        if name not in ("child", "parent"):
            return
        parent, child = (x, y) if name == "child" else (y, x)
        spouse = self.facts.spouse_of(parent)
        if spouse < 0 or spouse == child:
            return
        last = len(self.facts.genders) - 1
        their_fits = self.slot_bank and {spouse, child} != {0, last}
        if their_fits or frozenset((parent, spouse)) in self.married:
            how = "write 'their'" if their_fits else "the marriage is told as an event"
            self.flags.append(Flag("7", f"{self._name(child)} reads as the child of {self._name(parent)} alone, "
                                        f"though {self._name(spouse)} is {self._name(parent)}'s spouse ({how})", what))


def analyse(toks: list[Tok], facts: Facts, text: str, slot_bank: bool = True) -> tuple[list[Statement], list[Flag]]:
    """The statements of one reading and the flags of rules 4-7 and 9 they raise (a fact in
    a shape the parser does not read is dropped only from a bank written with slots)."""
    reader = _Reader(toks, facts, text, slot_bank)
    found = reader.statements()
    reader.check(found)
    reader.ownership(found)
    reader.step_contrast(found)
    reader.parent_spouse(found)
    return found, reader.flags


def sentences(toks: list[Tok]) -> list[list[Tok]]:
    """Tokens split into sentences at . ! ? (not after Mr, Dr and the like)."""
    out: list[list[Tok]] = [[]]
    for i, t in enumerate(toks):
        out[-1].append(t)
        if t.kind == "punct" and t.text in SENTENCE_END and not (i and toks[i - 1].low in ABBREVIATIONS and t.text == "."):
            out.append([])
    return [s for s in out if s]


def self_possessives(toks: list[Tok], text: str) -> list[str]:
    """Rule 3: spans "[X] ... [X]'s" inside one sentence."""
    return repeated_names(toks, text, possessive=True)


def _proper_name(toks: list[Tok], i: int) -> bool:
    """A capitalised word inside a sentence that is not a title before a name ("Lord's", "Duchess")."""
    t = toks[i]
    inside = i > 0 and toks[i - 1].text not in SENTENCE_END and toks[i - 1].text not in "\"'\u201c"
    title = i + 1 < len(toks) and toks[i + 1].kind == "ent"
    return t.text[:1].isupper() and inside and not title


def text_flags(text: str, toks: list[Tok], slot_bank: bool, lex: dict) -> list[Flag]:
    """Checks that need no facts: rules 2 (``slot_bank`` only), 3, 7 (words) and 8."""
    flags: list[Flag] = []

    def around(i: int) -> str:
        a, b = max(i - 2, 0), min(i + 2, len(toks) - 1)
        return " ".join(text[toks[a].start:toks[b].end].split())

    for i, t in enumerate(toks):
        if slot_bank and not t.slot and t.kind == "pron" and t.gender is not None:
            flags.append(Flag("2", f"literal pronoun {t.text!r}: write a slot such as {{X.{t.form}}}", around(i)))
        elif slot_bank and not t.slot and t.kind == "word" and (t.low in GENDERED_WORDS or (
                MAN_SUFFIX.match(t.low) and t.low not in NOT_GENDERED_MAN)) and not _proper_name(toks, i):
            flags.append(Flag("2", f"literal gendered word {t.text!r}: write a slot such as {{X.male|female}}", around(i)))
        if t.kind == "word" and STEP.match(t.low) and not (
                ADOPTING.match(t.low) and any(u.low in NOT_A_CHILD for u in toks[i + 1:i + 5])):
            flags.append(Flag("7", f"{t.text!r} implies a step-, half- or broken family", around(i)))
        elif t.kind == "word" and t.low in STEP_BEFORE | SPOUSE_BEFORE and i + 1 < len(toks):
            nxt = toks[i + 1]
            prev = toks[i - 1] if i else None
            if (nxt.low in SPOUSE_WORDS or (t.low in STEP_BEFORE and (
                    (nxt.kind == "word" and nxt.low in lex and lex[nxt.low][0] >= 0) or nxt.kind == "ent"
                    or (prev is not None and (prev.poss or prev.form == "his"))))):
                flags.append(Flag("7", f"{t.text!r} {nxt.text!r} implies a step- or broken family", around(i)))
    own = self_possessives(toks, text)
    for span in own:
        flags.append(Flag("3", "the same person is named and then named again in the possessive", span,
                          drops=slot_bank))
    for span in repeated_names(toks, text):
        if span not in own:
            flags.append(Flag("3", "the same person is named twice in one sentence (kept)", span, drops=False,
                              kind="repeated-name"))
    flags += world_flags(text)
    flags += prose_flags(text)
    return flags


# Rule 7: ages, dates and lengths of time the world model does not have.
_NUM = (r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
        r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred)(?:-[a-z]+)?")
_TENS = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred)(?:-[a-z]+)?"
_BOND = r"(?:wife|wives|husband|husbands|spouse|married|marriage|wed|wedded|wedding|together|engaged|anniversary)"
_YOUNG = (r"son|daughter|child|kid|boy|girl|grandson|granddaughter|grandchild|nephew|niece|brother|sister|sibling"
          r"|youngster|lad|lass")
_ONLY = r"(?:only|just|barely|nearly|almost|over|already) "
_ENDS = r"(?=\s*(?:[^\w\s-]|and\b|$))"  # the number ends its phrase: "a son of seven," "is ninety and"
WORLD = [
    (re.compile(rf"\b{_NUM}[- ]years?[- ]old\b|\b{_NUM} years? old\b|\baged? {_NUM}\b|\b(?:at|turned|turning|turns"
                rf"|reached|reaching) (?:the age of )?{_TENS}\b|\b[a-z]+(?:th|st|nd|rd)[- ]birthday\b|\b(?:in|into|past)"
                r" (?:[a-z]+ )?(?:twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)\b"
                r"|\b(?:teenage|teenager|teenagers|teens|toddler|toddlers|newborn|newborns|infant|infants|adolescent"
                r"|adolescence|octogenarian|nonagenarian|centenarian|pensioner|pensioners|schoolboy|schoolgirl)\b"
                r"|\b(?:is|was|turned|turns) (?:nearly |almost |over |past )?a hundred\b"
                rf"|\b(?:has|have|had) been (?:X's|his|her|their) [a-z-]+ for (?:{_NUM}|half a century|a century)\b"
                rf"|\b{_NUM} (?:candles|balloons)\b|\b(?:surprise|big|his|her|their|X's) (?:twentieth|thirtieth|fortieth"
                r"|fiftieth|sixtieth|seventieth|eightieth|ninetieth|hundredth)\b"
                rf"|\b(?:{_YOUNG})s? of (?:{_ONLY})?{_NUM}{_ENDS}"
                rf"|\b(?:being|is|now) (?:{_ONLY})?{_NUM}{_ENDS}"
                rf"|\bunder-{_NUM}s\b|\bjunior (?:[a-z]+ )?(?:tournaments?|nationals|squads?|teams?|sides?|leagues?"
                r"|championships?|competitions?)\b",
                re.I), "an age"),
    (re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2})s?\b|\bthe (?:sixties|seventies|eighties|nineties|fifties|forties)\b", re.I),
     "a date"),
    (re.compile(r"\balready (?:had|has|have) (?:(?:a|an|one|two|three|\w+) )?(?:son|daughter|child|kid|boy|girl|baby)s?\b"
                r"|\balready (?:had|has|have) (?:children|kids)\b", re.I),
     "a child from before a marriage"),
    (re.compile(r"\b(?:single|lone) (?:father|mother|parent|dad|mom|mum)s?\b", re.I),
     "a parent without a spouse"),  # "widowed" is a step- or broken-family word (STEP)
    (re.compile(r"\b(?:only|sole|one and only) (?:son|daughter|child|children|brother|sister|sibling|grandson|granddaughter"
                r"|grandchild|nephew|niece|uncle|aunt|son-in-law|daughter-in-law|brother-in-law|sister-in-law|kid|boy|girl)\b",
                re.I), "how many relatives of a kind someone has"),
    (re.compile(rf"\b{_BOND}\W+(?:\w+[^\w.;:!?]+){{0,5}}?(?:(?:for|of) (?:{_NUM}|a|several|many) (?:years?|decades?)"
                rf"|of (?:{_NUM}|a few) (?:months?|weeks?|days?)"
                rf"|(?:for|of) (?:half a century|a century|decades)|{_NUM} (?:years|decades))\b"
                rf"|\b{_BOND},? (?:of|for) (?:barely |only |just |all of |less than )?(?:an?|one|{_NUM}|a few)"
                r" (?:hours?|minutes?)\b"
                rf"|\b(?:{_NUM}|several|many) (?:years?|decades?) (?:of |after |since )?(?:\w+ ){{0,2}}{_BOND}\b"
                r"|\b(?:golden|silver|ruby|diamond|pearl|coral|sapphire|emerald|tin|paper|crystal) (?:wedding|anniversary)"
                r"|\b[a-z]+(?:th|st|nd|rd) (?:wedding )?anniversary\b|\b(?:just|recently|newly) (?:got )?(?:married|wed)\b"
                r"|\b(?:married|wed|wedding)\b[^.;!?]{0,40}?\b(?:last|this) (?:spring|summer|autumn|winter|year|month|week)\b"
                rf"|\b[a-z]+-in-law (?:to|of) X,? for (?:{_NUM}|a|several|many) (?:years?|decades?)\b",
                re.I), "how long a marriage has lasted"),
]


def world_flags(text: str) -> list[Flag]:
    """Rule 7 on raw text: ages, dates and long spans of time ("his wife of eight years",
    "married in 1974", "a teenage grandson", "her son of seven", "eighty candles", "married
    last spring"), which the world model does not have and another sentence of a story may
    contradict."""
    return pattern_flags(re.sub(r"\{[A-D](?:\.[^{}]*)?\}", "X", text), WORLD)


def pattern_flags(plain: str, patterns: list[tuple[re.Pattern, str]]) -> list[Flag]:
    """A rule 7 flag for each (pattern, what it tells) that matches ``plain``, quoting the first match."""
    out = []
    for pattern, what in patterns:
        m = pattern.search(plain)
        if m:
            out.append(Flag("7", f"tells {what}, which the world model does not know", m.group(0), kind="world"))
    return out


def repeated_names(toks: list[Tok], text: str, possessive: bool = False) -> list[str]:
    """Spans "[X] ... [X]" inside one sentence (a person named twice, possessive or not; with
    ``possessive``, only where the second naming is "[X]'s")."""
    out = []
    for sent in sentences(toks):
        first: dict[int, Tok] = {}
        for t in sent:
            if t.kind != "ent" or t.ent < 0:
                continue
            if t.ent in first and (t.poss or not possessive):
                out.append(" ".join(text[first[t.ent].start:t.end].split()))
            first.setdefault(t.ent, t)
    return out


# Rule 1: a first name that is also a common word is not a person ("in May", "Grace was said").
NOT_A_NAME = frozenset("""
may june april august will mark grace rose hope faith joy guy bill art rich frank jack ray dawn summer autumn iris
ivy holly ruby pearl jade amber crystal violet daisy lily heather olive hazel robin sandy bob pat sue max sky
""".split())
NOT_A_PERSON_BEFORE = frozenset("in on at from near called named of".split())  # a place, a pet, a title
PLACE_BEFORE = frozenset("st saint lake mount mt fort port cape san santa santo loch glen".split())


def extra_names(toks: list[Tok], names: frozenset[str]) -> list[str]:
    """Rule 1: first names in the text that are no person of the clause ("Mary had two daughters")."""
    out = []
    for i, t in enumerate(toks):
        if t.kind != "word" or not t.text[:1].isupper() or t.low in NOT_A_NAME or t.text not in names:
            continue
        if i and (toks[i - 1].low in PLACE_BEFORE or toks[i - 1].low in NOT_A_PERSON_BEFORE):
            continue
        if i + 1 < len(toks) and (toks[i + 1].text[:1].isupper() or toks[i + 1].low in ("o", "o'")):
            continue  # part of a longer proper noun ("Earl Grey", "Peter Pan")
        out.append(t.text)
    return out


DOUBLED = re.compile(r"[,;:.!?](?:\s*[,;:.!?])+")
TOKENISED = re.compile(r"\s(?:n't|'s|'re|'ve|'ll|'d|'m)\b|\s[,.;:!?](?=\s|$)|\(\s|\s\)")


def _doubled(m: re.Match) -> bool:
    s = re.sub(r"\s", "", m.group(0))
    return not (set(s) == {"."} and len(s) == 3) and s not in ("?!", "!?")


def prose_flags(text: str) -> list[Flag]:
    """Rule 8 on raw text: doubled punctuation (dropped), tokenised spacing and a missing end
    (repaired when rendered, so not dropped)."""
    flags = [Flag("8", "doubled punctuation", _snippet(text, m.start(), m.end()))
             for m in DOUBLED.finditer(text) if _doubled(m)]
    flags += [Flag("8", "tokenised spacing (repaired when rendered)", _snippet(text, m.start(), m.end()),
                   drops=False) for m in TOKENISED.finditer(text)]
    flags += [Flag("8", f"{what} (repaired when rendered)", span, drops=False) for what, span in repairs(text)]
    if text.strip() and not END.search(text):
        end = len(text.rstrip())
        flags.append(Flag("8", "no end punctuation (repaired when rendered)", _snippet(text, end, end), drops=False))
    return flags


def _snippet(text: str, a: int, b: int, words: int = 2) -> str:
    """The text from ``words`` words before position a to ``words`` words after b."""
    start, end = a, b
    for _ in range(words + 1):
        start = max(text.rfind(" ", 0, max(start - 1, 0)), 0) if start > 0 else 0
        nxt = text.find(" ", end + 1)
        end = len(text) if nxt < 0 else nxt
    return " ".join(text[start:end].split())
