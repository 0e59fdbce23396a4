"""The size axis: chains of 100 facts, families of up to 10,000 people, 1,000 connected
distractors, and each row's difficulty record."""
from __future__ import annotations

import itertools
import json
import random

import numpy as np
import pytest

from clutrr.core.chainer import backward_chain, target_pairs
from clutrr.core.closed_among import closed_among
from clutrr.core.difficulty import count_paths, difficulty
from clutrr.core.distractors import connected_facts
from clutrr.core.entailment import relations_closed
from clutrr.core.family import Family, FamilyConfig, sample_genealogy
from clutrr.core.kb import load_kb
from clutrr.core.large_family import WINDOW_PEOPLE, draw_family, window_family, window_people
from clutrr.core.names import load_names
from clutrr.diagnostics.verify import verify_file
from helpers import generated_folder, one_line, run_generate


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """Two k=100 training rows and two k=5 test rows with 1,000 connected distractors each."""
    return generated_folder(tmp_path_factory, "size", "--k", "100", "--test-k", "5", "--noise", "none",
                            "--test-noise", "connected", "--noise-facts", "1000", "--train-rows", "2",
                            "--test-rows", "2", "--difficulty", "--format", "csv,jsonl", "--seed", "3")


def _records(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_rows_at_k100_and_with_1000_distractors_verify(big):
    kb = load_kb("kinship")
    for name in ("1.100_train.csv", "8.5_test.csv"):
        verdicts = verify_file(kb, big / name)
        assert len(verdicts) == 2 and {v.verdict for v in verdicts} == {"entailed"}, (name, verdicts)
    pools = load_names()
    for rec in _records(big / "8.5_test.jsonl"):
        kinds = [e["noise"] for e in rec["edges"]]
        assert kinds == ["none"] * 5 + ["connected"] * 1000
        pairs = [frozenset((e["head"], e["tail"])) for e in rec["edges"]]
        assert len(set(pairs)) == len(pairs), "a pair of people is stated twice"
        chain = set(range(6))
        assert not any(p <= chain for p in pairs[5:]), "a distractor joins two chain people"
        men = sum(p["gender"] == "male" for p in rec["people"])
        assert men <= len(pools["male"]) and len(rec["people"]) - men <= len(pools["female"])
        assert rec["difficulty"]["facts"] == 1005 and rec["difficulty"]["path_max_length"] == 7
    for rec in _records(big / "1.100_train.jsonl"):
        assert rec["k"] == 100 and len(rec["edges"]) == 100
        assert rec["difficulty"] == {"facts": 100, "distractors_touching_chain": 0, "paths": 1,
                                     "path_max_length": 102, "paths_capped": False}


def test_difficulty_of_a_story_checked_by_hand():
    # chain 0-1-2-3; a supporting fact 0-2, an irrelevant one 1-4, a disconnected one 5-6
    edges = [(0, 0, 1, "none"), (1, 0, 2, "none"), (2, 0, 3, "none"),
             (0, 3, 2, "supporting"), (1, 3, 4, "irrelevant"), (5, 3, 6, "disconnected")]
    assert difficulty(edges, 7, 3, (0, 3), 4) == {
        "facts": 6, "distractors_touching_chain": 2, "paths": 2,  # 0-1-2-3 and 0-2-3
        "path_max_length": 5, "paths_capped": False}
    # a detour of 6 facts, 0-7-8-9-10-11-3, is longer than k + 2 = 5 and is not counted ...
    detour = [(a, 3, b, "connected") for a, b in ((0, 7), (7, 8), (8, 9), (9, 10), (10, 11), (11, 3))]
    assert difficulty(edges + detour, 12, 3, (0, 3), 4)["paths"] == 2
    # ... but with 10-3 stated too, 0-7-8-9-10-3 has 5 facts and is
    assert difficulty(edges + detour + [(10, 3, 3, "connected")], 12, 3, (0, 3), 4)["paths"] == 3


def _brute_paths(edges: list, n: int, s: int, t: int, max_len: int) -> int:
    adjacent = {frozenset((a, b)) for a, _, b, _ in edges}
    count = 0
    others = [p for p in range(n) if p not in (s, t)]
    for length in range(1, max_len + 1):
        for middle in itertools.permutations(others, length - 1):
            path = (s, *middle, t)
            count += all(frozenset(pair) in adjacent for pair in zip(path, path[1:]))
    return count


def test_path_counts_match_enumeration_and_stop_at_their_caps():
    rng = random.Random(7)
    for _ in range(60):
        n = rng.randint(2, 7)
        edges = [(a, 0, b, "x") for a in range(n) for b in range(a + 1, n) if rng.random() < 0.5]
        max_len = rng.randint(1, 6)
        assert count_paths(edges, n, 0, n - 1, max_len) == (_brute_paths(edges, n, 0, n - 1, max_len), False)
    complete = [(a, 0, b, "x") for a in range(9) for b in range(a + 1, 9)]
    assert count_paths(complete, 9, 0, 8, 8, cap=50) == (50, True)
    found, capped = count_paths(complete, 9, 0, 8, 8, steps=100)
    assert capped and 0 < found < _brute_paths(complete, 9, 0, 8, 8)


def test_a_window_holds_the_relations_of_the_whole_family():
    kb = load_kb("kinship")
    for seed in range(3):
        genealogy = sample_genealogy(FamilyConfig(generations=5), random.Random(seed))
        whole = Family(*genealogy, kb)
        people = window_people(genealogy, seed, 50)
        ids = np.array(people)
        assert (window_family(genealogy, kb, people).masks == whole.masks[:, ids[:, None], ids]).all()
        everyone = list(range(whole.size))
        assert (window_family(genealogy, kb, everyone).masks == whole.masks).all()


def test_a_family_of_about_10000_people_is_drawn_as_a_window():
    kb = load_kb("kinship")
    config = FamilyConfig(generations=11)
    assert 8000 < config.expected_size() <= 10_000
    genealogy = sample_genealogy(config, random.Random(1))
    assert len(genealogy[0]) > 5000
    family = draw_family(config, kb, random.Random(1))
    assert family.size == WINDOW_PEOPLE
    child = kb.pred_names.index("child")
    assert family.masks[child].any() and closed_among(kb, family, list(range(0, WINDOW_PEOPLE, 3)))


def test_connected_distractors_are_true_single_relations_joined_to_the_story():
    kb = load_kb("kinship")
    family = draw_family(FamilyConfig(generations=8), kb, random.Random(4))
    rng = random.Random(5)
    chain = next(c for c in (backward_chain(family, kb, 6, *pair, rng) for pair in target_pairs(family, 0, 0)) if c)
    facts = connected_facts(family, chain, 300, rng)
    assert facts is not None and len(facts) == 300
    story = set(chain.people)
    for a, p, b in facts:
        assert p >= 0 and family.relation(a, b) == p  # true, and the pair's only relation
        assert a in story and not (a in chain.people and b in chain.people)
        story.add(b)
    pairs = [frozenset((a, b)) for a, _, b in [*chain.facts(), *facts]]
    assert len(set(pairs)) == len(pairs)


def test_the_bitset_closure_check_agrees_with_the_matrix_one():
    kb = load_kb("kinship")
    base = Family(*sample_genealogy(FamilyConfig(generations=4), random.Random(1)), kb)
    rng = random.Random(0)
    outcomes = set()
    for t in range(120):
        people = rng.sample(range(base.size), rng.randint(3, base.size))
        ids = np.array(people)
        sub = base.masks[:, ids[:, None], ids].copy()
        if t % 2:
            p = rng.randrange(len(sub))
            i, j = rng.sample(range(len(people)), 2)
            sub[p, i, j] = not sub[p, i, j]
        family = Family([base.genders[x] for x in people], [-1] * len(people), [-1] * len(people),
                        [-1] * len(people), kb, sub)
        closed = relations_closed(kb, sub)
        assert closed_among(kb, family, list(range(len(people)))) == closed
        outcomes.add(closed)
    assert outcomes == {True, False}


@pytest.mark.parametrize("args, fragment", [
    (["--k", "101"], "k must be between 1 and 100, got 101"),
    (["--noise-facts", "1001"], "--noise-facts must be in 1..1,000, got 1001"),
    (["--generations", "12"], "at most 10,000 are supported"),
    (["--kinship", "hawaiian", "--k", "40", "--test-k", "none"], "not supported with --kinship yet"),
    (["--difficulty", "--format", "csv"], "--format csv writes neither: add jsonl or parquet"),
])
def test_beyond_the_maxima_is_one_line(tmp_path, args, fragment):
    one_line(run_generate(*args, "--out", str(tmp_path / "d")), fragment)
    assert list(tmp_path.iterdir()) == []
