"""A process reward: judge the claims a reasoning makes against what the story entails.

``process_reward(completion, entry)`` reads every claim of the form "X is Y's R" ("X is the
R of Y", "Y's R is X") in the completion (reasoning blocks included) and in a separate
reasoning text, and judges each against the closure of the story's facts under the KB:

- ``true``: the KB derives R for the pair from the story's facts (and R fits X's gender);
- ``restated``: true, but X and Y are adjacent in the story (a fact copied, or its inverse);
- ``false``: it does not (a wrong relation, a wrong gender, a word outside the KB);
- ``stranger``: X or Y is not a person of the story.

Names match the story's in any case ("JUNE" is June, "june" too); "X, who is Y's R" is a
claim about X; a hedged claim ("X might be Y's R") is judged like a plain one.

The result gives the distinct claims (a claim repeated, in any case, counts once, and so
does a true claim and its inverse, "X is Y's aunt" and "Y is X's niece"), their precision
(true claims over the claims that are not restated facts), whether the true and restated
claims other than the conclusion about the query pair itself link the two query people
through the story's people, the first claim that is neither true nor restated, and a
score in [0, 1]: the mean of the precision and the connection, halved when any claim is
false or about a stranger (so a false claim keeps the score below that of the same
reply without it, whatever is added), and 0 without a derived claim (restating the
story earns nothing). A reasoning with more than :data:`MAX_CLAIM_PLACES` relation words
where a claim may end (after a possessive or an article: "Y's R", "the R"), repeats
included, is a repetition loop or a list of guesses: it is not judged and scores 0, so a
reply of any length is judged in bounded time and the cap can only lower a score.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from clutrr.core.entailment import story_closure
from clutrr.core.kb import GENDERS, load_kb
from clutrr.llm.extract import (ADJECTIVE_WORDS, ClaimReader, before, clean_text, final_text, negation_starts, plain_unicode,
                                vocabulary)

COPULA = (r"(?:is|was|(?:must|would|will|should|could|might|may)\s+be|(?:appears|seems)\s+to\s+be)"
          r"(?:\s+(?:also|therefore|thus|then|indeed|actually|clearly|probably|perhaps|possibly))?")
CLAIMS = ClaimReader(COPULA)
CHAINED = re.compile(r"^(?:'s|s'|')")
CLAIM_PLACE = re.compile(r"(?:'s?|(?<!\S)(?:the|an?))(?:\s+(?:" + "|".join(ADJECTIVE_WORDS) + r"))*\s+")  # lower case
CLAIM_PLACE_ANY_CASE = re.compile(CLAIM_PLACE.pattern, re.I)
# more relation words than this where a claim may end: a repetition loop or a list of guesses, judged 0
MAX_CLAIM_PLACES = 2048
SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")


@dataclass(frozen=True)
class Claim:
    """One claim "``person`` is ``owner``'s ``relation``" and its verdict."""

    person: str
    owner: str
    relation: str
    verdict: str  # "true", "restated", "false" or "stranger"


@dataclass
class ProcessResult:
    """The judged claims of a reasoning and what they add up to."""

    claims: list[Claim] = field(default_factory=list)
    precision: float | None = None  # true claims / claims not restated; None without such claims
    connected: bool = False  # the true claims link the query's two people
    first_false: Claim | None = None  # the first claim that is false or about a stranger

    @property
    def score(self) -> float:
        """The mean of the precision and the connection, halved after a false claim; 0
        without a derived claim."""
        if self.precision is None:
            return 0.0
        value = (self.precision + float(self.connected)) / 2
        return value / 2 if self.first_false else value

    def to_dict(self) -> dict:
        """Plain JSON data."""
        return {"claims": [asdict(c) for c in self.claims], "precision": self.precision,
                "connected": self.connected, "first_false": asdict(self.first_false) if self.first_false else None,
                "score": self.score}


def find_claims(text: str, kb: str = "kinship", names: Sequence[str] = (),
                limit: int | None = None) -> list[tuple[str, str, str]] | None:
    """Every (person, owner, relation word) that ``text`` states, in order; negated and
    chained mentions ("not his sister", "Tom's wife's mother") are left out. ``names`` (the
    story's people) are read in lower case too. With ``limit``, None when more than that
    many relation words stand where a claim may end (after a possessive or an article)."""
    text = clean_text(text if text.isascii() else plain_unicode(text))
    # a claim's relation word follows a possessive or an article ("Y's R", "the R of Y"): one scan finds those places
    scan = CLAIM_PLACE.finditer(text.lower()) if text.isascii() else CLAIM_PLACE_ANY_CASE.finditer(text)
    mentions = vocabulary(kb).mentions(text, {m.end() for m in scan})
    if limit is not None and len(mentions) > limit:
        return None
    negations = negation_starts(text, mentions)
    out, read = [], {}
    for m in mentions:
        pre, post = before(text, m.start), text[m.end: m.end + 80]
        if CHAINED.match(post) or negations[m.start] >= 0:
            continue
        key = (pre, post)  # a repetition loop states the same claim in the same words: read it once
        if key not in read:
            read[key] = CLAIMS.pair(pre, post, names)
        claim = read[key]
        if claim:
            out.append((claim[0], claim[1], m.word))
    return out


def _facts(kb, entry: dict) -> list[tuple[int, int, int]]:
    facts = []
    for fact in entry["metadata"]["facts"]:
        word = fact["relation"]
        if word is None or word.lower() not in kb.word_index:
            continue
        facts.append((fact["head"], kb.parse_word(word)[0], fact["tail"]))
    return facts


def process_reward(completion: str | None, entry: dict, reasoning: str | None = None,
                   kb: str = "kinship") -> ProcessResult:
    """Judge the claims of ``completion`` (and of ``reasoning``, a server's separate
    reasoning text) against the story of ``entry`` (an item: its ``metadata`` holds
    ``people``, ``facts`` and ``query_edge``). See the module docstring."""
    text = "\n".join(t for t in (reasoning, completion) if t)
    meta = entry["metadata"]
    people = meta["people"]
    found = find_claims(text, kb, [p["name"] for p in people], MAX_CLAIM_PLACES) if text else []
    if not found:  # none, or too many to judge
        return ProcessResult()
    base = load_kb(kb)
    adjacent = {frozenset((f["head"], f["tail"])) for f in meta["facts"]}
    index: dict[str, int] = {}
    for i, p in enumerate(people):
        index.setdefault(p["name"].casefold(), i)
    closure = story_closure(base, _facts(base, entry))
    claims, parent = [], list(range(len(people)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    seen: set[tuple] = set()
    for person, owner, word in found:
        key = (person.casefold(), owner.casefold(), word)
        if key in seen:  # a claim repeated counts once: repeating true claims cannot raise the precision
            continue
        seen.add(key)
        pair = frozenset((person.casefold(), owner.casefold()))
        if person.casefold() not in index or owner.casefold() not in index:
            verdict = "stranger"
        elif word not in base.word_index or person.casefold() == owner.casefold():
            verdict = "false"
        else:
            pred, gender = base.word_index[word]
            x, y = index[person.casefold()], index[owner.casefold()]
            right = closure.get((y, x), 0) >> pred & 1 and GENDERS[gender] == people[x]["gender"]
            verdict = ("restated" if frozenset((x, y)) in adjacent else "true") if right else "false"
            if right and pair in seen:  # the inverse of a true claim already made
                continue
            if right:
                seen.add(pair)
            if right and {x, y} != set(meta["query_edge"]):  # the conclusion itself is no step
                parent[root(x)] = root(y)
        claims.append(Claim(person, owner, word, verdict))
    head, tail = meta["query_edge"]
    judged = [c for c in claims if c.verdict != "restated"]
    true = sum(c.verdict == "true" for c in judged)
    return ProcessResult(claims, true / len(judged) if judged else None, root(head) == root(tail),
                         next((c for c in judged if c.verdict != "true"), None))


def has_reasoning(reply: str | None, reasoning: str | None = None) -> bool:
    """Whether a reply shows reasoning: a separate reasoning text, a reasoning block, or
    more than one sentence before its end."""
    if reasoning:
        return True
    if not reply:
        return False
    return final_text(reply) != reply or len(SENTENCE_END.findall(reply.strip())) > 1
