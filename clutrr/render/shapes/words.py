"""The words, tokens and facts a reader reads: the word lists of the writing rules, a text's
tokens (entity mentions, pronoun slots, words), the relation lexicon of a KB, the facts of a
clause under one gender assignment, and the statement a shape reads.

A text is read as tokens: entity mentions (``{A}`` in a template, ``[Name]`` in a rendered
story), pronouns (a slot such as ``{A.his}``, whose person is known, or a literal word,
resolved to the one person of its gender mentioned so far), words and punctuation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from clutrr.core.kb import KB
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
