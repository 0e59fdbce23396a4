"""Writing story pictures: SVG or PNG, atomically, never over a file clutrr did not draw.

Every picture carries a mark in its metadata (SVG ``dc:creator``, PNG ``Software``), so a
second run may replace its own pictures while any other file of the same name is refused.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Sequence

from clutrr.errors import UsageError
from clutrr.graph.draw import as_graph, require_matplotlib, story_figure

MARK = "clutrr story graph"
FORMATS = (".svg", ".png")


def picture_paths(path: str | Path, count: int) -> list[Path]:
    """Where ``count`` pictures go: ``path`` itself for one, else ``STEM-1.svg``, ``STEM-2.svg``, ..."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise UsageError(f"{path}: a picture must end in .svg or .png")
    if count == 1:
        return [path]
    return [path.with_name(f"{path.stem}-{i}{path.suffix}") for i in range(1, count + 1)]


def _drawn_by_us(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            return MARK.encode() in fh.read(8192)
    except OSError:
        return False


def check_targets(paths: Sequence[Path]) -> None:
    """UsageError unless every path is free, or a picture clutrr drew, in a folder that exists."""
    for p in paths:
        if p.is_dir():
            raise UsageError(f"{p} is a directory")
        if p.exists() and not _drawn_by_us(p):
            raise UsageError(f"{p} exists and is not a picture clutrr drew; choose another name")
        if not p.parent.is_dir():
            raise UsageError(f"cannot write {p}: no folder {p.parent}")


def save_figure(fig: Any, path: Path) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix) through a temporary file beside it."""
    matplotlib = require_matplotlib()
    svg = path.suffix.lower() == ".svg"
    meta = {"Creator": MARK, "Date": None} if svg else {"Software": MARK}
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": MARK}):
            fig.savefig(tmp, format=path.suffix[1:].lower(), metadata=meta)
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def draw_story(source: Any, path: str | Path) -> Path:
    """Draw one story (anything :func:`clutrr.graph.to_networkx` takes, or its graph) to ``path`` (.svg or .png)."""
    target = picture_paths(path, 1)[0]
    check_targets([target])
    return save_figure(story_figure(source), target)


def draw_stories(sources: Sequence[Any], path: str | Path, step: Callable[[], object] | None = None) -> list[Path]:
    """Draw each story to its own file (see :func:`picture_paths`); every target is checked first.
    ``step`` is called after each picture (a progress bar's update)."""
    targets = picture_paths(path, len(sources))
    check_targets(targets)
    graphs = [as_graph(s) for s in sources]  # every story is checked before any picture is written
    out = []
    for graph, target in zip(graphs, targets):
        out.append(save_figure(story_figure(graph), target))
        if step is not None:
            step()
    return out
