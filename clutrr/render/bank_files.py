"""Reading a template bank from its files: the built-in ``synthetic`` and ``paraphrase`` banks,
a YAML file or folder, or files in the original AMT placeholder format."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from clutrr.paths import data_dir
from clutrr.render.amt_templates import amt_pair, load_amt
from clutrr.render.templates import Bank, parse_bank_file


def bank_paths(source: str) -> list[Path]:
    """The YAML or JSON files behind ``synthetic``, ``paraphrase`` or a file/dir path."""
    root = data_dir("paraphrases")
    if source == "synthetic":
        return [root / "synthetic.yaml"]
    if source == "paraphrase":
        return sorted(p for sub in ("k1", "k2", "k3") for p in (root / sub).glob("*.yaml"))
    p = Path(source)
    return sorted(p.rglob("*.yaml")) if p.is_dir() else [p]


@lru_cache(maxsize=8)
def load_bank(source: str = "synthetic") -> Bank:
    """Load ``synthetic`` (one-fact sentences), ``paraphrase`` (the bank), a YAML file/dir,
    or a file in the original AMT placeholder format (``.json``).

    An AMT pair ``X.train.json``/``X.test.json`` (named by either file, or by ``X.json``
    when that file does not exist) loads as their union, with the pair as its holdout.
    """
    pair = amt_pair(source)
    if pair is not None:
        train, test = (Bank(load_amt(p), f"{source}:{part}") for p, part in zip(pair, ("train", "test")))
        return Bank(train.templates() + test.templates(), source, holdout=(train, test))
    paths = bank_paths(source)
    templates = [t for p in paths for t in (load_amt(p) if p.suffix == ".json" else parse_bank_file(p))]
    return Bank(templates, source)
