"""Progress bars of the diagnostics: a tqdm bar on stderr when it is a terminal, nothing otherwise.

A bar appears only once a step has run for ``DELAY`` seconds, so quick runs print nothing,
and it is cleared when the step ends, so the printed report stays clean.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Iterable, TypeVar

from tqdm import tqdm

from clutrr.io.datadir import Split, count_rows, load_splits, split_paths

DELAY = 1.0

T = TypeVar("T")


def on_terminal() -> bool:
    """Whether stderr is a terminal (the bars' only condition)."""
    return sys.stderr.isatty()


def bar(total: int | None = None, desc: str = "", unit: str = "row", enabled: bool | None = None) -> tqdm:
    """A bar to ``update()`` by hand; shown only on a terminal unless ``enabled`` says otherwise."""
    show = on_terminal() if enabled is None else enabled
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, disable=not show, delay=DELAY, leave=False,
                dynamic_ncols=True)


def track(items: Iterable[T], total: int | None = None, desc: str = "", unit: str = "row",
          enabled: bool | None = None) -> Iterable[T]:
    """``items`` with a bar that advances per item (see :func:`bar`)."""
    with bar(total if total is not None else _len(items), desc, unit, enabled) as b:
        for item in items:
            yield item
            b.update()


def _len(items: Iterable) -> int | None:
    try:
        return len(items)  # type: ignore[arg-type]
    except TypeError:
        return None


def read_splits(directory: str | Path) -> list[Split]:
    """:func:`clutrr.io.datadir.load_splits` with a bar over the rows read."""
    total = sum(count_rows(p) for p in split_paths(directory))
    with bar(total, desc="reading") as b:
        return load_splits(directory, b.update)
