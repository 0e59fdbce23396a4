"""clutrr release: a small release loads by name through HF datasets offline, its card matches its
files, its fingerprints are sha256sum's, and --check rebuilds it byte for byte."""
from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from clutrr.cli import main as clutrr
from clutrr.commands.generate import main as generate
from clutrr.release.build import BuildOptions, generate_command, part_spec
from clutrr.release.configs import BY_NAME, CONFIGS, ORIGINAL_NAMES, select
from clutrr.release.manifest import fingerprint, read_manifest
from clutrr.release.run import write_release

SCALE = 0.003
SUBSET = "gen_train23_test2to10,ctx_depth_k4_w4000"


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    """Every configuration at scale 0.003."""
    out = tmp_path_factory.mktemp("release") / "rel"
    write_release(out, CONFIGS, BuildOptions(scale=SCALE, progress=False))
    return out


def card_header(root: Path) -> dict:
    text = (root / "README.md").read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n")[1])


def test_the_six_original_configurations_keep_their_names_and_tasks():
    assert ORIGINAL_NAMES == ("gen_train23_test2to10", "gen_train234_test2to10", "rob_train_clean_23_test_all_23",
                              "rob_train_sup_23_test_all_23", "rob_train_irr_23_test_all_23",
                              "rob_train_disc_23_test_all_23")
    stems = {}
    for name in ORIGINAL_NAMES:
        config = BY_NAME[name]
        specs = [part_spec(config, p, 0, 1.0) for p in config.parts]
        stems[name] = [stem for spec in specs for stem, *_ in spec.files()]
    assert stems["gen_train23_test2to10"] == ["1.2,1.3_train", *(f"1.{k}_test" for k in range(2, 11))]
    assert stems["gen_train234_test2to10"][0] == "1.2,1.3,1.4_train"
    assert stems["rob_train_clean_23_test_all_23"] == ["1.2,1.3_train", "1.2_test", "1.3_test", "2.3_test",
                                                       "3.3_test", "4.3_test"]
    assert stems["rob_train_sup_23_test_all_23"] == ["2.2,2.3_train", "2.2_test", "2.3_test", "1.3_test",
                                                     "3.3_test", "4.3_test"]
    assert stems["rob_train_irr_23_test_all_23"][:3] == ["3.2,3.3_train", "3.2_test", "3.3_test"]
    assert stems["rob_train_disc_23_test_all_23"][-3:] == ["1.3_test", "2.3_test", "3.3_test"]


def test_every_configuration_loads_by_name_offline(small, tmp_path):
    script = textwrap.dedent(f"""
        import json, datasets
        from clutrr.io.schema import features
        out = {{}}
        for name in {json.dumps([c.name for c in CONFIGS])}:
            ds = datasets.load_dataset({str(small)!r}, name)
            context = "context" in next(iter(ds.values())).features
            out[name] = {{"rows": {{s: d.num_rows for s, d in ds.items()}},
                         "typed": all(d.features == features(context=context) for d in ds.values()),
                         "context": context}}
        print(json.dumps(out))
    """)
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    loaded = json.loads(done.stdout.splitlines()[-1])
    doc = read_manifest(small)
    for name in doc["configs"]:
        assert loaded[name]["typed"] and loaded[name]["context"] == name.startswith("ctx")
        declared = {s: n for s, n in doc["figures"][name]["rows"].items() if n}
        assert loaded[name]["rows"] == declared


def test_the_card_declares_every_file_feature_and_count(small):
    from datasets import Features

    from clutrr.io.schema import features

    header = card_header(small)
    assert [c["config_name"] for c in header["configs"]] == [c.name for c in CONFIGS]
    infos = {i["config_name"]: i for i in header["dataset_info"]}
    for config in header["configs"]:
        name = config["config_name"]
        listed = [p for df in config["data_files"] for p in df["path"]]
        assert sorted(listed) == sorted(p.relative_to(small).as_posix() for p in (small / name).glob("*.parquet"))
        counts = {s["name"]: s["num_examples"] for s in infos[name]["splits"]}
        for df in config["data_files"]:
            files = [small / p for p in df["path"]]
            assert counts[df["split"]] == sum(pq.ParquetFile(f).metadata.num_rows for f in files)
            assert counts[df["split"]] == sum(sum(1 for _ in csv.reader(f.with_suffix(".csv").open())) - 1
                                              for f in files)
        declared = Features._from_yaml_list(infos[name]["features"])
        assert declared == features(context=name.startswith("ctx"))
        assert pq.read_schema(small / listed[0]).names == list(declared)


def test_a_wrong_count_in_the_card_fails_to_load(small, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(small, copy)
    card = (copy / "README.md").read_text(encoding="utf-8")
    train = read_manifest(small)["figures"]["gen_train23_test2to10"]["rows"]["train"]
    (copy / "README.md").write_text(card.replace(f"num_examples: {train}\n", f"num_examples: {train + 1}\n", 1))
    script = f"import datasets; datasets.load_dataset({str(copy)!r}, 'gen_train23_test2to10')"
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode != 0 and "NonMatchingSplitsSizesError" in done.stderr


def test_every_row_is_verified_and_nothing_leaks(small):
    doc = read_manifest(small)
    for name, fig in doc["figures"].items():
        rows = sum(fig["rows"].values())
        assert fig["verify"]["entailed"] == rows == sum(fig["verify"].values())
        assert fig["leakage"]["stories_in_two_splits"] == 0 and fig["leakage"]["heldout_patterns_in_training"] == 0
        assert fig["leakage"]["test_templates_in_training"] == 0


def test_validation_is_held_out_by_story(small):
    folder = small / "rob_train_sup_23_test_all_23"
    train = pq.read_table(folder / "2.2,2.3_train.parquet").to_pylist()
    valid = pq.read_table(folder / "2.2,2.3_validation.parquet").to_pylist()
    assert {r["split"] for r in train + valid} == {"train"}  # the generator's split: training templates
    assert not {r["id"] for r in train} & {r["id"] for r in valid}
    assert not {r["story"] for r in train} & {r["story"] for r in valid}
    assert {r["noise"] for r in train + valid} == {"supporting"}
    rows = list(csv.DictReader((folder / "2.2,2.3_validation.csv").open()))
    assert [r["id"] for r in rows] == [r["id"] for r in valid] and {r["task_split"] for r in rows} == {"train"}
    assert [r[""] for r in rows] == [str(i) for i in range(len(rows))]


def test_the_cards_commands_make_the_files(small, tmp_path):
    config = BY_NAME["rob_train_clean_23_test_all_23"]
    folder = small / config.name
    for i, part in enumerate(config.parts):
        words = generate_command(config, part, 0, SCALE).split()[2:]
        argv = words + ["--out", str(tmp_path / str(i)), "--quiet"]
        assert generate(argv) == 0
    assert (tmp_path / "0" / "1.2_test.csv").read_bytes() == (folder / "1.2_test.csv").read_bytes()
    assert (tmp_path / "1" / "3.3_test.parquet").read_bytes() == (folder / "3.3_test.parquet").read_bytes()
    made = {r["id"] for r in csv.DictReader((tmp_path / "0" / "1.2,1.3_train.csv").open())}
    released = {r["id"] for stem in ("1.2,1.3_train", "1.2,1.3_validation")
                for r in csv.DictReader((folder / f"{stem}.csv").open())}
    assert made == released


def test_the_fingerprint_is_sha256sum_of_the_files(small):
    pipeline = ("find . -type f ! -name release.json | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum "
                "| sha256sum")
    done = subprocess.run(["sh", "-c", pipeline], cwd=small, capture_output=True, text=True, check=True)
    doc = read_manifest(small)
    assert done.stdout.split()[0] == doc["fingerprint"]
    assert fingerprint({f["file"]: f["sha256"] for f in doc["files"]}) == doc["fingerprint"]


def test_check_passes_on_a_fresh_build_with_other_workers_and_names_a_changed_file(tmp_path, capsys):
    out = tmp_path / "rel"
    assert clutrr(["release", "--out", str(out), "--configs", SUBSET, "--scale", str(SCALE), "--quiet"]) == 0
    assert clutrr(["release", "--check", str(out), "--workers", "2", "--quiet"]) == 0
    assert "files match a rebuild" in capsys.readouterr().err
    target = out / "ctx_depth_k4_w4000" / "1.4_d0.5_test.csv"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    assert clutrr(["release", "--check", str(out), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["ctx_depth_k4_w4000/1.4_d0.5_test.csv: differs"]
    assert "1 of " in captured.err and "every data file matches" not in captured.err
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    card = out / "README.md"  # a card written by another clutrr (other reference figures): the data still match
    card.write_text(card.read_text(encoding="utf-8") + "\nanother build's figures\n", encoding="utf-8")
    assert clutrr(["release", "--check", str(out), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["README.md: differs"]
    assert "every data file matches" in captured.err and "only the card differs" in captured.err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the rebuilds left nothing


def test_bad_requests_exit_2_and_leave_nothing(tmp_path, capsys):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    cases = [
        (["release", "--check", str(tmp_path / "mine")], "not a release folder"),
        (["release", "--out", str(tmp_path / "mine"), "--force", "--configs", SUBSET], "clutrr did not write it"),
        (["release", "--out", str(tmp_path / "x"), "--configs", "gen_train99"], "unknown configuration"),
        (["release", "--out", str(tmp_path / "x"), "--scale", "0"], "--scale"),
        (["release"], "either --out"),
        (["release", "--check", str(tmp_path / "mine"), "--configs", SUBSET], "--check takes"),
    ]
    for argv, message in cases:
        assert clutrr(argv) == 2, argv
        assert message in capsys.readouterr().err
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]


def test_select_keeps_table_order():
    assert [c.name for c in select("ctx_depth_k4_w4000,gen_train23_test2to10")] == SUBSET.split(",")


def test_force_replaces_a_release_and_nothing_else(tmp_path, capsys):
    out = tmp_path / "rel"
    build = ["release", "--out", str(out), "--configs", "ctx_depth_k4_w4000", "--scale", str(SCALE), "--quiet"]
    assert clutrr(build) == 0
    assert clutrr(build) == 2 and "not empty" in capsys.readouterr().err
    assert clutrr([*build, "--force"]) == 0
    (out / "notes.txt").write_text("mine")
    assert clutrr([*build, "--force"]) == 2 and "notes.txt" in capsys.readouterr().err
    assert (out / "notes.txt").read_text() == "mine"
    dataset = tmp_path / "data"
    assert generate(["--k", "2", "--test-k", "none", "--train-rows", "5", "--out", str(dataset), "--quiet"]) == 0
    assert clutrr(["release", "--out", str(dataset), "--force", "--configs", "ctx_depth_k4_w4000"]) == 2
    assert "a clutrr dataset" in capsys.readouterr().err
