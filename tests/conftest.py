"""Shared test helpers: the released CLUTRR data (optional) and the default KB."""
from __future__ import annotations

from pathlib import Path

import pytest

from clutrr.core.kb import load_kb

REPO = Path(__file__).resolve().parents[1]
RELEASE = REPO.parent / "shared" / "clutrr-release"


@pytest.fixture(scope="session")
def kb():
    """The default, sound kinship KB."""
    return load_kb("kinship")


@pytest.fixture(scope="session")
def release() -> Path:
    """The released CLUTRR datasets in ../shared, or a clean skip when absent."""
    if not RELEASE.is_dir():
        pytest.skip("../shared/clutrr-release is not present")
    return RELEASE
