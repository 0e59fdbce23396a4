"""Progress bars: shown on a terminal (a real pseudo-terminal here), silent otherwise."""
from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import sys
import termios
import threading

import pytest

from clutrr.cli import main
from clutrr.diagnostics import progress
from diag_rows import FIXTURES


class Terminal:
    """stderr replaced by the slave end of a pseudo-terminal; what it shows is collected."""

    def __init__(self) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # rows, columns, as a window has
        self.stream = io.TextIOWrapper(os.fdopen(slave, "wb", buffering=0), encoding="utf-8", write_through=True)
        self.chunks: list[bytes] = []
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            self.chunks.append(data)

    def close(self) -> str:
        self.stream.close()
        self.reader.join(timeout=5)
        os.close(self.master)
        return b"".join(self.chunks).decode("utf-8", "replace")


COMMANDS = {
    "verify": lambda tmp: ["verify", str(FIXTURES)],
    "audit": lambda tmp: ["audit", str(FIXTURES)],
    "probe": lambda tmp: ["probe", str(FIXTURES), "--kind", "word-permute", "--q", "3", "--out", str(tmp / "p")],
    "recast": lambda tmp: ["recast", str(FIXTURES), "--out", str(tmp / "nli")],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_bar_on_a_terminal(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY", 0.0)  # the fixtures are quick; show the bar at once
    term = Terminal()
    monkeypatch.setattr(sys, "stderr", term.stream)
    assert sys.stderr.isatty()
    code = main(COMMANDS[command](tmp_path))
    shown = term.close()
    assert code in (0, 1)
    assert "%|" in shown and "\r" in shown, shown  # a tqdm bar, redrawn in place


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_silent_when_not_on_a_terminal(command, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(progress, "DELAY", 0.0)
    assert main(COMMANDS[command](tmp_path)) in (0, 1)
    assert capsys.readouterr().err == ""
