"""Long contexts: stories padded with facts about other families keep their label, reach the asked
length and put their sentences at the asked depth."""
from __future__ import annotations

import json
import random
import re

import pyarrow.parquet as pq
import pytest

from clutrr.core.family import FamilyConfig
from clutrr.story.generator import GeneratorConfig, banks, make_example
from clutrr.story.long_context import Padding, padding_pieces
from clutrr.core.padding import NameAllocator, load_surnames, query_closure
from clutrr.diagnostics.verify import verify_row
from clutrr.io.csv_format import COLUMNS, row_fields
from clutrr.io.schema import arrow_schema
from clutrr.render.placement import count_words, parse_depth, place
from helpers import run_generate

NAME = re.compile(r"\[([^\[\]]+)\]")
LONGEST_PIECE = 120  # words: more than any template renders


def padded(words: int, depth: str = "spread", k: int = 3, noise: str = "none", index: int = 0, query="reasoning"):
    return make_example(GeneratorConfig(context_words=words, depth=depth, query=query), k, noise, 9, index, "test")


@pytest.mark.parametrize("words", [400, 2500, 20000])
def test_padded_stories_reach_the_asked_length(words):
    for index in range(3):
        rec = padded(words, index=index).record
        assert rec["context"]["words"] == count_words(rec["story"])
        assert words <= rec["context"]["words"] < words + LONGEST_PIECE
        assert rec["context"]["padding_facts"] > 0 and rec["context"]["asked_words"] == words


def test_a_story_longer_than_asked_is_not_padded():
    rec = padded(10, k=6, noise="all").record
    assert rec["context"]["padding_facts"] == 0 and rec["context"]["words"] == rec["context"]["story_words"]


@pytest.mark.parametrize("noise,query", [("none", "reasoning"), ("all", "reasoning"), ("supporting", "memory")])
def test_padding_keeps_the_label_and_never_names_a_story_person(kb, noise, query):
    for index in range(4):
        ex = padded(3000, noise=noise, index=index, query=query)
        short = make_example(GeneratorConfig(query=query), 3, noise, 9, index, "test")
        assert ex.row.target == short.row.target and ex.row.query_edge == short.row.query_edge
        assert ex.row.edge_types == short.row.edge_types and ex.record["pattern"] == short.record["pattern"]
        verdict, derived, _ = verify_row(kb, dict(zip(COLUMNS, row_fields(ex.row))))
        assert verdict == "entailed" and derived == [ex.row.target]
        story_people = {name for name, _ in ex.row.genders}
        first_names = {name.split()[0] for name in story_people}
        mentioned = set(NAME.findall(ex.row.story))
        assert story_people <= mentioned
        others = mentioned - story_people
        assert len(others) >= 50 and not {n.split()[0] for n in others} & first_names
        surnames = [name.split()[1] for name in story_people]
        assert len(set(surnames)) == len(surnames) and not {n.split()[1] for n in others} & set(surnames)
        assert all(len(n.split()) == 2 and n.split()[1] in load_surnames() for n in mentioned)


def test_the_closure_check_sees_padding_that_touches_the_query(kb):
    son, daughter = kb.parse_word("son")[0], kb.parse_word("daughter")[0]
    grandchild = kb.parse_word("grandson")[0]
    story = [("Ann Ross", son, "Ben Ross"), ("Ben Ross", son, "Carl Ross")]
    far = [("Dora Hale", daughter, "Eve Hale"), ("Eve Hale", son, "Finn Hale")]
    assert query_closure(kb, story + far, "Ann Ross", "Carl Ross") == 1 << grandchild
    assert query_closure(kb, story + far, "Ann Ross", "Finn Hale") == 0
    touching = [("Ann Ross", daughter, "Carl Ross")]  # padding that named a story person would be seen
    assert query_closure(kb, story + far + touching, "Ann Ross", "Carl Ross") != 1 << grandchild


def test_depth_places_the_chain():
    for depth, lo, hi in (("0.0", 0.0, 0.02), ("0.5", 0.45, 0.55), ("1.0", 0.97, 1.0)):
        rec = padded(6000, depth=depth, k=4).record
        ctx = rec["context"]
        words = rec["story"].split()
        assert lo <= ctx["chain_first_word"] / ctx["words"] <= hi
        block = words[ctx["chain_first_word"]:ctx["chain_last_word"] + 1]
        assert sorted(block) == sorted(rec["clean_story"].split())  # clean story: the block is the chain
    spread = padded(6000, depth="spread", k=8).record
    ctx = spread["context"]
    assert ctx["chain_last_word"] - ctx["chain_first_word"] > ctx["words"] / 2


def test_place_puts_pieces_at_offsets():
    padding = ["a b c d"] * 10  # 40 words
    placed = place(["X Y", "Z"], [True, False], padding, "0.5")
    assert placed.texts[5:7] == ["X Y", "Z"] and placed.chain_first_word == 20 and placed.chain_last_word == 21
    placed = place(["X", "Y"], [True, True], padding, "spread")
    # offsets 10 and 30 of 40 words fall between two boundaries: the earlier one (8, 28) is taken
    assert placed.texts.index("X") == 2 and placed.texts.index("Y") == 8
    assert placed.words == 42 and placed.chain_first_word == 8 and placed.chain_last_word == 29
    assert place(["X"], [True], [], "1.0").texts == ["X"]


def test_depth_values():
    assert parse_depth("spread") == "spread" and parse_depth("0") == "0.0" and parse_depth("1") == "1.0"
    for bad in ("1.5", "-0.1", "middle"):
        with pytest.raises(ValueError):
            parse_depth(bad)


def test_generate_writes_context_records_and_parquet(tmp_path):
    out = tmp_path / "ctx"
    done = run_generate("--k", "2", "--test-k", "4", "--train-rows", "6", "--test-rows", "5", "--context-words",
                        "1500", "--depth", "0.25", "--format", "csv,jsonl,parquet", "--out", str(out),)
    assert done.returncode == 0, done.stderr
    records = [json.loads(line) for line in (out / "1.4_test.jsonl").read_text().splitlines()]
    assert all(r["context"]["depth"] == "0.25" and r["context"]["words"] >= 1500 for r in records)
    table = pq.read_table(out / "1.4_test.parquet")
    assert table.schema.equals(arrow_schema(context=True))
    assert table.column("context").to_pylist() == [r["context"] for r in records]
    config = json.loads((out / "config.json").read_text())
    assert config["spec"]["config"]["context_words"] == 1500 and config["spec"]["config"]["depth"] == "0.25"
    summary = config["text"]["context"]
    assert summary["stories"] == 11 and summary["asked_words"] == 1500 and summary["depth"] == "0.25"
    assert summary["mean_words"] >= 1500 and sum(summary["chain_start_by_tenth"]) == 11
    assert summary["chain_start_by_tenth"][2] + summary["chain_start_by_tenth"][1] >= 5  # about a quarter in
    bad = run_generate("--context-words", "1000", "--depth", "deep", "--out", str(tmp_path / "bad"))
    assert bad.returncode == 2 and "--depth must be" in bad.stderr and not (tmp_path / "bad").exists()


@pytest.mark.parametrize("index", range(4))
def test_first_names_are_unique_in_the_whole_padded_text(index):
    rec = padded(3000, k=4, noise="all", index=index).record
    people = set(NAME.findall(rec["story"]))
    firsts = [name.split()[0] for name in people]
    assert len(people) > 150 and len(firsts) == len(set(firsts))


def test_past_the_name_lists_a_first_name_comes_back_only_in_another_family():
    rng = random.Random(3)
    allocator = NameAllocator(["Imogen Swann"], rng)
    given = []
    for family in range(40):
        allocator.start_family()
        names = [allocator.name(family % 2) for _ in range(12)]
        firsts = [n.split()[0] for n in names]
        assert len(firsts) == len(set(firsts)) and "Imogen" not in firsts
        given += names
    assert len(given) == len(set(given))
    assert len({n.split()[0] for n in given}) > 300  # every first name is given before one comes back


@pytest.mark.parametrize("index", range(3))
def test_no_template_is_used_twice_in_a_padded_text(index):
    config = GeneratorConfig(context_words=3000, depth="spread")
    ex = make_example(config, 4, "all", 9, index, "test")
    bank = banks(config, 9)["test"]
    padding = Padding(3000, "spread", FamilyConfig(), None, config.max_piece, True)
    extra, _, _ = padding_pieces(ex.kb, bank, padding, ex.pieces, ex.names, random.Random(index))
    ids = [p.template_id for p in ex.pieces + extra]
    assert len(extra) > 100 and len(ids) == len(set(ids))
