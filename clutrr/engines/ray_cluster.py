"""A Ray cluster of several nodes on this machine, for tests and benchmarks of the ``ray`` engine.

Each node is a ``ray start --block`` process of its own, with its own loopback address
(127.0.0.2 for the head, 127.0.0.3, ... for the others: Ray turns 127.0.0.1 into the
machine's network address, and traffic here stays on the loopback), its own CPUs and a
custom resource naming it (``node0``, ``node1``, ...), every port chosen free at run time,
and a temporary folder of its own. The cluster requires a token (``RAY_AUTH_TOKEN``, made
up per cluster): a driver gets it from :attr:`LocalCluster.env` (in its environment before
it imports Ray).

Stopping ends exactly the processes the cluster started (the ``ray start`` processes and
their descendants, by process id), never other Ray instances of the machine, as
``ray stop`` would.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

START_TIMEOUT = 90.0  # seconds for every node to join
STOP_TIMEOUT = 30.0
OBJECT_STORE_BYTES = 200 * 2**20
_PROBE = """
import json, re, sys, time, ray
ray.init(address=sys.argv[1], log_to_driver=False, logging_level="ERROR")
end = time.monotonic() + float(sys.argv[3])
while True:
    ids = {r: n["NodeID"] for n in ray.nodes() if n["Alive"] for r in n["Resources"] if re.fullmatch(r"node\\d+", r)}
    if len(ids) >= int(sys.argv[2]) or time.monotonic() > end:
        break
    time.sleep(0.2)
print(json.dumps(ids))
"""


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port free on ``host`` now."""
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _ray_command() -> list[str]:
    exe = Path(sys.executable).with_name("ray")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "ray.scripts.scripts"]


class LocalCluster:
    """Start nodes with ``cpus[i]`` CPUs each (``add_node`` adds more); use as a context manager."""

    def __init__(self, cpus: tuple[int, ...] = (1, 1)) -> None:
        self.temp = Path(tempfile.mkdtemp(prefix="clutrr-ray-"))  # short: Ray's socket paths must fit
        self.port = free_port()
        self.address = f"127.0.0.2:{self.port}"
        self.env = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(16),
                    "RAY_USAGE_STATS_ENABLED": "0"}
        self.nodes: list[subprocess.Popen] = []
        self._seen: dict[int, object] = {}  # pid -> psutil.Process of everything the nodes started
        try:
            for n in cpus:
                self.add_node(n, wait=False)
            self._wait_joined(len(cpus))
        except BaseException:
            self.stop()
            raise

    def add_node(self, cpus: int, wait: bool = True) -> None:
        """Start one more node with ``cpus`` CPUs and (``wait``) wait, with a deadline, until it has joined."""
        i = len(self.nodes)
        ports = ["--node-manager-port", "--object-manager-port", "--dashboard-agent-listen-port",
                 "--dashboard-agent-grpc-port", "--runtime-env-agent-port", "--metrics-export-port"]
        args = [*_ray_command(), "start", "--block", "--node-ip-address", f"127.0.0.{i + 2}", "--num-cpus", str(cpus),
                "--resources", json.dumps({f"node{i}": 1}), "--object-store-memory", str(OBJECT_STORE_BYTES),
                "--disable-usage-stats", *(x for p in ports for x in (p, str(free_port())))]
        if i == 0:
            args += ["--head", "--port", str(self.port), "--temp-dir", str(self.temp), "--include-dashboard", "false"]
        else:
            args += ["--address", self.address]
        log = open(self.temp / f"node{i}.log", "wb")
        self.nodes.append(subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env},
                                           start_new_session=True))
        log.close()
        if i == 0:  # the other nodes need the head's GCS to answer
            self._wait_for_head()
        if wait:
            self._wait_joined(i + 1)

    def _wait_for_head(self) -> None:
        end = time.monotonic() + START_TIMEOUT
        while time.monotonic() < end and self.nodes[0].poll() is None:
            try:
                with socket.create_connection(("127.0.0.2", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the Ray head did not start within {START_TIMEOUT:g} s: see {self.temp}/node0.log")

    def _wait_joined(self, count: int) -> None:
        dead = [i for i, p in enumerate(self.nodes) if p.poll() is not None]
        if dead:
            raise RuntimeError(f"a Ray node exited at start: see {self.temp}/node{dead[0]}.log")
        if len(self.node_ids(count)) < count:
            raise RuntimeError(f"Ray nodes did not join within {START_TIMEOUT:g} s: see {self.temp}")

    def node_ids(self, wait_for: int = 0) -> dict[str, str]:
        """Node resource (``node0``, ...) -> Ray node id of every live node, asked by a short-lived
        driver process (waiting, up to START_TIMEOUT, until ``wait_for`` nodes are alive)."""
        done = subprocess.run([sys.executable, "-c", _PROBE, self.address, str(wait_for), str(START_TIMEOUT)],
                              capture_output=True, text=True, env={**os.environ, **self.env}, timeout=START_TIMEOUT + 30)
        if done.returncode != 0 or not done.stdout.strip():
            raise RuntimeError(f"cannot ask the Ray cluster at {self.address} for its nodes: {done.stderr.strip()[-500:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def processes(self, node: int | None = None) -> dict[int, object]:
        """Every live process the nodes started (pid -> psutil.Process), remembered for :meth:`stop`;
        only node ``node``'s (its ``ray start`` process and descendants) when given."""
        import psutil

        if node is not None:
            try:
                root = psutil.Process(self.nodes[node].pid)
                return {p.pid: p for p in [root, *root.children(recursive=True)]}
            except psutil.Error:
                return {}
        for root in self.nodes:
            try:
                proc = psutil.Process(root.pid)
                for p in [proc, *proc.children(recursive=True)]:
                    self._seen.setdefault(p.pid, p)
            except psutil.Error:
                continue
        return {pid: p for pid, p in self._seen.items() if p.is_running()}

    def stop(self) -> None:
        """End every node and what it started (by process id), then remove the temporary folder."""
        import psutil

        procs = list(self.processes().values())
        for node in reversed(self.nodes):  # `ray start --block` ends its node's processes on SIGTERM
            if node.poll() is None:
                node.send_signal(signal.SIGTERM)
        for node in self.nodes:
            try:
                node.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                node.kill()
                node.wait(5)
        _, alive = psutil.wait_procs(procs, timeout=10)
        for p in alive:  # left over: ours, by pid
            try:
                p.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(alive, timeout=5)
        self.nodes = []
        shutil.rmtree(self.temp, ignore_errors=True)

    def __enter__(self) -> "LocalCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
