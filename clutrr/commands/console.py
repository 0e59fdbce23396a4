"""What every entry point shares: an argparse parser whose errors are one line with exit code 2,
and :func:`run_command`, which maps user errors (and a full disk, a failed read or write, running
out of memory) to one stderr line and exit code 2."""
from __future__ import annotations

import argparse
import errno
import os
import signal
import sys
import threading

from clutrr.core.kb import KBError
from clutrr.engines.base import EngineError
from clutrr.errors import UsageError
from clutrr.io.lock import unlock_all


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


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_command(run, args: argparse.Namespace, prog: str) -> int:
    """Run a command function, mapping user errors, failed reads and writes (a full disk) and
    running out of memory to one stderr line and exit code 2. SIGTERM (a job scheduler, a
    ``kill``) is a Ctrl-C: the command cleans up what it started and exits 130, ignoring
    further Ctrl-C and SIGTERM while it exits. Out of memory, the advice names the knobs of
    the command's module (its ``MEMORY_ADVICE``)."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main else None
    code = 1
    try:
        code = _run(run, args, prog)
    finally:
        unlock_all()
        if main and code != 130:
            signal.signal(signal.SIGTERM, previous)
    return code


def _run(run, args: argparse.Namespace, prog: str) -> int:
    try:
        return int(run(args) or 0)
    except (UsageError, KBError, EngineError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except MemoryError:
        advice = getattr(sys.modules.get(getattr(run, "__module__", "")), "MEMORY_ADVICE", "")
        sys.stderr.write(f"{prog}: error: out of memory; ask for less{f' ({advice})' if advice else ''}\n")
        return 2
    except KeyboardInterrupt:
        if threading.current_thread() is threading.main_thread():  # stopping already: more signals change nothing
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:
        sys.stderr.write(f"{prog}: error: {os_error_line(exc)}\n")
        return 2
