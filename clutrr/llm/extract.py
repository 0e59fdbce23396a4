"""Read the relation a model's reply names: ``extract_answer(text, query=None) -> word | None``.

The answer protocol, one rule set for scoring, rewards and reports (docs/eval.md). Text is
read in Unicode compatibility form (full-width letters, no-break spaces, curly quotes).

0. Reasoning blocks (``<think>``, ``<thinking>``, ``<reasoning>``; configurable) are never
   read: only the text after the last closing tag counts, and a block left open (a
   truncated reply) means no answer. A reply in channels (gpt-oss) answers only in its
   last ``final`` channel.
1. An explicit final-answer marker decides, the last one when there are several: an
   ``<answer>…</answer>`` tag (an unclosed tag runs to the end), ``\\boxed{…}`` (LaTeX
   commands dropped), a JSON ``"answer"`` key wherever it stands, or "Answer:", "Final
   answer:", "the answer is", "the relationship is", an "Answer" heading line. Only the
   first statement after a text marker is read, so an explanation after it cannot
   override it; a later sentence taking it back ("Wait, actually …") for another relation
   leaves no answer.
2. A bare relation word opening the reply ("Niece. Doris is …") is the answer, unless
   another relation is offered beside it ("Aunt, possibly mother").
3. Otherwise the last sentence that states a relation decides (sentences that only give a
   reason, "This is because …", and those after an explanation heading that follows a
   statement, "Here's why:", are skipped; a relation only mentioned, "her niece Chloe", or
   in a relative clause, "Paul, who is Tom's uncle", competes only when none is stated,
   and then only if all name the same one). Within it, the text after the last conclusion
   marker ("so", "therefore", "which makes", "i.e.") is read.

Inside the part that decides, a relation *stated* with a copula ("is Howard's wife",
"are sisters", "would be her uncle") is the answer; the last one stated counts. A
relation that only describes a path ("his wife's mother", "the mother of Tom's wife")
or a possessive ("sister's") is not an answer: such a statement is unparsable. So is a
statement of two different relations joined by "or"/"and" ("her uncle or her father",
"Sarah is Kevin's sister and Kevin is Sarah's brother"), a reply offering several
relations as possibilities ("could be", "perhaps") without committing to one, a hedge
("cannot be determined", "not enough information"), and a part with several different
relations and none stated. Negated mentions ("not his sister") are ignored. Without any
copula, a part naming exactly one relation ("Answer: Wife", "Howard's wife is Crystal")
gives it.

A reply of any length is read in linear time, its work bounded by caps that can only leave
no answer: a part read of more than :data:`MAX_SENTENCES` sentences, a statement naming
more than :data:`MAX_STATEMENT_MENTIONS` relations (a repetition loop in one sentence),
and a decision needing more than :data:`MAX_READS` different sentences read (steps after
the answer, possibilities offered, sentences after a correction, several tags or boxes;
a sentence repeated is read once) give no answer.

With ``query=(head, tail)`` (the question asks what tail is to head), a statement naming
its people ("X is Y's R", "X is the R of Y", "Y's R is X") answers only when X is the tail
and Y the head: one about the pair reversed or about other people is a step, never the
answer.

The result is the KB's word for the relation (aliases, informal words such as "grandma"
or "papa", plurals, capitals, hyphens or spaces all map to it), a normalised word outside
the KB's vocabulary when the model named one ("cousin", "great-uncle", "stepmother",
"aunt-in-law": parsed, but never right), or None when the text is unparsable.
"""
from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
import re
import unicodedata
from collections.abc import Container, Iterable, Sequence
from functools import lru_cache
from typing import NamedTuple

from clutrr.core.kb import load_kb

# kinship words a model may answer with that no KB of ours uses as a label
OTHER_RELATIONS = (
    "cousin", "sibling", "parent", "child", "spouse", "partner", "grandparent", "grandchild",
    "grandniece", "grandnephew", "granduncle", "grandaunt", "parent-in-law", "sibling-in-law",
    "child-in-law", "boyfriend", "girlfriend", "fiance", "fiancee",
)
IRREGULAR_PLURALS = {"wife": "wives", "child": "children"}
# informal and regional words with the same meaning as a KB word
SYNONYMS = {
    "mom": "mother", "mum": "mother", "mommy": "mother", "mummy": "mother", "mama": "mother", "mamma": "mother",
    "momma": "mother",
    "dad": "father", "daddy": "father", "papa": "father", "pappa": "father",
    "grandma": "grandmother", "grandmom": "grandmother", "grandmum": "grandmother", "grandmama": "grandmother",
    "granny": "grandmother", "grannie": "grandmother", "nana": "grandmother", "nanna": "grandmother",
    "gran": "grandmother", "gramma": "grandmother", "grandmommy": "grandmother",
    "grandpa": "grandfather", "granddad": "grandfather", "grandad": "grandfather", "granddaddy": "grandfather",
    "grandpapa": "grandfather", "grandaddy": "grandfather", "gramps": "grandfather", "grampa": "grandfather",
    "grandpop": "grandfather",
    "hubby": "husband", "missus": "wife", "missis": "wife",
    "bro": "brother", "sis": "sister", "auntie": "aunt", "aunty": "aunt",
}
# a prefix that turns a relation into another one outside the vocabulary
# (the greats are taken whole, as an atomic group would: no relation word starts with "great", and a
# scan of "great-great-…" must not retry every shorter run of them)
MODIFIER = r"(?P<mod>(?=(?P<greats>(?:great[\s-]*){1,8}))(?P=greats)|step[\s-]?|half[\s-]?|god|foster[\s-]+|adoptive[\s-]+|surrogate[\s-]+|ex[\s-]|former\s+)?"
# "-in-law" after a word that has no in-law form of its own ("aunt-in-law"): a word outside the KB
IN_LAW = r"(?P<law>(?:\s*-\s*|\s+)in(?:\s*-\s*|\s+)laws?)?"
SEP = r"(?:\s*-\s*|\s+)"
MODIFIER_WORDS = ("great", "step", "half", "god", "foster", "adoptive", "surrogate", "ex", "former")  # MODIFIER's
CLOSED_MODIFIERS = ("step", "god")  # written as one word: stepmother, godson

ANSWER_MARKER = re.compile(  # (elsewhere than at the start, a first letter is checked before the alternatives)
    r"^\W*answer\b\s*(?:is\b|:|=|-)|(?=[far])(?:\bfinal\s+answer\b\s*(?:is\b|would\s+be\b|:|=|-)?|"
    r"\banswer\s+(?:is|would\s+be|=)|"
    r"\b(?:relationship|relation)\b(?:\s+(?:between|of|to)\s+[^.:;\n]{1,60}?)?\s*(?:\bis\b|\bwould\s+be\b|:|=))",
    re.I)
CONCLUSION = re.compile(
    r"(?=[sthcwmio=\-\u2192])(?:\b(?:so|therefore|thus|hence|consequently|which\s+makes|that\s+makes|this\s+makes|making|makes|"
    r"means(?:\s+that)?|ie|in\s+conclusion|in\s+summary|in\s+short|overall|or\s+rather)\b|=>|->|→)", re.I)
REASON_START = re.compile(r"^\W*(?:(?:this|that)(?:\s+is|'s)\s+because|because|recall|note\s+that|"
                          r"explanation|reasoning|justification|rationale|"
                          r"here(?:'s|\s+is)\s+(?:why|how|the\s+reasoning|the\s+explanation|my\s+reasoning)|"
                          r"let\s+me\s+explain|to\s+explain)\b", re.I)
REASON = re.compile(r"(?=[bsgdtv,])(?:\b(?:because|since|given\s+that|due\s+to|based\s+on|through|via)\b|,\s*as\b)", re.I)
HEDGE = re.compile(  # the first letter checked first: a long reply is scanned faster
    r"(?=[cuidna])(?:\b(?:can\s*not|can't|cannot|unable\s+to|impossible\s+to|not\s+possible\s+to)\s+(?:be\s+)?"
    r"(?:determined?|tell|told|say|said|know|infer(?:red)?|conclude[d]?|answer)|"
    r"\b(?:does|do|did)\s*(?:not|n't)\s+(?:say|state|specify|mention|tell|indicate)|"
    r"\bnot\s+(?:stated|specified|mentioned|given)\b|\bnot\s+enough\s+information|\binsufficient\s+information|\bno\s+way\s+to\s+(?:know|tell)|"
    r"\bunclear\b|\bambiguous\b|\bunknown\b|\bnot\s+(?:sure|certain)\b|\bundetermined\b|\bcould\s+be\s+either\b)",
    re.I)
NEGATION = re.compile(r"(?:\bnot|n't|\bnever|\bnor|\bneither|\brather\s+than|\binstead\s+of|\bno\s+longer|\bno)"
                      r"\s+(?:(?!but\b)[\w'-]+\s+){0,2}$", re.I)
ADJECTIVE_WORDS = ("paternal", "maternal", "own", "younger", "older", "elder", "big", "little", "only", "biological",
                   "twin", "new", "dear", "beloved")
ADJECTIVES = r"(?:(?:" + "|".join(ADJECTIVE_WORDS) + r")\s+)*"
COPULA = re.compile(
    r"(?:\b(?:is|are|was|were|be|am|becomes|remains)|\b(?:he|she|it|that|who|this|what)'s|'re)\s+"
    r"(?:(?:either|also|actually|indeed|then|therefore|thus|definitely|clearly|probably|likely|in\s+fact)\s+)*"
    r"(?:(?:the|a|an|his|her|their|its|my|your|our|one\s+of)\s+|[\w-]+(?:'s|s')\s+)?" + ADJECTIVES + r"$", re.I)
JOINED = re.compile(r"^[\s,\u2013\u2014-]*(?:or|and|/|nor|versus|vs\.?)\s*(?:(?:either|maybe|possibly|perhaps|also|the|a|an|his|her|"
                    r"their|is|be|was)\s+|[\w-]+(?:'s|s')\s+)*" + ADJECTIVES + r"$", re.I)
CONJUNCTION = re.compile(r"\b(?:and|or|but|while|whereas)\b", re.I)
OF_PHRASE = re.compile(r"^\s+of\s+(?:(?:the|his|her|their|a|an)\s+)?(?:[\w-]+(?:'s|s')\s+)?" + ADJECTIVES + r"$", re.I)
CHAINED = re.compile(r"^(?:'s|s'|')\s+" + ADJECTIVES + r"$", re.I)


class Mention(NamedTuple):
    """A relation word found in a text: its span and the word it stands for."""

    start: int
    end: int
    word: str


class Vocabulary:
    """The relation words of a KB with their surface forms, compiled into one pattern."""

    def __init__(self, kb: str = "kinship") -> None:
        base = load_kb(kb)
        self.words = list(base.words)
        canon: dict[str, str] = {}
        for surface, (pred, gender) in base.word_index.items():
            self._add_forms(canon, surface, base.word(pred, gender))
        for surface, word in load_kb("clutrr_v1").aliases.items():  # the original's spellings (neice)
            if word in self.words:
                self._add_forms(canon, surface, word)
        for surface, word in SYNONYMS.items():
            if word in self.words:
                self._add_forms(canon, surface, word)
        for word in OTHER_RELATIONS:
            self._add_forms(canon, word, word)
        self.canon = canon
        self._words: dict[tuple, str] = {}
        # a first letter some spelling starts with, checked first: the scan skips other words fast
        first = "".join(sorted({form[0] for form in canon} | {word[0] for word in MODIFIER_WORDS}))
        spelling = rf"(?=[{first}])\b" + MODIFIER + r"(?P<word>" + _trie(canon) + r")" + IN_LAW + r"\b"
        self.pattern = re.compile(spelling, re.I)
        self._lower = re.compile(spelling)  # the same on lower-case text: literal branches are tried faster
        self._groups = tuple(self.pattern.groupindex[name] for name in ("word", "law", "mod"))

    @staticmethod
    def _add_forms(canon: dict[str, str], surface: str, word: str) -> None:
        for form in _surface_forms(surface):
            canon.setdefault(form, word)

    def lookup(self, text: str) -> str | None:
        """The word a bare answer such as ``" Son-In-Law."`` names, without a regex scan."""
        if len(text) > 64 or text.rstrip().endswith("?"):  # "aunt?" asks, it does not answer
            return None
        return self.canon.get(_squash(text))

    def mentions(self, text: str, at: Container[int] | None = None) -> list[Mention]:
        """Every relation word in ``text`` (only those starting at one of ``at``, when
        given), modified ones (``great-uncle``) as words of their own."""
        words, spelled, new = self._words, self._spelled, tuple.__new__  # no Python-level __new__ per mention
        groups = self._groups
        out = []
        scan = self._lower.finditer(text.lower()) if text.isascii() else self.pattern.finditer(text)
        for m in scan:
            if at is not None and m.start() not in at:
                continue
            key = m.group(*groups)
            out.append(new(Mention, (*m.span(), words.get(key) or spelled(*key))))
        return out

    def _spelled(self, word: str, law: str | None, mod: str | None) -> str:
        """The word a matched spelling stands for (remembered: a long reply repeats its words)."""
        key = (word, law, mod)
        out = self._words.get(key)
        if out is None:
            out = self.canon[_squash(word)]
            if law:
                out += "-in-law"
            if mod:
                mod = _squash(mod).rstrip("-")
                out = mod + ("" if mod in CLOSED_MODIFIERS else "-") + out
            if len(self._words) < 65536:
                self._words[key] = out
        return out


def _trie(forms: Iterable[str]) -> str:
    """One pattern matching any of ``forms`` (a hyphen matching any separator), written as a
    tree of shared prefixes so a scan tries one branch per character, not every form; at
    each branching point a longer form is tried before a shorter one."""
    root: dict = {}
    for form in forms:
        node = root
        for char in form:
            node = node.setdefault(char, {})
        node[""] = {}

    def branch(node: dict) -> str:
        arms = [(SEP if char == "-" else re.escape(char)) + branch(child)
                for char, child in sorted(node.items()) if char]
        if not arms:
            return ""
        body = arms[0] if len(arms) == 1 else "(?:" + "|".join(arms) + ")"
        if "" not in node:
            return body
        return ("(?:" + body + ")?") if len(arms) > 1 or len(body) > 1 else body + "?"

    return branch(root)


def _squash(text: str) -> str:
    """Lower case, separators collapsed to single hyphens, surrounding punctuation dropped."""
    return re.sub(r"[\s-]+", "-", text.strip().strip(".!?,;:'\"*`()[]{}").strip().lower())


def _plural(word: str) -> str:
    return IRREGULAR_PLURALS.get(word, word + "s")


def _surface_forms(word: str) -> set[str]:
    """Singular, plural, and split forms: son-in-law, sons-in-law, son-in-laws; grand-daughter."""
    forms = {word}
    if word.endswith("-in-law"):
        head = word[: -len("-in-law")]
        forms |= {f"{_plural(head)}-in-law", f"{word}s"}
    else:
        forms.add(_plural(word))
    for form in list(forms):
        if form.startswith("grand") and not form.startswith("grand-") and len(form) > 6:
            forms.add("grand-" + form[5:])
    return forms


@lru_cache(maxsize=8)
def vocabulary(kb: str = "kinship") -> Vocabulary:
    """The compiled vocabulary of KB ``kb`` (cached)."""
    return Vocabulary(kb)


TAG_OPEN = re.compile(r"<\s*answer\s*>", re.I)
TAG_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.I)
# reasoning blocks: a name stands for <name>…</name> (or ◁name▷…◁/name▷), a pair for its opening and closing
# tag as written: Magistral's [THINK]…[/THINK], Sky-T1's and OpenThoughts' <|begin_of_thought|>…<|end_of_thought|>
ThinkTag = str | tuple[str, str]
THINK_TAGS: tuple[ThinkTag, ...] = ("think", "thinking", "reasoning", ("[THINK]", "[/THINK]"),
                                    ("<|begin_of_thought|>", "<|end_of_thought|>"))
COMMENT = re.compile(r"<!--.*?(?:-->|$)", re.S)  # an HTML/XML comment (unclosed: to the end) is not read
BOXED = re.compile(r"\\boxed\s*\{")
BRACE = re.compile(r"[{}]")
LATEX_COMMAND = re.compile(r"\\[A-Za-z]+\s*|\\[ ,;:!]|[{}$]")
JSON_ANSWER = re.compile(r'"answer"\s*:\s*("(?:[^"\\]|\\.)*"|null)', re.I)
OPENING_STOP = re.compile(r"[.!?\n,;:]|\s[-\u2013\u2014]\s")  # what ends the words opening a reply
ALTERNATIVE = re.compile(r"\s*(?:or|/|nor|versus|vs)\b", re.I)
# what may stand between a bare opening word and a second relation offered beside it ("Aunt, possibly mother")
LISTED = re.compile(r"[\s,/;]*(?:(?:or|and|nor|vs\.?|versus|possibly|perhaps|maybe|probably|either|else|even)\s+"
                    r"(?:(?:the|a|an|his|her|their)\s+)?)*", re.I)
TENTATIVE = re.compile(r"(?=[cmp])(?:\b(?:could|might|may)\s+(?:also\s+|well\s+)?be\b|\b(?:possibly|perhaps|maybe)\b)",
                       re.I)
ALTERNATIVE_START = re.compile(r"^\W*(?:or|alternatively|otherwise)\b", re.I)
# a sentence taking back what was answered before it ("Wait, actually ...", "On second thought ...")
CORRECTION = re.compile(
    r"(?=[wacsiohl])\b(?:wait|actually|correction|scratch\s+that|i\s+mean|oops|sorry|i\s+was\s+wrong|hold\s+on|"
    r"on\s+(?:second|further)\s+thought|let\s+me\s+(?:re-?check|reconsider|correct|double[\s-]?check))\b|^\W*no\b", re.I)
HEADING = re.compile(r"^\W*(?:the\s+)?(?:final\s+)?answer\W*$", re.I)
OFF = "off"  # a statement about another pair of people than the one asked about
# a name: a capitalised word ("Edith", "Zoë", "O'Neil"); in a reply written in lower case, a name the caller knows
NAME = r"[^\W\d_a-z](?:[\w-]|'(?!(?i:s)\b)(?=\w))*+"
NOT_NAMES = {"He", "She", "They", "It", "This", "That", "So", "Then", "Therefore", "Thus", "Hence", "And", "But",
             "The", "A", "An", "His", "Her", "Their", "Its", "Also", "Since", "Because", "Which", "Who", "Answer",
             "Final", "Step", "First", "Second", "Next", "Finally", "Now", "Here", "There", "We", "I", "You"}
# a relation stated in a relative clause ("a son, Paul, who is Tom's uncle") describes someone
RELATIVE = re.compile(r"\b(?:who|which)\b[^,.;:]{0,40}$", re.I)
# the verbs and adverbs that state "X is Y's R" when the answer's direction is checked
ANSWER_COPULA = (r"(?:is|was|(?:must|would|will|should|could|might|may)\s+be|(?:appears|seems)\s+to\s+be)"
                 r"(?:\s+(?:also|therefore|thus|then|indeed|actually|clearly|probably|likely|definitely))*")


class _ClaimPatterns:
    """The claim patterns for one kind of name (capitalised, or any word); keywords in any case."""

    def __init__(self, copula: str, name: str, flags: int) -> None:
        subject = rf"(?P<x>{name})(?i:,?\s+who)?"  # "Paul, who is Tom's uncle" is said of Paul
        owned = rf"(?P<y>{name})(?i:'s|')\s+(?i:{ADJECTIVES})$"
        copula = rf"(?i:{copula})"
        self.stated = re.compile(rf"{subject}\s+{copula}\s+{owned}", flags)
        self.stated_of = re.compile(rf"{subject}\s+{copula}\s+(?i:the|a|an)\s+(?i:{ADJECTIVES})$", flags)
        # "which makes X Y's R" (or the part after "makes" alone)
        self.made = re.compile(rf"(?:\b(?i:makes?|making|made)\s+|^\W*){subject}\s+{owned}", flags)
        # one side named, the other a pronoun: "Chloe is her niece", "She is Chloe's aunt"
        self.person_only = re.compile(rf"{subject}\s+{copula}\s+(?i:his|her|their)\s+(?i:{ADJECTIVES})$", flags)
        self.owner_only = re.compile(rf"\b(?i:he|she|they|who)\s+{copula}\s+{owned}", flags)
        self.owner = re.compile(owned, flags)
        self.of_owner = re.compile(rf"^\s+(?i:of|to)\s+(?P<y>{name})\b", flags)
        self.is_name = re.compile(rf"^\s+(?i:is|was)\s+(?P<x>{name})\b", flags)


class ClaimReader:
    """Reads who a relation word is said of: "X is Y's R", "X is the R of Y", "Y's R is X",
    "makes X Y's R", "X, who is Y's R". Names are capitalised words; in a reply written in
    lower case, the ``names`` a caller knows (the query's) are read too."""

    def __init__(self, copula: str) -> None:
        self.copula = copula
        self.cased = _ClaimPatterns(copula, NAME, 0)
        self._caseless: dict[tuple[str, ...], _ClaimPatterns] = {}

    def _patterns(self, pre: str, names: Sequence[str]) -> _ClaimPatterns:
        if not names or not pre.islower():
            return self.cased
        key = tuple(names)
        if key not in self._caseless:  # in lower case only the known names are names: match just those
            if len(self._caseless) >= 256:
                self._caseless.clear()
            spelled = "|".join(re.escape(n) for n in sorted({n.casefold() for n in names}, key=len, reverse=True))
            self._caseless[key] = _ClaimPatterns(self.copula, rf"(?<![\w'-])(?:{spelled})(?![\w-])", re.I)
        return self._caseless[key]

    def pair(self, pre: str, post: str, names: Sequence[str] = ()) -> tuple[str, str] | None:
        """(person, owner) of the relation word between ``pre`` and ``post``, or None."""
        last = _word_before(pre)
        if not last.endswith("'") and not last.endswith("'s") and last not in ("the", "a", "an"):
            return None  # every claim pattern ends in a possessive or an article
        at = self._patterns(pre, names)
        claim = None
        if (hit := at.stated.search(pre)) or (hit := at.made.search(pre)):
            claim = (hit["x"], hit["y"])
        elif (owner := at.owner.search(pre)) and (who := at.is_name.match(post)):
            claim = (who["x"], owner["y"])
        elif (hit := at.stated_of.search(pre)) and (of := at.of_owner.match(post)):
            claim = (hit["x"], of["y"])
        return claim if claim and _named(claim[0], names) and _named(claim[1], names) else None

    def side(self, pre: str, names: Sequence[str] = ()) -> tuple[str | None, str | None]:
        """(person, None) or (None, owner) when only one side of the claim before a relation
        word is named ("Chloe is her niece", "She is Chloe's aunt"), else (None, None)."""
        last = _word_before(pre)
        if not last.endswith("'") and not last.endswith("'s") and last not in ("his", "her", "their"):
            return None, None
        at = self._patterns(pre, names)
        if (hit := at.person_only.search(pre)) and _named(hit["x"], names):
            return hit["x"], None
        if (hit := at.owner_only.search(pre)) and _named(hit["y"], names):
            return None, hit["y"]
        return None, None


def _word_before(pre: str) -> str:
    """The last word of ``pre`` before its trailing adjectives ("Tom's" in "Tom's late "),
    in lower case; "" unless ``pre`` ends in a space (a cheap test run before the claim
    patterns, which all end in a word, its adjectives and a space)."""
    if not pre[-1:].isspace():
        return ""
    words = pre[-96:].lower().split()
    while words and words[-1] in ADJECTIVE_WORDS:
        words.pop()
    return words[-1] if words else ""


def _named(word: str, names: Sequence[str]) -> bool:
    """Whether ``word`` is a name: capitalised and no pronoun or connective, or one of ``names``."""
    if word.title() in NOT_NAMES:
        return False
    return word[0].isupper() or word.casefold() in {n.casefold() for n in names}


ANSWER_CLAIMS = ClaimReader(ANSWER_COPULA)


@lru_cache(maxsize=16)
def _think_patterns(tags: tuple[ThinkTag, ...]) -> tuple[re.Pattern, re.Pattern, str]:
    """The opening and closing patterns of reasoning blocks ``tags`` and the characters one
    of their tags starts with."""
    names = "|".join(re.escape(t) for t in tags if isinstance(t, str))
    opening = [rf"[<\u25c1]\s*(?:{names})\s*[>\u25b7]"] if names else []
    closing = [rf"[<\u25c1]\s*/\s*(?:{names})\s*[>\u25b7]"] if names else []
    starts = "<\u25c1" if names else ""
    for tag in tags:
        if not isinstance(tag, str):
            if len(tag) != 2 or not all(isinstance(t, str) and t.strip() for t in tag):
                raise ValueError(f"a reasoning block's tags are a name or an (opening, closing) pair, not {tag!r}")
            opening.append(re.escape(tag[0].strip()))
            closing.append(re.escape(tag[1].strip()))
            starts += tag[0].strip()[0] + tag[1].strip()[0]
    return re.compile("|".join(opening), re.I), re.compile("|".join(closing), re.I), starts


# gpt-oss's harmony format: reasoning in the "analysis" channel, the answer in the "final" one
CHANNEL = re.compile(r"<\|channel\|>\s*(\w+)[^<]*(?:<\|constrain\|>[^<]*)?<\|message\|>")
CHANNEL_END = re.compile(r"<\|(?:end|return|call)\|>")


def final_text(text: str, think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False) -> str | None:
    """The part of a reply that may state its answer: the text after the last closing
    reasoning tag (all of it when there is none), without HTML/XML comments; None when a
    reasoning block is left open, as in a reply cut inside its ``<think>`` block.

    Reasoning tags are :data:`THINK_TAGS` (``<think>…</think>`` or ``◁think▷…◁/think▷``,
    ``[THINK]…[/THINK]``, ``<|begin_of_thought|>…<|end_of_thought|>``) or ``think_tags``:
    names and (opening, closing) pairs. With ``think_open`` the reply starts inside a
    reasoning block (its chat template put the opening tag in the prompt), so without a
    closing tag it has no answer. A reply in channels (``<|channel|>``) answers only in
    its last ``final`` channel."""
    if "<|channel|>" in text:
        finals = [m for m in CHANNEL.finditer(text) if m.group(1).lower() == "final"]
        if not finals:
            return None
        text = CHANNEL_END.split(text[finals[-1].end():], 1)[0]
    elif think_tags:
        opening, closing, starts = _think_patterns(tuple(t if isinstance(t, str) else tuple(t) for t in think_tags))
        if think_open or any(c in text for c in starts):
            last = None
            for last in closing.finditer(text):
                pass
            if last is None and think_open:
                return None
            text = text if last is None else text[last.end():]
            if opening.search(text):
                return None
    return COMMENT.sub(" ", text) if "<!--" in text else text


def answer_tags(text: str, think_tags: Sequence[ThinkTag] = THINK_TAGS, think_open: bool = False) -> int:
    """How many complete ``<answer>…</answer>`` pairs stand outside every reasoning block
    (0 when a reasoning block is left open)."""
    rest = final_text(text, think_tags, think_open) if text else None
    if not rest:
        return 0
    opens, closes = len(TAG_OPEN.findall(rest)), len(TAG_CLOSE.findall(rest))
    return opens if opens == closes else 0


UNICODE_MAP = str.maketrans({"\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
                             "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u3002": "."})


def plain_unicode(text: str) -> str:
    """``text`` in compatibility form (full-width letters, no-break spaces), without
    zero-width characters, with straight quotes."""
    text = unicodedata.normalize("NFKC", text)
    return text.translate(UNICODE_MAP)


def extract_answer(text: str | None, kb: str = "kinship", think_tags: Sequence[ThinkTag] = THINK_TAGS,
                   query: Sequence[str] | None = None, think_open: bool = False) -> str | None:
    """The relation word ``text`` gives as its answer, or None when it is unparsable.

    See the module docstring for the rules; ``kb`` names the label vocabulary,
    ``think_tags`` the reasoning blocks whose content is never read, and ``query`` the
    (head, tail) names asked about ("how is tail related to head?"), when known: a
    statement naming them the other way round, or naming other people, is no answer.
    With ``think_open`` the reply starts inside a reasoning block (:func:`final_text`).
    """
    if not text:
        return None
    if not text.isascii():
        text = plain_unicode(text)
    vocab = vocabulary(kb)
    quick = None if think_open else vocab.lookup(text)
    if quick is not None:
        return quick
    rest = final_text(text, think_tags, think_open)
    if not rest:
        return None
    names = tuple(query) if query else None
    return (_extract_cached if len(rest) <= CACHED_LENGTH else _extract)(rest, vocab, names)


def _tag_contents(text: str, opens: list[re.Match]) -> set[str]:
    """The distinct contents of the ``<answer>`` tags opened at ``opens`` (each up to its
    closing tag or the next opening one)."""
    ends = [m.start() for m in opens[1:]] + [len(text)]
    out = set()
    for m, end in zip(opens, ends):
        close = TAG_CLOSE.search(text, m.end(), end)
        out.add(text[m.end(): end if close is None else close.start()])
    return out


def _boxed_contents(text: str) -> set[str]:
    """The distinct contents of every closed ``\\boxed{…}``, read from the last one back, each
    in the text before the previous one read (so a box holding another is not read), with
    the braces matched once for the whole text."""
    starts = list(BOXED.finditer(text))
    closing = _closing_braces(text)
    out, end, i = set(), len(text), len(starts) - 1
    while True:  # a box counts when its brace closes before ``end``
        while i >= 0 and not (starts[i].end() <= end and closing.get(starts[i].end() - 1, end) < end):
            i -= 1
        if i < 0:
            return out
        close = closing[starts[i].end() - 1]
        out.add(LATEX_COMMAND.sub(_latex_space, text[starts[i].end(): close]))
        end = text.rfind("\\boxed", 0, close + 1)


def _last_correction(text: str, end: int) -> int:
    """Where the last sentence taking an answer back ("Wait, no.") before ``end`` ends, or 0."""
    last = 0
    for m in CORRECTION.finditer(text, 0, end):
        last = m.end()
    return last


def _differ(contents: set[str], vocab: Vocabulary, query: tuple[str, ...] | None) -> bool:
    """Whether the answers of several tags or boxes name different relations (or there are
    more than :data:`MAX_READS` different ones to read)."""
    if len(contents) > MAX_READS:
        return True
    said: set[str | None] = set()
    for content in contents:
        said.add(_decide_text(clean_text(content), vocab, query))
        if len(said - {None, OFF}) > 1:
            return True
    return False


def _closing_braces(text: str) -> dict[int, int]:
    """Where the brace opened at each place of ``text`` closes (unclosed ones left out)."""
    closing: dict[int, int] = {}
    opened: list[int] = []
    for brace in BRACE.finditer(text):
        if brace.group() == "{":
            opened.append(brace.start())
        elif opened:
            closing[opened.pop()] = brace.start()
    return closing


def _boxed(text: str) -> tuple[str, int] | None:
    """The content of the last closed ``\\boxed{…}`` (braces balanced, LaTeX commands
    dropped) and its end, in one pass over the text's braces."""
    starts = list(BOXED.finditer(text))
    if not starts:
        return None
    closing = _closing_braces(text)
    for m in reversed(starts):
        end = closing.get(m.end() - 1)
        if end is not None:
            return LATEX_COMMAND.sub(_latex_space, text[m.end(): end]), end + 1
    return None


def json_answer(text: str) -> tuple[str | None, int] | None:
    """The value of the last JSON ``"answer"`` key in ``text`` and where it ends; the value is
    None when it is ``null`` or unreadable. None when ``text`` has no such key."""
    last = None
    for last in JSON_ANSWER.finditer(text):
        pass
    if last is None:
        return None
    try:
        value = json.loads(last.group(1))
    except ValueError:
        value = None
    return value, last.end()


def _latex_space(command: re.Match) -> str:
    """A LaTeX spacing command (``\\ ``, ``\\,``) becomes a space; other commands and braces vanish."""
    return " " if command.group()[:1] == "\\" and command.group()[1:2] in " ,;:!" else ""


def _extract(text: str, vocab: Vocabulary, query: tuple[str, ...] | None) -> str | None:
    opens = list(TAG_OPEN.finditer(text))
    if len(opens) > 1:
        since = _last_correction(text, opens[-1].start())  # "Wait, no." before the last tag: it decides
        if _differ(_tag_contents(text, [m for m in opens if m.start() >= since]), vocab, query):
            return None
    if opens:
        content = text[opens[-1].end():]
        close = TAG_CLOSE.search(content)
        if close is None:
            return _decide_text(clean_text(content), vocab, query)
        answer = _decide_text(clean_text(content[: close.start()]), vocab, query)
        return _kept(answer, clean_text(content[close.end():]), vocab, query)
    boxed = _boxed(text)
    if boxed and text.count("\\boxed") > 1:
        since = _last_correction(text, text.rfind("\\boxed", 0, boxed[1]))
        if _differ(_boxed_contents(text[since:]), vocab, query):
            return None
    if boxed:
        answer = _decide_text(clean_text(boxed[0]), vocab, query)
        return _kept(answer, clean_text(text[boxed[1]:]), vocab, query)
    keyed = json_answer(text)
    if keyed is not None:
        value, end = keyed
        if value is None:
            return None
        answer = _decide_text(clean_text(value), vocab, query)
        return _kept(answer, clean_text(text[end:]), vocab, query)
    return _decide_text(clean_text(text), vocab, query)



CACHED_LENGTH = 512  # short replies repeat (bare words, sentences); long ones rarely do and would fill memory
_extract_cached = lru_cache(maxsize=65536)(_extract)

BRACKET = re.compile(r"([()])")
# a parenthesis that is the answer itself ("Answer: (aunt)") or offers an alternative ("(or possibly mother)")
READ_PARENTHESIS = re.compile(r"(?:^|(?<=[:\n]))[^\S\n]*\(([^()]*)\)|\((\s*(?:or|possibly|perhaps|maybe|either)\b[^()]*)\)",
                              re.I)


def clean_text(text: str) -> str:
    """``text`` with straight quotes, without markdown marks, dotted abbreviations or
    parentheses (those giving the answer itself or an alternative are unwrapped)."""
    return _clean_long(text) if len(text) > CACHED_LENGTH else _clean(text)


def _clean(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[*_`#\[\]]", "", text)
    text = re.sub(r"\b(i)\.(e)\.|\b(e)\.(g)\.", lambda m: "".join(g for g in m.groups() if g), text, flags=re.I)
    text = re.sub(r"\b(Mr|Mrs|Ms|Dr|St)\.", r"\1", text)
    if "(" not in text:
        return text
    text = READ_PARENTHESIS.sub(lambda m: " " + (m.group(1) or m.group(2)) + " ", text)
    return _without_parentheses(text)


_clean_long = lru_cache(maxsize=4)(_clean)  # a reward reads a long reply twice: its answer, then its claims


def _without_parentheses(text: str) -> str:
    """``text`` with every balanced parenthesis, nested ones included, replaced by a space
    (in one pass; an unbalanced bracket stays)."""
    pieces = BRACKET.split(text)  # text, bracket, text, bracket, ..., text
    out, opened = [pieces[0]], []
    for i in range(1, len(pieces), 2):
        if pieces[i] == "(":
            opened.append(len(out))
            out.append("(")
        elif opened:  # what the parenthesis holds, a removed one inside included, becomes one space
            del out[opened.pop():]
            out.append(" ")
        else:
            out.append(")")
        out.append(pieces[i + 1])
    return "".join(out)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+|;", text) if s.strip()]


def _decide_text(text: str, vocab: Vocabulary, query: tuple[str, ...] | None) -> str | None:
    sentences = _sentences(text)
    if len(sentences) > MAX_SENTENCES:  # a repetition loop: no answer (and no time spent on each sentence)
        return None
    live_next = None  # the first sentence after the one looked at that names a relation
    for i in range(len(sentences) - 1, -1, -1):
        sentence = sentences[i]
        ends = [marker.end() for marker in ANSWER_MARKER.finditer(sentence)]
        if not ends and (heading := HEADING.match(sentence)):
            ends = [heading.end()]
        # the last marker decides: what follows it, else the next sentence naming a relation,
        # else the last marker with a relation after it
        cut = _last_live_cut(sentence, ends, vocab) if ends else None
        if cut is not None and (cut == ends[-1] or live_next is None):
            part, after = sentence[cut:], sentences[i + 1:]
        elif ends and live_next is not None:
            part, after = sentences[live_next], sentences[live_next + 1:]
        else:
            part = None
        if part is not None:
            answer = None if part.rstrip().endswith("?") else _answer(part, vocab, query)[0]
            return _kept(None if answer == OFF else answer, after, vocab, query)
        if _live(sentence, vocab):
            live_next = i
    opening = _opening(text)
    if opening and len(opening[0].split()) <= 3 and not ALTERNATIVE.match(text, opening[2]):
        word = vocab.lookup(opening[0])
        if word is not None:
            beside = vocab.pattern.match(text, LISTED.match(text, opening[1]).end())
            if beside and vocab.canon[_squash(beside.group("word"))] != word:
                return None
            return _kept(word, _sentences(text[opening[2]:]), vocab, query)
    return _decide_statements(sentences, vocab, query)


MAX_SENTENCES = 2048  # more sentences than this in the part read: no answer
MAX_READS = 256  # different statements one decision may read: more leave no answer (a repetition loop)


class _TooMany(Exception):
    """A decision needs more than :data:`MAX_READS` different statements read."""


class _Readings(dict):
    """:func:`_answer` of each statement, read once however often it repeats, and at most
    :data:`MAX_READS` different ones (then :class:`_TooMany`)."""

    def __init__(self, vocab: Vocabulary, query: tuple[str, ...] | None) -> None:
        super().__init__()
        self.vocab, self.query = vocab, query

    def __call__(self, sentence: str) -> tuple[str | None, bool]:
        got = self.get(sentence)
        if got is None:
            if len(self) >= MAX_READS:
                raise _TooMany
            got = self[sentence] = _answer(sentence, self.vocab, self.query)
        return got


def _decide_statements(sentences: list[str], vocab: Vocabulary, query: tuple[str, ...] | None) -> str | None:
    """The answer of a reply without an explicit marker or opening word: its last stated
    relation (rule 3 of the module docstring). Sentences are read from the end and only as
    far as the decision needs, except tentative ones, which are all compared; no answer
    when that takes more than :data:`MAX_READS` different sentences."""
    try:
        return _last_statement(sentences, vocab, _Readings(vocab, query))
    except _TooMany:
        return None


def _last_statement(sentences: list[str], vocab: Vocabulary, readings: _Readings) -> str | None:
    live = [i for i, s in enumerate(sentences) if _live(s, vocab)]

    def read(i: int) -> tuple[str | None, bool]:
        return readings(sentences[i])

    explained = next((i for i, s in enumerate(sentences) if REASON_START.match(s)), len(sentences))
    if live and live[-1] >= explained:  # a statement before "Here's why:" or "Explanation:" decides
        first = [i for i in live if i < explained]
        if any(read(i)[0] not in (None, OFF) and read(i)[1] for i in reversed(first)):
            live = first
    offered: set[str] = set()
    for i in live:
        if TENTATIVE.search(sentences[i]) and read(i)[0] not in (None, OFF):
            offered.add(read(i)[0])
            if len(offered) > 1:  # several relations offered as possibilities
                return None
    pick = last = None
    for i in reversed(live):  # a relation only mentioned ("her niece Chloe") is no answer when one is stated
        answer, stated = read(i)
        if answer == OFF or not stated:
            continue
        last = i if last is None else last
        if not REASON_START.match(sentences[i]):
            pick = i
            break
    if last is None:
        mentioned = [i for i in live if read(i)[0] != OFF]
        if not mentioned or len({read(i)[0] for i in mentioned} - {None}) > 1:  # a list, none stated
            return None
        last = mentioned[-1]
        pick = next((i for i in reversed(mentioned) if not REASON_START.match(sentences[i])), None)
    decisive = sentences[last if pick is None else pick]
    answer = read(last if pick is None else pick)[0]
    return None if ALTERNATIVE_START.match(decisive) or decisive.rstrip().endswith("?") else answer


def _opening(text: str) -> tuple[str, int, int] | None:
    """The words opening ``text`` up to its first punctuation mark or dash between spaces,
    where they end and where the mark ends; None when a question mark comes first."""
    start = len(text) - len(text.lstrip())
    stop = OPENING_STOP.search(text, start)
    if stop is not None and stop.group() == "?":
        return None
    words = text[start: len(text) if stop is None else stop.start()].rstrip()
    if not words:
        return None
    return words, start + len(words), len(text) if stop is None else stop.end()


def _kept(answer: str | None, after: str | list[str], vocab: Vocabulary, query: tuple[str, ...] | None) -> str | None:
    """``answer`` unless a later sentence takes it back ("Wait, actually …") for another
    relation (or more than :data:`MAX_READS` different sentences would have to be read)."""
    if answer is None or not after:
        return answer
    sentences = _sentences(after) if isinstance(after, str) else after
    start = next((j for j, s in enumerate(sentences)
                  if CORRECTION.search(s) or ALTERNATIVE_START.match(s) or TENTATIVE.search(s)), None)
    if start is None:
        return answer
    read = _Readings(vocab, query)
    try:
        if any(_live(s, vocab) and read(s)[0] not in (None, OFF, answer) for s in sentences[start:]):
            return None
    except _TooMany:
        return None
    return answer


def _same_name(said: str, name: str) -> bool:
    """Whether a name in a reply is ``name`` (in any case; one word of a name of several)."""
    said, name = said.casefold(), name.casefold()
    return said == name or said in name.split()


WINDOW = 96  # how far before a relation word the claim naming its people is looked for


def before(text: str, end: int, width: int = WINDOW) -> str:
    """The up to ``width`` characters of ``text`` before ``end``, starting at a word boundary
    (so the rules' backward looks take constant time in a long reply)."""
    if end <= width:
        return text[:end]
    start = end - width
    space = text.find(" ", start, end)
    return text[space + 1 if space >= 0 else start: end]


NEGATION_WINDOW = 64  # "instead of" and two words
NEGATION_WORDS = ("no", "n't", "never", "neither", "rather", "instead")  # one of them stands in every negation
NEGATION_TRIGGER = re.compile("|".join(re.escape(w) for w in NEGATION_WORDS), re.I)
LOWER_TRIGGER = re.compile("|".join(re.escape(w) for w in NEGATION_WORDS))  # on lower-case text


def _trigger_starts(text: str) -> list[int]:
    """Where a word every negation starts with stands in ``text``, in one scan."""
    if text.isascii():
        return [m.start() for m in LOWER_TRIGGER.finditer(text.lower())]
    return [m.start() for m in NEGATION_TRIGGER.finditer(text)]


def negation_starts(text: str, mentions: Sequence[Mention]) -> dict[int, int]:
    """Where the last negation of each of ``mentions`` of ``text`` ("not his sister") starts,
    by the mention's start (-1: none). A negation ends just before the relation word and
    starts within :data:`NEGATION_WINDOW` characters; read no further back than a ``start``
    at a word's beginning, the word is negated exactly when this is at least ``start``.
    Each negation starts with one of :data:`NEGATION_WORDS`, found in one scan of the text,
    so only those places are tried (most mentions of a long text have none in reach)."""
    triggers = _trigger_starts(text)
    if not triggers:
        return dict.fromkeys([m.start for m in mentions], -1)
    out: dict[int, int] = {}
    for m in mentions:
        hi = bisect_left(triggers, m.start)
        lo = bisect_left(triggers, m.start - NEGATION_WINDOW, 0, hi)
        found = -1
        if lo < hi:
            window = before(text, m.start, NEGATION_WINDOW)
            offset = m.start - len(window)
            for k in range(hi - 1, lo - 1, -1):
                if triggers[k] >= offset and NEGATION.match(window, triggers[k] - offset):
                    found = triggers[k]
                    break
        out[m.start] = found
    return out


NO_MENTIONS: tuple[tuple[Mention, ...], tuple[Mention, ...], dict[int, int]] = ((), (), {})


def _mentions(text: str, vocab: Vocabulary) -> tuple[tuple[Mention, ...], tuple[Mention, ...], dict[int, int]]:
    """The mentions of ``text``, those not negated, and :func:`negation_starts` of the mentions
    (remembered: a sentence is read several times; a few long ones, many short ones)."""
    return (_read_long if len(text) > CACHED_LENGTH else _read_short)(text, vocab)


def _read_mentions(text: str, vocab: Vocabulary) -> tuple[tuple[Mention, ...], tuple[Mention, ...], dict[int, int]]:
    mentions = tuple(vocab.mentions(text))
    if not mentions:  # most sentences of a long reply: answered without a second scan
        return NO_MENTIONS
    negations = negation_starts(text, mentions)
    return mentions, tuple(m for m in mentions if negations[m.start] < 0), negations


_read_short = lru_cache(maxsize=4096)(_read_mentions)
_read_long = lru_cache(maxsize=8)(_read_mentions)


def _live(text: str, vocab: Vocabulary) -> tuple[Mention, ...]:
    """The mentions of ``text`` that are not negated."""
    return _mentions(text, vocab)[1]


def _last_live_cut(text: str, ends: list[int], vocab: Vocabulary) -> int | None:
    """The last of ``ends`` (ascending places in ``text``, each where a marker ends) after
    which ``text`` names a relation not negated from before that place, or None. Read from
    the mentions' side, each once, as a run-on reply has thousands of markers."""
    mentions, _, negations = _mentions(text, vocab)
    best = -1
    for m in reversed(mentions):
        if m.start < best:  # no place after ``best`` comes before this mention
            break
        k = bisect_right(ends, m.start) - 1  # the last place before the mention...
        if k >= 0 and ends[k] > negations[m.start]:  # ...after its negation, if any
            best = max(best, ends[k])
    return best if best >= 0 else None


NEGATED_AFTER = re.compile(r"[\s,*_\u2013\u2014-]*(?:not|never)\W*$", re.I)
MAX_MENTIONS = 64  # more relation words than this in the part of a statement read: no answer
MAX_STATEMENT_MENTIONS = 1024  # more in a whole statement (before its conclusion is found): no answer
COPULA_WINDOW = 96
COPULA_WORDS = ("is", "are", "was", "were", "be", "am", "becomes", "remains", "'s", "'re")


def _stated(segment: str, end: int) -> bool:
    """Whether the relation word at ``end`` is stated with a copula ("is Howard's wife"),
    outside a relative clause ("Paul, who is Tom's uncle")."""
    window = before(segment, end, COPULA_WINDOW)
    low = window.lower()
    return (any(word in low for word in COPULA_WORDS) and COPULA.search(window) is not None
            and not RELATIVE.search(window))


def _answer(segment: str, vocab: Vocabulary, query: tuple[str, ...] | None) -> tuple[str | None, bool]:
    """The relation ``segment`` answers with (None, or :data:`OFF` when it only states a
    relation between other people than the ``query`` pair, or between them reversed), and
    whether it states it (with a copula or after a conclusion marker) or only mentions it."""
    if HEDGE.search(segment):
        return None, True
    concluded = False
    mentions = _mentions(segment, vocab)[0]
    if len(mentions) > MAX_STATEMENT_MENTIONS:  # a repetition loop in one sentence
        return None, True
    if mentions:  # the last conclusion marker with a relation after it
        ends = [marker.end() for marker in CONCLUSION.finditer(segment, 0, mentions[-1].start)]
        cut = _last_live_cut(segment, ends, vocab) if ends else None
        if cut is not None:
            segment, concluded = segment[cut:], True
    live = _live(segment, vocab)
    if live:
        reason = next((r for r in REASON.finditer(segment, live[0].end) if r.start() > 0), None)
        if reason is not None:
            segment = segment[: reason.start()]
            live = tuple(m for m in live if m.end <= reason.start())
    mentions = live
    if len(mentions) > MAX_MENTIONS:  # a run-on part listing dozens of relations (a repetition loop)
        return None, True
    off = set()
    if query:
        for j, m in enumerate(mentions):
            pre = before(segment, m.start)
            person, owner = ANSWER_CLAIMS.pair(pre, segment[m.end: m.end + 80], query) or ANSWER_CLAIMS.side(pre, query)
            if (person and not _same_name(person, query[1])) or (owner and not _same_name(owner, query[0])):
                off.add(j)
        if off and len(off) == len(mentions):
            return OFF, True
    chained = {j for j in range(1, len(mentions))
               if CHAINED.match(segment[mentions[j - 1].end: mentions[j].start])}
    links = {j - 1 for j in chained} | {j for j, m in enumerate(mentions) if POSSESSIVE.match(segment, m.end)}
    stated = [j for j, m in enumerate(mentions) if j not in links and j not in off and _stated(segment, m.start)]
    if stated:
        pick = stated[-1]
        joint = None  # the last conjunction before the pick: a different relation stated before it is joined to it
        for joint in CONJUNCTION.finditer(segment, 0, mentions[pick].start):
            pass
        if joint and any(mentions[j].word != mentions[pick].word and mentions[j].end <= joint.start()
                         for j in stated[:-1]):
            return None, True
    else:
        heads = [j for j in range(len(mentions)) if j not in links and j not in off]
        if len({mentions[j].word for j in heads}) != 1:
            return None, concluded
        pick = heads[-1]
    if pick in chained:
        return None, True
    chosen = mentions[pick]
    if NEGATED_AFTER.match(segment, chosen.end):  # "aunt NOT"
        return None, True
    for j in range(pick + 1, len(mentions)):
        between = segment[mentions[j - 1].end: mentions[j].start]
        if j == pick + 1 and OF_PHRASE.match(between):
            return None, True
        if mentions[j].word != chosen.word and j not in off and JOINED.match(between):
            return None, True
    for j in range(pick - 1, -1, -1):
        if mentions[j].word != chosen.word and j not in off and JOINED.match(segment[mentions[j].end: mentions[j + 1].start]):
            return None, True
    return chosen.word, bool(stated) or concluded


POSSESSIVE = re.compile(r"'s\b")
