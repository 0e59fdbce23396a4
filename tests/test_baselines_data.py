"""The baselines' loader on hand-written fixture CSVs: stories, graph samples, text samples."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.data import Batch

from clutrr.baselines.data import LabelVocab, load_dataset, load_stories, tokenize
from clutrr.baselines.graphs import graph_samples, redraw_entities
from clutrr.baselines.text import ENTITY, PAD, WordVocab, collate, text_samples
from clutrr.errors import UsageError
from clutrr.core.kb import load_kb

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "baselines_data"


@pytest.fixture(scope="module")
def dataset():
    return load_dataset(FIXTURES)


def test_label_vocabulary_is_the_kinship_words():
    labels = LabelVocab.from_kb()
    assert tuple(labels.words) == load_kb("kinship").words
    assert labels.index("neice") == labels.index("niece")
    assert labels.unknown_relation == len(labels.words) == 22


def test_dataset_finds_train_and_sorted_tests(dataset):
    assert dataset.train_file == "1.2,1.3_train.csv"
    assert [(t.task, t.noise, t.k) for t in dataset.tests] == [("1.2", 1, 2), ("2.3", 2, 3)]
    assert len(dataset.train) == 2


def test_story_fields(dataset):
    words = dataset.labels.words
    first, second = dataset.train
    assert first.label == words.index("daughter")
    assert first.edges == [(0, 1), (1, 2)]
    assert first.edge_types == [words.index("son"), words.index("sister")]
    assert first.query == (0, 2)
    assert first.k == 2 and second.k == 3
    assert second.edge_types[-1] == words.index("niece")  # the misspelling maps to the KB word


def test_untyped_noise_edges_get_the_unknown_type(dataset):
    noisy = dataset.tests[1].stories[0]
    assert len(noisy.edges) == 4
    assert noisy.edge_types[3] == dataset.labels.unknown_relation
    assert noisy.people == ["Kim", "Lea", "Max", "Ned", "Ola"]


def test_tokenize_replaces_bracketed_names_with_slots():
    people = ["Ida", "Jon"]
    tokens, slots = tokenize("[Ida]'s brother [Jon] met [Zed].", people)
    assert tokens == ["<entity>", "'", "s", "brother", "<entity>", "met", "<entity>", "."]
    assert slots == [0, -1, -1, -1, 1, -1, 2, -1]
    assert people == ["Ida", "Jon", "Zed"]


def test_placeholders_are_drawn_per_story(dataset):
    samples = text_samples(dataset.train, WordVocab.build(dataset.train), pool=100, seed=3)
    story, sample = dataset.train[0], samples[0]
    assert len(set(sample.entities)) == len(story.people)
    rendered = story.placeholder_tokens(sample.entities)
    assert rendered[0] == f"@entity-{sample.entities[0]}"
    assert "bram" not in rendered and "baked" in rendered
    again = text_samples(dataset.train, WordVocab.build(dataset.train), pool=100, seed=3)
    assert again[0].entities == sample.entities


def test_text_sample_positions_and_padding(dataset):
    vocab = WordVocab.build(dataset.train)
    samples = text_samples(dataset.train, vocab, pool=100, seed=0)
    head, tail = samples[0].query_positions()
    assert head == [0] and tail == [len(dataset.train[0].tokens) - 2]  # "[Cleo]" then "."
    batch = collate(samples)
    assert batch.words.shape[0] == 2 and batch.words.shape[1] == max(len(s.words) for s in samples)
    assert int(batch.mask[0].sum()) == len(samples[0].words)
    assert batch.words[0, len(samples[0].words):].eq(PAD).all()
    assert batch.words[0, 0] == ENTITY and batch.slots[0, 0] == 0
    assert batch.labels.tolist() == [s.label for s in dataset.train]


def test_unseen_test_words_map_to_unknown(dataset):
    vocab = WordVocab.build(dataset.train)
    ids = vocab.encode(dataset.tests[0].stories[0])
    assert 1 in ids and "hiking" not in vocab.index


def test_graph_samples_batch_with_query_offsets(dataset):
    graphs = graph_samples(dataset.train, pool=50, seed=0)
    g = graphs[1]
    assert g.num_nodes == 4 and g.edge_index.tolist() == [[0, 1, 2], [1, 2, 3]]
    assert g.query_index.view(-1).tolist() == [0, 3]
    assert len(set(g.x.tolist())) == 4 and max(g.x.tolist()) < 50
    batch = Batch.from_data_list(graphs)
    head, tail = batch.query_index
    assert head.tolist() == [0, 3] and tail.tolist() == [2, 6]
    assert batch.y.tolist() == [s.label for s in dataset.train]


def test_redraw_gives_distinct_ids_per_graph(dataset):
    batch = Batch.from_data_list(graph_samples(dataset.train + dataset.tests[1].stories, pool=6, seed=0))
    redraw_entities(batch, 6, torch.Generator().manual_seed(1))
    for i in range(batch.num_graphs):
        ids = batch.x[batch.batch == i].tolist()
        assert len(set(ids)) == len(ids) and all(0 <= x < 6 for x in ids)


def test_pool_smaller_than_a_story_is_refused(dataset):
    with pytest.raises(UsageError, match="pool"):
        graph_samples(dataset.tests[1].stories, pool=3, seed=0)


def test_unknown_relation_word_is_a_usage_error(tmp_path):
    text = (FIXTURES / "1.2_test.csv").read_text().replace("brother-in-law", "cousin")
    (tmp_path / "bad.csv").write_text(text)
    with pytest.raises(UsageError, match="cousin"):
        load_stories(tmp_path / "bad.csv")


def test_missing_folder_and_missing_train_file(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        load_dataset(tmp_path / "nope")
    with pytest.raises(UsageError, match="exactly one"):
        load_dataset(tmp_path)


def test_released_files_load_when_present():
    root = Path(__file__).resolve().parents[1].parent / "shared" / "clutrr-release" / "data_7c5b0e70"
    if not root.is_dir():
        pytest.skip("released CLUTRR data absent")
    tests = {t.task: t for t in load_dataset(root, max_train=50).tests}
    noisy = tests["2.3"].stories
    assert any(s.edge_types.count(22) > 0 for s in noisy)
    assert all(s.k == 3 for s in noisy)
    assert np.mean([len(s.people) for s in noisy]) > 4
