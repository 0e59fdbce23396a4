"""Memory tasks: task 6 asks a relation the story states, task 7 mixes such queries with reasoning ones."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from clutrr.core.entailment import story_closure
from clutrr.core.family import FamilyConfig, sample_family
from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.core.memory import check_retrieval, pick_stated, retrievable, task_of
from clutrr.core.vocabulary import word_mask
from clutrr.diagnostics.verify import verify_file
from clutrr.io.csv_format import read_csv
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec
from clutrr.errors import UsageError

MEMORY = GeneratorConfig(query="memory")
MIXED = GeneratorConfig(query="mixed")


def stated_edge(row) -> int | None:
    """The index of the story edge the row's query names, if any."""
    q = tuple(row.query_edge)
    return next((i for i, e in enumerate(row.story_edges) if tuple(e) == q), None)


@pytest.mark.parametrize("k,noise", [(2, "none"), (3, "all"), (5, "supporting"), (7, "disconnected")])
def test_memory_labels_are_stated_facts_and_the_only_answer(kb, k, noise):
    for index in range(44):
        ex = make_example(MEMORY, k, noise, 3, index, "test")
        row, rec = ex.row, ex.record
        i = stated_edge(row)
        assert i is not None, "a memory query names the two people of a stated fact"
        assert row.edge_types[i] == row.target
        facts = [(e["head"], kb.parse_word(e["relation"])[0], e["tail"]) for e in rec["edges"]]
        head, tail = rec["query"]
        assert story_closure(kb, facts)[(head, tail)] == 1 << kb.parse_word(row.target)[0]
        assert rec["task"] == 6 and rec["k"] == k and row.task_name == f"task_6.{k}"
        assert rec["proof"] == [] and row.proof_state == []
        assert len(rec["edges"]) > k - 1 and sum(e["noise"] == "none" for e in rec["edges"]) == k


def test_memory_targets_are_balanced_over_every_stated_word():
    counts = Counter(make_example(MEMORY, 3, "none", 0, i, "train").row.target for i in range(88))
    assert len(counts) == 22 and set(counts.values()) == {4}


def test_mixed_files_pair_a_memory_and_a_reasoning_query():
    kinds = []
    for index in range(88):
        row = make_example(MIXED, 4, "irrelevant", 1, index, "test").row
        memory = stated_edge(row) is not None
        assert row.task_name == (f"task_6.4" if memory else "task_3.4")
        if not memory:
            assert tuple(row.query_edge) == (0, 4) and len(row.proof_state) == 3
        kinds.append(memory)
    assert all(kinds[i] != kinds[i + 1] for i in range(0, 88, 2))
    assert 0 < sum(kinds[i] for i in range(0, 88, 2)) < 44  # which row of a pair asks from memory is seeded
    words = Counter(make_example(MIXED, 4, "irrelevant", 1, i, "test").row.target for i in range(88) if kinds[i])
    assert set(words.values()) == {2}  # each kind is balanced on its own


def test_reasoning_rows_are_unchanged_by_the_new_options():
    base = make_example(GeneratorConfig(), 3, "all", 5, 17, "test")
    assert make_example(GeneratorConfig(query="reasoning", depth="0.5"), 3, "all", 5, 17, "test").record == base.record


def test_a_memory_dataset_is_named_by_task_and_verified(kb, tmp_path):
    spec = DatasetSpec(train_k=(2, 3), test_k=(2, 6), train_rows=30, test_rows=22, seed=2, config=MEMORY)
    write_dataset(spec, tmp_path / "mem", progress=False)
    names = sorted(p.name for p in (tmp_path / "mem").glob("*.csv"))
    assert names == ["6.2,6.3_train.csv", "6.2_test.csv", "6.6_test.csv"]
    for path in (tmp_path / "mem").glob("*.csv"):
        assert {v.verdict for v in verify_file(kb, path)} == {"entailed"}
        assert all(stated_edge(r) is not None for r in read_csv(path))
    config = json.loads((tmp_path / "mem" / "config.json").read_text())
    assert config["spec"]["config"]["query"] == "memory"


def test_task_numbers():
    assert [task_of(n, "reasoning") for n in ("none", "supporting", "irrelevant", "disconnected", "all")] == [1, 2, 3, 4, 5]
    assert task_of("all", "memory") == 6 and task_of("none", "mixed") == 7
    with pytest.raises(ValueError):
        task_of("none", "recall")


def test_two_test_noises_of_a_memory_task_would_share_a_name():
    spec = DatasetSpec(test_noise=("none", "all"), config=MEMORY)
    with pytest.raises(UsageError, match="6.2_test"):
        spec.validate()


def test_a_stated_fact_the_story_also_contradicts_is_refused(kb):
    sibling, spouse = kb.parse_word("brother")[0], kb.parse_word("husband")[0]
    facts = [(0, sibling, 1), (0, spouse, 1)]
    with pytest.raises(AssertionError, match="entails more"):
        check_retrieval(kb, facts, (0, sibling, 1))
    with pytest.raises(AssertionError, match="stated fact"):
        check_retrieval(kb, facts[:1], (1, sibling, 0))


def test_retrievable_facts_need_one_true_relation_and_one_entailed(kb):
    family = sample_family(FamilyConfig(), kb, random.Random(4))
    pairs = [(a, family.relation(a, b), b) for a in range(family.size) for b in range(family.size)
             if a != b and family.relation(a, b) >= 0][:6]
    everything = word_mask(kb, None)
    assert retrievable(kb, family, pairs, lambda p, g: True) == list(range(len(pairs)))
    a, p, b = pairs[0]
    other = next(q for q in range(len(kb.predicates)) if q != p)
    assert 0 not in retrievable(kb, family, [pairs[0], (a, other, b)], lambda p, g: True)
    assert pick_stated(kb, family, pairs, (p, family.genders[b]), everything, random.Random(0))[1] == p
    stated = {(q, family.genders[t]) for _, q, t in pairs}
    absent = next((q, g) for q in range(len(kb.predicates)) for g in (0, 1) if (q, g) not in stated)
    assert pick_stated(kb, family, pairs, absent, everything, random.Random(0)) is None
