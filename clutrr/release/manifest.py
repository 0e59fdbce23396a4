"""``release.json``: what a release was built from, the sha256 of every file, and fingerprints.

A fingerprint is the sha256 of the lines ``<sha256>  <path>`` (as ``sha256sum`` prints
them) of a set of files, sorted by path; so anyone can recompute it::

    cd DIR && find . -type f ! -name release.json | sed 's|^\\./||' | LC_ALL=C sort | xargs sha256sum | sha256sum

``fingerprint`` covers every file (the card included), ``data_fingerprint`` the data files,
and each configuration has its own.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.formats import sha256_file

MANIFEST = "release.json"
CARD = "README.md"
KEYS = ("generator", "version", "seed", "scale", "configs", "parquet_writer", "files", "fingerprint")


def fingerprint(shas: dict[str, str]) -> str:
    """The sha256 of ``sha256sum``'s lines for these files (path -> sha256), sorted by path."""
    text = "".join(f"{shas[p]}  {p}\n" for p in sorted(shas, key=lambda p: p.encode()))
    return hashlib.sha256(text.encode()).hexdigest()


def file_shas(root: Path) -> dict[str, str]:
    """Path (relative, with /) -> sha256 of every file under ``root`` but release.json."""
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in sorted(root.rglob("*"))
            if p.is_file() and p.relative_to(root).as_posix() != MANIFEST}


def parquet_writer() -> str:
    """What the Parquet writer stamps into every file it writes (its name and version)."""
    import pyarrow

    return f"parquet-cpp-arrow version {pyarrow.__version__}"


def data_fingerprints(shas: dict[str, str], configs: list[str]) -> tuple[str, dict[str, str]]:
    """(fingerprint of every data file, fingerprint of each configuration's files)."""
    data = {p: s for p, s in shas.items() if p != CARD}
    per = {c: fingerprint({p: s for p, s in data.items() if p.startswith(f"{c}/")}) for c in configs}
    return fingerprint(data), per


def write_manifest(root: Path, head: dict) -> dict:
    """Write ``release.json`` (``head`` and the files' sizes, sha256s and fingerprints); returns it."""
    shas = file_shas(root)
    data, per = data_fingerprints(shas, head["configs"])
    doc = {**head, "files": [{"file": p, "bytes": (root / p).stat().st_size, "sha256": shas[p]}
                             for p in sorted(shas, key=lambda p: p.encode())],
           "config_fingerprints": per, "data_fingerprint": data, "fingerprint": fingerprint(shas)}
    (root / MANIFEST).write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return doc


def read_manifest(root: Path) -> dict:
    """The release.json of ``root``; UsageError when ``root`` is not a release folder."""
    path = Path(root) / MANIFEST
    if not Path(root).is_dir():
        raise UsageError(f"{root}: no such directory")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{root} is not a release folder (no {MANIFEST})") from None
    except (OSError, ValueError) as exc:
        raise UsageError(f"{root} is not a release folder ({MANIFEST}: {exc})") from None
    if not isinstance(doc, dict) or doc.get("generator") != "clutrr" or any(k not in doc for k in KEYS):
        raise UsageError(f"{root} is not a release folder ({MANIFEST} lacks the release's keys)")
    return doc


def listed_differences(root: Path, doc: dict) -> list[str]:
    """The files of ``root`` whose sha256 is not the one ``doc`` (its release.json) lists, that it
    lacks, or that it does not list; and the fingerprint when it does not match the list."""
    listed = {f["file"]: f["sha256"] for f in doc["files"]}
    out = _compare(file_shas(root), listed)
    if fingerprint(listed) != doc["fingerprint"]:
        out.append(f"{MANIFEST}: its fingerprint is not that of the files it lists")
    return out


def _compare(mine: dict[str, str], theirs: dict[str, str]) -> list[str]:
    out = []
    for path in sorted(set(mine) | set(theirs), key=lambda p: p.encode()):
        if path not in theirs:
            out.append(f"{path}: not part of the release")
        elif path not in mine:
            out.append(f"{path}: missing")
        elif mine[path] != theirs[path]:
            out.append(f"{path}: differs")
    return out


def differences(root: Path, fresh: Path) -> list[str]:
    """The files of ``root`` whose bytes differ from ``fresh`` (a rebuild), or that one of them lacks."""
    mine, theirs = file_shas(root), file_shas(fresh)
    mine[MANIFEST] = sha256_file(root / MANIFEST)
    theirs[MANIFEST] = sha256_file(fresh / MANIFEST)
    return _compare(mine, theirs)
