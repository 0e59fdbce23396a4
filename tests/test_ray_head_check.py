"""A real Ray head passes the engine's reachability check (this module starts a Ray instance, so
it runs in the suite's Ray unit: tests/conftest.py)."""
from __future__ import annotations

import subprocess
import sys
import tempfile

import psutil
import pytest
from test_faults import kill_tree


def test_a_real_ray_head_passes_the_check():
    pytest.importorskip("ray", reason="ray is not installed: pip install 'clutrr[ray]'")
    from clutrr.engines.ray_tasks import check_reachable

    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's socket paths have a length limit
    head = subprocess.Popen(
        [sys.executable, "-c", "import ray, sys; ray.init(num_cpus=1, include_dashboard=False, "
         f"_temp_dir={temp!r}); print(ray.get_runtime_context().gcs_address, flush=True); sys.stdin.read(); "
         "ray.shutdown()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        start_new_session=True)
    family: list[psutil.Process] = []
    try:
        address = head.stdout.readline().strip()
        family = [psutil.Process(head.pid), *psutil.Process(head.pid).children(recursive=True)]
        assert ":" in address, "the Ray head did not start"
        check_reachable(address, timeout=10)
        head.stdin.close()
        head.wait(60)
    finally:
        kill_tree([p for p in family if p.is_running()])
        subprocess.run(["rm", "-rf", temp], check=False)
