"""Rule 7 by meaning: what a sentence says about when things happen in a life.

The world model knows who is whose relative and nothing else: no ages, no birth order, no
wedding dates. A sentence that puts a person at an age, in childhood or at the time of a
wedding can clash with another sentence of the same story (a toddler grandson whose brother
is married; a couple marrying while their children are married, which reads as a
step-family). The checks below do not look for set phrases: each names a *kind of meaning*
and the word classes that carry it, so a new template saying the same thing in new words
("was nine when", "half that age", "had just been married", "her brand-new husband") is
caught by the class, not by a list of sentences.

- an age: the noun *age* ("at the age of", "half that age", "toddling age") and a number
  standing where an age stands (after *is, was, turned*, a number past twelve after *at*,
  before *when* or the end of its phrase);
- childhood: the stages of a life before adulthood (toddler, baby sister, teenager, little
  brother), a child's milestones (learned to walk, first steps, first day of school), a
  child's school (school play, homework, primary school, "walked to school") and the care
  of a child (babysat, nappies, bedtime), a birth (gave birth, was born, became a
  mother) a child's trade (a lemonade stand), crayons, a science fair, a summer camp and a prom;
- the time of a wedding: a wedding told as recent or about to be ("had just been married",
  "newlyweds", "honeymoon", "engaged", "her brand-new husband", "husband and wife at last")
  or placed in time ("married last spring", "became his wife in April", "since the
  wedding");
- a household without a spouse ("lives alone", "unmarried"), which a story may contradict;
- twins, a relation the world model cannot check (it has no birth dates).

Each is flagged under rule 7 with kind ``world`` and dropped.
"""
from __future__ import annotations

import re

from clutrr.render.statements import Flag, pattern_flags

_KIN = (r"(?:son|daughter|child|kid|brother|sister|sibling|grandson|granddaughter|grandchild|nephew|niece"
        r"|girl|boy|one)s?")
_NUMBER = (r"(?:\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
           r"|sixteen|seventeen|eighteen|nineteen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
           r"(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|a hundred)")
_LIFE_NUMBER = (r"(?:thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
                r"|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-[a-z]+)?)")  # "at fourteen": no clock time
_AFTER_AGE = r"(?=\s*(?:[,;:.!?)]|$|when\b|and a half\b|or so\b|by then\b|at the time\b|then\b))"
_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
          r"|spring|summer|autumn|fall|winter|year|month|week|weekend|monday|tuesday|wednesday|thursday|friday"
          r"|saturday|sunday)")
_WEDDING = r"(?:married|marry|marries|wed|weds|wedded|wedding|marriage)"
_SPOUSE = r"(?:husband|wife|bride|groom|spouse)"
_IN_LAW = r"(?:son|daughter|father|mother|brother|sister)-in-law"
_CHILD_SCHOOL = (r"play|plays|nativity|concert|fair|fête|report|reports|project|photographs?|photos?|run|uniform"
                 r"|jumper|tie|blazers?|bus|trips?|holidays?|sports day|essay|disco|dance|prom|talent shows?"
                 r"|pantomime|opera|debate team|science prize|costume|gates?|friends?|assembly")

MEANINGS: list[tuple[str, re.Pattern]] = [
    ("an age", re.compile(
        r"\bage\b(?<!stone age)(?<!iron age)(?<!bronze age)(?<!ice age)(?<!golden age)"
        rf"|\b(?:is|was|were|turned|turns|turning|being|be|aged?) (?:only |just |nearly |almost |barely |about )?"
        rf"{_NUMBER}{_AFTER_AGE}"
        rf"|\bat {_LIFE_NUMBER}{_AFTER_AGE}", re.I)),
    ("childhood", re.compile(
        r"\b(?:toddlers?|toddling|toddlerhood|infants?|infancy|newborns?|teen|teens|teenagers?|teenage"
        r"|adolescents?|adolescence|youngsters?|schoolboys?|schoolgirls?|schoolchildren|preschool(?:er)?s?"
        r"|kindergarten|playground|homework|lunchbox(?:es)?|half-term|nappies|nappy|diapers?|potty|cribs?"
        r"|lullab(?:y|ies)|babysat|babysit(?:s|ting|ter|ters)?|baby-sit(?:s|ting|ter)?|bedtime|cot card)\b"
        rf"|\b(?:baby|little|tiny|kid|toddler|infant) {_KIN}\b|\ba baby called\b|\bspelling bees?\b"
        r"|\bstabilisers\b|\btraining wheels\b"
        r"|\blearn(?:ed|t|s|ing)? to (?:walk|talk|crawl|read|ride a (?:bike|bicycle))\b"
        r"|\bfirst (?:steps|tooth|word|words)\b|\bfirst day (?:of|at) school\b"
        rf"|\b(?:to|from|after|before) school\b|\bschool (?:{_CHILD_SCHOOL})\b(?! by\b)"
        r"|\b(?:primary|elementary|secondary|middle|high|junior|infant|nursery|boarding) school\b"
        r"|\b(?:gave|given|giving|give) birth\b|\b(?:was|were) born\b"
        r"|\bbirth of (?:a |an |the |their |his |her )?(?:baby|son|daughter|child|twins|X)\b"
        r"|\bbecame (?:a )?(?:mother|father|mum|dad|parents?)\b"
        r"|\bnew (?:baby|babies|mother|father|parents)\b|\bbaby shower\b|\bfirstborn\b|\bmaternity ward\b"
        r"|\blemonade (?:stands?|stalls?)\b|\bcrayons?\b|\bscience fairs?\b|\bprom\b"
        r"|\b(?:summer|scout|skate|holiday|football) camp\b", re.I)),
    ("a household without a spouse", re.compile(
        r"\b(?:lives|lived|living|live) alone\b|\bunmarried\b|\bbachelor\b|\bspinster\b", re.I)),
    ("the time of a wedding", re.compile(
        rf"\b(?:just|recently|newly|freshly) (?:been |got |gotten |become |being )?(?:{_WEDDING}|engaged)\b"
        rf"|\b(?:new|brand-new|brand new|newlywed|newly-wed) (?:{_SPOUSE}|{_IN_LAW})s?\b"
        r"|\bnewly-?weds?\b|\bhoneymoon(?:s|ed|ing)?\b|\bengaged\b|\bengagement\b|\bfianc[eé]e?s?\b"
        r"|\b(?:bride|groom)-to-be\b|\bproposed\b|\bproposal\b"
        rf"|\b(?:married|wed|husband and wife|wife and husband|man and wife)\b[^.;!?]{{0,20}}\b(?:at last|finally)\b"
        rf"|\bfinally (?:got )?(?:married|wed)\b"
        rf"|\b(?:{_WEDDING}|became [^.;!?]{{0,25}}\b{_SPOUSE})\b[^.;!?]{{0,40}}\b(?:in|last|this|next|one)"
        rf" {_MONTH}\b"
        rf"|\b(?:{_WEDDING})\b[^.;!?]{{0,30}}\b(?:ago|yesterday|today|tomorrow|soon)\b"
        rf"|\b(?:after|since|before|until|till) (?:the|their|his|her|X's|a) (?:wedding|marriage|honeymoon)\b"
        rf"|\b(?:shortly|soon|just|right|days|weeks|months) (?:after|before)\b[^.;!?]{{0,50}}\b(?:{_WEDDING})\b"
        rf"|\bbecame (?:X's |his |her |their )?(?:{_SPOUSE}|{_IN_LAW})\b", re.I)),
    ("twins", re.compile(r"\btwins?\b(?! ?-?(?:beds?|engines?|peaks|towers|cit(?:y|ies)|tubs?|sets?))", re.I)),
]


def meaning_flags(text: str) -> list[Flag]:
    """Rule 7 by meaning: an age, childhood, the time of a wedding or twins (one flag per kind)."""
    plain = re.sub(r"\{[A-D]\.([^{}|]*)(?:\|[^{}]*)?\}", r"\1", text)  # a slot read as its first form
    plain = re.sub(r"\{[A-D]\}", "X", plain)
    plain = re.sub(r"ENT_\d+_(?:male|female)", "X", plain)
    return pattern_flags(plain, [(pattern, what) for what, pattern in MEANINGS])
