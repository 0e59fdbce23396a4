"""Output to an object store (``s3://bucket/prefix``): staging under a sibling prefix, then a commit.

An object store has no folders to rename, so a dataset at ``s3://b/d`` is written like this:

1. the target is checked as a local folder would be: absent or empty, or (``--force``) a
   dataset clutrr wrote, holding only the files its ``manifest.json`` lists and
   ``config.json``; anything else there is refused, never deleted;
2. every file is written under the staging prefix ``s3://b/.d.tmp-HOST-PID-XXXXXXXX/``
   (``s3://b/.d.partial/`` for ``--resume`` and ``--shard`` jobs), which nothing reads;
3. the commit: the target is checked again; a dataset being replaced loses its
   ``manifest.json`` first, then the files it lists; the new files are copied in (inside
   the store, where it can), ``manifest.json`` last; the staging prefix is removed.

A reader takes a prefix as a dataset only once ``manifest.json`` is there, and
:func:`clutrr.io.manifest.check_manifest` checks every file against it. A run stopped
before the commit leaves the target as it was (and, if killed, its staging prefix).
"""
from __future__ import annotations

import json
import os
import socket

from clutrr.errors import UsageError
from clutrr.io.bounded import loads as bounded_loads
from clutrr.io.store import Store, shown

MANIFEST = "manifest.json"
DATASET_FILES = (MANIFEST, "config.json")


def _dataset_files(target: Store) -> set[str] | None:
    """The files of the clutrr dataset at ``target`` (its manifest's and :data:`DATASET_FILES`), or None."""
    try:
        doc = bounded_loads(target.read_text(MANIFEST))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("generator") != "clutrr" or not isinstance(doc.get("files"), list):
        return None
    return {str(e.get("file")) for e in doc["files"] if isinstance(e, dict)} | set(DATASET_FILES)


def check_prefix(target: Store, force: bool) -> list[str]:
    """UsageError unless ``target`` may receive a new dataset; the files a commit will replace."""
    if "/" not in target.location.partition("://")[2].strip("/"):
        raise UsageError(f"--out {target.shown} is a whole bucket: name a prefix inside it (e.g. {target.shown}/data)")
    found = target.files()
    if not found:
        return []
    if not force:
        raise UsageError(f"output {target.shown} exists and is not empty (use --force to replace it, if clutrr wrote it)")
    listed = _dataset_files(target)
    if listed is None:
        raise UsageError(f"refusing to replace {target.shown}: clutrr did not write it (no clutrr {MANIFEST}); "
                         f"--force replaces only datasets clutrr wrote: choose another output")
    foreign = [name for name in found if name not in listed]
    if foreign:
        more = f" and {len(foreign) - 1} more" if len(foreign) > 1 else ""
        raise UsageError(f"refusing to replace {target.shown}: it holds {foreign[0]}{more}, which clutrr did not write; "
                         f"move {'them' if more else 'it'} out or choose another output")
    return found


def staging_prefix(target: Store, force: bool, stamp: str) -> Store:
    """Check ``target`` (see :func:`check_prefix`) and start a fresh staging prefix beside it
    (with file ``stamp``: a store that cannot be written fails now, before any work)."""
    import secrets  # here: runs writing to a local folder (most) never need it

    check_prefix(target, force)
    host = "".join(c if c.isalnum() or c == "." else "_" for c in socket.gethostname()) or "host"
    work = target.sibling(f".{target.name}.tmp-{host}-{os.getpid()}-{secrets.token_hex(4)}")
    _write(target, work, stamp, "{}\n")
    return work


def _write(target: Store, work: Store, name: str, text: str) -> None:
    try:
        work.write_text(name, text)
    except OSError as exc:
        raise UsageError(_store_error(target, exc)) from None


def _store_error(store: Store, exc: OSError) -> str:
    """The one-line message for a store that failed (no credentials in it)."""
    text = str(exc).strip()
    reason = exc.strerror or (text.splitlines()[0] if text else type(exc).__name__)
    return shown(f"cannot write to {store.location}: {reason}")


def partial_prefix(target: Store, force: bool, fingerprint: dict, stamp: str) -> Store:
    """The persistent work prefix ``.NAME.partial`` beside ``target`` (``--resume``, ``--shard``),
    recording ``fingerprint`` in file ``stamp``; one of a run with other arguments is refused."""
    check_prefix(target, force)
    work = target.sibling(f".{target.name}.partial")
    text = json.dumps(fingerprint, sort_keys=True) + "\n"
    if not work.exists(stamp):
        _write(target, work, stamp, text)
    if work.read_text(stamp) != text:
        raise UsageError(f"{work.shown} holds shards of a run with other arguments; remove it or use the same arguments")
    return work


def commit_prefix(work: Store, target: Store, force: bool) -> None:
    """Put the finished dataset at ``work`` in the place of ``target`` (module doc, step 3)."""
    old = check_prefix(target, force)
    if MANIFEST in old:
        target.remove(MANIFEST)
    for name in old:
        target.remove(name)
    names = work.files()
    for name in sorted(names, key=lambda n: n == MANIFEST):
        target.copy_from(work, name)
    work.remove_tree()
