"""Every registered baseline trains, validates, predicts in `clutrr eval`'s format and reloads."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from baseline_data import other_data, tiny_data  # noqa: F401  (fixtures)

from clutrr.baselines.bilstm import BiLSTMClassifier
from clutrr.baselines.data import LabelVocab, load_dataset, load_tests, split_validation
from clutrr.baselines.registry import get_model, load_checkpoint, registered
from clutrr.baselines.train import main, train_and_evaluate
from clutrr.eval import evaluate, load_eval_set

CHANCE = 1 / 22


def one_epoch(name: str) -> dict:
    fields = get_model(name).Config.__dataclass_fields__
    return {"epochs": 1} if "epochs" in fields else {}


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_registered_model_trains_predicts_and_reloads(name, tiny_data, other_data, tmp_path):
    out = tmp_path / "run"
    doc = train_and_evaluate(name, tiny_data, test_data=[other_data], overrides=one_epoch(name), out=out,
                             valid_share=0.2)
    total = len(load_dataset(tiny_data).train)
    assert doc["valid_rows"] == pytest.approx(0.2 * total, abs=3) and doc["train_rows"] + doc["valid_rows"] == total
    assert json.loads((out / "results.json").read_text())["model"] == name
    # predictions: one record per test story of both folders, in the format clutrr eval reads
    model = load_checkpoint(out / "checkpoints" / "seed0")
    assert type(model) is get_model(name)
    for folder, root in (("tiny", tiny_data), ("tiny-2", other_data)):
        records = [json.loads(line) for line in (out / "predictions" / "seed0" / f"{folder}.jsonl").open()]
        stories = [s for t in load_tests(root) for s in t.stories]
        assert [r["id"] for r in records] == [s.id for s in stories]
        for r in records:
            assert abs(sum(r["probabilities"].values()) - 1) < 0.01
            assert r["probabilities"][r["prediction"]] >= max(r["probabilities"].values()) - 1e-4  # rounded
        # the reloaded checkpoint answers as the trained model did
        assert model.predict(stories) == [r["prediction"] for r in records]
        report = evaluate(load_eval_set(root), records, strict=True)
        assert report.overall.accuracy == pytest.approx(doc["per_run"][0]["reports"][folder]["overall"]["accuracy"])
        assert (out / "reports" / folder / "report.md").is_file()


def test_early_stopping_keeps_the_epoch_of_lowest_validation_loss(tiny_data, tmp_path):
    doc = train_and_evaluate("gat", tiny_data, overrides={"epochs": 8, "patience": 2}, valid_share=0.2,
                             out=tmp_path / "run")
    fit = doc["per_run"][0]["fit"]
    history = fit["history"]
    best = min(history, key=lambda h: h["valid_loss"])
    assert fit["best_epoch"] == best["epoch"]
    assert fit["epochs_run"] == len(history) and (len(history) == 8 or len(history) == best["epoch"] + 2)
    # the saved checkpoint is the best epoch's state: it scores that epoch's validation accuracy
    _, valid = split_validation(load_dataset(tiny_data).train, 0.2, 0)
    model = load_checkpoint(tmp_path / "run" / "checkpoints" / "seed0")
    right = np.mean([p == model.labels.words[s.label] for p, s in zip(model.predict(valid), valid)])
    assert right == pytest.approx(best["valid_accuracy"])


def test_validation_split_is_by_story_and_seeded(tiny_data):
    train = load_dataset(tiny_data).train
    twice = train + [train[0]]  # one story told twice
    fit, valid = split_validation(twice, 0.25, seed=3)
    assert (fit, valid) == split_validation(twice, 0.25, seed=3)
    assert split_validation(twice, 0.25, seed=4)[1] != valid
    assert len(valid) == pytest.approx(0.25 * len(twice), abs=2)
    assert not {s.id for s in fit} & {s.id for s in valid}  # the repeated story sits on one side only
    assert split_validation(train, 0.0, 0) == (train, [])


def test_gat_composes_relations_well_above_chance(tiny_data):
    doc = train_and_evaluate("gat", tiny_data, overrides={"epochs": 20}, valid_share=0.1)
    summary = doc["summary"]["tiny"]
    assert summary["1.2_test"]["mean"] > 10 * CHANCE  # k=2 needs composing two facts
    assert summary["1.1_test"]["mean"] > 10 * CHANCE


def test_bilstm_attention_reads_relations_well_above_chance(tiny_data):
    doc = train_and_evaluate("bilstm-attn", tiny_data, overrides={"epochs": 12, "batch_size": 20}, valid_share=0.0)
    assert doc["summary"]["tiny"]["1.1_test"]["mean"] > 5 * CHANCE


def test_placeholder_embeddings_stay_frozen():
    model = BiLSTMClassifier(num_labels=22, vocab_size=10, entity_pool=5)
    assert not model.entity_emb.weight.requires_grad
    assert all(p.requires_grad for n, p in model.named_parameters() if not n.startswith("entity_emb"))


def test_predictions_do_not_depend_on_the_batch(tiny_data):
    model = get_model("gat")(get_model("gat").Config(epochs=1), LabelVocab.from_kb())
    stories = load_dataset(tiny_data).train
    model.fit(stories[:300], [], progress=False)
    whole = model.predict_proba(stories[300:400])
    assert np.allclose(whole[10:20], model.predict_proba(stories[310:320]), atol=1e-6)


def test_cli_prints_eval_tables_and_writes_runs(tiny_data, tmp_path, capsys):
    out = tmp_path / "results"
    code = main(["--model", "bilstm-mean", "--data", str(tiny_data), "--epochs", "1", "--runs", "2",
                 "--max-train", "100", "--out", str(out), "--quiet", "--set", "hidden=16"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Accuracy per k" in printed and "bilstm-mean seed 0" in printed and "bilstm-mean seed 1" in printed
    doc = json.loads((out / "results.json").read_text())
    assert doc["runs"] == 2 and [r["seed"] for r in doc["per_run"]] == [0, 1]
    assert doc["config"]["hidden"] == 16 and doc["threads"] == torch.get_num_threads()
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["seed0", "seed1"]
    assert (out / "reports" / "tiny" / "accuracy_vs_k.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("args, message", [
    (["--model", "gat", "--data", "MISSING"], "does not exist"),
    (["--model", "no-such-model", "--data", "TINY"], "unknown model 'no-such-model'; registered: "),
    (["--model", "gat", "--data", "TINY", "--set", "rounds=many"], "setting 'rounds' of gat takes a int"),
    (["--model", "gat", "--data", "TINY", "--set", "colour=red"], "gat has no setting 'colour'"),
    (["--model", "json:dumps", "--data", "TINY"], "is not a subclass of clutrr.baselines.registry.Model"),
    (["--model", "gat", "--data", "TINY", "--test-data", "MISSING", "--out", "OUT"], "does not exist"),
])
def test_bad_input_exits_2_and_leaves_nothing(args, message, tiny_data, tmp_path, capsys):
    args = [{"TINY": str(tiny_data), "MISSING": str(tmp_path / "missing"), "OUT": str(tmp_path / "out")}.get(a, a)
            for a in args]
    assert main(args + ["--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_existing_output_needs_force(tiny_data, tmp_path, capsys):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    assert main(["--model", "gat", "--data", str(tiny_data), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    assert "use --force" in capsys.readouterr().err
    shutil.rmtree(tmp_path / "out")


@pytest.mark.parametrize("summary", ["sum", "mean", "max", None])
def test_gat_options_keep_one_logit_row_per_story(summary):
    from torch_geometric.data import Batch, Data

    from clutrr.baselines.gat import GATClassifier

    graphs = [
        Data(x=torch.tensor([0, 1, 2]), edge_index=torch.tensor([[0, 1], [1, 2]]), edge_type=torch.tensor([3, 22]),
             query_index=torch.tensor([[0], [2]]), num_nodes=3),
        Data(x=torch.tensor([4, 5]), edge_index=torch.tensor([[0], [1]]), edge_type=torch.tensor([0]),
             query_index=torch.tensor([[0], [1]]), num_nodes=2),
    ]
    separate = GATClassifier(22, 23, entity_pool=6, graph_summary=summary)
    shared = GATClassifier(22, 23, entity_pool=6, graph_summary=summary, shared_rounds=True)
    assert separate(Batch.from_data_list(graphs)).shape == (2, 22)
    assert shared(Batch.from_data_list(graphs)).shape == (2, 22)
    n_params = [sum(p.numel() for p in m.parameters()) for m in (separate, shared)]
    conv = sum(p.numel() for p in separate.convs[0].parameters())
    assert n_params[0] - n_params[1] == 2 * conv
