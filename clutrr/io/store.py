"""Where a run's files go: a local (or shared) folder, or an fsspec URL (``s3://``, ``gs://``, ...).

A :class:`Store` names files by paths relative to its root, so the same code writes a shard
into a folder on this machine, a folder that every node of a cluster mounts, or an object
store. It is small and picklable: workers receive its ``location`` and reopen it
(:func:`open_store`), each in its own process. ``file://`` URLs are local folders.

Credentials are never part of a store: fsspec finds them where the workers run (the
environment, ``~/.aws``, an instance role, ``FSSPEC_S3_*`` options). A location is shown in
messages without any ``user:password@`` part (:func:`shown`).
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
from pathlib import Path
from typing import BinaryIO

from clutrr.errors import UsageError

_URL = re.compile(r"^(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*)://(?P<rest>.*)$")
_USERINFO = re.compile(r"(?P<protocol>[A-Za-z][A-Za-z0-9+.-]*://)[^/@\s]*@")


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is a URL other than ``file://`` (a remote store)."""
    m = _URL.match(str(location))
    return bool(m) and m["protocol"].lower() not in ("file", "local")


def shown(location: str | Path) -> str:
    """``location`` (or any message naming URLs) as shown to users: without ``user:password@`` parts."""
    return _USERINFO.sub(r"\g<protocol>", str(location))


def local_path(location: str | Path) -> Path:
    """The local path of a path or ``file://`` URL."""
    m = _URL.match(str(location))
    return Path(m["rest"]) if m else Path(location)


def read_sha256(fh: BinaryIO) -> str:
    """The hex sha256 of what is left to read in a binary file."""
    h = hashlib.sha256()
    for chunk in iter(lambda: fh.read(1 << 20), b""):
        h.update(chunk)
    return h.hexdigest()


class HashingWriter:
    """A binary file opened for writing that takes the sha256 of what passes through it."""

    def __init__(self, fh: BinaryIO) -> None:
        self._fh = fh
        self._hash = hashlib.sha256()
        self._pos = 0
        self.closed = False

    def write(self, data: bytes) -> int:
        """Write ``data``."""
        self._hash.update(data)
        self._pos += len(data)
        self._fh.write(data)
        return len(data)

    def tell(self) -> int:
        """Bytes written so far."""
        return self._pos

    def writable(self) -> bool:
        """True: a writer (pyarrow asks)."""
        return True

    def flush(self) -> None:
        """Flush the file's buffer."""
        self._fh.flush()

    def close(self) -> str:
        """Close the file; its sha256 (hex)."""
        if not self.closed:
            self._fh.close()
            self.closed = True
        return self._hash.hexdigest()


class Store:
    """Files under one root; names are relative POSIX paths (``.parts/x.json``)."""

    location: str

    def open(self, name: str, mode: str = "rb") -> BinaryIO:
        """A binary file object (``rb`` or ``wb``); parent folders are created when writing."""
        raise NotImplementedError

    def exists(self, name: str) -> bool:
        """Whether the file exists."""
        raise NotImplementedError

    def size(self, name: str) -> int:
        """The file's size in bytes."""
        raise NotImplementedError

    def files(self) -> list[str]:
        """Every file below the root (recursively), sorted."""
        raise NotImplementedError

    def remove(self, name: str) -> None:
        """Remove a file, if it exists."""
        raise NotImplementedError

    def remove_tree(self, name: str = "") -> None:
        """Remove a folder (or prefix) and what it holds (the whole root for ``""``)."""
        raise NotImplementedError

    def replace(self, src: str, dst: str) -> None:
        """Move file ``src`` to ``dst``, replacing it (atomic on a local file system)."""
        raise NotImplementedError

    def copy_from(self, other: "Store", name: str) -> None:
        """Copy ``other``'s file ``name`` to the same name here."""
        with other.open(name) as src, self.open(name, "wb") as dst:
            for chunk in iter(lambda: src.read(1 << 20), b""):
                dst.write(chunk)

    def sibling(self, name: str) -> "Store":
        """The store rooted at ``name`` beside this one (in the same parent folder or prefix)."""
        return open_store(f"{self.location.rstrip('/').rpartition('/')[0]}/{name}")

    @property
    def name(self) -> str:
        """The root's last path component."""
        return self.location.rstrip("/").rpartition("/")[2]

    @property
    def shown(self) -> str:
        """The location for messages (no credentials)."""
        return shown(self.location)

    def read_bytes(self, name: str) -> bytes:
        """The file's bytes."""
        with self.open(name) as fh:
            return fh.read()

    def read_text(self, name: str) -> str:
        """The file's text (UTF-8)."""
        return self.read_bytes(name).decode("utf-8")

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write a whole file; a reader never sees it half written."""
        with self.open(name, "wb") as fh:
            fh.write(data)

    def write_text(self, name: str, text: str) -> None:
        """Write a whole text file (UTF-8), as :meth:`write_bytes`."""
        self.write_bytes(name, text.encode("utf-8"))

    def sha256(self, name: str) -> str:
        """The hex sha256 of the file's bytes."""
        with self.open(name) as fh:
            return read_sha256(fh)

    def writer(self, name: str) -> HashingWriter:
        """Open ``name`` for writing through a :class:`HashingWriter`."""
        return HashingWriter(self.open(name, "wb"))


class LocalStore(Store):
    """A folder of this machine's file system (which may be one every node mounts)."""

    def __init__(self, root: str | Path) -> None:
        self.root = local_path(root).absolute()
        self.location = str(self.root)

    def path(self, name: str) -> Path:
        """The local path of file ``name``."""
        return self.root / name

    def open(self, name: str, mode: str = "rb") -> BinaryIO:
        path = self.root / name
        if "w" in mode:
            path.parent.mkdir(parents=True, exist_ok=True)
            return open(path, mode, buffering=1 << 20)
        return open(path, mode)

    def exists(self, name: str) -> bool:
        return (self.root / name).is_file()

    def size(self, name: str) -> int:
        return (self.root / name).stat().st_size

    def files(self) -> list[str]:
        if not self.root.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file())

    def remove(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)

    def remove_tree(self, name: str = "") -> None:
        shutil.rmtree(self.root / name, ignore_errors=True)

    def replace(self, src: str, dst: str) -> None:
        os.replace(self.root / src, self.root / dst)

    def write_bytes(self, name: str, data: bytes) -> None:
        path = self.root / name
        tmp = path.with_name(path.name + ".tmp")
        with self.open(tmp.relative_to(self.root).as_posix(), "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)


class FsspecStore(Store):
    """A folder or prefix of an fsspec file system (``s3://bucket/prefix``, ``gs://...``, ``memory://...``).

    Needs fsspec and the file system's package (``pip install 'clutrr[s3]'`` for S3).
    Writes to an object store become visible whole, when the file is closed.
    """

    def __init__(self, url: str) -> None:
        if _USERINFO.search(url):
            raise UsageError(f"--out {shown(url)}: credentials in a URL are refused (they would show in process lists "
                             f"and logs); give them through the environment or the file system's own configuration")
        try:
            import fsspec
        except ImportError:
            raise UsageError(f"--out {shown(url)} needs fsspec: pip install 'clutrr[s3]'") from None
        try:
            self.fs, root = fsspec.core.url_to_fs(url)
        except (ImportError, ValueError) as exc:
            raise UsageError(f"cannot open {shown(url)}: {_first_line(exc)}") from None
        self.root = root.rstrip("/")
        self.location = url.rstrip("/")

    def _key(self, name: str) -> str:
        return f"{self.root}/{name}" if name else self.root

    def open(self, name: str, mode: str = "rb") -> BinaryIO:
        return self.fs.open(self._key(name), mode)

    def exists(self, name: str) -> bool:
        return self.fs.isfile(self._key(name))

    def size(self, name: str) -> int:
        return self.fs.size(self._key(name))

    def files(self) -> list[str]:
        self.fs.invalidate_cache(self.root)
        try:
            found = self.fs.find(self.root)
        except FileNotFoundError:
            return []
        prefix = self.root + "/"
        return sorted(p[len(prefix):] for p in found if p.startswith(prefix))

    def remove(self, name: str) -> None:
        try:
            self.fs.rm_file(self._key(name))
        except FileNotFoundError:
            pass

    def remove_tree(self, name: str = "") -> None:
        keys = [self._key(f) for f in self.files() if not name or f == name or f.startswith(name.rstrip("/") + "/")]
        if keys:
            self.fs.rm(keys)

    def replace(self, src: str, dst: str) -> None:
        self.fs.mv(self._key(src), self._key(dst))

    def copy_from(self, other: Store, name: str) -> None:
        if isinstance(other, FsspecStore) and other.fs is self.fs:
            self.fs.copy(other._key(name), self._key(name))  # server-side where the store can
        else:
            super().copy_from(other, name)


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


_OPEN: dict[tuple[int, str], Store] = {}


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a path or ``file://`` URL (a local folder), or another fsspec URL.

    Stores are kept per process (a forked worker opens its own)."""
    key = (os.getpid(), str(location))
    store = _OPEN.get(key)
    if store is None:
        store = FsspecStore(str(location)) if is_url(location) else LocalStore(location)
        if len(_OPEN) > 64:
            _OPEN.clear()
        _OPEN[key] = store
    return store

