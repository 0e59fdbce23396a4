"""Read and write CLUTRR CSV files in the original schema (ours and the released ones).

Python-literal fields (query, proof_state, story_edges, ...) are written with ``repr`` and
read with ``ast.literal_eval``, as the original generator's files are, through
:func:`clutrr.io.bounded.literal` (bounded in size and depth) and checked for their shape.
"""
from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path
from typing import Callable, Iterator

from clutrr.core.native import mypyc_attr
from clutrr.core.records import StoryRow
from clutrr.io.bounded import literal

COLUMNS = (
    "id", "story", "query", "text_query", "target", "text_target", "clean_story", "proof_state",
    "f_comb", "task_name", "story_edges", "edge_types", "query_edge", "genders", "syn_story",
    "node_mapping", "task_split",
)
# the extra columns of a kinship system's stories (``--kinship``): the kin type of the answer
# person from the person asked about, and the definitions of the story's terms (a list literal)
KINSHIP_COLUMNS = ("kin_type", "glossary")

# the columns a file of another question form than ``relation`` adds (clutrr.questions): the
# form, the question's text, the answer (JSON: a name, a list of names, a count or "yes"/"no"),
# the story people it names (JSON list of indices) and the relation word it asks about; the
# original columns keep the story's chain query and its relation
QUESTION_COLUMNS = ("form", "question", "answer", "form_query", "form_target")

csv.field_size_limit(1 << 24)


def csv_columns(question: str = "relation", kinship: bool = False) -> tuple[str, ...]:
    """The columns (after the index column) of a CSV file whose rows ask ``question`` (the
    original ones for ``relation``), then :data:`KINSHIP_COLUMNS` for a kinship system's rows."""
    asked = COLUMNS if question == "relation" else (*COLUMNS, *QUESTION_COLUMNS)
    return (*asked, *KINSHIP_COLUMNS) if kinship else asked


@mypyc_attr(native_class=False)
class RowParseError(ValueError):
    """A CSV row whose fields cannot be parsed."""


def _literal(text: str, name: str):
    try:
        return literal(text)
    except ValueError as exc:
        raise RowParseError(f"column {name!r} is not a Python literal ({exc}): {text[:60]!r}") from None


def _pairs(value: object, name: str) -> list[tuple[int, int]]:
    """``value`` as a list of (int, int) pairs; RowParseError naming the column otherwise."""
    if not isinstance(value, (list, tuple)) or not all(_is_pair(e) for e in value):
        raise RowParseError(f"column {name!r} is not a list of (int, int) pairs")
    return [tuple(e) for e in value]


def _is_pair(value: object) -> bool:
    return (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(i, int) and not isinstance(i, bool) for i in value))


def _sequence(value: object, name: str) -> list[str]:
    """``value`` as a list of strings; RowParseError naming the column otherwise."""
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise RowParseError(f"column {name!r} is not a list of strings")
    return list(value)


def parse_genders(text: str) -> list[tuple[str, str]]:
    """Parse ``Name:gender,Name:gender``."""
    out = []
    for item in text.split(","):
        name, sep, gender = item.partition(":")
        if not sep or gender not in ("male", "female"):
            raise RowParseError(f"column 'genders' has a bad entry {item!r}")
        out.append((name, gender))
    return out


def parse_row(rec: dict[str, str]) -> StoryRow:
    """Turn a raw CSV record (column name -> text) into a StoryRow."""
    missing = [c for c in COLUMNS if rec.get(c) is None]  # None: the row ends before the column
    if missing:
        raise RowParseError(f"missing columns {missing}")
    query = _sequence(_literal(rec["query"], "query"), "query")
    edges = _pairs(_literal(rec["story_edges"], "story_edges"), "story_edges")
    types = _sequence(_literal(rec["edge_types"], "edge_types"), "edge_types")
    qedge = _pairs([_literal(rec["query_edge"], "query_edge")], "query_edge")[0]
    text_target = _sequence(_literal(rec["text_target"], "text_target"), "text_target") if rec["text_target"] else []
    proof = _literal(rec["proof_state"], "proof_state") if rec["proof_state"] else []
    mapping = _literal(rec["node_mapping"], "node_mapping") if rec["node_mapping"] else {}
    genders = parse_genders(rec["genders"])
    n = len(genders)
    if len(query) != 2 or len(qedge) != 2 or any(not (0 <= i < n) for e in [*edges, qedge] for i in e):
        raise RowParseError("query or edges refer to people missing from 'genders'")
    return StoryRow(
        id=rec["id"], story=rec["story"], query=(query[0], query[1]), target=rec["target"],
        clean_story=rec["clean_story"], proof_state=proof, f_comb=rec["f_comb"],
        task_name=rec["task_name"], story_edges=edges, edge_types=types, query_edge=qedge,
        genders=genders, node_mapping=mapping, task_split=rec["task_split"],
        text_target=list(text_target), text_query=rec.get("text_query", ""), syn_story=rec.get("syn_story", ""),
        kin_type=rec.get("kin_type") or "",
        glossary=list(_literal(rec["glossary"], "glossary")) if rec.get("glossary") else [])


def csv_parts(path: str | Path) -> list[Path]:
    """The files holding CSV ``path``: the file itself or, when it was written in shards
    (``STEM-00000-of-00004.csv`` ...), its shards in order."""
    from clutrr.io.shards import logical_files

    p = Path(path)
    if p.exists() or not p.parent.is_dir():
        return [p]
    return logical_files(p.parent, p.suffix).get(p.name[: -len(p.suffix)] if p.suffix else p.name, [p])


def iter_records(path: str | Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield (row number, raw record) pairs from a CLUTRR CSV file (or all its shards)."""
    i = 0
    for part in csv_parts(path):
        with open(part, newline="", encoding="utf-8") as fh:
            for rec in csv.DictReader(fh):
                yield i, rec
                i += 1


def read_csv(path: str | Path, step: Callable[[], object] | None = None) -> list[StoryRow]:
    """Read every row of a CLUTRR CSV file; raises RowParseError naming the bad row.
    ``step`` is called after each row (a progress bar's update)."""
    rows = []
    for i, rec in iter_records(path):
        try:
            rows.append(parse_row(rec))
        except RowParseError as exc:
            raise RowParseError(f"{path}: row {i}: {exc}") from None
        if step is not None:
            step()
    return rows


def row_fields(row: StoryRow) -> list[str]:
    """The CSV cells of ``row`` in column order, literals written as the original does."""
    return [
        row.id, row.story, repr(tuple(row.query)), row.text_query, row.target, repr(list(row.text_target)),
        row.clean_story, repr(row.proof_state), row.f_comb, row.task_name,
        repr([tuple(e) for e in row.story_edges]), repr(list(row.edge_types)), repr(tuple(row.query_edge)),
        ",".join(f"{n}:{g}" for n, g in row.genders), row.syn_story, repr(row.node_mapping), row.task_split,
    ]


def csv_line(cells: list) -> str:
    """One CSV record, as ``csv.writer(lineterminator="\\n")`` writes it (minimal quoting), but
    also quoting a carriage return, and the same on every Python version."""
    out = []
    for cell in cells:
        text = cell if type(cell) is str else "" if cell is None else str(cell)
        if "," in text or '"' in text or "\n" in text or "\r" in text:
            text = '"' + text.replace('"', '""') + '"'
        out.append(text)
    return ",".join(out) + "\n"


class CsvWriter:
    """Stream StoryRows to a CSV file with the original header and a leading index column."""

    def __init__(self, fh: io.TextIOBase) -> None:
        self._writer = csv.writer(fh, lineterminator="\n")
        self._writer.writerow(["", *COLUMNS])
        self._n = 0

    def write(self, row: StoryRow) -> None:
        """Append one row."""
        self._writer.writerow([self._n, *row_fields(row)])
        self._n += 1

    @property
    def count(self) -> int:
        """Rows written so far."""
        return self._n


def measure_words(paths: list[Path]) -> tuple[Counter, Counter]:
    """(story-edge words, target words) with their counts over CLUTRR CSV files."""
    edges: Counter = Counter()
    targets: Counter = Counter()
    for path in paths:
        for row in read_csv(path):
            edges.update(w for w in row.edge_types if w)
            targets[row.target] += 1
    return edges, targets
