"""Pronoun and gendered-word slots of template text (``{A.his}``, ``{B.son|daughter}``): their
male and female forms, and the error for a slot that cannot be rendered."""
from __future__ import annotations

PRONOUN_FORMS = {  # slot name -> (male, female)
    "he": ("he", "she"), "she": ("he", "she"),
    "him": ("him", "her"),
    "his": ("his", "her"),
    "hers": ("his", "hers"),
    "himself": ("himself", "herself"), "herself": ("himself", "herself"),
}


class SlotError(ValueError):
    """A template slot that cannot be rendered; the message names the slot."""


def slot_forms(name: str) -> tuple[str, str]:
    """(male, female) text of a slot name such as ``his``, ``He`` or ``son|daughter``.

    Raises SlotError for an unknown pronoun, ``her``, or a malformed gendered pair.
    """
    if "|" in name:
        forms = name.split("|")
        if len(forms) != 2 or not all(f.strip() for f in forms):
            raise SlotError(f"{{X.{name}}}: a gendered word needs exactly two forms, male|female")
        return forms[0], forms[1]
    key = name.lower()
    if key == "her":
        raise SlotError("{X.her} is ambiguous: write {X.him} (object) or {X.his} (determiner)")
    if key not in PRONOUN_FORMS:
        raise SlotError(f"{{X.{name}}}: unknown slot (pronouns: {', '.join(sorted(PRONOUN_FORMS))}; or male|female)")
    male, female = PRONOUN_FORMS[key]
    if name[:1].isupper():
        male, female = male.capitalize(), female.capitalize()
    return male, female
