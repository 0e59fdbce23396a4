"""Template banks: story templates keyed by clause (the relation words of 1-3 facts).

The format is described in ``paraphrases/README.md``. A template's id is a short hash of
its clause, gender key and text, so ids survive reordering and additions.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from clutrr.paths import data_dir

GENDER_KEYS = ("any", "male", "female")


@dataclass(frozen=True)
class Template:
    """One template: ``text`` has placeholders {A}..{D}; ``gender`` constrains A (any/male/female)."""

    id: str
    clause: tuple[str, ...]
    gender: str
    text: str
    source: str

    def fits(self, head_gender: str) -> bool:
        """Whether the template may render a clause whose first entity has ``head_gender``."""
        return self.gender == "any" or self.gender == head_gender


def template_id(clause: tuple[str, ...], gender: str, text: str) -> str:
    """A stable id: the clause, then 8 hex digits of a hash of gender and text."""
    digest = hashlib.blake2b(f"{'-'.join(clause)}|{gender}|{text}".encode(), digest_size=4).hexdigest()
    return f"{'-'.join(clause)}#{digest}"


class Bank:
    """Templates indexed by clause."""

    def __init__(self, templates: list[Template], name: str = "bank",
                 holdout: tuple["Bank", "Bank"] | None = None) -> None:
        self.name = name
        self.holdout = holdout
        self.by_clause: dict[tuple[str, ...], list[Template]] = {}
        for t in templates:
            self.by_clause.setdefault(t.clause, []).append(t)
        self.max_len = max((len(c) for c in self.by_clause), default=0)
        self._choices: dict[tuple[tuple[str, ...], str], list[Template]] = {}

    def __len__(self) -> int:
        return sum(len(v) for v in self.by_clause.values())

    def templates(self) -> list[Template]:
        """Every template, clause by clause."""
        return [t for ts in self.by_clause.values() for t in ts]

    def choices(self, clause: tuple[str, ...], head_gender: str) -> list[Template]:
        """Templates that can render ``clause`` with a first entity of ``head_gender``."""
        key = (clause, head_gender)
        hit = self._choices.get(key)
        if hit is None:
            hit = self._choices[key] = [t for t in self.by_clause.get(clause, ()) if t.fits(head_gender)]
        return hit

    def split(self, seed: int, test_fraction: float = 0.2) -> tuple["Bank", "Bank"]:
        """A fixed, seeded (train, test) split of each clause's templates.

        A clause with n >= 2 templates sends round(n * test_fraction) of them (at least one)
        to test; a clause with a single template keeps it in train only. A bank loaded from
        a train/test pair of files returns that pair instead.
        """
        if self.holdout is not None:
            return self.holdout
        train: list[Template] = []
        test: list[Template] = []
        for clause, ts in self.by_clause.items():
            order = sorted(ts, key=lambda t: hashlib.blake2b(f"{seed}|{t.id}".encode(), digest_size=8).digest())
            n_test = max(1, round(len(ts) * test_fraction)) if len(ts) >= 2 else 0
            test += order[:n_test]
            train += order[n_test:]
        return Bank(train, f"{self.name}:train"), Bank(test, f"{self.name}:test")


def parse_bank_file(path: Path) -> list[Template]:
    """Read one YAML file of clause blocks."""
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of clause blocks")
    out = []
    for block in data:
        if not isinstance(block, dict) or "clause" not in block:
            raise ValueError(f"{path}: every block needs a 'clause' key")
        clause = tuple(split_clause(str(block["clause"])))
        for g in GENDER_KEYS:
            for text in block.get(g) or []:
                out.append(Template(template_id(clause, g, str(text)), clause, g, str(text), str(path)))
    return out


def split_clause(key: str) -> list[str]:
    """Split ``brother-son-in-law`` into relation words (hyphenated words kept whole)."""
    from clutrr.io.csv_format import split_f_comb

    return split_f_comb(key)


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
    from clutrr.render.amt_templates import amt_pair, load_amt

    pair = amt_pair(source)
    if pair is not None:
        train, test = (Bank(load_amt(p), f"{source}:{part}") for p, part in zip(pair, ("train", "test")))
        return Bank(train.templates() + test.templates(), source, holdout=(train, test))
    paths = bank_paths(source)
    templates = [t for p in paths for t in (load_amt(p) if p.suffix == ".json" else parse_bank_file(p))]
    return Bank(templates, source)
