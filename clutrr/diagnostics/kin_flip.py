"""A kinship system's terms under a gender swap: every person's sex flipped, ego's included.

Flipping every sex turns a kin type into its mirror (F and M, B and Z, S and D, H and W swap)
and a man speaking into a woman speaking. A term's counterpart is the term whose kin types, for
the other speaker, are exactly the mirrored ones (the Eskimo *uncle* and *aunt*, the Hawaiian
*father* and *mother*, the Sudanese *amm* and *khala*). A term has none when the system is not
symmetric in sex there (Crow and Omaha skew along one line); a story using it has no swap.
"""
from __future__ import annotations

from functools import lru_cache

from clutrr.core.kb import KB, KBError
from clutrr.kinship.terminology import SPEAKERS, Terminology, load_terminology

MIRROR = str.maketrans("FMBZSDHW", "MFZBDSWH")


def counterparts(terminology: Terminology) -> dict[str, str]:
    """Each term that has a counterpart under the swap -> that counterpart (an involution)."""
    other = dict(zip(SPEAKERS, reversed(SPEAKERS)))
    spans = {(t, s): frozenset(kt.letters for kt in terminology.kin_types(t, s))
             for t in terminology.terms for s in SPEAKERS}
    out = {}
    for term in terminology.terms:
        found = set()
        for speaker in SPEAKERS:
            if spans[(term, speaker)]:
                mirrored = frozenset(k.translate(MIRROR) for k in spans[(term, speaker)])
                found.add(next((t for t in terminology.terms if spans[(t, other[speaker])] == mirrored), None))
        if len(found) == 1 and None not in found:
            out[term] = found.pop()
    return out


@lru_cache(maxsize=16)
def _of_system(system: str) -> tuple[tuple[str, str], ...]:
    try:
        return tuple(counterparts(load_terminology(system)).items())
    except KBError:  # a terminology file this installation does not ship: nothing is known to flip
        return ()


def kb_counterparts(kb: KB) -> dict[str, str]:
    """The counterparts of a KB compiled from a built-in kinship system (empty for another)."""
    return dict(_of_system(kb.system)) if kb.system else {}
