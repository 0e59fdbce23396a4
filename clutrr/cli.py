"""The ``clutrr`` command line: one subcommand per module in ``clutrr.commands``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. Bad input raises UsageError (or KBError), which becomes one line on
stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from clutrr import BUILD, __version__, commands
from clutrr.commands.console import Parser, run_command


def _command_modules(only: str | None = None) -> list:
    names = [m.name for m in pkgutil.iter_modules(commands.__path__)]
    if only in names:  # one command asked for: import its module alone (start-up time)
        names = [only]
    mods = [importlib.import_module(f"clutrr.commands.{name}") for name in names]
    return sorted((m for m in mods if hasattr(m, "NAME")), key=lambda m: m.NAME)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand attached (only ``command``'s, when it names one)."""
    parser = Parser(prog="clutrr", description="Generate, verify and audit CLUTRR-style kinship benchmarks.")
    parser.add_argument("--version", action="version", version=f"clutrr {__version__} ({BUILD})")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for mod in _command_modules(command):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``clutrr`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    return run_command(args._run, args, f"clutrr {args.command}")


if __name__ == "__main__":
    raise SystemExit(main())
