"""Start-up cost: ``import clutrr`` and loading the default (paraphrase) template bank.

Each run is a fresh interpreter; the script prints the median over runs of wall and CPU
seconds for the import, then for the banks as ``generate`` loads them (the KB, the usable
bank from the compiled cache, its train/test split). The first run after the bank or the
code changes builds the cache (parsing, checking and compiling every template): it is
left out of the median and printed on its own. The package's bytecode is compiled
first, as ``pip install`` does.

    python benchmarks/bench_startup.py            # 7 runs
    python benchmarks/bench_startup.py --runs 15
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys

CHILD = """
import json, time
w, c = time.perf_counter(), time.process_time()
import clutrr
w1, c1 = time.perf_counter(), time.process_time()
from clutrr.story.generator import GeneratorConfig, banks
parts = banks(GeneratorConfig(), 0)
w2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"import_wall": w1 - w, "import_cpu": c1 - c, "bank_wall": w2 - w1, "bank_cpu": c2 - c1,
                  "templates": sum(len(b) for b in parts.values())}))
"""


def _run() -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def compile_package() -> None:
    """Compile the clutrr package's bytecode (a no-op when it is up to date)."""
    import clutrr

    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.dirname(clutrr.__file__)], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh interpreters to time (default 7)")
    args = parser.parse_args()
    compile_package()
    first = _run()
    runs = [_run() for _ in range(args.runs)]
    med = {key: statistics.median(r[key] for r in runs) for key in runs[0] if key != "templates"}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"median of {args.runs} fresh interpreters")
    print(f"{'step':28s} {'wall s':>8s} {'CPU s':>8s}")
    print(f"{'import clutrr':28s} {med['import_wall']:8.3f} {med['import_cpu']:8.3f}")
    print(f"{'load paraphrase banks':28s} {med['bank_wall']:8.3f} {med['bank_cpu']:8.3f}  ({runs[0]['templates']} templates)")
    print(f"{'total':28s} {med['import_wall'] + med['bank_wall']:8.3f} {med['import_cpu'] + med['bank_cpu']:8.3f}")
    print(f"{'(first run: banks)':28s} {first['bank_wall']:8.3f} {first['bank_cpu']:8.3f}  (builds the compiled cache"
          " if the bank or the code changed)")


if __name__ == "__main__":
    main()
