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
from helpers import REPO

from clutrr import __version__ as clutrr_version
from clutrr.cli import main as clutrr
from clutrr.commands.generate import main as generate
from clutrr.release.build import BuildOptions, generate_command, part_spec, planned_files
from clutrr.release.card import configs_table
from clutrr.release.configs import BY_NAME, CONFIGS, FORM_CONFIGS, ORIGINAL_NAMES, select
from clutrr.release.manifest import fingerprint, read_manifest
from clutrr.io.v1_view import RENAMED, V1_LABELS
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
        from clutrr.io.schema import features_of
        from clutrr.io.v1_view import view_fields
        out = {{}}
        for name, question in {json.dumps({c.name: c.question() for c in CONFIGS})}.items():
            ds = datasets.load_dataset({str(small)!r}, name)
            context = "context" in next(iter(ds.values())).features
            difficulty = "difficulty" in next(iter(ds.values())).features
            fields = features_of(view_fields(context, question=question, difficulty=difficulty))
            out[name] = {{"rows": {{s: d.num_rows for s, d in ds.items()}},
                         "typed": all(d.features == fields for d in ds.values()),
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

    from clutrr.io.schema import features_of
    from clutrr.io.v1_view import view_fields

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
        assert declared == features_of(view_fields(context=name.startswith("ctx"), question=BY_NAME[name].question(),
                                                   difficulty=name.startswith("hard")))
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
    made = pq.read_table(tmp_path / "1" / "3.3_test.parquet").to_pylist()
    released = pq.read_table(folder / "3.3_test.parquet").to_pylist()
    assert [{RENAMED.get(k, k): v for k, v in r.items()} for r in made] == \
        [{k: r[k] for k in (RENAMED.get(k, k) for k in made[0])} for r in released]
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
    built = capsys.readouterr().err
    on_disk = sum(1 for p in out.rglob("*") if p.is_file())
    assert f" {on_disk} files, " in built
    assert clutrr(["release", "--check", str(out), "--workers", "2", "--quiet"]) == 0
    assert f"all {on_disk} files match a rebuild" in capsys.readouterr().err
    assert clutrr(["release", "--check", str(out), "--quick"]) == 0
    assert f"all {on_disk} files match release.json" in capsys.readouterr().err
    target = out / "ctx_depth_k4_w4000" / "1.4_d0.5_test.csv"
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 1
    target.write_bytes(bytes(data))
    assert clutrr(["release", "--check", str(out), "--quiet"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["ctx_depth_k4_w4000/1.4_d0.5_test.csv: differs"]
    assert "1 of " in captured.err and "every data file matches" not in captured.err
    assert clutrr(["release", "--check", str(out), "--quick"]) == 1
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["ctx_depth_k4_w4000/1.4_d0.5_test.csv: differs"]
    assert f"1 of {on_disk} files differ from release.json" in captured.err
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
        (["release"], "give one of --out"),
        (["release", "--out", str(tmp_path / "x"), "--quick"], "--quick goes with --check"),
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


# Code written for HF CLUTRR/v1, as a researcher would run it on load_dataset("CLUTRR/v1", name):
# column names and types, the query names, the integer label in v1's list, the literal columns.
V1_USAGE = textwrap.dedent("""
    import ast, json, sys
    import datasets
    V1 = json.loads(sys.argv[3])
    COLUMNS = ["id", "story", "query", "target", "target_text", "clean_story", "proof_state", "f_comb",
               "task_name", "story_edges", "edge_types", "query_edge", "genders", "task_split"]
    out = {}
    for name in json.loads(sys.argv[2]):
        seen = out[name] = {"rows": 0, "v1_label": 0, "labels": [], "chain_only": 0}
        for split, d in datasets.load_dataset(sys.argv[1], name).items():
            assert list(d.features)[:14] == COLUMNS, list(d.features)
            assert {c: d.features[c].dtype for c in COLUMNS} == {c: "int32" if c == "target" else "string"
                                                                 for c in COLUMNS}
            for row in d:
                head, tail = ast.literal_eval(row["query"])
                people = [p.split(":") for p in row["genders"].split(",")]
                names = [n for n, _ in people]
                assert {g for _, g in people} <= {"male", "female"}
                a, b = ast.literal_eval(row["query_edge"])
                assert (names[a], names[b]) == (head, tail)
                edges = ast.literal_eval(row["story_edges"])
                types = ast.literal_eval(row["edge_types"])
                assert all(0 <= i < len(names) for e in edges for i in e) and len(types) <= len(edges)
                facts = [(names[h], r, names[t]) for (h, t), r in zip(edges, types)]  # as ctp's loader pairs them
                k = int(row["task_name"].rpartition(".")[2])
                seen["chain_only"] += len(facts) == k
                proof = ast.literal_eval(row["proof_state"])
                if proof:
                    assert next(iter(proof[0])) == (head, row["target_text"], tail)
                assert row["task_split"] in ("train", "test") and row["f_comb"].count("-") >= k - 1
                label = row["target"]
                seen["rows"] += 1
                seen["v1_label"] += label < len(V1) and V1[label] == row["target_text"]
                seen["labels"] = sorted(set(seen["labels"]) | {label})
    print(json.dumps(out))
""")


def test_code_written_for_v1_runs_on_every_configuration(small, tmp_path):
    names = read_manifest(small)["configs"]
    env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")}
    done = subprocess.run([sys.executable, "-c", V1_USAGE, str(small), json.dumps(names), json.dumps(V1_LABELS)],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.splitlines()[-1])
    assert sorted(seen) == sorted(names) and len(names) == len(CONFIGS) == 14 + len(FORM_CONFIGS)
    for name, s in seen.items():
        rows = sum(read_manifest(small)["figures"][name]["rows"].values())
        assert s["rows"] == rows > 0, name
        brothers_in_law = sum(r["target_text"] == "brother-in-law" for f in (small / name).glob("*.parquet")
                              for r in pq.read_table(f, columns=["target_text"]).to_pylist())
        assert s["v1_label"] == rows - brothers_in_law, name  # every other label is v1's, with v1's index
        assert set(s["labels"]) <= set(range(len(V1_LABELS) + 1))
    v1 = seen["v1_rob_train_clean_23_test_all_23"]
    assert v1["chain_only"] == v1["rows"] and max(v1["labels"]) < len(V1_LABELS)  # ctp reads the chain alone
    assert seen["rob_train_sup_23_test_all_23"]["chain_only"] < seen["rob_train_sup_23_test_all_23"]["rows"]


def test_chain_types_change_only_edge_types(small):
    folder = small / "v1_rob_train_clean_23_test_all_23"
    for path in folder.glob("*.csv"):
        rows = list(csv.DictReader(path.open(encoding="utf-8")))
        records = pq.read_table(path.with_suffix(".parquet")).to_pylist()
        for row, rec in zip(rows, records, strict=True):
            chain = [e["relation"] for e in rec["edges"] if e["noise"] == "none"]
            assert row["edge_types"] == rec["edge_types"] == repr(chain) and len(chain) == rec["k"]
            assert len(eval(row["story_edges"])) == len(rec["edges"])  # noise facts stay edges, untyped
    noisy = pq.read_table(small / "rob_train_irr_23_test_all_23" / "3.3_test.parquet").to_pylist()
    assert all(r["edge_types"] == repr([e["relation"] for e in r["edges"]]) for r in noisy)
    assert any(len(r["edges"]) > r["k"] for r in noisy)


def test_the_card_states_comparability_as_the_command_prints_it(small, capsys):
    assert clutrr(["release", "--compare", str(small)]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    card = (small / "README.md").read_text(encoding="utf-8")
    assert printed[0].startswith("| configuration | rows | target words") and len(printed) == 2 + len(CONFIGS) + 1
    assert "\n".join(printed) in card
    figures = read_manifest(small)["figures"]
    v1 = figures["v1_rob_train_clean_23_test_all_23"]["comparability"]
    assert v1["never_asked_rows"] == 0 and v1["noise_typed_rows"] == 0 and v1["target_words"] <= 18
    clean = figures["gen_train23_test2to10"]["comparability"]
    assert clean["noise_typed_rows"] == 0 and clean["test_rows_per_file"][0] == clean["test_rows_per_file"][1]
    assert figures["noise_all_train23_test2to10"]["comparability"]["noise_typed_rows"] > 0


def test_the_card_describes_every_column_holdout_and_citation(small):
    from clutrr.release.columns import DESCRIPTIONS
    from clutrr.render.templates import TEST_SHARE

    card = (small / "README.md").read_text(encoding="utf-8")
    for name in pq.read_schema(small / "ctx_train23_test2to10" / "1.2_w1000_test.parquet").names:
        assert name in DESCRIPTIONS and f"| `{name}` |" in card, name
    assert ", ".join(f"{100 * s:.0f}%" for s in TEST_SHARE.values()) + " of the templates" in card
    assert "## Limitations" in card and "## Comparability with published CLUTRR results" in card
    doc = read_manifest(small)
    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True)
    if head.returncode == 0:
        assert doc["commit"] == head.stdout.strip() and isinstance(doc["tree_clean"], bool)
        assert f"commit {doc['commit']}; data fingerprint {doc['data_fingerprint']}" in card
    assert doc["version"] == clutrr_version and f"version      = {{{clutrr_version}}}" in card


def _configs_table(scale: float) -> str:
    """The card's table of configurations at ``scale``, from the planned files."""
    built = [(c, planned_files(c, scale)) for c in CONFIGS]
    figures = {c.name: {"rows": {s: sum(f.rows for f in files if f.split == s) for s in ("train", "validation", "test")}}
               for c, files in built}
    return "\n".join(configs_table(built, figures))


def test_the_docs_show_the_configurations_table_the_full_release_card_prints(small):
    """Every file a build writes is planned, with its rows; so the card's table at scale 1 is known
    without building the full release, and docs/release.md shows it."""
    for config in CONFIGS:
        built = {f.stem: pq.read_metadata(f).num_rows for f in (small / config.name).glob("*.parquet")}
        assert {f.stem: f.rows for f in planned_files(config, SCALE)} == built, config.name
    assert _configs_table(SCALE) in (small / "README.md").read_text(encoding="utf-8")
    docs = (REPO / "docs" / "release.md").read_text(encoding="utf-8")
    assert _configs_table(1) in docs


def test_the_docs_show_the_v1_table_the_card_prints():
    from clutrr.release.columns import v1_table

    docs = (REPO / "docs" / "release.md").read_text(encoding="utf-8")
    assert "\n".join(v1_table()) in docs
    assert "60%, 35% and 25% of the templates" in docs and "20%" not in docs


def test_one_configuration_per_question_form(small):
    """Each question form's configuration asks it in every row, typed in Parquet, said on the card."""
    card = (small / "README.md").read_text(encoding="utf-8")
    types = {"person": str, "people": list, "count": int, "yesno": str}
    assert [c.question() for c in FORM_CONFIGS] == list(types)
    for config in FORM_CONFIGS:
        form = config.question()
        assert f"--question {form}" in generate_command(config, config.parts[0], 0, SCALE)
        assert f"| `{config.name}` | ours |" in card and f"`--question {form}`" in card
        rows = [r for f in sorted((small / config.name).glob("*.parquet")) for r in pq.read_table(f).to_pylist()]
        assert rows and {r["form"] for r in rows} == {form}
        assert all(isinstance(r["answer"], types[form]) and r["question"].endswith("?") for r in rows)
        assert all(len(r["query_people"]) == (2 if form == "yesno" else 1) for r in rows)
        header = next(csv.reader((small / config.name / "1.2_test.csv").open()))
        assert header[-5:] == ["form", "question", "answer", "form_query", "form_target"]
    assert "| `answer` | string, list of string or int64, by form |" in card
