"""The typed record of one story (JSONL line, Parquet row), declared once.

Every field has one type in every file, clean or noisy: ``edges[].noise`` is a string,
``"none"`` for a chain fact and the noise kind (``supporting``, ``irrelevant``,
``disconnected``) for a noise fact. Three views of the same declaration:

- :func:`json_schema` (JSON Schema, draft 2020-12),
- :func:`arrow_schema` (pyarrow, used by the Parquet writer),
- :func:`features` (HuggingFace ``datasets.Features``, for
  ``load_dataset("json", ..., features=features())``).

pyarrow and ``datasets`` are imported only when their view is asked for.
"""
from __future__ import annotations

from typing import Any

# A type is "str", "int", "bool", ["list", TYPE] or {"field": TYPE, ...} (a struct).
Type = Any

NAMED_FACT: Type = ["list", "str"]  # (head name, relation word, tail name)

FIELDS: dict[str, Type] = {
    "id": "str",
    "split": "str",
    "task": "int",
    "k": "int",
    "noise": "str",
    "seed": "int",
    "index": "int",
    "people": ["list", {"name": "str", "gender": "str"}],
    "edges": ["list", {"head": "int", "tail": "int", "relation": "str", "predicate": "str", "noise": "str"}],
    "query": ["list", "int"],
    "target": "str",
    "target_predicate": "str",
    "pattern": "str",
    "pattern_heldout": "bool",
    "proof": ["list", {"goal": NAMED_FACT, "rule": ["list", "str"], "by": ["list", NAMED_FACT]}],
    "story": "str",
    "clean_story": "str",
    "text_target": ["list", "str"],
    "pieces": ["list", {"template": "str", "edges": ["list", "int"]}],
    "target_template": "str",
}

# Records of padded stories (``--context-words``) carry one more field: the text's length in
# words, the depth asked, where the chain's sentences are (word offsets), and the padding's size.
CONTEXT: dict[str, Type] = {
    "words": "int",
    "asked_words": "int",
    "depth": "str",
    "story_words": "int",
    "chain_first_word": "int",
    "chain_last_word": "int",
    "padding_facts": "int",
    "padding_people": "int",
    "padding_families": "int",
}


# Records of stories told in a kinship system's terms (``--kinship``) carry two more: the kin
# type of the answer person from the person asked about, and the definitions of the story's terms.
KINSHIP: dict[str, Type] = {"kin_type": "str", "glossary": ["list", "str"]}


def record_fields(context: bool = False, kinship: bool = False) -> dict[str, Type]:
    """The record's fields: :data:`FIELDS`, ``context`` for padded stories, :data:`KINSHIP`
    for a kinship system's stories."""
    return {**FIELDS, **({"context": CONTEXT} if context else {}), **(KINSHIP if kinship else {})}


def _json(t: Type) -> dict:
    if isinstance(t, str):
        return {"type": {"str": "string", "int": "integer", "bool": "boolean"}[t]}
    if isinstance(t, list):
        return {"type": "array", "items": _json(t[1])}
    return {"type": "object", "properties": {k: _json(v) for k, v in t.items()},
            "required": list(t), "additionalProperties": False}


def json_schema(context: bool = False) -> dict:
    """The record as a JSON Schema (draft 2020-12) object (of a padded story with ``context``)."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "clutrr story",
            **_json(record_fields(context))}


def _arrow(t: Type):
    import pyarrow as pa

    if isinstance(t, str):
        return {"str": pa.string(), "int": pa.int64(), "bool": pa.bool_()}[t]
    if isinstance(t, list):
        return pa.list_(_arrow(t[1]))
    return pa.struct([(k, _arrow(v)) for k, v in t.items()])


def arrow_schema(context: bool = False, kinship: bool = False):
    """The record as a ``pyarrow.Schema`` (Parquet columns; a padded story's with ``context``, a
    kinship system's with ``kinship``)."""
    import pyarrow as pa

    return pa.schema([(name, _arrow(t)) for name, t in record_fields(context, kinship).items()])


def _feature(t: Type):
    from datasets import List, Value

    if isinstance(t, str):
        return Value({"str": "string", "int": "int64", "bool": "bool"}[t])
    if isinstance(t, list):
        return List(_feature(t[1]))
    return {k: _feature(v) for k, v in t.items()}


def features(context: bool = False):
    """The record as HuggingFace ``datasets.Features`` (needs the ``datasets`` package; a padded
    story's with ``context``)."""
    from datasets import Features

    return Features({name: _feature(t) for name, t in record_fields(context).items()})
