"""Common gendered first names, shipped with the package, for naming story characters."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

_DATA = Path(__file__).resolve().parent / "data"


def name_files() -> tuple[Path, ...]:
    """The files of the first-name lists (what :func:`load_names` reads)."""
    return tuple(_DATA / f"names_{g}.txt" for g in ("male", "female"))


@lru_cache(maxsize=1)
def load_names() -> dict[str, list[str]]:
    """{"male": [...], "female": [...]}: sorted, distinct, disjoint lists of first names."""
    return {g: path.read_text(encoding="utf-8").split() for g, path in zip(("male", "female"), name_files())}
