"""The composer baseline: its CYK maths, its EM counts, training, checkpoints and the learned rules."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from clutrr.baselines.composer import (
    Composer, ComposerConfig, expected_counts, group_paths, inside, story_paths,
)
from clutrr.baselines.composer_rules import compare_with_kb, format_rules, possible_word_pairs
from clutrr.baselines.data import LabelVocab, Story, story_from_row
from clutrr.baselines.registry import get_model
from clutrr.story.generator import GeneratorConfig, make_example

LABELS = LabelVocab.from_kb()
W = {w: i for i, w in enumerate(LABELS.words)}


def generated(k: int, n: int, split: str = "train", noise: str = "none", seed: int = 5) -> list[Story]:
    config = GeneratorConfig(templates="synthetic")
    return [story_from_row(make_example(config, k, noise, seed, i, split).row, LABELS) for i in range(n)]


def story(edges: list[tuple[int, int, str | None]], query: tuple[int, int], label: str = "father") -> Story:
    people = sorted({p for u, v, _ in edges for p in (u, v)})
    types = [W[r] if r else LABELS.unknown_relation for _, _, r in edges]
    return Story("s", W[label], 0, [str(p) for p in people], [(u, v) for u, v, _ in edges], types, query, [], [])


@pytest.fixture(scope="module")
def trained() -> tuple[Composer, list[Story]]:
    train = generated(2, 600) + generated(3, 600)
    model = Composer(ComposerConfig(), LABELS)
    model.fit(train[:1080], train[1080:], seed=0, progress=False)
    return model, generated(5, 150, "test")


def brute_force(table: torch.Tensor, rels: list[int]) -> torch.Tensor:
    """The mass of every bracketing tree, each weighted by its random-split probability."""
    def trees(i: int, j: int):
        if j - i == 1:
            yield 1.0, torch.eye(table.shape[0], dtype=table.dtype)[rels[i]]
            return
        for m in range(i + 1, j):
            for (pl, left), (pr, right) in itertools.product(list(trees(i, m)), list(trees(m, j))):
                yield pl * pr / (j - i - 1), torch.einsum("a,b,abc->c", left, right, table)
    return sum(p * v for p, v in trees(0, len(rels)))


def test_inside_is_the_random_split_mixture_over_all_bracketings():
    gen = torch.Generator().manual_seed(0)
    r = 5
    table = torch.rand(r, r, r, generator=gen, dtype=torch.float64)
    table = 0.8 * table / table.sum(-1, keepdim=True)  # 20% of every cell goes to ⊥
    for rels in ([0, 1], [2, 0, 4], [1, 1, 3, 0], [4, 2, 2, 0, 1]):
        got = inside(table, torch.tensor([rels]))[0]
        assert torch.allclose(got, brute_force(table, rels))
        assert got.sum() < 1.0  # mass lost to ⊥


def test_expected_counts_are_the_posterior_over_the_two_bracketings():
    r = 3
    table = torch.zeros(r, r, r, dtype=torch.float64)
    table[0, 1, 2] = 0.9  # a . b -> c, believed 0.9
    table[2, 2, 1] = 0.5  # c . c -> b
    table[1, 2, 2] = 0.6  # b . c -> c
    table[0, 2, 1] = 0.4  # a . c -> b
    groups = {3: (torch.tensor([0]), torch.tensor([[0, 1, 2]]))}  # path a b c, label b
    counts, log_lik = expected_counts(table, groups, torch.tensor([1]), 1.0)
    left, right = 0.9 * 0.5, 0.6 * 0.4  # (a.b).c and a.(b.c), each with split probability 1/2
    assert math.isclose(log_lik, math.log((left + right) / 2))
    assert math.isclose(counts[0, 1, 2], left / (left + right))
    assert math.isclose(counts[1, 2, 2], right / (left + right))
    sharp, _ = expected_counts(table, groups, torch.tensor([1]), 4.0)
    assert sharp[0, 1, 2] > counts[0, 1, 2]  # sharpening favours the likelier derivation


def test_paths_follow_typed_facts_forward_shortest_first():
    s = story([(0, 1, "father"), (1, 2, "brother"), (0, 3, "mother"), (3, 2, "brother-in-law"),
               (0, 2, None), (2, 4, "son"), (5, 6, "wife")], (0, 2))
    assert story_paths(s, LABELS.unknown_relation, 16, 24) == [
        [W["father"], W["brother"]], [W["mother"], W["brother-in-law"]]]
    assert story_paths(s, LABELS.unknown_relation, 1, 24) == [[W["father"], W["brother"]]]
    backwards = story([(1, 0, "son"), (1, 2, "brother")], (0, 2))
    assert story_paths(backwards, LABELS.unknown_relation, 16, 24) == []


def test_composer_is_registered():
    assert get_model("composer") is Composer


def test_trained_composer_generalises_to_longer_chains(trained):
    model, test = trained
    probs = model.predict_proba(test)
    assert probs.shape == (len(test), len(LABELS.words))
    assert np.allclose(probs.sum(1), 1.0)
    accuracy = (probs.argmax(1) == [s.label for s in test]).mean()
    assert accuracy >= 0.9
    assert model.history and {"step", "iteration", "valid_accuracy"} <= set(model.history[-1])


def test_a_story_without_a_path_gets_the_label_prior(trained):
    model, _ = trained
    lonely = story([(0, 1, "father"), (2, 3, None)], (0, 3))
    assert np.allclose(model.predict_proba([lonely])[0], model.prior.numpy())


def test_checkpoint_round_trip(trained, tmp_path):
    model, test = trained
    path = tmp_path / "composer.npz"
    model.save(path)
    again = Composer.load(path)
    assert again.config == model.config
    assert np.array_equal(again.predict_proba(test), model.predict_proba(test))
    assert format_rules(again) == format_rules(model)


def test_unfitted_composer_refuses_to_predict():
    with pytest.raises(RuntimeError):
        Composer(ComposerConfig(), LABELS).predict_proba([])


def test_rules_learned_from_clean_pairs_are_the_sound_kb_rules():
    model = Composer(ComposerConfig(), LABELS)
    model.fit(generated(2, 1500, seed=9), [], progress=False)
    result = compare_with_kb(model)
    assert result.recovered >= 30 and len(result.checks) == 32
    assert result.contradicting == [] and result.beyond_kb == []
    assert result.learned_rules == len(result.agreeing)
    text = result.format()
    assert text.startswith(f"KB kinship: {result.recovered}/32 rules recovered")
    assert "father . father -> grandfather" in format_rules(model)


def test_impossible_word_pairs_are_left_out_of_the_kb_instances():
    possible = possible_word_pairs(tuple(LABELS.words))
    assert not possible[W["husband"], W["husband"]] and not possible[W["father"], W["husband"]]
    assert possible[W["father"], W["wife"]] and possible[W["son"], W["father"]]


def speaker_stories(n: int) -> list[Story]:
    """Two-fact stories where the answer hangs on the sex of the person asked about, as in Iroquois:
    a man's sister's son is his nephew, a woman's is her son (English words, Iroquois pattern)."""
    out = []
    for i in range(n):
        sex = ("male", "female")[i % 2]
        s = story([(0, 1, "sister"), (1, 2, "son")], (0, 2), "nephew" if sex == "male" else "son")
        s.sexes = (sex, "female", "male")
        out.append(s)
    return out


def test_the_speaker_sex_composer_learns_a_rule_that_hangs_on_the_speakers_sex():
    train, test = speaker_stories(40), speaker_stories(10)
    gold = [s.label for s in test]
    plain = Composer(ComposerConfig(), LABELS)
    plain.fit(train, [], progress=False)
    assert (plain.predict_proba(test).argmax(1) == gold).mean() == 0.5  # one answer for both sexes
    sexed_model = Composer(ComposerConfig(speaker_sex=True), LABELS)
    sexed_model.fit(train, [], progress=False)
    probs = sexed_model.predict_proba(test)
    assert probs.shape == (len(test), len(LABELS.words)) and np.allclose(probs.sum(1), 1.0)
    assert (probs.argmax(1) == gold).all()
    assert story_paths(test[1], LABELS.unknown_relation, 16, 24, speaker_sex=True) == [
        [2 * W["sister"] + 1, 2 * W["son"] + 1]]


def test_the_speaker_sex_composer_needs_genders():
    with pytest.raises(ValueError, match="gender"):
        Composer(ComposerConfig(speaker_sex=True), LABELS).fit([story([(0, 1, "sister"), (1, 2, "son")], (0, 2))], [],
                                                                progress=False)
