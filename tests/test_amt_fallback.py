"""An AMT-format train/test pair that lacks many relations (fixture written for this project):
generation fills them from the fallback bank, drops flagged templates, repairs prose, and
gives the same bytes for the same seed whatever the worker count."""
from __future__ import annotations

import json
import re
from pathlib import Path

from clutrr.story.generator import GeneratorConfig, banks
from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec
from clutrr.render.amt_templates import load_amt
from clutrr.render.usable import usable_bank

FIXTURES = Path(__file__).resolve().parent / "fixtures_amt"
PAIR = str(FIXTURES / "partial.json")
OWN_WORDS = {"son", "daughter", "father", "mother", "husband", "wife", "brother", "sister", "niece"}


def _spec(seed: int = 4) -> DatasetSpec:
    return DatasetSpec(train_k=(2, 3), test_k=(2, 4), noise="all", test_noise=("none", "all"), train_rows=40,
                       test_rows=25, seed=seed, config=GeneratorConfig(templates=PAIR))


def _texts(name: str) -> dict[str, str]:
    return {t.text: t.id for t in load_amt(FIXTURES / name)}


def test_flagged_templates_are_dropped_and_counted():
    bank = usable_bank(PAIR)
    train = _texts("partial.train.json")
    assert bank.dropped == {"total": 2, "5": 1, "8": 1}
    kept = {t.id for t in bank.templates()}
    assert train["{A} took his son {B} fishing."] not in kept  # the fact points the other way
    assert train["{A} phoned {B}, mother to {A}, who worries,, every Sunday."] not in kept  # doubled comma
    assert train["{B} , the son of {A} , does n't like trains"] in kept  # repaired when rendered


def test_missing_clauses_come_from_the_fallback_split_by_split():
    parts = banks(GeneratorConfig(templates=PAIR), 4)
    own_train = {t.id for t in load_amt(FIXTURES / "partial.train.json")}
    for split, part in parts.items():
        filled = {t.clause[0] for t in part.templates() if t.id in part.fallback_ids}
        assert filled and not filled & OWN_WORDS
        assert {"grandfather", "uncle", "aunt", "nephew", "son-in-law"} <= filled
        own = {t.id for t in part.templates() if t.id not in part.fallback_ids}
        assert (own <= own_train) == (split == "train")
    fallback_train = usable_bank("paraphrase").split(4)[0]
    train = parts["train"]
    assert {t.id for t in train.templates() if t.id in train.fallback_ids} <= {t.id for t in fallback_train.templates()}


def test_generation_reports_fallback_and_repairs_prose(tmp_path):
    out = tmp_path / "data"
    manifest = write_dataset(_spec(), out, progress=False)
    text = manifest["text"]
    assert text["templates"] == PAIR and text["fallback_templates"] == "paraphrase"
    assert text["dropped_templates"] == {"total": 2, "5": 1, "8": 1}
    assert "grandmother (A female)" in text["filled_from_fallback"]["train"]
    assert 0 < text["fallback_share"] < 1 and 0 < text["coverage"]["1"] < 1
    assert json.loads((out / "config.json").read_text())["text"] == text
    every = load_amt(FIXTURES / "partial.train.json") + load_amt(FIXTURES / "partial.test.json")
    dropped = {t.id for t in every} - {t.id for t in usable_bank(PAIR).templates()}
    train = _texts("partial.train.json")
    unpunctuated = {train["{B} , the son of {A} , does n't like trains"]: ", doesn't like trains.",
                    train["{A} has a daughter, {B}, who paints"]: ", who paints."}
    used = 0
    for path in sorted(out.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            rec = json.loads(line)
            ids = {p["template"] for p in rec["pieces"]}
            assert not ids & dropped
            story = rec["story"]
            assert " n't" not in story and " ," not in story and ",," not in story
            assert re.search(r"[.!?]$", story)
            for tid, ending in unpunctuated.items():
                if tid in ids:
                    used += 1
                    assert ending in story  # repaired, so the next piece starts a new sentence
    assert used


def test_same_seed_same_bytes_for_any_worker_count(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    write_dataset(_spec(), one, workers=1, progress=False)
    write_dataset(_spec(), two, workers=2, progress=False)
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in two.iterdir())
    for name in names:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
