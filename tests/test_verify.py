"""``clutrr verify``: non-CLUTRR files are errors, cut rows are reported, paths are shown whole."""
from __future__ import annotations

import os
import shutil

import pytest

from clutrr.cli import main
from diag_rows import FIXTURES


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["verify", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("text", ["a,b\n1,2\n", "", "id,story\nx,y\n"])
def test_a_csv_without_the_clutrr_columns_is_an_error(tmp_path, capsys, text):
    path = tmp_path / "plain.csv"
    path.write_text(text)
    code, out, err = _run(capsys, str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "plain.csv: not a CLUTRR CSV" in err


def test_one_bad_file_in_a_folder_fails_before_any_output(tmp_path, capsys):
    shutil.copy(FIXTURES / "1.2_test.csv", tmp_path / "1.2_test.csv")
    (tmp_path / "notes.csv").write_text("a,b\n1,2\n")
    code, out, err = _run(capsys, str(tmp_path))
    assert code == 2 and out == "" and "notes.csv: not a CLUTRR CSV (no column id, story" in err


def test_a_truncated_last_row_is_unparsable_not_dropped(tmp_path, capsys):
    text = (FIXTURES / "1.2_test.csv").read_text()
    rows = len(text.splitlines()) - 1
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: text.rindex("[(0, 1)")])  # the last row stops inside its story_edges
    code, out, err = _run(capsys, str(cut))
    assert code == 1 and err == ""
    counts = next(line for line in out.splitlines() if line.split()[0].endswith("cut.csv")).split()[1:]
    assert counts[0] == str(rows) and counts[-1] == "1"  # every row counted, the cut one unparsable
    assert f"unparsable: row {rows - 1} target" in out and "the row ends early" in out


def test_long_paths_are_shown_whole(tmp_path, capsys, monkeypatch):
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "another-long-folder-name"
    deep.mkdir(parents=True)
    shutil.copy(FIXTURES / "1.2_test.csv", deep / "1.2_test.csv")
    monkeypatch.chdir(tmp_path)
    code, out, _ = _run(capsys, str(deep))
    rel = os.path.relpath(deep / "1.2_test.csv", tmp_path)
    assert code == 0 and len(rel) > 48
    assert any(line.startswith(rel + " ") for line in out.splitlines()), out
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the file lies outside the working directory: shown as given
    code, out, _ = _run(capsys, str(deep))
    assert any(line.startswith(str(deep / "1.2_test.csv") + " ") for line in out.splitlines()), out
