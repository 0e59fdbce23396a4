"""Re-derive each CSV row's target from its typed edges and genders under a KB, and a row's
answer to its question of another form (``--question``) from the same facts."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from clutrr.core.entailment import story_closure
from clutrr.core.kb import GENDERS, KB, bits
from clutrr.io.csv_format import COLUMNS, StoryRow, iter_records, parse_row
from clutrr.questions.proofs import Unproved, closure_of, prove

VERDICTS = ("entailed", "ambiguous", "wrong", "not_entailed", "unparsable")


@dataclass
class RowVerdict:
    """The verdict on one row, with the answers the KB derives for the query pair."""

    row: int
    verdict: str
    target: str = ""
    derived: list[str] = field(default_factory=list)
    detail: str = ""


def row_facts(kb: KB, row: StoryRow) -> list[tuple[int, int, int]]:
    """The row's facts ``(a, predicate, b)``: its edges that carry a relation word.

    Raises KeyError for a word the KB does not know, ValueError for a word that does not
    fit the gender of the person it names.
    """
    genders = [g for _, g in row.genders]
    facts = []
    for (a, b), word in zip(row.story_edges, row.edge_types):
        pred = kb.parse_word(word)[0]
        if genders[a] in GENDERS:
            pred = kb.fact_predicate(word, GENDERS.index(genders[a]))
        if genders[b] not in GENDERS or kb.word(pred, GENDERS.index(genders[b])) != kb.word(*kb.parse_word(word)):
            raise ValueError(f"word {word!r} does not fit the gender of {row.genders[b][0]}")
        facts.append((a, pred, b))
    return facts


def query_predicates(kb: KB, row: StoryRow) -> list[int]:
    """The predicates the KB derives from the row's facts for its query pair (lowest first)."""
    h, t = row.query_edge
    return bits(story_closure(kb, row_facts(kb, row)).get((h, t), 0))


def verify_row(kb: KB, rec: dict[str, str]) -> tuple[str, list[str], str]:
    """(verdict, derived answers, detail) for one raw CSV record.

    Facts are the edges that carry a relation word. The answers are the relation words
    derivable for the query pair (the KB's predicates, in the gender of the query's tail).
    """
    try:
        row = parse_row(rec)
        preds = query_predicates(kb, row)
        target = kb.word(*kb.parse_word(row.target))
    except KeyError as exc:
        return "unparsable", [], f"unknown relation word {exc.args[0]!r}"
    except ValueError as exc:
        return "unparsable", [], str(exc)
    tail_gender = GENDERS.index(row.genders[row.query_edge[1]][1])
    derived = sorted({kb.word(p, tail_gender) for p in preds})
    if not derived:
        return "not_entailed", derived, ""
    if target not in derived:
        return "wrong", derived, ""
    if len(derived) > 1:
        return "ambiguous", derived, ""
    if rec.get("form", "relation") not in ("relation", None):
        return verify_question(kb, row, rec)
    return "entailed", derived, ""


def verify_question(kb: KB, row: StoryRow, rec: dict[str, str]) -> tuple[str, list[str], str]:
    """(verdict, [the answer the facts prove], detail) for the question of a row of another form
    than ``relation`` (columns ``form``, ``answer``, ``form_query``, ``form_target``)."""
    names = [n for n, _ in row.genders]
    try:
        form, query, word = rec["form"], tuple(json.loads(rec["form_query"])), rec["form_target"]
        answer = json.loads(rec["answer"])
        if not query or any(not (isinstance(i, int) and 0 <= i < len(names)) for i in query):
            raise ValueError("form_query refers to people missing from 'genders'")
        genders = [GENDERS.index(g) for _, g in row.genders]
        proved = prove(kb, closure_of(kb, row_facts(kb, row)), genders, names, form, query, word)
    except Unproved as exc:
        return "not_entailed", [], f"{rec['form']} question: {exc}"
    except KeyError as exc:
        return "unparsable", [], f"unknown relation word {exc.args[0]!r}"
    except (ValueError, TypeError, IndexError) as exc:
        return "unparsable", [], f"question columns: {exc}"
    shown = [json.dumps(proved, ensure_ascii=False)]
    if form == "people" and isinstance(answer, list):  # a set: any order
        answer, proved = sorted(map(str, answer)), sorted(proved)
    if answer != proved:
        return "wrong", shown, f"{form} question answered {rec['answer']}"
    return "entailed", shown, ""


def verify_file(kb: KB, path: str | Path, step: Callable[[], object] | None = None) -> list[RowVerdict]:
    """Verdicts for every row of a CLUTRR CSV file, a row cut short included (unparsable).

    ``step`` is called after each row (a progress bar's update).
    """
    out = []
    for i, rec in iter_records(path):
        short = [c for c in COLUMNS if rec.get(c) is None]
        if short or None in rec:
            detail = (f"the row ends early (no {', '.join(short)}); is the file truncated?" if short
                      else "the row has more fields than the header")
            out.append(RowVerdict(i, "unparsable", rec.get("target") or "", [], detail))
        else:
            verdict, derived, detail = verify_row(kb, rec)
            out.append(RowVerdict(i, verdict, rec.get("target", ""), derived, detail))
        if step is not None:
            step()
    return out


def summarize(verdicts: list[RowVerdict]) -> dict[str, int]:
    """Counts per verdict, every verdict present."""
    c = Counter(v.verdict for v in verdicts)
    return {k: c.get(k, 0) for k in VERDICTS}
