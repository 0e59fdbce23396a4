"""Published accuracies used as reference curves; the figures live in ``published.yaml``."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from clutrr.errors import UsageError

DATA_FILE = Path(__file__).with_name("published.yaml")


@dataclass(frozen=True)
class Reference:
    """A published accuracy curve: label, setting, source and accuracy by k."""

    name: str
    label: str
    setting: str
    source: str
    accuracy: dict[int, float]

    def to_dict(self) -> dict:
        """Plain JSON data (k as string keys)."""
        return {"name": self.name, "label": self.label, "setting": self.setting, "source": self.source,
                "accuracy": {str(k): v for k, v in self.accuracy.items()}}


@lru_cache(maxsize=1)
def published() -> dict[str, Reference]:
    """Every reference in the data file, by name."""
    data = yaml.safe_load(DATA_FILE.read_text(encoding="utf-8"))
    return {name: Reference(name, e["label"], " ".join(e["setting"].split()), " ".join(e["source"].split()),
                            {int(k): float(v) for k, v in e["accuracy"].items()})
            for name, e in data.items()}


def references(names: list[str]) -> list[Reference]:
    """The references called ``names``; UsageError naming the choices for an unknown one."""
    known = published()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UsageError(f"unknown reference {unknown[0]!r} (choose from {', '.join(known)})")
    return [known[n] for n in dict.fromkeys(names)]
