"""The docs build as a site (mkdocs-material, strict): a broken link, a missing page, an anchor that
does not exist or a page left out of the navigation fails the build."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from helpers import REPO

pytest.importorskip("mkdocs", reason="the docs site needs mkdocs-material (make test installs it)")


def build(config, site) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
                          capture_output=True, text=True, env=env, timeout=300)


def test_the_docs_site_builds_with_no_broken_link(tmp_path):
    res = build(REPO / "mkdocs.yml", tmp_path / "site")
    assert res.returncode == 0, res.stdout + res.stderr
    pages = {p.stem for p in (REPO / "docs").glob("*.md")}
    built = {p.parent.name for p in (tmp_path / "site").glob("*/index.html")}
    assert pages - {"index"} <= built, f"pages not built: {sorted(pages - {'index'} - built)}"


def test_a_broken_link_fails_the_build(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the missing page](missing.md).\n")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\ndocs_dir: docs\nstrict: true\ntheme:\n  name: material\n")
    res = build(config, tmp_path / "site")
    assert res.returncode != 0 and "missing.md" in res.stdout + res.stderr
