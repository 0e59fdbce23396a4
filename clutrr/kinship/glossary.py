"""Plain-English definitions of a terminology's terms, written from their kin types.

"X's father is X's father, X's father's brother or X's mother's brother." A reader (or a
language model) told these can answer in the system's terms without knowing the system.
"""
from __future__ import annotations

from clutrr.kinship.terminology import KinType, Terminology

WORDS = dict(zip("FMBZSDHW", ("father", "mother", "brother", "sister", "son", "daughter", "husband", "wife")))
SPEAKING = {"male": " (when X is a man)", "female": " (when X is a woman)"}


def kin_type_phrase(kt: KinType) -> str:
    """``ms FBS`` -> "X's father's brother's son (when X is a man)"."""
    return "X's " + "'s ".join(WORDS[c] for c in kt.letters) + SPEAKING.get(kt.speaker or "", "")


def definition(terminology: Terminology, term: str) -> str:
    """One sentence defining ``term`` by every kin type it covers."""
    phrases = [kin_type_phrase(kt) for kt in terminology.terms[term]]
    listed = phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} or {phrases[-1]}"
    return f"X's {term} is {listed}."


def glossary(terminology: Terminology) -> dict[str, str]:
    """Every term's definition, in file order."""
    return {term: definition(terminology, term) for term in terminology.terms}
