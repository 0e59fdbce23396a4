"""Atomic output folders: write into a hidden staging folder beside the target, then move.

Both the dataset writer and the other commands (``eval``, ``audit``, ``recast``, ...) stage
here, so a failure leaves nothing behind, and every one follows the same rules:

- the target is replaced whole, and only when it is absent, empty, or (with ``force``) a
  folder clutrr wrote with nothing added since (:mod:`clutrr.io.ownership`);
- a target that is a symbolic link is written through: the folder it points to is replaced
  and the link stays; the current folder and the folders above it are refused;
- staging folders are named ``.NAME.tmp-HOST-PID-XXXXXXXX``: a later run on the same host
  removes those whose process is gone (killed, out of memory) and says so on stderr;
- one run at a time writes a folder (:mod:`clutrr.io.lock`), and the check that the target
  may be replaced is made again, under that lock, right before and after it is moved aside:
  a file the user added or edited meanwhile stops the replacement and is kept.
"""
from __future__ import annotations

import errno
import json
import os
import re
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.io.lock import lock_output, unlock_output
from clutrr.io.ownership import DATASET, OUTPUT, check_replaceable, mark_output

PARTIAL_STAMP = "fingerprint.json"


def _cannot_write(parent: Path, exc: OSError) -> UsageError:
    """The error for a folder we cannot write into, with the real reason."""
    reason = exc.strerror
    if exc.errno == errno.ENOENT and parent.is_dir():  # e.g. /proc: it exists but takes no new entries
        reason = "the folder exists but its file system does not accept new files"
    elif exc.errno in (errno.EEXIST, errno.ENOTDIR):
        reason = "a file is in the way, where a folder is needed"
    return UsageError(f"cannot write to {parent}: {reason}")


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _host() -> str:
    """This machine's name as it appears in work folder names (no dashes: they separate fields)."""
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname()) or "host"


def real_target(target: str | Path) -> Path:
    """The folder an output path names, through symbolic links; UsageError for the current
    folder or one above it (they cannot be replaced) and for a link to nothing."""
    path = Path(target)
    real = Path(os.path.realpath(path))
    if path.is_symlink() and not real.exists():
        raise UsageError(f"output path {target} is a symbolic link to {os.readlink(path)}, which does not exist")
    cwd = Path.cwd().resolve()
    if real == cwd or real in cwd.parents:
        where = "the current folder" if real == cwd else "a folder above the current one"
        raise UsageError(f"output path {target} is {where}, which cannot be replaced; name a folder inside it")
    return real


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie, dead but not yet reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:  # it ended just now, or there is no /proc (macOS: os.kill said it runs)
        return not Path("/proc/self").exists()
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


def remove_stale(parent: Path, name: str) -> list[Path]:
    """Remove the staging and backup folders of ``name`` left in ``parent`` by runs on this
    host whose process is gone; say so on stderr. Returns the folders removed."""
    pattern = re.compile(rf"^\.{re.escape(name)}\.(?:tmp|old)-{re.escape(_host())}-(\d+)(?:-[A-Za-z0-9_]+)?$")
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for path in sorted(entries):
        m = pattern.match(path.name)
        if not m or int(m.group(1)) == os.getpid() or _alive(int(m.group(1))) or path.is_symlink() or not path.is_dir():
            continue
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            print(f"removed {path}, left by run {m.group(1)} that stopped before cleaning up", file=sys.stderr)
            removed.append(path)
    return removed


def staging_dir(target: str | Path, force: bool, kind: str = DATASET, discard_edits: bool = False) -> Path:
    """Check that ``target`` may be replaced by a ``kind`` folder and create a staging folder beside it.

    The folder gets the mode a plain ``mkdir`` would give (the user's umask), not the
    private 0700 of a temporary folder, since it becomes the output. Raises UsageError when
    the target is a file, a non-empty folder clutrr did not write (or without ``force``),
    or its parent cannot be written.
    """
    real, parent = _check_target(target, force, kind, discard_edits)
    remove_stale(parent, real.name)
    try:
        path = Path(tempfile.mkdtemp(prefix=f".{real.name}.tmp-{_host()}-{os.getpid()}-", dir=parent))
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    path.chmod(0o777 & ~_umask())
    return path


def partial_dir(target: str | Path, force: bool, fingerprint: dict, discard_edits: bool = False,
                lock: bool = True) -> Path:
    """The persistent work folder ``.NAME.partial`` beside ``target`` (for ``--resume`` and ``--shard``).

    It records ``fingerprint`` (what shapes the data); a folder left by a run with other
    arguments is refused with UsageError, as for :func:`staging_dir`'s checks. ``lock`` False
    (the jobs of a ``--shard`` array, which run at once and never replace the target) takes
    no lock.
    """
    real, parent = _check_target(target, force, DATASET, discard_edits, lock)
    remove_stale(parent, real.name)
    path = parent / f".{real.name}.partial"
    stamp = path / PARTIAL_STAMP
    text = json.dumps(fingerprint, sort_keys=True) + "\n"
    try:
        path.mkdir(exist_ok=True)
        if not stamp.exists():
            stamp.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    if stamp.read_text(encoding="utf-8") != text:
        raise UsageError(f"{path} holds shards of a run with other arguments; remove it or use the same arguments")
    return path


def check_output(target: str | Path, force: bool, kind: str = OUTPUT) -> None:
    """UsageError unless ``target`` may become a ``kind`` output folder (see :func:`staging_dir`);
    takes its lock (:mod:`clutrr.io.lock`) when its parent folder exists."""
    real = real_target(target)
    if real.parent.is_dir():
        lock_output(real, target)
    check_replaceable(real, force, kind, target)


def _check_target(target: str | Path, force: bool, kind: str, discard_edits: bool = False,
                  lock: bool = True) -> tuple[Path, Path]:
    """The real target and its parent folder (created), after taking the target's lock and
    checking the target may be replaced."""
    real = real_target(target)
    if real.exists() and not real.is_dir():
        check_replaceable(real, force, kind, target)
    parent = real.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cannot_write(parent, exc) from None
    if lock:
        lock_output(real, target)
    check_replaceable(real, force, kind, target, discard_edits)
    return real, parent


def replace_dir(staged: Path, target: str | Path, force: bool = False, kind: str | None = None,
                discard_edits: bool = False) -> None:
    """Put ``staged`` in the place of ``target`` (through a symbolic link), removing what it held.

    Under the target's lock, the check of :func:`staging_dir` is made again right before the
    target is moved aside, and on the moved folder before it is removed (UsageError, the
    target put back, when the user added or edited a file since the run began; ``kind``
    None: no check); the lock is released once the new folder is in place."""
    real = real_target(target)
    lock_output(real, target)
    backup = None
    if real.exists():
        if kind is not None:
            check_replaceable(real, force, kind, target, discard_edits)
        backup = real.with_name(f".{real.name}.old-{_host()}-{os.getpid()}")
        real.rename(backup)
        try:
            if kind is not None:
                check_replaceable(backup, force, kind, target, discard_edits)
        except UsageError:
            backup.rename(real)
            raise
    staged.rename(real)
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
    unlock_output(real)


def write_file(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a failure (a full disk) leaves the old file, or none."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.tmp-{_host()}-{os.getpid()}-", dir=path.parent or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class StagedDir:
    """Stage output files, then put the staging folder in the place of ``target``.

    Use as a context manager: on an exception the staging folder is removed and ``target``
    is left untouched. The files written are recorded in the folder (:mod:`clutrr.io.ownership`),
    so a later ``--force`` may replace it.
    """

    def __init__(self, target: str | Path, force: bool = False) -> None:
        self.target = Path(target)
        self.force = force
        self.path = staging_dir(self.target, force, OUTPUT)

    def __enter__(self) -> "StagedDir":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is None:
                self.commit()
        finally:
            shutil.rmtree(self.path, ignore_errors=True)
            unlock_output(real_target(self.target))

    def file(self, name: str) -> Path:
        """The staging path of output file ``name``."""
        return self.path / name

    def commit(self) -> None:
        """Record the staged files, then replace the target folder with them."""
        mark_output(self.path)
        replace_dir(self.path, self.target, self.force, OUTPUT)
