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

# A type is "str", "int", "int32", "bool", ["list", TYPE] or {"field": TYPE, ...} (a struct); "int"
# is a 64-bit integer, "int32" a 32-bit one (the label index of the v1-compatible view).
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

# Records of stories asking another question form than ``relation`` (``--question``, see
# clutrr.questions) carry three more fields; ``query`` and ``target`` are then the question's
# people and relation word. The answer's type is the form's; a file of mixed forms holds, in
# Parquet and HuggingFace features, a struct with one member per form, the row's own form set.
ANSWER: dict[str, Type] = {"relation": "str", "person": "str", "people": ["list", "str"], "count": "int",
                           "yesno": "str"}


# Records of runs with ``--difficulty`` carry one more field (clutrr.core.difficulty): the story's
# facts, its distractor facts with an end on the chain, and the simple paths of at most
# ``path_max_length`` (k + 2) facts between the query's people, counted up to 10,000 paths or
# 200,000 search steps (``paths_capped``: the count stopped there, a lower bound).
DIFFICULTY: dict[str, Type] = {"facts": "int", "distractors_touching_chain": "int", "paths": "int",
                               "path_max_length": "int", "paths_capped": "bool"}


def answer_type(question: str) -> Type:
    """The type of ``answer`` in rows asking ``question`` (``mixed``: ``["union", ANSWER]``)."""
    return ["union", ANSWER] if question == "mixed" else ANSWER[question]


def record_fields(context: bool = False, question: str = "relation", kinship: bool = False,
                  difficulty: bool = False) -> dict[str, Type]:
    """The record's fields: :data:`FIELDS`, the question's for a form other than ``relation``,
    ``context`` for padded stories, :data:`KINSHIP` for a kinship system's stories and
    :data:`DIFFICULTY` with ``difficulty``."""
    out = dict(FIELDS)
    if question != "relation":
        out.update({"form": "str", "question": "str", "answer": answer_type(question)})
    if context:
        out["context"] = CONTEXT
    if kinship:
        out.update(KINSHIP)
    if difficulty:
        out["difficulty"] = DIFFICULTY
    return out


def arrow_record(record: dict, question: str = "relation") -> dict:
    """The record as a Parquet row of a file asking ``question``: in a mixed file the answer
    goes in its form's member of the answer struct (a record read back from Parquet is kept)."""
    if question != "mixed" or isinstance(record["answer"], dict):
        return record
    return {**record, "answer": {record["form"]: record["answer"]}}


def _json(t: Type) -> dict:
    if isinstance(t, str):
        return {"type": {"str": "string", "int": "integer", "int32": "integer", "bool": "boolean"}[t]}
    if isinstance(t, list) and t[0] == "union":
        return {"anyOf": [_json(v) for v in {repr(v): v for v in t[1].values()}.values()]}
    if isinstance(t, list):
        return {"type": "array", "items": _json(t[1])}
    return {"type": "object", "properties": {k: _json(v) for k, v in t.items()},
            "required": list(t), "additionalProperties": False}


def json_schema(context: bool = False, question: str = "relation") -> dict:
    """The record as a JSON Schema (draft 2020-12) object (of a padded story with ``context``,
    of a row asking ``question``)."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "clutrr story",
            **_json(record_fields(context, question))}


def _arrow(t: Type):
    import pyarrow as pa

    if isinstance(t, str):
        return {"str": pa.string(), "int": pa.int64(), "int32": pa.int32(), "bool": pa.bool_()}[t]
    if isinstance(t, list) and t[0] == "union":
        return _arrow(t[1])
    if isinstance(t, list):
        return pa.list_(_arrow(t[1]))
    return pa.struct([(k, _arrow(v)) for k, v in t.items()])


def arrow_schema(context: bool = False, question: str = "relation", kinship: bool = False,
                 difficulty: bool = False):
    """The record as a ``pyarrow.Schema`` (Parquet columns; a padded story's with ``context``,
    a row's asking ``question``, a kinship system's with ``kinship``)."""
    return arrow_schema_of(record_fields(context, question, kinship, difficulty))


def arrow_schema_of(fields: dict[str, Type]):
    """Declared fields (name -> type) as a ``pyarrow.Schema``."""
    import pyarrow as pa

    return pa.schema([(name, _arrow(t)) for name, t in fields.items()])


def _feature(t: Type):
    from datasets import List, Value

    if isinstance(t, str):
        return Value({"str": "string", "int": "int64", "int32": "int32", "bool": "bool"}[t])
    if isinstance(t, list) and t[0] == "union":
        return _feature(t[1])
    if isinstance(t, list):
        return List(_feature(t[1]))
    return {k: _feature(v) for k, v in t.items()}


def features(context: bool = False, question: str = "relation"):
    """The record as HuggingFace ``datasets.Features`` (needs the ``datasets`` package; a padded
    story's with ``context``, a row's asking ``question``)."""
    return features_of(record_fields(context, question))


def features_of(fields: dict[str, Type]):
    """Declared fields (name -> type) as HuggingFace ``datasets.Features``."""
    from datasets import Features

    return Features({name: _feature(t) for name, t in fields.items()})
