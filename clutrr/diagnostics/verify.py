"""Re-derive each CSV row's target from its typed edges and genders under a KB."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from clutrr.io.csv_format import RowParseError, iter_records, parse_row
from clutrr.core.entailment import story_closure
from clutrr.core.kb import GENDERS, KB, bits

VERDICTS = ("entailed", "ambiguous", "wrong", "not_entailed", "unparsable")


@dataclass
class RowVerdict:
    """The verdict on one row, with the answers the KB derives for the query pair."""

    row: int
    verdict: str
    target: str = ""
    derived: list[str] = field(default_factory=list)
    detail: str = ""


def verify_row(kb: KB, rec: dict[str, str]) -> tuple[str, list[str], str]:
    """(verdict, derived answers, detail) for one raw CSV record.

    Facts are the edges that carry a relation word. The answers are the relation words
    derivable for the query pair (the KB's predicates, in the gender of the query's tail).
    """
    try:
        row = parse_row(rec)
        genders = [g for _, g in row.genders]
        facts = []
        for (a, b), word in zip(row.story_edges, row.edge_types):
            pred, g = kb.parse_word(word)
            if GENDERS[g] != genders[b]:
                return "unparsable", [], f"word {word!r} does not fit the gender of {row.genders[b][0]}"
            facts.append((a, pred, b))
        kb.parse_word(row.target)
    except RowParseError as exc:
        return "unparsable", [], str(exc)
    except KeyError as exc:
        return "unparsable", [], f"unknown relation word {exc.args[0]!r}"
    h, t = row.query_edge
    tail_gender = 0 if genders[t] == "male" else 1
    derived = sorted({kb.word(p, tail_gender) for p in bits(story_closure(kb, facts).get((h, t), 0))})
    target = kb.word(*kb.parse_word(row.target))
    if not derived:
        return "not_entailed", derived, ""
    if target not in derived:
        return "wrong", derived, ""
    if len(derived) > 1:
        return "ambiguous", derived, ""
    return "entailed", derived, ""


def verify_file(kb: KB, path: str | Path) -> list[RowVerdict]:
    """Verdicts for every row of a CLUTRR CSV file."""
    out = []
    for i, rec in iter_records(path):
        verdict, derived, detail = verify_row(kb, rec)
        out.append(RowVerdict(i, verdict, rec.get("target", ""), derived, detail))
    return out


def summarize(verdicts: list[RowVerdict]) -> dict[str, int]:
    """Counts per verdict, every verdict present."""
    c = Counter(v.verdict for v in verdicts)
    return {k: c.get(k, 0) for k in VERDICTS}
