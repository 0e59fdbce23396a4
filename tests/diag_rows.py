"""Small StoryRow builders shared by the diagnostics tests."""
from __future__ import annotations

from pathlib import Path

from clutrr.io.csv_format import CsvWriter, StoryRow

FIXTURES = Path(__file__).resolve().parent / "fixtures_diag"
RELEASE = Path(__file__).resolve().parents[1].parent / "shared" / "clutrr-release"


def make_row(rid: str, head: tuple[str, str], tail: tuple[str, str], target: str, story: str = "",
             split: str = "test", k: int = 2) -> StoryRow:
    """A minimal row: query (head, tail) with the given genders and target; a k-word f_comb."""
    story = story or f"[{head[0]}] and [{tail[0]}] had lunch."
    return StoryRow(
        id=rid, story=story, query=(head[0], tail[0]), target=target, clean_story=story, proof_state=[],
        f_comb="-".join(["son"] * k), task_name=f"task_1.{k}", story_edges=[(0, 1)], edge_types=["son"],
        query_edge=(0, 1), genders=[head, tail], node_mapping={}, task_split=split,
    )


def write_csv(path: Path, rows: list[StoryRow]) -> Path:
    """Write ``rows`` as a CLUTRR CSV file."""
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = CsvWriter(fh)
        for r in rows:
            writer.write(r)
    return path
