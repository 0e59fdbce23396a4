"""One typed schema for every JSONL/Parquet file, clean or noisy; HF datasets and pandas load them."""
from __future__ import annotations

import json

import pytest

from clutrr.pipeline.run import write_dataset
from clutrr.pipeline.spec import DatasetSpec, RunOptions
from clutrr.io.schema import FIELDS, json_schema
from clutrr.io.shards import logical_files

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("schema")
    for name, noise in (("clean", "none"), ("noisy", "all")):
        spec = DatasetSpec(train_k=(2, 3), test_k=(2, 4), noise=noise, test_noise=(noise,), train_rows=25,
                           test_rows=12, seed=3)
        write_dataset(spec, root / name, formats=("csv", "jsonl", "parquet"), rows_per_shard=20,
                      run=RunOptions(progress=False))
    return root / "clean", root / "noisy"


def _files(folders, suffix):
    return {split: [str(p) for f in folders for stem, parts in logical_files(f, suffix).items()
                    if stem.endswith(split) for p in parts] for split in ("train", "test")}


def test_every_record_matches_the_json_schema(folders):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json_schema())
    for folder in folders:
        for parts in logical_files(folder, ".jsonl").values():
            for path in parts:
                for line in path.read_text().splitlines():
                    rec = json.loads(line)
                    validator.validate(rec)
                    assert all(isinstance(e["noise"], str) for e in rec["edges"])


def test_clean_and_noisy_jsonl_load_together_with_the_shipped_features(folders):
    from clutrr.io.schema import features

    ds = datasets.load_dataset("json", data_files=_files(folders, ".jsonl"), features=features())
    both = datasets.concatenate_datasets([ds["train"], ds["test"]])
    assert len(both) == 2 * (50 + 24)
    assert set(ds["train"].features) == set(FIELDS)
    kinds = {e["noise"] for rec in both for e in rec["edges"]}
    assert kinds == {"none", "supporting", "irrelevant", "disconnected"}


def test_parquet_loads_typed_with_datasets_and_pandas(folders):
    import pandas as pd

    files = _files(folders, ".parquet")
    ds = datasets.load_dataset("parquet", data_files=files)
    assert len(ds["train"]) == 100 and len(ds["test"]) == 48
    assert ds["train"].features["k"].dtype == "int64" and ds["train"].features["pattern_heldout"].dtype == "bool"
    jsonl = [json.loads(line) for f in _files(folders, ".jsonl")["test"] for line in open(f)]
    assert ds["test"].to_list() == jsonl
    frame = pd.concat([pd.read_parquet(f) for f in files["train"]])
    assert frame["k"].dtype == "int64" and len(frame) == 100
