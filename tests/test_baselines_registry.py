"""The model registry: a user's model by import path, configs from YAML and --set, checkpoints."""
from __future__ import annotations

import json

import pytest

from clutrr.baselines.gat import GAT, GATConfig
from clutrr.baselines.registry import get_model, load_checkpoint, make_config, model_spec, registered
from clutrr.baselines.train import main
from clutrr.errors import UsageError
from baseline_data import tiny_data  # noqa: F401  (fixture)
from toy_models import FirstFact


def test_builtin_models_are_registered_by_name():
    models = registered()
    assert {"gat", "bilstm-attn", "bilstm-mean"} <= set(models)
    assert models["gat"] is GAT and model_spec(GAT) == "gat"


def test_a_user_model_plugs_in_by_import_path(tiny_data, tmp_path, capsys):  # noqa: F811
    assert get_model("toy_models:FirstFact") is FirstFact
    assert model_spec(FirstFact) == "toy_models:FirstFact"
    out = tmp_path / "run"
    assert main(["--model", "toy_models:FirstFact", "--data", str(tiny_data), "--set", "smoothing=0.5",
                 "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "first-fact seed 0" in printed
    doc = json.loads((out / "results.json").read_text())
    assert doc["model"] == "toy_models:FirstFact" and doc["config"] == {"smoothing": 0.5}
    # a one-fact story's answer is its fact's word: the toy model learns k=1 exactly, not k=2
    summary = doc["summary"]["tiny"]
    assert summary["1.1_test"]["mean"] == 1.0 and summary["1.2_test"]["mean"] < 0.5
    assert doc["per_run"][0]["fit"]["valid_stories"] == doc["valid_rows"] > 0
    model = load_checkpoint(out / "checkpoints" / "seed0")
    assert isinstance(model, FirstFact) and model.config.smoothing == 0.5
    assert json.loads((out / "checkpoints" / "seed0" / "model.json").read_text())["model"] == "toy_models:FirstFact"


def test_config_from_yaml_and_overrides(tmp_path):
    path = tmp_path / "gat.yaml"
    path.write_text("rounds: 5\ndropout: 0\ngraph_summary: null\n")
    config = make_config(GAT, path, {"heads": 2})
    assert config == GATConfig(rounds=5, dropout=0.0, graph_summary=None, heads=2)
    assert isinstance(config.dropout, float)


@pytest.mark.parametrize("text, overrides, message", [
    ("rounds: [1, 2]\n", {}, "setting 'rounds' of gat takes a int"),
    ("- 1\n", {}, "must be a mapping"),
    ("rounds: 3\n", {"reverse_edges": "yes"}, "takes a bool"),
    ("rounds: 3\n", {"nodes": 3}, "gat has no setting 'nodes'; settings: entity_pool, lr,"),
    ("rounds: [\n", {}, "cannot read config"),
])
def test_bad_configs_are_named(text, overrides, message, tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message.replace("[", r"\[")):
        make_config(GAT, path, overrides)


def test_load_checkpoint_of_a_plain_folder_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="not a checkpoint folder"):
        load_checkpoint(tmp_path)


def test_unknown_import_path_is_a_usage_error():
    with pytest.raises(UsageError, match="cannot import model 'no_such_module:X'"):
        get_model("no_such_module:X")
    with pytest.raises(UsageError, match="registered: bilstm-attn, bilstm-mean, .*gat"):
        get_model("gcn")
