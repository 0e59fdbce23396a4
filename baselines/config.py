"""YAML configs of the baselines: one file per model name in ``baselines/configs/``."""
from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from clutrr.errors import UsageError

CONFIG_DIR = Path(__file__).resolve().parent / "configs"
MODEL_NAMES = ("gat", "bilstm-attn", "bilstm-mean")


def load_config(model: str, path: str | Path | None = None) -> dict[str, Any]:
    """The config of ``model``: the built-in YAML, updated section by section from ``path`` if given."""
    if model not in MODEL_NAMES:
        raise UsageError(f"unknown model {model!r}; choose one of {', '.join(MODEL_NAMES)}")
    config = yaml.safe_load((CONFIG_DIR / f"{model}.yaml").read_text(encoding="utf-8"))
    if path is not None:
        try:
            extra = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise UsageError(f"cannot read config {path}: {exc}") from None
        if not isinstance(extra, dict):
            raise UsageError(f"config {path} must be a mapping")
        config = merge(config, extra)
    config["name"] = model
    return config


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``extra`` laid over it, nested mappings merged key by key."""
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out
