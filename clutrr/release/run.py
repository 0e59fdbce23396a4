"""Write a release folder, or rebuild one and compare it byte for byte.

The release is built in a staging folder beside ``--out`` and moved into place when every
file, the card and ``release.json`` are written: a failed build leaves nothing behind.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

from clutrr import __version__
from clutrr.core.kb import load_kb
from clutrr.errors import UsageError
from clutrr.io.ownership import RELEASE
from clutrr.io.staging import replace_dir, staging_dir
from clutrr.release.build import BuildOptions, build_config, require_pyarrow
from clutrr.release.card import render_card, write_card
from clutrr.release.configs import CONFIGS, ReleaseConfig, select
from clutrr.release.figures import BLOOD_KB, config_figures
from clutrr.release.manifest import CARD, MANIFEST, data_fingerprints, differences, file_shas, listed_differences, \
    parquet_writer, read_manifest, write_manifest
from clutrr.release.provenance import source_state
from clutrr.story.systems import kinship_fields

SCRATCH = ".runs"


def release_command(configs: tuple[ReleaseConfig, ...], options: BuildOptions) -> str:
    """The command line that builds this release (the output folder left as DIR)."""
    words = ["clutrr release --out DIR", f"--seed {options.seed}", f"--scale {options.scale:g}"]
    if configs != CONFIGS:
        words.append("--configs " + ",".join(c.name for c in configs))
    return " ".join(words)


def build_release(root: Path, configs: tuple[ReleaseConfig, ...], options: BuildOptions) -> dict:
    """Build the release into the empty folder ``root``; returns release.json's content."""
    kb, blood = load_kb("kinship"), load_kb(BLOOD_KB)
    scratch = root / SCRATCH
    scratch.mkdir()
    built, figures = [], {}
    for n, config in enumerate(configs, 1):
        if options.progress:
            print(f"release: {config.name} ({n}/{len(configs)})", file=sys.stderr, flush=True)
        files = build_config(config, root / config.name, options, scratch)
        own = load_kb(kinship_fields(config.kinship)["kb"]) if config.kinship else kb
        figures[config.name] = config_figures(own, root / config.name, files, blood)
        built.append((config, files))
    shutil.rmtree(scratch)
    names = [c.name for c in configs]
    data, per = data_fingerprints(file_shas(root), names)
    writer = parquet_writer()
    command = release_command(configs, options)
    source = source_state()
    write_card(root, render_card(built, figures, options, command, writer, data, per, source))
    head = {"generator": "clutrr", "version": __version__, **source, "seed": options.seed, "scale": options.scale,
            "configs": names, "command": command, "parquet_writer": writer, "figures": figures}
    return write_manifest(root, head)


def write_release(out: str | Path, configs: tuple[ReleaseConfig, ...], options: BuildOptions,
                  force: bool = False) -> dict:
    """Build a release into ``out``. With ``force`` a release clutrr wrote there, with nothing added
    since, is replaced; any other non-empty folder is refused (UsageError), whatever the flag."""
    options.validate()
    require_pyarrow()
    work = staging_dir(out, force, RELEASE)
    try:
        doc = build_release(work, configs, options)
        replace_dir(work, out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return doc


@dataclass
class CheckResult:
    """What a check found: the release's manifest, the files that differ, and why they might."""

    manifest: dict
    differing: list[str]
    notes: list[str]


def version_notes(doc: dict) -> list[str]:
    """Why a rebuild here may differ from the release: another version or commit built it."""
    notes = []
    if doc["version"] != __version__:
        notes.append(f"the release was built by clutrr {doc['version']}, this is {__version__}")
    here = source_state()["commit"]
    if doc.get("commit") and here and doc["commit"] != here:
        notes.append(f"the release was built at commit {doc['commit'][:12]}, this is {here[:12]}")
    elif doc.get("tree_clean") is False:
        notes.append("the release was built from a checkout with uncommitted changes")
    return notes


def quick_check(root: str | Path) -> CheckResult:
    """Compare every file of ``root`` with the sha256 release.json lists (no rebuild): proves the
    files are the ones the release was built with, not that this clutrr builds them."""
    root = Path(root)
    doc = read_manifest(root)
    return CheckResult(doc, listed_differences(root, doc), [])


def file_count(doc: dict) -> int:
    """The files of a release folder: those release.json lists and release.json itself."""
    return len(doc["files"]) + 1


def check_release(root: str | Path, options: BuildOptions) -> CheckResult:
    """Rebuild the release in ``root`` (its seed, scale and configurations) and compare every file.

    ``options`` gives how to run (workers, engine); its seed and scale are replaced by the
    release's. UsageError when ``root`` is not a release folder.
    """
    root = Path(root)
    doc = read_manifest(root)
    require_pyarrow()
    options = replace(options, seed=int(doc["seed"]), scale=float(doc["scale"]))
    try:
        configs = select(",".join(doc["configs"]))
    except UsageError as exc:
        raise UsageError(f"{root}/{MANIFEST} names a configuration this version lacks: {exc}") from None
    notes = version_notes(doc)
    if doc["parquet_writer"] != parquet_writer():
        notes.append(f"the Parquet files were written by {doc['parquet_writer']}, this is {parquet_writer()}: "
                     "their bytes are expected to differ")
    fresh = Path(tempfile.mkdtemp(prefix=f".{root.name}.check-", dir=root.resolve().parent))
    try:
        build_release(fresh, configs, options)
        differing = differences(root, fresh)
        if differing and {line.split(": ")[0] for line in differing} <= {CARD, MANIFEST}:
            rebuilt = read_manifest(fresh)
            if rebuilt.get("data_fingerprint") == doc.get("data_fingerprint"):
                notes.append(f"every data file matches (data fingerprint {doc.get('data_fingerprint')}); only the card "
                             "differs: this clutrr writes other text or reference figures into it")
        return CheckResult(doc, differing, notes)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
