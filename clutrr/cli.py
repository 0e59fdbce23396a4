"""The ``clutrr`` command line: one subcommand per module in ``clutrr.commands``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. Bad input raises UsageError (or KBError), which becomes one line on
stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import pkgutil
import sys

from clutrr import __version__, commands
from clutrr.errors import UsageError
from clutrr.core.kb import KBError


class _Parser(argparse.ArgumentParser):
    """argparse, but with one-line errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _command_modules(only: str | None = None) -> list:
    names = [m.name for m in pkgutil.iter_modules(commands.__path__)]
    if only in names:  # one command asked for: import its module alone (start-up time)
        names = [only]
    mods = [importlib.import_module(f"clutrr.commands.{name}") for name in names]
    return sorted((m for m in mods if hasattr(m, "NAME")), key=lambda m: m.NAME)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand attached (only ``command``'s, when it names one)."""
    parser = _Parser(prog="clutrr", description="Generate, verify and audit CLUTRR-style kinship benchmarks.")
    parser.add_argument("--version", action="version", version=f"clutrr {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for mod in _command_modules(command):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``clutrr`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    return run_command(args._run, args, f"clutrr {args.command}")


if __name__ == "__main__":
    raise SystemExit(main())
