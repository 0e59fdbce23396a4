"""What every entry point shares: an argparse parser whose errors are one line with exit code 2,
and :func:`run_command`, which maps user errors to one stderr line and exit code 2."""
from __future__ import annotations

import argparse
import os
import sys

from clutrr.core.kb import KBError
from clutrr.errors import UsageError


class Parser(argparse.ArgumentParser):
    """argparse, but with one-line errors."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def run_command(run, args: argparse.Namespace, prog: str) -> int:
    """Run a command function, mapping user errors to one stderr line and exit code 2."""
    try:
        return int(run(args) or 0)
    except (UsageError, KBError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write(f"{prog}: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
