"""The checks of a text, and where the reader of statements is.

A *statement* says that a referent is a possessor's relation. The reader that finds them is a
grammar of small shapes ("X's R Y", "Y, the R of X", "Y is X's R", "the R of X is Y", "R to X",
"their R Y", "X and Z's R Y", "X and Y are Rs", "X married Y", a role "Y, a R who ..." or "Aunt
Y" ...): :mod:`clutrr.render.shapes` holds one module per family of shapes and
:mod:`clutrr.render.shapes.registry` the order they are tried in. :func:`analyse` checks the
statements of one reading (one gender for every person) against the facts of a clause and returns
flags naming the writing rule of ``paraphrases/README.md`` they break; :func:`text_flags` and the
functions here hold the checks that need no facts.
"""
from __future__ import annotations

import re

from clutrr.render.normalise import END, repairs
from clutrr.render.shapes.registry import analyse
from clutrr.render.shapes.words import (
    ABBREVIATIONS, ADOPTING, GENDERED_WORDS, MAN_SUFFIX, NOT_A_CHILD, NOT_GENDERED_MAN, OTHER, RULE_NAMES,
    SENTENCE_END, SPOUSE_BEFORE, SPOUSE_WORDS, STEP, STEP_BEFORE, Facts, Flag, Statement, Tok, lexicon, plural,
    tokenize,
)

__all__ = [  # the reader's names that callers import from here
    "OTHER", "RULE_NAMES", "Facts", "Flag", "Statement", "Tok", "analyse", "extra_names", "lexicon", "pattern_flags",
    "plural", "prose_flags", "repeated_names", "self_possessives", "sentences", "text_flags", "tokenize",
    "world_flags",
]


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
