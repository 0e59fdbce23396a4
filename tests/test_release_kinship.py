"""The kinship tier of ``clutrr release``: one configuration per built-in kinship system, built by
name or as ``--configs kinship``, outside the default release; a built one is verified under its
own system's rules and its card says what the system is."""
from __future__ import annotations

import csv
import os
import subprocess
import sys
import textwrap

import pyarrow.parquet as pq
import pytest
import yaml

from clutrr.core.kb import load_kb
from clutrr.kinship.terminology import builtin_terminologies, load_terminology
from clutrr.release.build import BuildOptions, generate_command, part_spec
from clutrr.release.configs import BY_NAME, CONFIGS, KINSHIP, select
from clutrr.release.run import release_command, write_release
from clutrr.story.systems import kinship_fields

NAME = "kin_eskimo_train23_test2to10"


def test_the_tier_has_one_configuration_per_builtin_system_and_stays_out_of_the_default_release():
    assert [c.kinship for c in select("kinship")] == builtin_terminologies() == [c.kinship for c in KINSHIP]
    assert len(KINSHIP) == 7 and all(c.name == f"kin_{c.kinship}_train23_test2to10" for c in KINSHIP)
    assert select(None) == CONFIGS and not any(c.kinship for c in CONFIGS)
    assert select(f"{NAME},gen_train23_test2to10") == (BY_NAME["gen_train23_test2to10"], BY_NAME[NAME])
    config = BY_NAME[NAME]
    assert release_command((config,), BuildOptions()) == f"clutrr release --out DIR --seed 0 --scale 1 --configs {NAME}"


def test_a_kinship_configuration_generates_in_its_systems_terms():
    config = BY_NAME[NAME]
    spec = part_spec(config, config.parts[0], 0, 1.0)
    assert (spec.config.kb, spec.config.templates) == (kinship_fields("eskimo")["kb"],
                                                        kinship_fields("eskimo")["templates"])
    assert "--kinship eskimo" in generate_command(config, config.parts[0], 0, 1.0)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("release") / "rel"
    doc = write_release(out, (BY_NAME[NAME],), BuildOptions(scale=0.002, progress=False))
    return out, doc


def test_a_built_kinship_configuration_is_verified_labelled_by_its_terms_and_described(built):
    out, doc = built
    words = load_kb(kinship_fields("eskimo")["kb"]).words
    fig = doc["figures"][NAME]
    assert fig["verify"]["entailed"] == sum(fig["rows"].values()) > 0
    rows = 0
    for path in sorted((out / NAME).glob("*.parquet")):
        table = pq.read_table(path).to_pylist()
        rows += len(table)
        assert all(r["target"] == words.index(r["target_text"]) and r["kin_type"] for r in table)
        with path.with_suffix(".csv").open() as fh:
            assert [r["kin_type"] for r in csv.DictReader(fh)] == [r["kin_type"] for r in table]
    assert rows == sum(fig["rows"].values())
    card = (out / "README.md").read_text(encoding="utf-8")
    description = " ".join(load_terminology("eskimo").description.split())
    assert "## Kinship systems" in card and description in card and "`cousin`" in card
    header = yaml.safe_load(card.split("---\n")[1])
    features = [f["name"] for f in header["dataset_info"][0]["features"]]
    assert {"kin_type", "glossary"} <= set(features)


def test_a_built_kinship_configuration_loads_by_name_offline(built, tmp_path):
    out, doc = built
    script = textwrap.dedent(f"""
        import datasets
        ds = datasets.load_dataset({str(out)!r}, {NAME!r})
        print(sorted((s, d.num_rows) for s, d in ds.items()))
    """)
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    declared = sorted((s, n) for s, n in doc["figures"][NAME]["rows"].items() if n)
    assert done.stdout.strip().splitlines()[-1] == str(declared)
