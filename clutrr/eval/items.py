"""Items: one question as plain JSON data, the same for dataset files and procedural datasets.

An item is a dict of str, int, bool, None, lists and dicts only (``json.dumps`` takes it)::

    id        the row id
    form      the question form (docs/questions.md): relation, person, people, count or yesno
    question  the story (brackets removed) and "How is TAIL related to HEAD?" (between them, for
              a story in a kinship system's terms, the definitions of its terms); for another
              form, the story and its question ("Who is X's aunt?")
    answer    the relation word: what TAIL is to HEAD; for another form its typed answer: a
              name (person), a list of names (people), an int (count), "yes" or "no" (yesno)
    story     the story as stored (names in [brackets])
    query     [HEAD, TAIL]; for another form the names its question asks about ([X] or [X, Y])
    split     the file stem (e.g. "1.4_test") for file items; "train"/"test" for procedural ones
    metadata  source_dataset ("clutrr"), source_index (position in the file or dataset),
              seed, k, noise, task_split, pattern, pattern_heldout (None when unknown),
              people ([{name, gender}]), facts ([{head, relation, tail}]: people indices and
              the relation word, None where a file gives none, "tail is head's relation";
              chain facts first), query_edge ([head, tail] indices)

Every item has the same keys, and the items of one form the same value types, so items of
procedural datasets and of files go into one Arrow table (``datasets.Dataset.from_list``) and
concatenate; :func:`clutrr.rl.to_hf_dataset` gives every form's answer as text, for one table
of several forms. ``metadata`` always describes the story's chain (its ``query_edge`` is the
chain's pair, whatever the form asks).
"""
from __future__ import annotations

from clutrr.io.csv_format import StoryRow
from clutrr.llm.prompts import form_question_text, question_text
from clutrr.questions.forms import RELATION


def make_item(row: StoryRow, *, split: str, noise: str, index: int | None = None, seed: int | None = None,
              pattern_heldout: bool | None = None, glossary: bool = True, asked: dict | None = None) -> dict:
    """The item of a CSV row (see the module docstring for its fields); the question of a
    kinship system's row holds its glossary unless ``glossary`` is False. ``asked`` is the
    row's record when it asks a question form (its ``form``, ``question``, ``answer`` and
    ``query``, story indices): the item then asks that question."""
    item = _relation_item(row, split, noise, index, seed, pattern_heldout, glossary)
    if asked is not None and asked["form"] != RELATION:
        names = [name for name, _ in row.genders]
        item.update(form=asked["form"], question=form_question_text(row.story, asked["question"]),
                    answer=asked["answer"], query=[names[i] for i in asked["query"]])
    return item


def _relation_item(row: StoryRow, split: str, noise: str, index: int | None, seed: int | None,
                   pattern_heldout: bool | None, glossary: bool) -> dict:
    head, tail = row.query
    types = list(row.edge_types)
    facts = [{"head": int(a), "relation": types[i] if i < len(types) else None, "tail": int(b)}
             for i, (a, b) in enumerate(row.story_edges)]
    return {
        "id": row.id,
        "form": RELATION,
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
