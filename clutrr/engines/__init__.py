"""Engines run generation tasks and hand back their results in task order.

An engine is a plug-in found by name in a small registry: ``local`` (worker processes on
this machine, the default) and ``ray`` (Ray tasks on a local Ray instance or a cluster;
needs ``pip install 'clutrr[ray]'``). Modules are imported only when their engine is
created, so ``import clutrr`` never imports Ray.
"""
from __future__ import annotations

import importlib

from clutrr.engines.base import Engine, EngineError, worker_node
from clutrr.errors import UsageError

_REGISTRY: dict[str, str] = {
    "local": "clutrr.engines.local:LocalEngine",
    "ray": "clutrr.engines.ray_tasks:RayEngine",
}


def register(name: str, target: str) -> None:
    """Register an engine class by ``"module:ClassName"`` (a subclass of :class:`Engine`)."""
    _REGISTRY[name] = target


def engine_names() -> list[str]:
    """Names of the registered engines."""
    return sorted(_REGISTRY)


def create_engine(name: str, **options) -> Engine:
    """Build engine ``name`` with ``options`` (workers, address, max_retries).

    Raises UsageError for an unknown engine or one whose dependencies are not installed.
    """
    if name not in _REGISTRY:
        raise UsageError(f"unknown engine {name!r} (choose from {', '.join(engine_names())})")
    module, _, attr = _REGISTRY[name].partition(":")
    cls = getattr(importlib.import_module(module), attr)
    return cls(**options)


__all__ = ["Engine", "EngineError", "create_engine", "engine_names", "register", "worker_node"]
