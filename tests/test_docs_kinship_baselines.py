"""docs/kinship_baselines.md shows the figures of baselines/results/kinship.json as the command
renders them, and its claim about the composer holds on them."""
from __future__ import annotations

import json

import pytest
from helpers import REPO

from clutrr.baselines.kinship_report import DOCS_BLOCK, docs_block, write_docs
from clutrr.errors import UsageError

PAGE = REPO / "docs" / "kinship_baselines.md"
RESULTS = REPO / "baselines" / "results" / "kinship.json"


def results() -> dict:
    return json.loads(RESULTS.read_text(encoding="utf-8"))


def test_the_page_shows_the_committed_figures():
    m = DOCS_BLOCK.search(PAGE.read_text(encoding="utf-8"))
    assert m and m[2] == docs_block(results()), (
        "docs/kinship_baselines.md differs from baselines/results/kinship.json; run the command the page names")


def test_the_composer_scores_at_least_095_at_k2_to_6_on_every_system_that_generates():
    doc = results()
    scored = [name for name, entry in doc["systems"].items() if "models" in entry]
    assert scored and "eskimo" in scored
    for name in scored:
        curve = doc["systems"][name]["models"]["composer"]["by_k"]
        tested = [k for k in range(2, 7) if str(k) in curve]
        assert tested[:2] == [2, 3] and all(curve[str(k)]["accuracy"] >= 0.95 for k in tested), name


def test_filling_the_block_replaces_only_it_and_refuses_a_page_without_one(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("before\n<!-- kinship-baselines -->\nSTALE FIGURES\n<!-- /kinship-baselines -->\nafter\n")
    write_docs(page, results())
    text = page.read_text()
    assert text.startswith("before\n") and text.endswith("after\n") and "STALE FIGURES" not in text
    assert DOCS_BLOCK.search(text)[2] == docs_block(results())
    plain = tmp_path / "plain.md"
    plain.write_text("no block\n")
    with pytest.raises(UsageError, match="kinship-baselines"):
        write_docs(plain, results())
    assert plain.read_text() == "no block\n"
