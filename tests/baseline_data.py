"""Tiny CLUTRR folders for the baseline tests (module-scoped fixtures)."""
from __future__ import annotations

from pathlib import Path

import pytest

from clutrr.story.generator import GeneratorConfig, make_example
from clutrr.io.csv_format import CsvWriter


def write_folder(root: Path, files: list[tuple[str, list[tuple[int, str, range]]]], seed: int = 7) -> Path:
    """CSV files of generated stories: (file name, [(k, split, indices)])."""
    root.mkdir(parents=True, exist_ok=True)
    config = GeneratorConfig(template_split=False)
    for name, parts in files:
        with open(root / name, "w", newline="", encoding="utf-8") as fh:
            writer = CsvWriter(fh)
            for k, split, indices in parts:
                for i in indices:
                    writer.write(make_example(config, k, "none", seed, i, split).row)
    return root


@pytest.fixture(scope="module")
def tiny_data(tmp_path_factory) -> Path:
    """250 generated training stories for each of k=1 and k=2, and 100 test stories per k.

    Test stories reuse the training templates, so a text model can learn them from so few rows.
    """
    return write_folder(tmp_path_factory.mktemp("one") / "tiny", [
        ("1.1,1.2_train.csv", [(1, "train", range(250)), (2, "train", range(250))]),
        ("1.1_test.csv", [(1, "test", range(100))]), ("1.2_test.csv", [(2, "test", range(100))])])


@pytest.fixture(scope="module")
def other_data(tmp_path_factory) -> Path:
    """A second folder (its own seed) holding a training file and one k=3 test file."""
    return write_folder(tmp_path_factory.mktemp("other") / "tiny", [
        ("1.2_train.csv", [(2, "train", range(20))]), ("1.3_test.csv", [(3, "test", range(40))])], seed=11)
