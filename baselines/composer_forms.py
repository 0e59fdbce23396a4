"""The composer answers every question form (docs/questions.md) from a story's facts.

For a question about X, the composer derives X's relation to every other story person it can
reach along a path of stated facts (the most likely word of its distribution over the paths,
as for the original query); a person no path reaches gets none. Those derived relations give
the sets: X's aunts are the people whose derived word is "aunt", "who is X's aunt?" names the
likeliest of them, "how many" counts them, and "is Y X's nephew?" is yes when Y's derived word
is "nephew". The answers are written as replies ``clutrr eval --predictions`` reads.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import torch

from clutrr.baselines.composer import Composer, group_paths, story_mass
from clutrr.baselines.data import Story, story_from_row
from clutrr.eval.data import split_name
from clutrr.eval.forms import form_records
from clutrr.io.datadir import read_split, split_paths


def derived(model: Composer, story: Story, head: int) -> dict[int, tuple[int, float]]:
    """Person -> (the word index the composer derives for them from ``head``, that word's
    probability), for every story person some path of facts reaches from ``head``."""
    if model.table is None:
        raise RuntimeError("the composer has not been fitted or loaded")
    pairs = [replace(story, query=(head, b)) for b in range(len(story.people)) if b != head]
    groups = group_paths(pairs, model.labels, model.config)
    with torch.no_grad():
        mass = story_mass(model.table, groups, len(pairs), model.config.chunk)
    out = {}
    for pair, m in zip(pairs, mass):
        total = float(m.sum())
        if total > 0:
            word = int(m.argmax())
            out[pair.query[1]] = (word, float(m[word]) / total)
    return out


def form_reply(model: Composer, story: Story, record: dict) -> str:
    """The composer's reply to the question of ``record`` (a JSONL row of a form folder) about ``story``."""
    form, query = record["form"], record["query"]
    words = model.labels.words
    found = derived(model, story, query[0])
    if form in ("relation", "yesno"):
        word = found.get(query[1], (None, 0.0))[0]
        if form == "relation":
            return words[word] if word is not None else "unknown"
        return "yes" if word is not None and words[word] == record["target"] else "no"
    target = model.labels.index(record["target"])
    held = sorted((b for b, (w, _) in found.items() if w == target), key=lambda b: (-found[b][1], b))
    if form == "count":
        return str(len(held))
    if form == "person":
        return story.people[held[0]] if held else "nobody"
    return ", ".join(story.people[b] for b in sorted(held)) or "none"


def form_predictions(model: Composer, folder: str | Path) -> list[dict]:
    """Prediction records (``id``, ``split``, ``prediction``) for every test question of a form folder."""
    records = {(split, rec["id"]): rec for split, rec in form_records(Path(folder))}
    out = []
    for path in split_paths(folder):
        name = split_name(path.stem)
        if name.endswith("_train"):
            continue
        for row in read_split(path).rows:
            reply = form_reply(model, story_from_row(row, model.labels), records[name, row.id])
            out.append({"id": row.id, "split": name, "prediction": reply})
    return out
