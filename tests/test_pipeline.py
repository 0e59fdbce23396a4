"""The pipeline's library entry: what the baselines generate is what `clutrr generate` would."""
from __future__ import annotations

import pytest

from clutrr.baselines.experiments import GENERATED
from clutrr.baselines.robustness import Plan
from clutrr.commands.console import Parser
from clutrr.commands.generate import add_arguments, spec_from_args
from clutrr.errors import UsageError
from clutrr.pipeline.run import write_unless_present
from clutrr.pipeline.spec import DatasetSpec


def _spec_of(argv: list[str]) -> DatasetSpec:
    parser = Parser(prog="generate")
    add_arguments(parser)
    return spec_from_args(parser.parse_args(argv))


@pytest.mark.parametrize("experiment", ["noise", "systematic"])
def test_robustness_specs_are_its_documented_generate_arguments(experiment):
    plan = Plan(experiment, (2, 3), (3, 4), 40, 20, 5, 1, "synthetic")
    specs = plan.specs()
    assert list(specs) == list(plan.settings())
    for name, argv in plan.settings().items():
        assert specs[name] == _spec_of(argv), name


def test_reproduce_specs_are_the_generate_arguments_of_their_data():
    common = ["--test-k", "2..10", "--noise", "none", "--train-rows", "5000", "--test-rows", "500", "--seed", "0"]
    assert GENERATED == {"ours-k23": _spec_of(["--k", "2,3", *common]),
                         "ours-k234": _spec_of(["--k", "2,3,4", *common]),
                         "ours-v1-k23": _spec_of(["--relations", "clutrr_v1", "--k", "2,3", *common])}


def test_write_unless_present_writes_once(tmp_path):
    spec = DatasetSpec(train_k=(2,), test_k=(2,), train_rows=5, test_rows=5)
    out = write_unless_present(spec, tmp_path / "d")
    config = out / "config.json"
    assert config.is_file() and sorted(p.name for p in out.glob("*_t*.csv")) == ["1.2_test.csv", "1.2_train.csv"]
    config.write_text(config.read_text() + " ")  # a second call reads the folder and writes nothing
    assert write_unless_present(spec, out) == out and config.read_text().endswith(" ")


def test_write_unless_present_leaves_nothing_on_bad_input(tmp_path):
    with pytest.raises(UsageError, match="row counts must be positive"):
        write_unless_present(DatasetSpec(train_rows=0), tmp_path / "d")
    assert not any(tmp_path.iterdir())
