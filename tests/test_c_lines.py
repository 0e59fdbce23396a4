"""The C writer of a common example's lines (clutrr/io/_lines.c) writes the bytes Python writes:
the JSONL line of its record and the CSV line of its row.

The suite runs the Python sources, where the module is not built; these tests compile it with the C
compiler Python was built with (skipped when there is none) and load it from a temporary folder.
tests/test_compiled.py runs it inside the compiled wheel too.
"""
from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clutrr.core.records import StoryRow
from clutrr.io import rows
from clutrr.io.csv_format import csv_line, row_fields
from clutrr.io.rows import example_line, example_lines, json_line, row_cells
from clutrr.story.example import GENDER_WORDS, edge_entry, named, person_entry, piece_entry
from clutrr.story.generator import GeneratorConfig, make_example

SOURCE = Path(__file__).resolve().parents[1] / "clutrr" / "io" / "_lines.c"


@pytest.fixture(scope="module")
def lines(tmp_path_factory):
    """The compiled module's ``example_lines``."""
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    if not cc or shutil.which(cc[0]) is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("lines") / ("_lines" + sysconfig.get_config_var("EXT_SUFFIX"))
    subprocess.run([*cc, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-I", sysconfig.get_paths()["include"],
                    str(SOURCE), "-o", str(out)], check=True, capture_output=True, timeout=120)
    spec = importlib.util.spec_from_file_location("_lines", out)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.example_lines


@pytest.fixture(scope="module")
def writer(lines):
    """The JSONL line alone, from the writer's arguments."""
    return lambda *args: lines(True, None, *args)[0]


@pytest.fixture(scope="module")
def csv_writer(lines):
    """The CSV line alone (index 17), from the writer's arguments."""
    return lambda *args: lines(False, 17, *args)[1]


def record_of(args: tuple) -> dict:
    """The record ``Example._built_record`` makes from the writer's arguments (common fields only)."""
    (id_, split, task, k, noise, seed, index, names, genders, gender_words, edges, words, pred_names, query, target,
     query_pred, pattern, heldout, proof, people, flat, story, clean_pieces, target_piece, pieces) = args
    pos = [len(people)] * (max(people) + 1)
    for i, q in enumerate(people):
        pos[q] = i
    return {
        "id": id_, "split": split, "task": task, "k": k, "noise": noise, "seed": seed, "index": index,
        "people": [person_entry(n, gender_words[g]) for n, g in zip(names, genders)],
        "edges": [edge_entry(e, w, pred_names) for e, w in zip(edges, words)],
        "query": list(query), "target": target, "target_predicate": pred_names[query_pred],
        "pattern": pattern, "pattern_heldout": heldout,
        "proof": [{"goal": named(g, pos, names, genders, flat), "rule": [pred_names[f1[1]], pred_names[f2[1]]],
                   "by": [named(f1, pos, names, genders, flat), named(f2, pos, names, genders, flat)]}
                  for g, f1, f2 in proof],
        "story": story, "clean_story": " ".join(p[0] for p in clean_pieces), "text_target": [target_piece[0]],
        "pieces": [piece_entry(p) for p in pieces], "target_template": target_piece[1],
    }


def csv_of(index: int, args: tuple) -> bytes:
    """The CSV line ``Example.row`` and ``csv_line`` make from the writer's arguments."""
    (id_, split, task, k, noise, seed, index_, names, genders, gender_words, edges, words, pred_names, query, target,
     query_pred, pattern, heldout, proof, people, flat, story, clean_pieces, target_piece, pieces) = args
    pos = [len(people)] * (max(people) + 1)
    for i, q in enumerate(people):
        pos[q] = i

    def name(fact):
        return tuple(named(fact, pos, names, genders, flat))
    qa, qb = query
    row = StoryRow(id=id_, story=story, query=(names[qa], names[qb]), target=target,
                   clean_story=" ".join(p[0] for p in clean_pieces),
                   proof_state=[{name(g): [name(f1), name(f2)]} for g, f1, f2 in proof], f_comb=pattern,
                   task_name=f"task_{task}.{k}", story_edges=[(a, b) for a, _, b, _ in edges], edge_types=words,
                   query_edge=(qa, qb), genders=[(n, gender_words[g]) for n, g in zip(names, genders)],
                   node_mapping={p: i for i, p in enumerate(people)}, task_split=split, text_target=[target_piece[0]])
    return csv_line([index, *row_fields(row)]).encode()


text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
ints = st.integers(min_value=-(2 ** 70), max_value=2 ** 70)


@st.composite
def arguments(draw) -> tuple:
    """Writer arguments over 2 to 6 people and 1 to 4 predicates, with any text and any int."""
    n, preds = draw(st.integers(2, 6)), draw(st.integers(1, 4))
    names = draw(st.lists(text, min_size=n, max_size=n))
    genders = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    people = draw(st.permutations(range(n, 2 * n)))
    pred_names = draw(st.lists(text, min_size=preds, max_size=preds))
    flat = draw(st.lists(st.one_of(st.none(), text), min_size=2 * preds, max_size=2 * preds))
    pred, person = st.integers(0, preds - 1), st.sampled_from(people)
    fact = st.tuples(person, pred, person)
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), pred, st.integers(0, n - 1), text), max_size=5))
    words = draw(st.lists(text, min_size=len(edges), max_size=len(edges)))
    piece = st.tuples(text, text, st.one_of(st.tuples(st.integers(0, 9)), st.builds(range, st.integers(0, 5))))
    return (draw(text), draw(text), draw(ints), draw(ints), draw(text), draw(ints), draw(ints), names, genders,
            list(GENDER_WORDS), edges, words, pred_names, (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))),
            draw(text),
            draw(pred), draw(text), draw(st.booleans()), draw(st.lists(st.tuples(fact, fact, fact), max_size=3)),
            list(people), flat, draw(text), draw(st.lists(piece, max_size=3)), draw(piece),
            draw(st.lists(piece, max_size=4)))


@settings(max_examples=300, deadline=None)
@given(arguments())
def test_the_line_is_the_records_json(writer, args):
    """Any text (quotes, backslashes, control characters, non-ASCII), ints beyond 64 bits, words
    missing for a gender (null), ranges and tuples of edges: the bytes of json_line(record)."""
    assert writer(*args) == json_line(record_of(args))


@settings(max_examples=300, deadline=None)
@given(arguments())
def test_the_csv_line_is_the_rows(csv_writer, args):
    """Any text (commas, quotes and line breaks that make a cell quoted, characters repr escapes),
    ints beyond 64 bits, words missing for a gender (None): the bytes of csv_line of the row."""
    assert csv_writer(*args) == csv_of(17, args)


def test_both_lines_at_once_and_neither(lines):
    args = plain_arguments()
    assert lines(True, 5, *args) == (json_line(record_of(tuple(args))), csv_of(5, tuple(args)))
    assert lines(False, None, *args) == (None, None)


def plain_arguments() -> list:
    """Writer arguments of a two-person story with one proof step."""
    piece = ("[A] is [B]'s son.", "son#1", (0,))
    return ["id", "train", 1, 2, "none", 3, 0, ["A", "B"], [0, 0], list(GENDER_WORDS), [(0, 0, 1, "none")], ["son"],
            ["child"], (0, 1), "son", 0, "son", False, [((7, 0, 8), (7, 0, 8), (7, 0, 8))], [7, 8],
            ["son", "daughter"], "[A] is [B]'s son.", [piece], piece, [piece]]


def test_plain_arguments_give_the_records_line(writer):
    args = plain_arguments()
    assert writer(*args) == json_line(record_of(tuple(args)))


def test_text_without_utf8_gives_none_and_the_caller_builds_the_lines(lines):
    args = plain_arguments()
    args[21] = "a lone surrogate \ud800"  # the story
    assert lines(True, 3, *args) == (None, None)


def test_a_proof_naming_someone_outside_the_story_is_an_index_error(writer):
    args = plain_arguments()
    args[18] = [((9, 0, 8), (7, 0, 8), (7, 0, 8))]  # family id 9 is not among the story's people [7, 8]
    with pytest.raises(IndexError):
        writer(*args)


def test_wrong_types_are_type_errors_not_crashes(writer):
    for at, bad in ((0, 5), (2, "two"), (10, [(0, 0)]), (24, [("text",)])):
        args = plain_arguments()
        args[at] = bad
        with pytest.raises(TypeError):
            writer(*args)
    with pytest.raises(TypeError):
        writer(*plain_arguments()[:-1])


@pytest.mark.parametrize("k,noise", [(2, "all"), (3, "none"), (10, "all"), (4, "connected"), (1, "irrelevant")])
def test_generated_examples_lines_equal_their_record_and_row(lines, monkeypatch, k, noise):
    """Through example_lines, with the writer in place, as the compiled wheel runs it."""
    monkeypatch.setattr(rows, "_C_LINES", lines)
    config = GeneratorConfig()
    for index in range(60 if k < 10 else 10):
        ex = make_example(config, k, noise, 11, index, "train", 0)
        json, csv = example_lines(ex, True, index)
        assert ex._record is None and ex._row is None, "the record or row was built for a common example"
        assert json == json_line(ex.record) == example_line(ex)
        assert csv == csv_line([index, *row_cells(ex)]).encode()


def test_examples_of_other_forms_take_pythons_way(lines, monkeypatch):
    """A question form, difficulty or kinship terms: the lines are Python's, from the record and row."""
    monkeypatch.setattr(rows, "_C_LINES", lines)
    for config in (GeneratorConfig(question="mixed"), GeneratorConfig(difficulty=True)):
        ex = make_example(config, 3, "all", 11, 4, "train", 0)
        assert example_lines(ex, True, 4) == (json_line(ex.record), csv_line([4, *row_cells(ex)]).encode())


def test_a_story_of_many_people(writer):
    """More people than the writer's table on the stack holds (64): the proof still names them."""
    args = plain_arguments()
    n = 150
    args[7], args[8] = [f"P{i}" for i in range(n)], [i % 2 for i in range(n)]
    args[19] = list(range(1000, 1000 + n))  # family ids
    args[18] = [((1000 + n - 1, 0, 1000), (1000 + n - 1, 0, 1070), (1070, 0, 1000))]
    assert writer(*args) == json_line(record_of(tuple(args)))


def test_a_story_without_utf8_fails_as_pythons_way_does(lines, monkeypatch):
    """The C writer hands such a story back (None), so example_lines does what Python's lines do
    with it: the same error."""
    ex = make_example(GeneratorConfig(), 2, "none", 11, 0, "train", 0)
    ex.story = ex.story + " \ud800"
    errors = []
    for writer in (None, lines):
        monkeypatch.setattr(rows, "_C_LINES", writer)
        ex._record = ex._row = None
        with pytest.raises(UnicodeEncodeError) as raised:
            example_lines(ex, True, 0)
        errors.append(str(raised.value))
    assert errors[0] == errors[1]
