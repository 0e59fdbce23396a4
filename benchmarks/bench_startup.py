"""Start-up cost of ``clutrr generate``: what a run pays once, before its first story and after its last.

Each run is a fresh interpreter; the script prints the median over runs of wall and CPU
seconds for the steps of a generate run's start: importing the command's modules as
``clutrr generate`` does (numpy on one BLAS thread, the collector paused, then frozen:
:func:`clutrr.cli.start_up`), then loading the banks as the local engine does (the KB, the
usable bank from the compiled cache, its train/test split), and last a whole
``clutrr generate`` of 10 stories (k=2,3, JSONL, no test files), CPU seconds of the process
as the operating system counts them (interpreter start and exit included). The first run
after the bank or the code changes builds the cache (parsing, checking and compiling every
template): it is left out of the median and printed on its own. The package's bytecode is
compiled first, as ``pip install`` does.

    python benchmarks/bench_startup.py            # 7 runs, this environment's clutrr
    python benchmarks/bench_startup.py --runs 15
    python benchmarks/bench_startup.py --tree /tmp/x/tree   # an unpacked wheel (build_support/wheel_tree.py)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = """
import json, time
w, c = time.perf_counter(), time.process_time()
from clutrr.cli import build_parser, start_up
with start_up("generate"):
    build_parser("generate")
w1, c1 = time.perf_counter(), time.process_time()
from clutrr.engines.local import load_and_freeze
from clutrr.story.generator import GeneratorConfig, banks
load_and_freeze(lambda config: banks(config, 0), GeneratorConfig())
w2, c2 = time.perf_counter(), time.process_time()
parts = banks(GeneratorConfig(), 0)
print(json.dumps({"import_wall": w1 - w, "import_cpu": c1 - c, "bank_wall": w2 - w1, "bank_cpu": c2 - c1,
                  "templates": sum(len(b) for b in parts.values())}))
"""
GENERATE = ("generate", "--quiet", "--k", "2,3", "--train-rows", "5", "--test-k", "none", "--format", "jsonl", "--force")


def _python(tree: str | None) -> list[str]:
    """This Python, with the unpacked wheel ``tree`` (not the working directory) first on sys.path."""
    return [sys.executable] if tree is None else ["env", f"PYTHONPATH={tree}", sys.executable, "-P"]


def _run(tree: str | None) -> dict:
    out = subprocess.run([*_python(tree), "-c", CHILD], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _generate_run(tree: str | None, out: str) -> dict:
    """Wall and CPU seconds of one whole ``clutrr generate`` of 10 stories, a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    subprocess.run([*_python(tree), "-m", "clutrr.cli", *GENERATE, "--out", out], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"run_wall": time.perf_counter() - w,
            "run_cpu": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime}


def compile_package() -> None:
    """Compile the clutrr package's bytecode (a no-op when it is up to date)."""
    import clutrr

    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.dirname(clutrr.__file__)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters to time (default 7)")
    parser.add_argument("--tree", default=None, help="run the unpacked wheel in this folder (default: this environment's clutrr)")
    args = parser.parse_args()
    if args.tree is None:
        compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "d")
        first = _run(args.tree)
        runs = [{**_run(args.tree), **_generate_run(args.tree, out)} for _ in range(args.runs)]
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0] if key != "templates"}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"median of {args.runs} fresh interpreters")
    print(f"{'step':34s} {'wall s':>8s} {'CPU s':>8s}")
    print(f"{'import the generate command':34s} {med['import_wall']:8.3f} {med['import_cpu']:8.3f}")
    print(f"{'load paraphrase banks':34s} {med['bank_wall']:8.3f} {med['bank_cpu']:8.3f}  ({runs[0]['templates']} templates)")
    print(f"{'clutrr generate, 10 stories':34s} {med['run_wall']:8.3f} {med['run_cpu']:8.3f}  (the whole process)")
    print(f"{'(first run: banks)':34s} {first['bank_wall']:8.3f} {first['bank_cpu']:8.3f}  (builds the compiled cache"
          " if the bank or the code changed)")


if __name__ == "__main__":
    main()
