"""The training-loop API: deterministic procedural datasets, answer scoring, rewards, difficulty moves."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from clutrr.diagnostics.audit import story_tokens
from clutrr.rl import Curriculum, DatasetConfig, FileDataset, make_dataset, reward, score_answer
from clutrr.diagnostics.naive_bayes import MultinomialNB
from helpers import run_generate


def test_dataset_is_deterministic_per_index():
    cfg = DatasetConfig(size=12, k=(2, 3), noise=("none", "irrelevant"))
    a, b = make_dataset(cfg, seed=3), make_dataset(cfg, seed=3)
    assert len(a) == 12
    forward = [a[i]["story"] for i in range(12)]
    backward = [b[i]["story"] for i in reversed(range(12))][::-1]
    assert forward == backward
    assert a[-1]["story"] == a[11]["story"]
    assert [x["story"] for x in a[2:5]] == forward[2:5]
    assert make_dataset(cfg, seed=4)[0]["story"] != forward[0]
    with pytest.raises(IndexError):
        a[12]


def test_items_cycle_through_k_and_noise():
    ds = make_dataset(DatasetConfig(size=8, k=(2, 4), noise=("none", "supporting")), seed=0)
    assert [(x["metadata"]["k"], x["metadata"]["noise"]) for x in ds[:4]] == [
        (2, "none"), (2, "supporting"), (4, "none"), (4, "supporting")]
    item = ds[2]
    assert item["metadata"]["k"] == 4 and len(item["metadata"]["pattern"].split("-")) >= 4
    assert item["metadata"]["facts"][:4] and all(f["relation"] for f in item["metadata"]["facts"])
    head, tail = item["query"]
    assert item["question"].endswith(f"How is {tail} related to {head}?")


def test_score_answer_ignores_case_and_spacing():
    item = {"answer": "son-in-law"}
    for answer in ("son-in-law", "Son-In-Law", "  SON - IN - LAW ", "son in law", "son-in-law."):
        assert score_answer(answer, item) == 1.0
    for answer in ("son", "daughter-in-law", "", None, "sonin-law"):
        assert score_answer(answer, item) == 0.0
    assert score_answer(" Niece", {"answer": "niece"}) == 1.0


def test_curriculum_moves_difficulty_both_ways():
    cur = Curriculum(k_levels=(2, 3, 4), noise_levels=("none", "irrelevant"))
    assert (cur.k, cur.noise) == (2, "none")
    assert cur.update(0.95) == 1 and cur.k == 3
    assert cur.update(0.95) == 1 and cur.k == 4
    assert cur.update(0.95) == 0 and cur.k == 4  # already hardest
    assert cur.update(0.7) == 0 and cur.k == 4  # between the thresholds
    assert cur.update(0.1) == -1 and cur.k == 3
    assert cur.update(0.99, axis="noise") == 1 and cur.noise == "irrelevant"
    assert cur.config().k == (3,) and cur.config().noise == ("irrelevant",)
    assert cur.decrease("noise") and not cur.decrease("noise")
    assert cur.decrease() and not cur.decrease() and cur.k == 2


def test_cumulative_curriculum_rehearses_easier_k():
    cur = Curriculum(DatasetConfig(size=6), k_levels=(2, 3, 5), cumulative=True)
    cur.increase()
    cur.increase()
    assert cur.config().k == (2, 3, 5)
    assert {x["metadata"]["k"] for x in cur.dataset(seed=0)} == {2, 3, 5}


def test_readme_training_loop_runs():
    cur = Curriculum(DatasetConfig(size=66), k_levels=(2, 3), cumulative=True)
    moves = []
    for step in range(2):
        train = cur.dataset(seed=step)
        model = MultinomialNB().fit([story_tokens(x["story"]) for x in train], [x["answer"] for x in train])
        held = make_dataset(replace(cur.config(), size=22, split="test"), seed=100 + step)
        preds = model.predict([story_tokens(x["story"]) for x in held])
        acc = sum(score_answer(p, x) for p, x in zip(preds, held)) / len(held)
        assert 0.0 <= acc <= 1.0
        moves.append(cur.update(acc, raise_at=0.0 if step == 0 else 1.01, lower_at=0.0 if step == 0 else 1.01))
    assert moves == [1, -1]


def test_items_are_plain_json_with_reasoning_gym_metadata(tmp_path):
    ds = make_dataset(DatasetConfig(size=6, k=(2, 3), noise=("none", "all")), seed=5)
    for i, item in enumerate(ds):
        assert json.loads(json.dumps(item)) == item
        meta = item["metadata"]
        assert (meta["source_dataset"], meta["source_index"], meta["seed"]) == ("clutrr", i, 5)
        assert ds.score_answer(item["answer"], item) == 1.0
        head, tail = item["query"]
        people = [p["name"] for p in meta["people"]]
        assert [people[j] for j in meta["query_edge"]] == [head, tail]
    res = run_generate("--k", "2", "--test-k", "2", "--train-rows", "5", "--test-rows", "5", "--out", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    files = FileDataset(tmp_path / "d")
    assert len(files) == 5
    for item in files:
        assert json.loads(json.dumps(item)) == item
        assert item["split"] == "1.2_test" and item["metadata"]["pattern_heldout"] is False


def test_item_seeds_do_not_slide_with_the_index():
    """Item i+1 under seed s is not item i under seed s+1 (as it would be with Random(seed + i))."""
    cfg = DatasetConfig(size=6, k=(2,), noise=("none",))
    for s in range(3):
        a, b = make_dataset(cfg, seed=s), make_dataset(cfg, seed=s + 1)
        for i in range(5):
            assert a[i + 1]["story"] != b[i]["story"]
            assert a[i + 1]["id"] != b[i]["id"]


def test_reward_with_and_without_format_bonus():
    item = {"answer": "aunt"}
    assert reward("<answer>aunt</answer>", item) == 1.0
    assert reward("She is his aunt.", item) == 1.0
    assert reward("<answer>aunt</answer>", item, format_bonus=0.1) == 1.1
    assert reward("<answer>uncle</answer>", item, format_bonus=0.1) == 0.0  # a wrong answer earns nothing
    assert reward("<think><answer>aunt</answer></think>", item, format_bonus=0.1) == 0.0
    assert reward("<think>Mary is his aunt.</think><answer>aunt</answer>", item, format_bonus=0.1) == 1.1
    assert reward("She is his aunt.", item, format_bonus=0.1) == 1.0
    assert reward("<answer>aunt</answer><answer>aunt</answer>", item, format_bonus=0.1) == 1.0
    assert reward(None, item, format_bonus=0.1) == 0.0
    with pytest.raises(ValueError):
        reward("aunt", item, format_bonus=-1)
