"""Faults and bad input as a user meets them: real processes, real signals, real files.

Each case asserts the exit code, the one line on stderr, and that nothing the user owned is
lost. docs/reliability.md lists every case with its outcome. Every process a test starts is
killed before it ends, whatever happens.
"""
from __future__ import annotations

import json
import os
import pickle
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest
from helpers import REPO

SMALL = ("--train-rows", "30", "--test-rows", "10", "--test-k", "2,3", "--quiet")


def cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 120,
        preexec_fn=None) -> subprocess.CompletedProcess:
    """``clutrr ARGS`` in a fresh interpreter."""
    return subprocess.run([sys.executable, "-m", "clutrr.cli", *args], capture_output=True, text=True,
                          cwd=cwd or REPO, env={**os.environ, **(env or {})}, timeout=timeout, preexec_fn=preexec_fn)


def one_line(res: subprocess.CompletedProcess, *fragments: str) -> str:
    """The single stderr line of a run that failed as promised: exit 2, no traceback."""
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` (hidden ones too) with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def kill_tree(procs: list[psutil.Process]) -> None:
    """Kill these processes (and their descendants still alive); wait for them."""
    alive = []
    for proc in procs:
        try:
            alive += [proc, *proc.children(recursive=True)]
        except psutil.NoSuchProcess:
            pass
    for proc in alive:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=10)


# --- 1. --force replaces only what clutrr wrote -------------------------------------------

def test_force_never_replaces_a_folder_clutrr_did_not_write(tmp_path):
    home = tmp_path / "h"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id").write_text("k\n")
    (home / "project").mkdir()
    (home / "project" / "main.py").write_text("print(1)\n")
    before = tree(home)
    one_line(cli("generate", *SMALL, "--out", str(home), "--force"), "refusing to replace", "clutrr did not write")
    assert tree(home) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h"]  # no staging folder left


def test_force_replaces_a_dataset_until_the_user_adds_a_file(tmp_path):
    out = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(out)).returncode == 0
    assert cli("generate", *SMALL, "--seed", "1", "--out", str(out), "--force").returncode == 0
    assert json.loads((out / "config.json").read_text())["seed"] == 1
    (out / "notes.txt").write_text("mine")
    one_line(cli("generate", *SMALL, "--out", str(out), "--force"), "notes.txt", "clutrr did not write")
    assert (out / "notes.txt").read_text() == "mine"


def test_every_command_reads_force_the_same_way(tmp_path):
    data = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(data)).returncode == 0
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "audit.md").write_text("my own notes")
    one_line(cli("audit", str(data), "--out", str(mine), "--force"), "clutrr did not write")
    assert (mine / "audit.md").read_text() == "my own notes"
    report = tmp_path / "report"
    assert cli("audit", str(data), "--out", str(report)).returncode == 0
    assert cli("audit", str(data), "--out", str(report), "--force").returncode == 0  # its own output: replaced
    (report / "extra.txt").write_text("x")
    one_line(cli("audit", str(data), "--out", str(report), "--force"), "extra.txt")
    # a dataset is not replaced by another command's output, even with --force
    one_line(cli("recast", str(data), "--out", str(data), "--force"), "holds a clutrr dataset")
    assert (data / "manifest.json").exists()


def test_out_through_a_symlink_writes_the_folder_it_names(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    assert cli("generate", *SMALL, "--out", str(tmp_path / "link")).returncode == 0
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "manifest.json").exists()
    assert cli("generate", *SMALL, "--seed", "2", "--out", str(tmp_path / "link"), "--force").returncode == 0
    assert (tmp_path / "link").is_symlink() and '"seed": 2' in (tmp_path / "real" / "config.json").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]


@pytest.mark.parametrize("out", [".", ".."])
def test_out_the_current_folder_or_above_is_one_line(tmp_path, out):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    one_line(cli("generate", *SMALL, "--out", out, "--force", cwd=work), "cannot be replaced")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["a", "b"]


# --- 2. workers: capped, checked before starting, dying with their parent ---------------

def test_workers_above_the_cpus_are_lowered_with_a_note(tmp_path):
    from clutrr.engines.resources import usable_cpus

    cpus = usable_cpus()
    res = cli("generate", *SMALL, "--workers", str(cpus + 2), "--out", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    assert f"--workers {cpus + 2} lowered to {cpus}" in res.stderr


def test_oversubscribe_is_refused_before_any_worker_starts_when_memory_cannot_hold_them(tmp_path):
    start = time.monotonic()
    res = cli("generate", "--train-rows", "4000000", "--k", "30", "--test-k", "none", "--quiet",
              "--workers", "100000", "--oversubscribe", "--out", str(tmp_path / "d"))
    one_line(res, "100000 workers need about", "use at most")
    assert time.monotonic() - start < 30
    assert list(tmp_path.iterdir()) == []


def _workers_of(pid: int, n: int = 2, wait: float = 60) -> list[psutil.Process]:
    deadline = time.monotonic() + wait
    parent = psutil.Process(pid)
    while time.monotonic() < deadline:
        children = parent.children()
        if len(children) >= n:
            return children
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


def test_workers_die_with_their_parent_and_the_next_run_removes_its_folder(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", "generate", "--workers", "2", "--oversubscribe",
                             "--quiet",
                             "--train-rows", "200000", "--out", str(tmp_path / "d")], cwd=REPO,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    workers: list[psutil.Process] = []
    try:
        workers = _workers_of(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)  # as the out-of-memory killer does
        proc.wait(10)
        _, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive, f"workers outlived their parent: {alive}"
    finally:
        kill_tree([psutil.Process(proc.pid)] if psutil.pid_exists(proc.pid) else [])
        kill_tree([w for w in workers if w.is_running()])
    stale = [p.name for p in tmp_path.iterdir() if p.name != ".d.lock"]  # its lock died with it; the file stays
    assert len(stale) == 1 and stale[0].startswith(".d.tmp-") and f"-{proc.pid}-" in stale[0]
    res = cli("generate", *SMALL, "--out", str(tmp_path / "d"))
    assert res.returncode == 0, res.stderr
    assert f"removed {tmp_path / stale[0]}, left by run {proc.pid}" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d"]


# --- 4. deadlines and silent waits --------------------------------------------------------

def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_ray_address_nobody_listens_on_fails_at_once(tmp_path):
    pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", "generate", *SMALL, "--engine", "ray",
                             "--address", f"127.0.0.1:{_closed_port()}", "--out", str(tmp_path / "d")],
                            cwd=REPO, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        err = proc.communicate(timeout=30)[1]
    finally:
        kill_tree([psutil.Process(proc.pid)] if proc.poll() is None else [])
    res = subprocess.CompletedProcess(proc.args, proc.returncode, "", err)
    one_line(res, "cannot reach a Ray cluster at 127.0.0.1:", "Connection refused")
    assert list(tmp_path.iterdir()) == []


def test_a_ray_address_that_never_answers_fails_within_its_deadline():
    pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    from clutrr.engines.ray_tasks import RayEngine
    from clutrr.errors import UsageError

    server = socket.create_server(("127.0.0.1", 0))  # accepts, never speaks
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    try:
        start = time.monotonic()
        with pytest.raises(UsageError, match="no answer within 1 s"):
            RayEngine(address=f"127.0.0.1:{server.getsockname()[1]}", connect_timeout=1)
        assert time.monotonic() - start < 5
    finally:
        for conn in held:
            conn.close()
        server.close()


def test_families_too_large_to_build_are_refused_at_once_with_advice(tmp_path):
    for args, size in ((("--generations", "12"), "16,378"), (("--max-children", "1000"), "people")):
        start = time.monotonic()
        line = one_line(cli("generate", *SMALL, *args, "--out", str(tmp_path / "d")), size, "lower --generations")
        assert time.monotonic() - start < 20, line
    assert list(tmp_path.iterdir()) == []


def test_show_prints_its_first_story_at_once():
    proc = subprocess.Popen([sys.executable, "-m", "clutrr.cli", "show", "-n", "100000000"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout.readline() for _ in range(2)), daemon=True)
    try:
        reader.start()
        reader.join(30)
    finally:
        kill_tree([psutil.Process(proc.pid)])
    assert len(lines) == 2, "show printed nothing for 30 s"
    assert lines[0].strip() and lines[1].startswith("  how is ")


# --- 5. one line, exit 2, never a traceback -----------------------------------------------

def test_huge_ranges_are_refused_before_they_are_expanded(tmp_path):
    for value in ("2..300000000", "2..10000000"):
        res = cli("generate", *SMALL[:-3], "--test-k", value, "--quiet", "--out", str(tmp_path / "d"),
                  preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)))
        one_line(res, "k must be between 1 and 100")
    assert list(tmp_path.iterdir()) == []


def _kb_text() -> str:
    return (REPO / "kb_rules" / "kinship.yaml").read_text(encoding="utf-8")


def test_rules_files_that_cannot_be_used_are_one_line(tmp_path):
    unsound = tmp_path / "unsound.yaml"
    unsound.write_text(_kb_text().replace("  - child . child -> grandchild\n", "  - child . child -> child\n"))
    one_line(cli("generate", *SMALL, "--kb", str(unsound), "--out", str(tmp_path / "d")),
             "marked sound, but rule 'child . child -> child' does not hold")
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"\xff\xfe" + _kb_text().encode())
    one_line(cli("generate", *SMALL, "--kb", str(latin), "--out", str(tmp_path / "d")), "not UTF-8 text")
    cyclic = tmp_path / "cyclic.yaml"
    cyclic.write_text(_kb_text().replace("    define: parent . ~parent\n", "    define: sibling . spouse\n", 1))
    line = one_line(cli("generate", *SMALL, "--kb", str(cyclic), "--out", str(tmp_path / "d")),
                    "definition of 'sibling' refers to itself")
    assert "templates" not in line and str(cyclic) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cyclic.yaml", "latin.yaml", "unsound.yaml"]


def test_binary_files_given_to_verify_and_audit_are_one_line(tmp_path):
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "1.2_test.csv").write_bytes(bytes(range(256)) * 20)
    for command in ("verify", "audit"):
        one_line(cli(command, str(folder)), "not UTF-8 text")
    one_line(cli("verify", str(folder / "1.2_test.csv")), "not UTF-8 text")
    one_line(cli("audit", str(folder / "1.2_test.csv")), "not a folder")
    nli = tmp_path / "nli"
    nli.mkdir()
    (nli / "1.2_test.jsonl").write_bytes(b'{"premise": "\xff\xfe"}\n')
    one_line(cli("audit", str(nli)), "not UTF-8 text")


def test_a_full_disk_is_one_line_and_leaves_nothing(tmp_path):
    limit = 200_000  # bytes any one file may reach: the first shard outgrows it
    res = cli("generate", "--train-rows", "3000", "--test-rows", "10", "--test-k", "2", "--quiet",
              "--out", str(tmp_path / "d"),
              preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit)))
    one_line(res, "File too large", "nothing was written")
    assert list(tmp_path.iterdir()) == []


def test_verify_json_never_replaces_a_file_it_did_not_write(tmp_path):
    data = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(data)).returncode == 0
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}')
    one_line(cli("verify", str(data), "--json", str(notes)), "refusing to replace")
    assert notes.read_text() == '{"mine": true}'
    report = tmp_path / "report.json"
    assert cli("verify", str(data), "--json", str(report)).returncode == 0
    assert cli("verify", str(data), "--json", str(report)).returncode == 0  # its own report: replaced


# --- 7. the bank cache runs no code and trusts only the user's own files -------------------

class _Planted:
    def __reduce__(self):
        return (os.system, (f"touch {os.environ['CLUTRR_PLANTED_MARKER']}",))


def test_a_planted_cache_file_never_runs_code(tmp_path, monkeypatch):
    from clutrr.render.bank_cache import FORMAT
    from clutrr.render.usable import _compiled_key

    cache = tmp_path / "cache"
    cache.mkdir()
    marker = tmp_path / "ran"
    monkeypatch.setenv("CLUTRR_PLANTED_MARKER", str(marker))
    key = _compiled_key("paraphrase", "kinship")
    payload = pickle.dumps(_Planted())
    for name in (f"bank-{key}.pickle", f"bank-{key}.json"):
        (cache / name).write_bytes(payload)
    res = cli("generate", *SMALL, "--out", str(tmp_path / "d"), env={"CLUTRR_CACHE_DIR": str(cache)})
    assert res.returncode == 0, res.stderr
    assert not marker.exists(), "a planted pickle ran"
    written = (cache / f"bank-{key}.json").read_bytes()
    assert written.startswith(b"{") and json.loads(written)["format"] == FORMAT  # rebuilt as plain JSON


def test_a_cache_file_others_may_write_is_ignored(tmp_path):
    from clutrr.render.bank_cache import load, store

    path = tmp_path / "bank.json"
    store(path, {"x": 1})
    assert oct(path.stat().st_mode & 0o777) == oct(0o600) and load(path) == {"x": 1}
    path.chmod(0o666)
    with pytest.warns(UserWarning, match="not a private file"):
        assert load(path) is None
    if os.geteuid() == 0:
        path.chmod(0o600)
        os.chown(path, 65534, 65534)  # nobody's
        with pytest.warns(UserWarning):
            assert load(path) is None


# --- 8, 9. silent surprises and misleading messages ---------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (("--k", "3..2"), "the range 3..2 is empty"),
    (("--k", ""), "--k is empty"),
    (("--test-k", ","), "--test-k is empty"),
    (("--address", "127.0.0.1:6379"), "use it with --engine ray"),
])
def test_silent_surprises_are_errors(tmp_path, args, fragment):
    one_line(cli("generate", *SMALL, *args, "--out", str(tmp_path / "d")), fragment)
    assert list(tmp_path.iterdir()) == []


def test_an_empty_templates_file_is_refused_not_replaced_by_the_fallback(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    one_line(cli("generate", *SMALL, "--templates", str(empty), "--out", str(tmp_path / "d")),
             "no template found")


def test_resume_with_force_replaces_a_finished_dataset_of_other_arguments(tmp_path):
    out = tmp_path / "d"
    assert cli("generate", *SMALL, "--out", str(out)).returncode == 0
    one_line(cli("generate", *SMALL, "--seed", "3", "--resume", "--out", str(out)), "add --force")
    res = cli("generate", *SMALL, "--seed", "3", "--resume", "--force", "--out", str(out))
    assert res.returncode == 0, res.stderr
    assert json.loads((out / "config.json").read_text())["seed"] == 3


# --- 10, 11. what the docs and RESULTS.md say ---------------------------------------------

def test_documented_commands_and_claims_hold():
    docs = REPO / "docs"
    baselines = (docs / "baselines.md").read_text(encoding="utf-8")
    assert "python -m clutrr.baselines.reproduce` reruns" not in baselines
    assert "python -m clutrr.baselines.reproduce --results" in baselines
    assert "A word-permute probe is `--q` (100) times the size" in (docs / "commands.md").read_text(encoding="utf-8")
    assert "`../shared/clutrr-release` stands for" in (docs / "kb.md").read_text(encoding="utf-8")
    assert "within the rows of one k of a file, each block of 22" in (docs / "generate.md").read_text(encoding="utf-8")
    assert "--relations clutrr_v1`, table (d)" in baselines
    help_text = cli("generate", "--help").stdout
    assert "kinship-blood" in help_text and "--oversubscribe" in help_text


def test_label_blocks_start_again_at_each_k(tmp_path):
    from clutrr.io.csv_format import read_csv

    assert cli("generate", "--train-rows", "30", "--test-rows", "10", "--test-k", "2", "--quiet",
               "--out", str(tmp_path / "d")).returncode == 0
    targets = [r.target for r in read_csv(tmp_path / "d" / "1.2,1.3_train.csv")]
    assert len(set(targets[:22])) == 22 and len(set(targets[30:52])) == 22  # k=3 starts at row 30


def test_pyproject_license_is_an_spdx_string():
    import tomllib

    doc = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert doc["project"]["license"] == "MIT"


def test_robustness_after_one_run_prints_no_standard_error():
    from clutrr.baselines.robustness import render_text

    cell = {"mean": 0.5, "std": 0.0, "se": 0.0, "runs": 1, "stories": 10, "per_run": [0.5]}
    text = render_text({"title": "t", "experiment": "noise", "summary": {"clean": {"clean": cell}}})
    assert "0.500" in text and "±" not in text and "one run gives no standard error" in text


def test_results_md_keeps_published_numbers_on_other_data_out_of_our_tables():
    text = (REPO / "baselines" / "RESULTS.md").read_text(encoding="utf-8")
    section = text[text.index("## (b)"):text.index("## (c)")]
    ours = section[section.index("| k | stories |"):]
    ours = ours[:ours.index("\n\n")]
    assert "CTP" not in ours and "our GAT, train k=2,3,4" in ours
    assert "not comparable" in section or "cannot be compared" in section
