"""Generation speed and memory through the full writer, per case and engine.

Each run is a fresh ``clutrr generate`` process (start-up, bank loading and, for Ray, the
Ray start included) writing a complete dataset (CSV + JSONL + manifest + config.json).
CPU time is the process's and its workers' (``RUSAGE_CHILDREN``; Ray's workers are not
children of the command, so for Ray the CPU column is blank and only the wall rate counts).
Peak RSS is sampled every 0.2 s over the whole process tree (parent plus workers, summed).
The package's bytecode is compiled first, as ``pip install`` does (where
PYTHONDONTWRITEBYTECODE is set, every process would otherwise compile it again).

    python benchmarks/bench_generate.py                       # every case, every engine
    python benchmarks/bench_generate.py --case k2-3-all --engine 1proc   # one cell
    python benchmarks/bench_generate.py --list                # case and engine names
    python benchmarks/bench_generate.py --big 10000000        # one long k=2,3 run (memory check)
    python benchmarks/bench_generate.py --big 1000000 --big-k 2   # duplicates per 10^6 rows at k=2
    python benchmarks/bench_generate.py --versus              # only the reasoning-gym comparison
    python benchmarks/bench_generate.py --builds --parallel   # compiled/pure beside reasoning-gym; --workers 2
    python benchmarks/bench_generate.py --cluster             # only the two-node Ray cluster figures
    python benchmarks/bench_generate.py --kinship             # only the kinship systems against the default
    python benchmarks/bench_generate.py --size                # only the size axis: long chains, many distractors
    python benchmarks/bench_generate.py --kinship --kinship-test-k 2..6   # ... at the issue's test k too

Besides the table, the default run prints two more sections:

- reasoning-gym (pinned, installed into this environment when missing) against clutrr, side
  by side in one run: fresh processes, start-up included, CPU seconds of each, paired runs
  repeated; items per CPU-second and their ratio, at k=2,3 clean and with all noise.
- the compiled and the pure build (both wheels of this checkout built first, run from their
  unpacked folders) beside reasoning-gym: k=2,3 clean, k=2,3 all noise, k=10 all noise, items
  per CPU-second, against reasoning-gym and compiled against pure (``--builds``).
- parallel efficiency: two independent ``--workers 1`` runs at the same time (what two cores
  do here) against one ``--workers 2`` run of both their stories, wall time, both timed alike
  in alternating rounds, with the CPU seconds of each (``--parallel``; with ``--builds``, once
  with each build's wheel, else with whichever clutrr this Python imports).
- a Ray cluster of two nodes on this machine (one CPU each, started once): the same job on one
  node, then on both once the second has joined, start-up excluded (workers warmed by a small
  job first); the wall-time speed-up of 2 CPUs over 1 and the driver's CPU time as a share
  of the workers' (every process of the nodes counted as theirs).
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_startup import compile_package  # this folder is on sys.path when the script runs
from clutrr.commands.console import Parser

try:
    import psutil
except ImportError:  # the tree RSS is then the largest single process's peak
    psutil = None

ROWS = 20_000
CASES = {  # name -> (training lengths, noise); a job writes ROWS rows in total
    "k2-3-clean": ((2, 3), "none"),
    "k2-3-all": ((2, 3), "all"),
    "k10-all": ((10,), "all"),
    "k20-all": ((20,), "all"),
}


def case_args(case: str, rows: int) -> list[str]:
    """Generate arguments of a case for a job of ``rows`` rows."""
    ks, noise = CASES[case]
    return ["--k", ",".join(map(str, ks)), "--noise", noise, "--train-rows", str(rows // len(ks))]
ENGINES = {  # name -> generate arguments
    "1proc": ["--workers", "1"],
    "2proc": ["--workers", "2"],
    "ray2": ["--engine", "ray", "--workers", "2"],
}


def _tree_rss(pid: int) -> int:
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(args: list[str], out: str) -> dict:
    """Run ``clutrr generate ARGS --out OUT``; wall and CPU seconds, peak tree RSS in MB."""
    return measure_command([sys.executable, "-m", "clutrr.cli", "generate", "--quiet", "--test-k", "none", "--out", out,
                            "--force", *args])


def measure_command(cmd: list[str]) -> dict:
    """Run ``cmd``; wall and CPU seconds (its and its children's), peak tree RSS in MB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], _tree_rss(proc.pid))
            time.sleep(0.2)

    watcher = threading.Thread(target=sample, daemon=True)
    if psutil is not None:
        watcher.start()
    err = proc.communicate()[1]
    wall = time.perf_counter() - wall
    watcher.join(1) if psutil is not None else None
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{err}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_mb = peak[0] / 2**20 if psutil is not None else after.ru_maxrss / 1024
    return {"wall_s": wall, "cpu_s": cpu, "peak_rss_mb": peak_mb, "max_process_rss_mb": after.ru_maxrss / 1024}


def machine() -> str:
    """One line describing this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}, {platform.system()}"


def table(cases: list[str], engines: list[str], rows: int) -> None:
    """Print one row per (case, engine)."""
    print(f"machine: {machine()}; load average before: {os.getloadavg()[0]:.2f}")
    print(f"{rows:,} rows per job, start-up included; speed-up = wall time of 1 process / wall time")
    print(f"{'case':12s} {'engine':7s} {'stories/CPU-s':>13s} {'stories/wall-s':>14s} {'peak RSS MB':>11s} {'speed-up':>8s}")
    for case in cases:
        base = None
        for engine in engines:
            with tempfile.TemporaryDirectory() as tmp:
                r = measure([*case_args(case, rows), *ENGINES[engine]], os.path.join(tmp, "d"))
            per_cpu = f"{rows / r['cpu_s']:13.0f}" if engine != "ray2" else f"{'-':>13s}"
            if engine == "1proc":
                base = r["wall_s"]
            speed = f"{base / r['wall_s']:7.2f}x" if base else f"{'-':>8s}"
            print(f"{case:12s} {engine:7s} {per_cpu} {rows / r['wall_s']:14.0f} {r['peak_rss_mb']:11.0f} {speed}",
                  flush=True)


def big(rows: int, ks: str, workers: int, formats: str) -> None:
    """One long clean run: wall and CPU time, peak RSS, and the duplicate stories replaced."""
    n_k = len(ks.split(","))
    per_k = rows // n_k
    print(f"machine: {machine()}")
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        r = measure(["--k", ks, "--train-rows", str(per_k), "--workers", str(workers), "--format", formats],
                    os.path.join(tmp, "d"))
        with open(os.path.join(tmp, "d", "config.json")) as fh:
            checks = json.load(fh)["checks"]
    total = n_k * per_k
    dups = sum(checks["duplicates_replaced"].values())
    print(f"{total:,} rows (k={ks}, clean, default templates, {workers} workers, {formats}): "
          f"wall {r['wall_s']:.0f} s, CPU {r['cpu_s']:.0f} s ({total / r['cpu_s']:.0f} stories/CPU-s), "
          f"peak RSS {r['peak_rss_mb']:.0f} MB (all processes), largest process {r['max_process_rss_mb']:.0f} MB")
    print(f"duplicate stories replaced: {dups} ({dups / total * 1e6:.1f} per 10^6 rows), rows changed "
          f"{checks['rows_replaced']}")


RG_PIN = "reasoning-gym==0.1.25"
VERSUS_ROWS = 50_000
VERSUS_REPEATS = 3
PARALLEL_ROUNDS = 11  # alternating rounds of --parallel: single rounds spread by about 15% on a 2-core VM (0.87 to 1.04)
_RG_JOB = """
import sys, reasoning_gym
data = reasoning_gym.create_dataset("family_relationships", size=int(sys.argv[1]), seed=1)
for i in range(len(data)):
    data[i]
"""


def _cpu_of(cmd: list[str], fresh: str | None = None) -> float:
    """CPU seconds (user + system) of a fresh process and its children; ``fresh``, an output
    folder removed first (untimed), so the run does not verify and replace the last one's files."""
    if fresh is not None:
        shutil.rmtree(fresh, ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{done.stderr}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


KINSHIP_SYSTEMS = ("eskimo", "hawaiian", "sudanese", "iroquois", "dravidian", "crow", "omaha")


SIZE_ROWS = 10_000
SIZE_CASES = {  # name -> (k, connected distractors or 0 for clean stories, --generations or 0 for the default)
    "k10": (10, 0, 0),
    "k30": (30, 0, 0),
    "k100": (100, 0, 0),
    "k10-100facts": (10, 90, 0),
    "k10-1000facts": (10, 990, 0),
    "k100-1000facts": (100, 1000, 0),
    "k100-10000people": (100, 0, 11),  # families of about 8,000 people expected (up to 10,000 are allowed)
}
SIZE_PEAK_GOAL_MB = 300


def size(rows: int, cases: tuple[str, ...] = tuple(SIZE_CASES)) -> None:
    """Stories per CPU-second and peak memory (process tree) of one-process runs of ``rows``
    stories along the size axis: clean chains of 10, 30 and 100 facts, and stories of about
    100 and 1,000 facts (connected distractors), and k=100 in families of about 8,000 people,
    with the difficulty record on; start-up included."""
    print(f"\nsize axis ({rows:,} stories per run, 1 process, CSV + JSONL, --difficulty)")
    print(f"{'case':17s} {'facts':>6s} {'CPU s':>8s} {'stories/CPU-s':>13s} {'peak MB':>8s}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in cases:
            k, extra, generations = SIZE_CASES[name]
            noise = ["--noise", "connected", "--noise-facts", str(extra)] if extra else []
            family = ["--generations", str(generations)] if generations else []
            m = measure(["--k", str(k), "--train-rows", str(rows), "--workers", "1", "--difficulty", *noise, *family],
                        f"{tmp}/{name}")
            goal = f"  (goal <= {SIZE_PEAK_GOAL_MB} MB)" if name == "k100-1000facts" else ""
            print(f"{name:17s} {k + extra:6d} {m['cpu_s']:8.1f} {rows / m['cpu_s']:13.1f} "
                  f"{m['peak_rss_mb']:8.0f}{goal}", flush=True)


def kinship(rows: int, repeats: int = 3, systems: tuple[str, ...] = KINSHIP_SYSTEMS, test_k: str = "none") -> None:
    """Stories per CPU-second of ``generate --kinship NAME`` against the default, train k=2,3 (and
    ``test_k``, e.g. the issue's 2..6) clean, one process, start-up included (the compiled KB is
    made once first, so its derivation is not counted); the median of ``repeats`` runs each. The
    aim: every system within 1.5x of the default's time."""
    from clutrr.commands.generate import parse_ks

    tests = "" if test_k == "none" else f", test k={test_k}"
    print(f"\nkinship systems ({rows:,} rows, train k=2,3{tests} clean, 1 process, median CPU s of {repeats} runs)")
    print(f"{'system':12s} {'CPU s':>7s} {'stories/CPU-s':>13s} {'time vs default':>15s}")
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {name: ([] if name == "default" else ["--kinship", name]) for name in ("default", *systems)}
        ready = {}
        for name, extra in jobs.items():
            def command(n: int, name: str = name, extra: list = extra) -> list[str]:
                return [sys.executable, "-m", "clutrr.cli", "generate", "--quiet", "--k", "2,3", "--test-k", test_k,
                        "--train-rows", str(n), "--test-rows", str(n), "--out", f"{tmp}/{name}", "--force", *extra]
            try:
                _cpu_of(command(2))  # compiles the KB and caches the banks: not timed
            except SystemExit as exc:  # a system refused or unable to generate: named, not timed
                print(f"{name:12s} {'-':>7s} {'-':>13s} {'-':>15s}  ({str(exc).splitlines()[-1]})")
                continue
            ready[name] = command(rows // (2 + len(parse_ks(test_k))))  # rows per file
        times = {name: statistics.median(_cpu_of(cmd, fresh=f"{tmp}/{name}") for _ in range(repeats))
                 for name, cmd in ready.items()}
    for name, cpu in times.items():
        ratio = f"{cpu / times['default']:14.2f}x" if "default" in times else "-"
        print(f"{name:12s} {cpu:7.2f} {rows / cpu:13.0f} {ratio:>15s}", flush=True)


def versus(rows: int = VERSUS_ROWS, repeats: int = VERSUS_REPEATS) -> None:
    """reasoning-gym's family_relationships against clutrr k=2,3, items per CPU-second, side by side."""
    if importlib.util.find_spec("reasoning_gym") is None:
        print(f"installing {RG_PIN} into this environment (benchmark only)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", RG_PIN], check=True)
    half = rows // 2
    jobs = {
        "reasoning-gym family_relationships": [sys.executable, "-c", _RG_JOB, str(rows)],
        "clutrr k=2,3 clean": None, "clutrr k=2,3 all noise": None,
    }
    with tempfile.TemporaryDirectory() as tmp:
        for name, noise in (("clutrr k=2,3 clean", "none"), ("clutrr k=2,3 all noise", "all")):
            jobs[name] = [sys.executable, "-m", "clutrr.cli", "generate", "--quiet", "--k", "2,3", "--noise", noise,
                          "--train-rows", str(half), "--test-k", "none", "--format", "jsonl", "--out",
                          os.path.join(tmp, "d"), "--force"]
        cpu: dict[str, list[float]] = {name: [] for name in jobs}
        for _ in range(repeats):  # paired: every job once per round
            for name, cmd in jobs.items():
                cpu[name].append(_cpu_of(cmd, fresh=os.path.join(tmp, "d")))
    print(f"\nper item, start-up included ({rows:,} items per job, {repeats} paired rounds, median CPU s; "
          f"clutrr writes JSONL with manifest and config, every label checked)")
    rg = rows / statistics.median(cpu["reasoning-gym family_relationships"])
    print(f"{'job':36s} {'CPU s':>7s} {'items/CPU-s':>11s} {'vs reasoning-gym':>16s}")
    for name, times in cpu.items():
        rate = rows / statistics.median(times)
        print(f"{name:36s} {statistics.median(times):7.2f} {rate:11.0f} {rate / rg:15.2f}x", flush=True)


BUILD_CASES = {  # name -> generate arguments for ``rows`` stories (k=2,3 take half each)
    "k=2,3 clean": lambda rows: ["--k", "2,3", "--noise", "none", "--train-rows", str(rows // 2)],
    "k=2,3 all noise": lambda rows: ["--k", "2,3", "--noise", "all", "--train-rows", str(rows // 2)],
    "k=10 all noise": lambda rows: ["--k", "10", "--noise", "all", "--train-rows", str(rows)],
}


def _clutrr_cmd(tree: str, args: list[str], out: str) -> list[str]:
    """``clutrr generate`` (JSONL, no test files) run from an unpacked wheel ``tree``."""
    from wheel_tree import tree_python

    return [*tree_python(tree), "-m", "clutrr.cli", "generate", "--quiet", "--test-k", "none", "--format", "jsonl",
            "--out", out, "--force", *args]


def _wheel_trees(tmp: str) -> dict[str, str]:
    """The compiled and the pure wheel of this checkout, each unpacked (build_support/wheel_tree.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build_support"))
    from wheel_tree import is_compiled, running_build, unpacked_wheel

    trees = {}
    for build, pure in (("compiled", False), ("pure", True)):
        print(f"building the {build} wheel", flush=True)
        tree, said = unpacked_wheel(Path(tmp) / build, pure=pure)
        if is_compiled(tree) == pure:
            raise SystemExit(f"the {build} wheel came out {'compiled' if not pure else 'pure'}: {said}")
        runs = running_build(tree)
        if runs != ("pure Python" if pure else "compiled"):
            raise SystemExit(f"the {build} wheel's folder runs the {runs or 'unknown'} build ({tree})")
        trees[build] = str(tree)
    return trees


def builds(trees: dict[str, str], rows: int = VERSUS_ROWS, repeats: int = VERSUS_REPEATS) -> None:
    """The compiled and the pure build (unpacked wheels, :func:`_wheel_trees`) side by side with
    reasoning-gym: items per CPU-second, fresh processes, start-up included, paired rounds,
    median CPU seconds."""
    if importlib.util.find_spec("reasoning_gym") is None:
        print(f"installing {RG_PIN} into this environment (benchmark only)", flush=True)
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", RG_PIN], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        jobs = {"reasoning-gym family_relationships": [sys.executable, "-c", _RG_JOB, str(rows)]}
        for case, args in BUILD_CASES.items():
            for build, tree in trees.items():
                jobs[f"clutrr {build} {case}"] = _clutrr_cmd(tree, args(rows), os.path.join(tmp, "d"))
        for name, cmd in jobs.items():  # warm: bank caches made, files in the page cache (not timed)
            if name.startswith("clutrr"):
                _cpu_of([*cmd, "--train-rows", "10"])
        cpu: dict[str, list[float]] = {name: [] for name in jobs}
        for _ in range(repeats):
            for name, cmd in jobs.items():
                cpu[name].append(_cpu_of(cmd, fresh=os.path.join(tmp, "d")))
    med = {name: statistics.median(times) for name, times in cpu.items()}
    rg = rows / med["reasoning-gym family_relationships"]
    print(f"\ncompiled and pure builds ({rows:,} items per job, {repeats} paired rounds, median CPU s, start-up "
          f"included; clutrr writes JSONL with manifest and config, every label checked)")
    print(f"{'job':40s} {'CPU s':>7s} {'items/CPU-s':>11s} {'vs reasoning-gym':>16s} {'vs pure':>8s}")
    for name, cpu_s in med.items():
        pure = name.replace(" compiled ", " pure ")
        versus_pure = f"{med[pure] / cpu_s:7.2f}x" if " compiled " in name else f"{'':8s}"
        print(f"{name:40s} {cpu_s:7.2f} {rows / cpu_s:11.0f} {rows / cpu_s / rg:15.2f}x {versus_pure}", flush=True)


def parallel(rows: int, rounds: int = PARALLEL_ROUNDS, python: list[str] | None = None, build: str = "") -> None:
    """``--workers 2`` against the machine's own limit: two independent one-worker runs of ``rows``
    stories at the same time (their combined rate is what two cores do here), and one run of
    ``2 * rows`` with two workers; k=2,3 clean, CSV and JSONL, wall time, start-up included.
    ``python`` runs clutrr (a wheel folder's, :func:`wheel_tree.tree_python`; by default this
    Python's, whichever clutrr it imports), and ``build`` names it in the heading.

    Both are timed alike (started, then waited for, nothing sampled meanwhile), each after the
    previous outputs are removed and the disk synced (so no run pays for another's writeback),
    in ``rounds`` rounds of alternating order; the medians count. The CPU seconds of each
    (every process of the run, workers included) show what ``--workers 2`` does beyond two runs.
    """
    def command(out: str, n: int, workers: int) -> list[str]:
        return [*(python or [sys.executable]), "-m", "clutrr.cli", "generate", "--quiet", "--k", "2,3", "--test-k", "none",
                "--train-rows", str(n // 2), "--workers", str(workers), "--out", out, "--force"]

    def timed(commands: list[list[str]]) -> tuple[float, float]:
        """Run ``commands`` at once; (wall seconds until the last ends, CPU seconds of them all)."""
        os.sync()
        wall, cpu, procs = time.perf_counter(), 0.0, []
        for cmd in commands:
            err = tempfile.TemporaryFile()
            procs.append((cmd, err, subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)))
        for cmd, err, proc in procs:
            _, status, usage = os.wait4(proc.pid, 0)  # the run's rusage, its reaped workers included
            proc.returncode = os.waitstatus_to_exitcode(status)
            err.seek(0)
            if proc.returncode != 0:
                raise SystemExit(f"failed: {' '.join(cmd)}\n{err.read().decode(errors='replace')}")
            err.close()
            cpu += usage.ru_utime + usage.ru_stime
        return time.perf_counter() - wall, cpu

    load = os.getloadavg()[0]
    pair, two = [], []
    with tempfile.TemporaryDirectory() as tmp:
        outs = [os.path.join(tmp, name) for name in ("alone0", "alone1", "two")]
        _cpu_of(command(os.path.join(tmp, "warm"), 20, 1))  # bank cache made: not timed
        for r in range(rounds):
            for which in (("pair", "two") if r % 2 == 0 else ("two", "pair")):
                for out in outs:
                    shutil.rmtree(out, ignore_errors=True)
                if which == "pair":
                    pair.append(timed([command(outs[0], rows, 1), command(outs[1], rows, 1)]))
                else:
                    two.append(timed([command(outs[2], 2 * rows, 2)]))
    alone, pair_cpu = statistics.median(w for w, _ in pair), statistics.median(c for _, c in pair)
    together, two_cpu = statistics.median(w for w, _ in two), statistics.median(c for _, c in two)
    independent, workers2 = 2 * rows / alone, 2 * rows / together
    print(f"\nparallel efficiency ({build + ' build, ' if build else ''}{rows:,} stories per single-worker run, "
          f"k=2,3 clean, csv+jsonl, wall time, "
          f"start-up included; medians of {rounds} alternating rounds; load average before: {load:.2f})")
    print(f"two independent --workers 1 runs at once: {independent:8.0f} stories/wall-s ({alone:.1f} s, "
          f"{pair_cpu:.1f} CPU-s)")
    print(f"one --workers 2 run of {2 * rows:,} stories: {workers2:8.0f} stories/wall-s ({together:.1f} s, "
          f"{two_cpu:.1f} CPU-s, {100 * (two_cpu / pair_cpu - 1):+.1f}% CPU)")
    print("per round (two independent runs' wall / --workers 2 run's wall, in the order run): "
          + ", ".join(f"{p[0] / t[0]:.2f}" for p, t in zip(pair, two)))
    print(f"efficiency (--workers 2 / two independent runs): {workers2 / independent:.2f} (goal 0.95)", flush=True)


def _tree_cpu(procs: dict) -> dict[int, float]:
    out = {}
    for pid, p in procs.items():
        try:
            t = p.cpu_times()
            out[pid] = t.user + t.system
        except psutil.Error:
            continue
    return out


def cluster(rows: int) -> None:
    """Speed-up of 2 CPUs over 1 on a running two-node Ray cluster, and the driver's CPU share."""
    from clutrr.engines.ray_cluster import LocalCluster
    from clutrr.pipeline.run import write_dataset
    from clutrr.pipeline.spec import DatasetSpec, RunOptions

    spec = DatasetSpec(train_k=(2, 3), test_k=(), train_rows=rows // 2, seed=0)
    warm = DatasetSpec(train_k=(2, 3), test_k=(), train_rows=500, seed=1)
    results = []
    with LocalCluster((1,)) as nodes, tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        os.environ.update(nodes.env)  # before Ray is imported: the cluster's token
        import ray

        ray.init(address=nodes.address, log_to_driver=False, logging_level="ERROR")
        try:
            for cpus in (1, 2):
                if cpus == 2:
                    nodes.add_node(1)
                    time.sleep(2)  # the driver sees the new node's CPU
                run = RunOptions(engine="ray", progress=False)
                write_dataset(warm, os.path.join(tmp, "warm"), force=True, run=run)
                procs = nodes.processes()
                before, driver, wall = _tree_cpu(procs), time.process_time(), time.perf_counter()
                write_dataset(spec, os.path.join(tmp, "d"), force=True, run=run)
                wall, driver = time.perf_counter() - wall, time.process_time() - driver
                after = _tree_cpu(nodes.processes())
                workers = sum(t - before.get(pid, 0.0) for pid, t in after.items())
                results.append((cpus, wall, driver, workers))
        finally:
            ray.shutdown()
    print(f"\nRay cluster of nodes with one CPU each on this machine, already running (start-up excluded); "
          f"{rows:,} rows k=2,3 clean, csv+jsonl, workers write the files")
    print(f"{'CPUs':>4s} {'wall s':>7s} {'stories/wall-s':>14s} {'speed-up':>8s} {'driver CPU s':>12s} "
          f"{'workers CPU s':>13s} {'driver share':>12s}")
    for cpus, wall, driver, workers in results:
        print(f"{cpus:4d} {wall:7.1f} {rows / wall:14.0f} {results[0][1] / wall:7.2f}x {driver:12.2f} "
              f"{workers:13.1f} {100 * driver / workers:11.1f}%", flush=True)


def count(text: str) -> int:
    """A whole number of at least 1, for argparse (a count of rows, rounds or workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def both_builds(args, parallel_too: bool) -> None:
    """Build the compiled and the pure wheel, time both beside reasoning-gym and, with
    ``parallel_too``, run the parallel section with each."""
    with tempfile.TemporaryDirectory() as tmp:
        trees = _wheel_trees(tmp)  # puts build_support on sys.path
        from wheel_tree import tree_python

        builds(trees, args.builds_rows, args.builds_repeats)
        if parallel_too:
            for build, tree in trees.items():
                parallel(args.parallel_rows, args.parallel_rounds, tree_python(tree), build)


def main() -> None:
    parser = Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", choices=sorted(CASES), help="only this case (repeatable)")
    parser.add_argument("--engine", action="append", choices=sorted(ENGINES), help="only this engine (repeatable)")
    parser.add_argument("--rows", type=count, default=ROWS, help=f"rows per job (default {ROWS:,})")
    parser.add_argument("--list", action="store_true", help="list case and engine names")
    parser.add_argument("--big", type=count, help="instead: one k=2,3 run of this many rows")
    parser.add_argument("--big-k", default="2,3", help="chain lengths of the --big run (default 2,3)")
    parser.add_argument("--workers", type=count, default=2, help="workers of the --big run (default 2)")
    parser.add_argument("--format", default="csv", help="formats of the --big run (default csv)")
    parser.add_argument("--versus", action="store_true", help="only the reasoning-gym comparison")
    parser.add_argument("--versus-rows", type=count, default=VERSUS_ROWS, help=f"items per job (default {VERSUS_ROWS:,})")
    parser.add_argument("--cluster", action="store_true", help="only the two-node Ray cluster figures")
    parser.add_argument("--cluster-rows", type=count, default=200_000, help="rows of the cluster job (default 200,000)")
    parser.add_argument("--builds", action="store_true",
                        help="only the compiled and pure builds (both wheels built first) beside reasoning-gym")
    parser.add_argument("--builds-rows", type=count, default=VERSUS_ROWS, help=f"items per builds job (default {VERSUS_ROWS:,})")
    parser.add_argument("--builds-repeats", type=count, default=VERSUS_REPEATS, help="paired rounds of the builds section")
    parser.add_argument("--parallel", action="store_true", help="only the --workers 2 efficiency against two runs")
    parser.add_argument("--parallel-rows", type=count, default=100_000,
                        help="stories per single-worker run of the parallel section (default 100,000)")
    parser.add_argument("--parallel-rounds", type=count, default=PARALLEL_ROUNDS,
                        help=f"alternating rounds of the parallel section (default {PARALLEL_ROUNDS})")
    parser.add_argument("--kinship", action="store_true", help="only the kinship systems against the default")
    parser.add_argument("--kinship-rows", type=count, default=ROWS, help=f"rows per kinship job (default {ROWS:,})")
    parser.add_argument("--kinship-test-k", default="none",
                        help="test k of the kinship section's jobs, e.g. 2..6 as in the issue (default none)")
    parser.add_argument("--kinship-systems", default=",".join(KINSHIP_SYSTEMS),
                        help="systems of the kinship section (names or terminology files, comma-separated)")
    parser.add_argument("--size", action="store_true", help="only the size axis (k=10, 30, 100; 100 and 1,000 facts)")
    parser.add_argument("--size-rows", type=count, default=SIZE_ROWS, help=f"stories per size run (default {SIZE_ROWS:,})")
    parser.add_argument("--size-case", action="append", choices=sorted(SIZE_CASES), help="only this size case")
    args = parser.parse_args()
    compile_package()
    if args.list:
        print("cases:", ", ".join(CASES))
        print("engines:", ", ".join(ENGINES))
        return
    if args.big is not None:
        big(args.big, args.big_k, args.workers, args.format)
        return
    if args.size:
        size(args.size_rows, tuple(args.size_case or SIZE_CASES))
        return
    if args.kinship:
        kinship(args.kinship_rows, systems=tuple(args.kinship_systems.split(",")), test_k=args.kinship_test_k)
        return
    if args.builds:
        both_builds(args, parallel_too=args.parallel)
        return
    if args.parallel:
        parallel(args.parallel_rows, args.parallel_rounds)
        return
    has_ray = importlib.util.find_spec("ray") is not None
    if not (args.versus or args.cluster):
        engines = args.engine or list(ENGINES)
        if not has_ray and "ray2" in engines:
            print("ray is not installed (pip install 'clutrr[ray]'): skipping the ray engine")
            engines = [e for e in engines if e != "ray2"]
        table(args.case or list(CASES), engines, args.rows)
    if args.case or args.engine:
        return
    if not args.cluster:
        versus(args.versus_rows)
    if not (args.versus or args.cluster):
        both_builds(args, parallel_too=True)
    if not args.versus:
        if has_ray and psutil is not None:
            cluster(args.cluster_rows)
        else:
            print("the cluster figures need ray and psutil: pip install 'clutrr[ray]' psutil")


if __name__ == "__main__":
    main()
