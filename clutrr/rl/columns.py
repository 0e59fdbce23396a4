"""Items as table rows for trainers: a chat ``prompt``, the ``answer``, the ``form`` and typed metadata columns.

``to_rows(items)`` gives plain dicts; ``to_hf_dataset(items)`` gives a Hugging Face
``datasets.Dataset`` with fixed column types (:func:`features`), so datasets built from
procedural items and from files, with or without unknown values and of every question form,
concatenate (every form's answer is a string; rewards read it back by the row's ``form``).
TRL's trainers read ``prompt`` and pass every other column to reward functions by name
(:mod:`clutrr.integrations.trl`).
"""
from __future__ import annotations

from collections.abc import Iterable

from clutrr.llm.prompts import build_form_messages
from clutrr.questions.forms import answer_text

META_COLUMNS = ("k", "noise", "pattern", "pattern_heldout", "seed", "source_index", "task_split",
                "people", "facts", "query_edge")


def to_rows(items: Iterable[dict], style: str = "tagged", system_prompt: str | None = None,
            kb: str = "kinship") -> list[dict]:
    """One row per item: ``prompt`` (chat messages of :func:`clutrr.llm.prompts.build_messages`,
    for another question form :func:`clutrr.llm.prompts.build_form_messages`), ``answer`` (as
    text, :func:`clutrr.questions.forms.answer_text`: names joined by ", ", a count in digits),
    ``form``, ``id``, ``question``, ``split``, ``query`` and the metadata fields as columns."""
    rows = []
    for item in items:
        item = {"form": "relation", **item}  # items made before question forms name none
        meta = item["metadata"]
        row = {"prompt": build_form_messages(item, style, kb, system_prompt), "answer": answer_text(item["answer"]),
               "form": item["form"], "id": item["id"], "question": item["question"], "split": item["split"],
               "query": list(item["query"])}
        row.update({name: meta[name] for name in META_COLUMNS})
        rows.append(row)
    return rows


def features():
    """The column types of :func:`to_hf_dataset` (a ``datasets.Features``)."""
    from datasets import Features, List, Value

    text = Value("string")
    return Features({
        "prompt": List({"role": text, "content": text}), "answer": text, "form": text, "id": text, "question": text,
        "split": text, "query": List(text), "k": Value("int64"), "noise": text, "pattern": text,
        "pattern_heldout": Value("bool"), "seed": Value("int64"), "source_index": Value("int64"), "task_split": text,
        "people": List({"name": text, "gender": text}),
        "facts": List({"head": Value("int64"), "relation": text, "tail": Value("int64")}),
        "query_edge": List(Value("int64")),
    })


def to_hf_dataset(items: Iterable[dict], style: str = "tagged", system_prompt: str | None = None,
                  kb: str = "kinship"):
    """A ``datasets.Dataset`` of :func:`to_rows` with the types of :func:`features`.

    Needs the ``datasets`` package (``pip install datasets``).
    """
    try:
        from datasets import Dataset
    except ImportError:
        raise ImportError("to_hf_dataset needs the datasets package: pip install datasets") from None
    return Dataset.from_list(to_rows(items, style, system_prompt, kb), features=features())
