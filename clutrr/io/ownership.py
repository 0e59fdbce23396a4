"""Which folders clutrr wrote, so that ``--force`` replaces only those.

A dataset folder is recognised by its ``manifest.json`` (``"generator": "clutrr"``), which
lists its files, a release folder (``clutrr release``) by its ``release.json``; every other output folder (``eval``, ``audit``, ``recast``, ``probe``,
``robustness``, the baselines) carries a small ``.clutrr-output.json`` listing the files
written into it. A folder is clutrr's when it carries one of these records and holds
nothing else: a file the user added (notes, keys, a project) makes it the user's again.
"""
from __future__ import annotations

import json
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.bounded import loads as bounded_loads
from clutrr.io.formats import sha256_file

MARK = ".clutrr-output.json"
DATASET = "dataset"
RELEASE = "release"
OUTPUT = "output"
_DATASET_FILES = ("manifest.json", "config.json")
FORCE_HELP = "replace the output folder if clutrr wrote it and nothing was added since (any other folder is refused)"
DISCARD_EDITS_HELP = "with --force: replace a dataset even if files in it were edited since clutrr wrote them"


def _read_json(path: Path) -> dict | None:
    try:
        doc = bounded_loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return doc if isinstance(doc, dict) and doc.get("generator") == "clutrr" else None


def recorded_files(folder: Path) -> tuple[str, set[str]] | None:
    """(kind, relative paths) of what clutrr recorded writing into ``folder``, or None
    when it carries no record (kind: ``dataset``, ``release`` or ``output``)."""
    manifest = _read_json(folder / "manifest.json")
    if manifest is not None and isinstance(manifest.get("files"), list):
        names = {str(e.get("file")) for e in manifest["files"] if isinstance(e, dict)}
        return DATASET, names | set(_DATASET_FILES)
    release = _read_json(folder / "release.json")
    if release is not None and isinstance(release.get("files"), list):
        return RELEASE, {str(e.get("file")) for e in release["files"] if isinstance(e, dict)} | {"release.json"}
    mark = _read_json(folder / MARK)
    if mark is not None and isinstance(mark.get("files"), list):
        return OUTPUT, {str(name) for name in mark["files"]} | {MARK}
    return None


def _entries(folder: Path) -> list[str]:
    """Relative paths of every file, link and empty folder below ``folder`` (links not followed)."""
    out = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink() or not path.is_dir():
            out.append(path.relative_to(folder).as_posix())
        elif not any(path.iterdir()):
            out.append(path.relative_to(folder).as_posix() + "/")
    return out


def check_replaceable(target: Path, force: bool, kind: str, shown: str | Path | None = None,
                      discard_edits: bool = False) -> None:
    """UsageError unless ``target`` may be replaced by a new ``kind`` folder: it is absent or
    empty, or ``force`` is given and clutrr wrote it as a folder of that kind, with nothing
    added since, and (a dataset) no file edited since: each file's sha256 is the one its
    manifest lists, unless ``discard_edits``. ``shown`` is the path as the user wrote it."""
    shown = target if shown is None else shown
    if target.exists() and not target.is_dir():
        raise UsageError(f"output path {shown} exists and is not a directory")
    if not target.is_dir() or not any(target.iterdir()):
        return
    if not force:
        raise UsageError(f"output directory {shown} exists and is not empty "
                         f"(use --force to replace it, if clutrr wrote it)")
    record = recorded_files(target)
    if record is None:
        raise UsageError(f"refusing to replace {shown}: clutrr did not write it (no manifest.json or {MARK}); "
                         f"--force replaces only folders clutrr wrote: choose another output folder")
    found, names = record
    if found != kind:
        what = {DATASET: "a clutrr dataset", RELEASE: "a clutrr release"}.get(found, "clutrr output of another kind")
        raise UsageError(f"refusing to replace {shown}: it holds {what}; choose another output folder")
    foreign = [e for e in _entries(target) if e not in names and e.rstrip("/") not in names]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise UsageError(f"refusing to replace {shown}: it holds {foreign[0]}{more}, which clutrr did not write; "
                         f"move {'them' if more else 'it'} out or choose another output folder")
    edited = [] if found != DATASET or discard_edits else edited_files(target)
    if edited:
        more = f" and {len(edited) - 1} more" if len(edited) > 1 else ""
        raise UsageError(f"refusing to replace {shown}: {edited[0]}{more} changed since clutrr wrote it (its sha256 is "
                         "not the one in manifest.json); keep a copy, or add --discard-edits to replace it anyway")


def edited_files(folder: Path) -> list[str]:
    """The files of the dataset in ``folder`` whose bytes differ from its manifest's sha256."""
    manifest = _read_json(folder / "manifest.json") or {}
    out = []
    for entry in manifest.get("files", []):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            continue
        path = folder / entry["file"]
        if path.is_file() and not path.is_symlink() and sha256_file(path) != entry.get("sha256"):
            out.append(entry["file"])
    return out


def mark_output(folder: Path) -> None:
    """Record every file and empty folder below ``folder`` in its :data:`MARK` file."""
    names = [e for e in _entries(folder) if e != MARK]
    doc = {"generator": "clutrr", "files": names}
    (folder / MARK).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
