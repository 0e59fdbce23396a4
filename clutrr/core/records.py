"""The record of one story: :class:`StoryRow`, the fields of a CLUTRR CSV row with literal
fields parsed, and :func:`split_f_comb`, which splits a relation pattern into its words.

Generation builds these rows and every reader returns them; the CSV format that stores them
is :mod:`clutrr.io.csv_format`.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass
class StoryRow:
    """One CLUTRR example as stored in a CSV row, with literal fields parsed.

    ``query`` is (head, tail) and ``target`` is what tail is to head. ``story_edges`` index
    into ``genders`` (a list of (name, gender) pairs); ``edge_types[i]`` is the relation
    word of ``story_edges[i]``: in the released files only the chain edges have one.
    """

    id: str
    story: str
    query: tuple[str, str]
    target: str
    clean_story: str
    proof_state: list
    f_comb: str
    task_name: str
    story_edges: list[tuple[int, int]]
    edge_types: list[str]
    query_edge: tuple[int, int]
    genders: list[tuple[str, str]]
    node_mapping: dict
    task_split: str
    text_target: list[str] = field(default_factory=list)
    text_query: str = ""
    syn_story: str = ""
    kin_type: str = ""  # a kinship system's rows (``--kinship``): the answer person's kin type
    glossary: list[str] = field(default_factory=list)  # and the definitions of the story's terms

    @property
    def k(self) -> int:
        """Chain length: the number of relation words in ``f_comb`` (a kinship system's row, whose
        terms ``f_comb`` cannot be cut without its words, gives it in ``task_name``: ``task_1.4``)."""
        if self.kin_type or self.glossary:
            m = re.fullmatch(r"task_\d+\.(\d+)", self.task_name)
            if m:
                return int(m.group(1))
        return len(split_f_comb(self.f_comb))


def split_f_comb(f_comb: str, words: set[str] | None = None) -> list[str]:
    """Split a pattern like ``son-in-law-brother`` into its relation words."""
    from clutrr.core.kb import load_kb

    vocab = words if words is not None else set(load_kb("clutrr_v1").word_index)
    parts = f_comb.split("-")
    out: list[str] = []
    i = 0
    while i < len(parts):
        for j in (3, 1):
            cand = "-".join(parts[i:i + j])
            if cand in vocab or j == 1:
                out.append(cand)
                i += j
                break
    return out
