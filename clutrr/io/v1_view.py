"""The v1-compatible view of a record: the 14 columns of HuggingFace ``CLUTRR/v1`` with v1's
names, types and meanings, followed by this project's fields under names that do not collide.

v1's columns are made from the row's CLUTRR CSV cells (the same Python literals), except
``target``, which in v1 is the integer label of ``target_text`` in v1's label list
(:data:`V1_LABELS`). This project asks one word v1's list lacks, ``brother-in-law``: it is
label 21 (:data:`LABELS`). Of the record's fields, ``id``, ``story`` and ``clean_story`` mean
what v1's columns of that name mean and appear once; ``query`` (two indices into ``people``)
and ``target`` (the word) would collide and are renamed (:data:`RENAMED`).

Only release Parquet files carry this view (``clutrr release``); ``clutrr generate`` writes
the plain record.
"""
from __future__ import annotations

from clutrr.io.formats import ParquetShard
from clutrr.io.schema import Type, record_fields

V1_LABELS = (
    "aunt", "son-in-law", "grandfather", "brother", "sister", "father", "mother", "grandmother", "uncle",
    "daughter-in-law", "grandson", "granddaughter", "father-in-law", "mother-in-law", "nephew", "son",
    "daughter", "niece", "husband", "wife", "sister-in-law",
)
LABELS = (*V1_LABELS, "brother-in-law")
LABEL_INDEX = {word: i for i, word in enumerate(LABELS)}

V1_FIELDS: dict[str, Type] = {
    "id": "str", "story": "str", "query": "str", "target": "int32", "target_text": "str", "clean_story": "str",
    "proof_state": "str", "f_comb": "str", "task_name": "str", "story_edges": "str", "edge_types": "str",
    "query_edge": "str", "genders": "str", "task_split": "str",
}
SHARED = ("id", "story", "clean_story")
RENAMED = {"query": "query_people", "target": "target_word"}
_FROM_CSV = tuple(c for c in V1_FIELDS if c not in ("target", "target_text"))


def view_fields(context: bool = False, kinship: bool = False, question: str = "relation",
                difficulty: bool = False) -> dict[str, Type]:
    """The view's columns: v1's 14, then the record's fields (renamed where they would collide;
    a kinship system's with ``kinship``, a question form's with ``question``, a ``--difficulty``
    run's with ``difficulty``)."""
    fields = record_fields(context, question=question, kinship=kinship, difficulty=difficulty)
    rest = {RENAMED.get(name, name): t for name, t in fields.items() if name not in SHARED}
    return {**V1_FIELDS, **rest}


def label_index(word: str, labels: dict[str, int] | None = None) -> int:
    """v1's integer label of a relation word, or its index in ``labels`` (a kinship system's terms,
    in its KB's order) when given; ValueError for a word no label stands for."""
    try:
        return (LABEL_INDEX if labels is None else labels)[word]
    except KeyError:
        raise ValueError(f"no {'v1 ' if labels is None else ''}label for the target {word!r}") from None


def view_record(record: dict, cells: dict[str, str], labels: dict[str, int] | None = None) -> dict:
    """A record in the view, its v1 columns made from the row's CSV cells (column -> text); the
    integer ``target`` from ``labels`` when given (see :func:`label_index`)."""
    if cells["id"] != record["id"]:
        raise ValueError(f"the CSV row {cells['id']} is not the record {record['id']}")
    out: dict = {c: cells[c] for c in _FROM_CSV}
    out["target"], out["target_text"] = label_index(cells["target"], labels), cells["target"]
    out = {c: out[c] for c in V1_FIELDS}
    out.update((RENAMED.get(name, name), value) for name, value in record.items() if name not in SHARED)
    return out


def chain_edge_types(record: dict) -> list[str]:
    """The relation words of the chain's facts alone, as the original release typed ``edge_types``
    (noise facts left untyped); the chain's facts come first among ``story_edges``."""
    kinds = [e["noise"] for e in record["edges"]]
    chain = kinds.count("none")
    if kinds[:chain] != ["none"] * chain:
        raise ValueError(f"record {record['id']}: noise facts precede chain facts")
    return [e["relation"] for e in record["edges"][:chain]]


class ViewShard(ParquetShard):
    """A Parquet file of records in the v1-compatible view (row groups as :class:`ParquetShard`)."""

    def schema_for(self, context: bool, kinship: bool = False, difficulty: bool = False):
        """The view's Parquet schema."""
        from clutrr.io.schema import arrow_schema_of

        return arrow_schema_of(view_fields(context, kinship, self._question, difficulty))
