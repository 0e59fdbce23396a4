"""The composer's transfer between kinship systems, through the glossary.

A composer trained on system A's stories knows A's terms only. To answer a story told in system
B's terms it reads the story through the glossaries: each of B's terms, said by a speaker of
the fact's head's sex, is read as the first kin type B's glossary gives it (its focal member,
such as ``F`` for the Hawaiian *father*), and that kin type is named with A's term; a term whose
kin types A names none of becomes an untyped fact. The composer answers in A's terms, and the
answer goes back to B's terms the same way (the speaker is the person asked about). A story is
right when that term is B's label.

Where two systems group kin types differently the reading loses what one system tells apart
(an Eskimo *cousin* read in Sudanese terms is the father's brother's son, whatever cousin it
was), so transfer accuracy measures how much of A's composition carries over to B's terms.
"""
from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from clutrr.baselines.data import LabelVocab, Story, parse_task, tokenize
from clutrr.baselines.registry import Model, predict_chunked
from clutrr.core.records import StoryRow
from clutrr.io.csv_format import read_csv
from clutrr.io.shards import logical_files
from clutrr.kinship.terminology import SPEAKERS, Terminology

def term_map(source: Terminology, target: Terminology) -> dict[tuple[str, str], str | None]:
    """``{(speaker, source term): target term}``: the target's term for the first of the source
    term's kin types (for that speaker) that the target names; None when it names none."""
    table = target.table()
    out: dict[tuple[str, str], str | None] = {}
    for term in source.terms:
        for speaker in SPEAKERS:
            named = (table.get((speaker, kt.letters)) for kt in source.kin_types(term, speaker))
            out[(speaker, term)] = next((t for t in named if t is not None), None)
    return out


def _translated(row: StoryRow, k: int, labels: LabelVocab, reading: dict[tuple[str, str], str | None]) -> tuple[Story, int, int]:
    """The row as a story in ``labels``' terms (label unset), its facts read through ``reading``;
    also how many facts had no term and how many facts it states."""
    sexes = [sex for _, sex in row.genders]
    people = [name for name, _ in row.genders]
    types, lost = [], 0
    for (u, _), word in zip(row.story_edges, row.edge_types):
        term = reading.get((sexes[u], word))
        if term is None or term not in labels.words:
            types.append(labels.unknown_relation)
            lost += 1
        else:
            types.append(labels.words.index(term))
    types += [labels.unknown_relation] * (len(row.story_edges) - len(types))
    tokens, slots = tokenize(row.story, people)
    story = Story(id=row.id, label=0, k=k, people=people, edges=[tuple(e) for e in row.story_edges],
                  edge_types=types, query=tuple(row.query_edge), tokens=tokens, slots=slots, sexes=tuple(sexes))
    return story, lost, len(row.story_edges)


def transfer_scores(model: Model, train_system: Terminology, test_system: Terminology,
                    folder: str | Path) -> dict[str, dict]:
    """Accuracy by k of ``model`` (trained on ``train_system``'s stories) on the test files of
    ``folder`` (told in ``test_system``'s terms), read through both glossaries; also the share
    of facts that had no term in the training system."""
    forward = term_map(test_system, train_system)
    back = term_map(train_system, test_system)
    rows, stories, lost, facts = [], [], 0, 0
    for stem in logical_files(Path(folder), ".csv"):
        if stem.endswith("_test"):
            _, _, k = parse_task(f"{stem}.csv")
            for row in read_csv(Path(folder) / f"{stem}.csv"):
                story, missing, stated = _translated(row, k, model.labels, forward)
                rows.append((k, row))
                stories.append(story)
                lost += missing
                facts += stated
    probs = predict_chunked(model, stories)
    right: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for (k, row), p in zip(rows, probs):
        answer = model.labels.words[int(p.argmax())]
        said = back.get((row.genders[row.query_edge[0]][1], answer))
        right[k][0] += said == row.target
        right[k][1] += 1
    return {"by_k": {str(k): {"accuracy": round(c / n, 4), "n": n} for k, (c, n) in sorted(right.items())},
            "untyped_facts": round(lost / facts, 4) if facts else 0.0}
