"""The ``clutrr`` command line: one subcommand per module in ``clutrr.commands``.

A command module defines ``NAME``, ``HELP``, ``add_arguments(parser)`` and
``run(args) -> int``. Bad input raises UsageError (or KBError), which becomes one line on
stderr and exit code 2.
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from importlib.util import find_spec
from typing import Iterator

from clutrr import BUILD, __version__, commands
from clutrr.frozen import freeze_kept

# Commands whose numpy work is products small enough for one BLAS thread (clutrr.core.genealogy.compose
# keeps them so): for them OpenBLAS's pool of threads, started when numpy loads, only costs CPU.
ONE_BLAS_THREAD = frozenset({"generate"})
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _command_modules(only: str | None = None) -> list:
    if only is not None and only.isidentifier() and find_spec(f"{commands.__name__}.{only}") is not None:
        names = [only]  # one command asked for: import its module alone (start-up time)
    else:
        import pkgutil

        names = [m.name for m in pkgutil.iter_modules(commands.__path__)]
    mods = [importlib.import_module(f"clutrr.commands.{name}") for name in names]
    return sorted((m for m in mods if hasattr(m, "NAME")), key=lambda m: m.NAME)


def load_numpy_on_one_blas_thread() -> None:
    """Import numpy with OpenBLAS limited to the calling thread, unless numpy is loaded already or
    the user chose a thread count. The variable is set only while numpy loads (OpenBLAS reads it
    then): processes started later, Ray workers say, see the environment as it was."""
    if "numpy" in sys.modules or any(name in os.environ for name in BLAS_THREAD_VARIABLES):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The top-level parser with every subcommand attached (only ``command``'s, when it names one)."""
    from clutrr.commands.console import Parser

    parser = Parser(prog="clutrr", description="Generate, verify and audit CLUTRR-style kinship benchmarks.")
    parser.add_argument("--version", action="version", version=f"clutrr {__version__} ({BUILD})")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for mod in _command_modules(command):
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


@contextlib.contextmanager
def start_up(command: str | None) -> Iterator[None]:
    """The start-up of a process that runs ``command``: its modules load (numpy on one BLAS thread
    for the commands of ONE_BLAS_THREAD) with the cyclic collector paused, and what they made is
    frozen: it lives as long as the process, so the collector's passes never go through it (left
    on, they went through it again and again while it loaded: a sixth of generate's start-up)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        if command in ONE_BLAS_THREAD:
            load_numpy_on_one_blas_thread()
        yield
    finally:
        freeze_kept()
        if enabled:
            gc.enable()


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``clutrr`` console script; without ``argv`` (``sys.argv`` then) it is
    this process's command, and starts as :func:`start_up` says."""
    whole_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv else None
    with start_up(command) if whole_process else contextlib.nullcontext():
        args = build_parser(command).parse_args(argv)
    from clutrr.commands.console import run_command

    return run_command(args._run, args, f"clutrr {args.command}")


def generate_main(argv: list[str] | None = None) -> int:
    """Entry point of the ``clutrr-generate`` script and ``python generate.py``: the ``generate``
    command alone; without ``argv`` it is this process's command, and starts as ``clutrr generate``."""
    with start_up("generate") if argv is None else contextlib.nullcontext():
        from clutrr.commands import generate
    return generate.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
