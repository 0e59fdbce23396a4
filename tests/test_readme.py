"""Every command of the README runs as written after its two set-up commands.

The README's ``sh`` blocks (other than ``make`` and the activation line) and its ``python``
blocks are run in order in a fresh clone of this repository, in a shell where the environment
is activated as the README says (``. .venv/bin/activate``, the clone's ``.venv`` being the
environment the tests run in). The chat endpoint of the eval example is a real server on
127.0.0.1 (tests/chat_server.py) answering for the dataset the README generates; its address
replaces the README's example address. Also: the README stays short.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from helpers import REPO

README = REPO / "README.md"
BLOCK = re.compile(r"```(?P<lang>sh|python)\n(?P<code>.*?)```", re.S)
EXAMPLE_URL = "http://127.0.0.1:8000/v1"
MAX_LINES = 150


def blocks() -> list[tuple[str, str]]:
    """(language, code) of each README block to run, in order."""
    out = []
    for m in BLOCK.finditer(README.read_text(encoding="utf-8")):
        code = m.group("code")
        if m.group("lang") == "sh":
            lines = [line for line in code.splitlines()
                     if line.strip() and not line.startswith("make ") and line.strip() != ". .venv/bin/activate"]
            if not lines:
                continue
            code = "\n".join(lines) + "\n"
        out.append((m.group("lang"), code))
    return out


def start_chat_server(data: Path, tmp: Path) -> tuple[subprocess.Popen, str]:
    port_file = tmp / "port"
    proc = subprocess.Popen([sys.executable, str(REPO / "tests" / "chat_server.py"), str(data),
                             "--port-file", str(port_file), "--log", str(tmp / "server.log"), "--model", "my-model"])
    deadline = time.monotonic() + 30
    while not port_file.exists() or not port_file.read_text():
        assert proc.poll() is None and time.monotonic() < deadline, "the chat server did not start"
        time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port_file.read_text()}/v1"


def test_the_readme_is_short():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines; keep it to {MAX_LINES} (reference goes to docs/)"


def test_the_readme_links_point_to_files_that_exist():
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)", text)
    assert targets
    missing = [t for t in targets if not t.startswith("http") and not (REPO / t).exists()]
    assert not missing, f"README links to missing files: {missing}"


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to clone the repository")
def test_every_readme_command_runs_as_written_in_a_fresh_clone(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    (clone / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", MPLBACKEND="Agg")
    server = None
    try:
        for lang, code in blocks():
            if lang == "sh" and EXAMPLE_URL in code:
                if server is None:
                    server, url = start_chat_server(clone / "data" / "mine", tmp_path)
                code = code.replace(EXAMPLE_URL, url)
            if lang == "python":
                script = tmp_path / "block.py"
                script.write_text(code, encoding="utf-8")
                code = f"python {script}\n"
            res = subprocess.run(["bash", "-c", f". .venv/bin/activate\nset -e\n{code}"], cwd=clone, env=env,
                                 capture_output=True, text=True, timeout=300)
            assert res.returncode == 0, f"README block failed:\n{code}\n{res.stderr[-2000:]}"
    finally:
        if server is not None:
            server.kill()
            server.wait(timeout=10)
    assert (clone / "data" / "mine" / "manifest.json").exists()
    assert (clone / "reports" / "my-model" / "report.json").exists()
    assert (clone / "data" / "release" / "release.json").exists()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=clone,
                            capture_output=True, text=True, check=True).stdout
    assert status.strip() == "", f"README commands left files git would track:\n{status}"
