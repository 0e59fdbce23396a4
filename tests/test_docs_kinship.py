"""docs/kinship.md says what the files say: its side-by-side table and its pictures."""
from __future__ import annotations

import importlib.util
import re

import pytest

from helpers import REPO

DOC = REPO / "docs" / "kinship.md"
SCRIPT = REPO / "benchmarks" / "kinship_table.py"


def script():
    spec = importlib.util.spec_from_file_location("kinship_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def doc_table() -> str:
    m = re.search(r"<!-- kinship-table -->\n(.*?)<!-- /kinship-table -->", DOC.read_text(encoding="utf-8"), re.S)
    assert m, "docs/kinship.md has no kinship-table block"
    return m.group(1)


def test_the_documented_table_is_the_files():
    assert doc_table() == script().markdown_table(), (
        "docs/kinship.md's table differs from kb_rules/systems; paste the output of "
        "python benchmarks/kinship_table.py")


def test_the_table_reads_each_file_cell_by_cell(tmp_path):
    """The script reads the files: changing a term in a copy of the folder changes its cell."""
    mod = script()
    for name in mod.ORDER:
        text = (mod.SYSTEMS / f"{name}.yaml").read_text(encoding="utf-8")
        if name == "crow":
            text = text.replace("  aunt:\n", "  paternal-aunt:\n")
        (tmp_path / f"{name}.yaml").write_text(text, encoding="utf-8")
    changed = mod.markdown_table(tmp_path)
    row = "| FZD | cousin | sister | bint-amma | cousin | sister-in-law | paternal-aunt | niece / daughter |"
    assert row in changed
    assert changed != mod.markdown_table()


@pytest.mark.parametrize("name", script().ORDER)
def test_every_system_has_its_picture_in_the_doc(name):
    text = DOC.read_text(encoding="utf-8")
    assert f"](kinship/{name}.png)" in text
    png = REPO / "docs" / "kinship" / f"{name}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"| {name} |" in text, "the sources table names the system"
