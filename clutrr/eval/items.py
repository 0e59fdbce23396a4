"""Items: one question as plain JSON data, the same for dataset files and procedural datasets.

An item is a dict of str, int, bool, None, lists and dicts only (``json.dumps`` takes it)::

    id        the row id
    question  the story (brackets removed) and "How is TAIL related to HEAD?" (between them, for
              a story in a kinship system's terms, the definitions of its terms)
    answer    the relation word: what TAIL is to HEAD
    story     the story as stored (names in [brackets])
    query     [HEAD, TAIL]
    split     the file stem (e.g. "1.4_test") for file items; "train"/"test" for procedural ones
    metadata  source_dataset ("clutrr"), source_index (position in the file or dataset),
              seed, k, noise, task_split, pattern, pattern_heldout (None when unknown),
              people ([{name, gender}]), facts ([{head, relation, tail}]: people indices and
              the relation word, None where a file gives none, "tail is head's relation";
              chain facts first), query_edge ([head, tail] indices)

Every item has the same keys and value types, so items of procedural datasets and of
files go into one Arrow table (``datasets.Dataset.from_list``) and concatenate.
"""
from __future__ import annotations

from clutrr.io.csv_format import StoryRow
from clutrr.llm.prompts import question_text


def make_item(row: StoryRow, *, split: str, noise: str, index: int | None = None, seed: int | None = None,
              pattern_heldout: bool | None = None, glossary: bool = True) -> dict:
    """The item of a CSV row (see the module docstring for its fields); the question of a
    kinship system's row holds its glossary unless ``glossary`` is False."""
    head, tail = row.query
    types = list(row.edge_types)
    facts = [{"head": int(a), "relation": types[i] if i < len(types) else None, "tail": int(b)}
             for i, (a, b) in enumerate(row.story_edges)]
    return {
        "id": row.id,
        "question": question_text(row.story, head, tail, row.glossary if glossary else ()),
        "answer": row.target,
        "story": row.story,
        "query": [head, tail],
        "split": split,
        "metadata": {
            "source_dataset": "clutrr", "source_index": index, "seed": seed,
            "k": row.k, "noise": noise, "task_split": row.task_split,
            "pattern": row.f_comb, "pattern_heldout": pattern_heldout,
            "people": [{"name": name, "gender": gender} for name, gender in row.genders],
            "facts": facts, "query_edge": [int(i) for i in row.query_edge],
        },
    }
