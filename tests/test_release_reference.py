"""Reference baselines on a release: shown by the card only for the data they were measured on."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from clutrr.errors import UsageError
from clutrr.release.build import BuildOptions
from clutrr.release.configs import select
from clutrr.release.reference import reference_tables
from clutrr.release.run import write_release

REF = {
    "command": "python -m clutrr.baselines.release --release DIR", "runs": "one run (seed 0)",
    "cost": "CPU time: composer 10 s", "skipped": "long contexts",
    "configs": {
        "gen_train23_test2to10": {"fingerprint": "aaa", "files": ["1.2_test", "1.3_test"],
                                  "models": {"composer": {"all": 0.99, "by_file": {"1.2_test": 1.0, "1.3_test": 0.98}}}},
        "mem_train23_test2to10": {"fingerprint": "bbb", "files": ["6.2_test"],
                                  "models": {"gat": {"all": 0.5, "by_file": {"6.2_test": 0.5}}}},
    },
}


def test_tables_only_for_configurations_of_the_same_data(tmp_path):
    path = tmp_path / "reference.json"
    path.write_text(json.dumps(REF))
    names = ["gen_train23_test2to10", "mem_train23_test2to10", "ctx_depth_k4_w4000"]
    lines = reference_tables(names, {"gen_train23_test2to10": "aaa", "mem_train23_test2to10": "changed"}, path)
    text = "\n".join(lines)
    assert "| composer | 0.990 | 1.000 | 0.980 |" in text and "6.2_test" not in text
    assert "Not measured: `mem_train23_test2to10`, `ctx_depth_k4_w4000`" in text
    none = "\n".join(reference_tables(names, {}, path))
    assert "this build's data differ" in none and "|" not in none
    assert "this build's data differ" in "\n".join(reference_tables(names, {}, tmp_path / "absent.json"))


@pytest.fixture(scope="module")
def memory_release(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "rel"
    write_release(out, select("mem_train23_test2to10"), BuildOptions(scale=0.02, progress=False))
    return out


def test_the_composer_answers_memory_queries(memory_release):
    from clutrr.baselines.release import measure

    result = measure("composer", memory_release / "mem_train23_test2to10")
    assert result["all"] == 1.0 and set(result["by_file"]) == {f"6.{k}_test" for k in range(2, 11)}


def test_reference_figures_need_the_full_release(memory_release, tmp_path):
    from clutrr.baselines.release import run

    with pytest.raises(UsageError, match="scale 0.02"):
        run(memory_release, ("composer",), tmp_path / "ref.json", progress=False)
    assert not (tmp_path / "ref.json").exists()
