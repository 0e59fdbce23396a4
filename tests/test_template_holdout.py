"""The template holdout: a fixed, seeded 80/20 split per clause, and no test template in a train story."""
from __future__ import annotations

import json
from pathlib import Path

from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec
from clutrr.story.generator import GeneratorConfig, banks
from clutrr.render.bank_files import load_bank
from clutrr.render.templates import TEST_SHARE


def _used_ids(out: Path, split: str) -> set[str]:
    ids: set[str] = set()
    for path in out.glob(f"*_{split}.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            ids.update(p["template"] for p in rec["pieces"])
            ids.add(rec["target_template"])
    return ids


def _generate(out: Path, config: GeneratorConfig) -> dict:
    spec = DatasetSpec(train_k=(2, 3), test_k=(2, 3), noise="supporting", test_noise=("supporting", "none"),
                       train_rows=40, test_rows=20, seed=0, config=config)
    return write_dataset(spec, out, progress=False)


def test_split_is_seeded_disjoint_and_holds_out_the_test_share_of_each_clause():
    bank = load_bank("paraphrase")
    train, test = bank.split(0)
    train_ids, test_ids = {t.id for t in train.templates()}, {t.id for t in test.templates()}
    assert not train_ids & test_ids
    assert train_ids | test_ids == {t.id for t in bank.templates()}
    for clause, templates in bank.by_clause.items():
        n_test = len(test.by_clause.get(clause, []))
        assert n_test == (max(1, round(len(templates) * TEST_SHARE[len(clause)])) if len(templates) >= 2 else 0)
    again = bank.split(0)[1]
    assert [t.id for t in again.templates()] == [t.id for t in test.templates()]
    assert {t.id for t in bank.split(1)[1].templates()} != test_ids


def test_no_test_template_occurs_in_a_train_story(tmp_path):
    config = GeneratorConfig(templates="paraphrase")
    manifest = _generate(tmp_path / "data", config)
    train_used, test_used = _used_ids(tmp_path / "data", "train"), _used_ids(tmp_path / "data", "test")
    assert train_used and test_used
    assert not train_used & test_used
    split = banks(config, 0)
    assert train_used <= {t.id for t in split["train"].templates()}
    assert test_used <= {t.id for t in split["test"].templates()}
    recorded = json.loads((tmp_path / "data" / "config.json").read_text())["spec"]["config"]
    assert recorded["templates"] == "paraphrase" and recorded["template_split"] is True
    assert manifest["spec"]["config"]["template_split"] is True


def test_without_the_split_test_stories_reuse_train_templates(tmp_path):
    # the check above can fail: with one shared bank the same ids show up on both sides
    _generate(tmp_path / "same", GeneratorConfig(templates="synthetic", template_split=False))
    assert _used_ids(tmp_path / "same", "train") & _used_ids(tmp_path / "same", "test")
