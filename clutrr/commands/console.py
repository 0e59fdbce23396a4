"""What every entry point shares: an argparse parser whose errors are one line with exit code 2,
and :func:`run_command`, which maps user errors (and a full disk, a failed read or write, running
out of memory) to one stderr line and exit code 2."""
from __future__ import annotations

import argparse
import errno
import os
import sys

from clutrr.core.kb import KBError
from clutrr.errors import UsageError


class Parser(argparse.ArgumentParser):
    """argparse, but with one-line errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


_DISK_FULL = (errno.ENOSPC, errno.EFBIG, errno.EDQUOT)


def os_error_line(exc: OSError) -> str:
    """One line for a failed read or write: what, where, and for a full disk what was kept."""
    where = f"{exc.filename}: " if exc.filename else ""
    if exc.errno in _DISK_FULL:
        return f"{where}{exc.strerror or 'no space left'}: the disk or the file size limit is full; nothing was written"
    return f"{where}{exc.strerror or exc}"


def run_command(run, args: argparse.Namespace, prog: str) -> int:
    """Run a command function, mapping user errors, failed reads and writes (a full disk) and
    running out of memory to one stderr line and exit code 2."""
    try:
        return int(run(args) or 0)
    except (UsageError, KBError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except MemoryError:
        sys.stderr.write(f"{prog}: error: out of memory; ask for less (fewer rows or workers, smaller families)\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        sys.stderr.write(f"{prog}: error: {os_error_line(exc)}\n")
        return 2
