"""One-fact sentences for a terminology's terms: the template bank its stories are told with.

The built-in banks are written for the English words; a terminology's terms get the plain
sentences of the ``synthetic`` bank ("{B} is {A}'s <term>."), five forms per term, written
as a bank file beside the compiled KB.
"""
from __future__ import annotations

import yaml

from clutrr.kinship.terminology import Terminology

FORMS = ("{B} is {A}'s %s.", "{A}'s %s is {B}.", "One %s of {A} is {B}.", "{B} is the %s of {A}.",
         "The %s of {A} is {B}.")


def bank_text(terminology: Terminology) -> str:
    """The bank file's YAML text: for each term, its five sentence forms (any gender of {A}); the
    clause is a list, so a hyphenated term stays one word."""
    blocks = [{"clause": [term], "any": [form % term for form in FORMS]} for term in terminology.terms]
    return (f"# One-fact sentences for the terms of {terminology.name} (written by clutrr.kinship).\n"
            + yaml.safe_dump(blocks, sort_keys=False, width=120, allow_unicode=True))
