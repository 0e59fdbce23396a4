"""A kinship terminology as data: each term and the kin types it covers, read and validated.

A terminology file (``kb_rules/systems/NAME.yaml``) names the system, describes it, cites the
table its terms follow and maps each term to kin types in the standard notation (F M B Z S D
H W, read from the person asked about: ``FZS`` is the father's sister's son), each optionally
restricted to a man (``ms ``) or a woman (``ws ``) speaking. Every kin type the generator
reaches (:data:`REQUIRED`) must have exactly one term for each speaker sex. An optional
``generations: N`` proves the rules only for the families clutrr draws of at most N
generations, not for every world of the world model (see :mod:`clutrr.kinship.derive`).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import yaml

from clutrr.core.kb import BUILTIN, KBError
from clutrr.errors import yaml_error_line
from clutrr.paths import data_dir

SPEAKERS = ("male", "female")  # the sex of the person a kin type is read from
PREFIXES = {"ms": "male", "ws": "female"}
LETTERS = "FMBZSDHW"
MALE_LETTERS = "FBSH"  # the sex of the relative a kin type ends on
REQUIRED = ("F", "M", "B", "Z", "S", "D", "H", "W", "FF", "FM", "MF", "MM", "SS", "SD", "DS", "DD",
            "FB", "FZ", "MB", "MZ", "BS", "BD", "ZS", "ZD",
            "FBS", "FBD", "FZS", "FZD", "MBS", "MBD", "MZS", "MZD")
KIN_TYPE_RE = re.compile(r"^(?:(ms|ws) )?([FMBZSDHW]+)$")
TERM_RE = re.compile(r"^[a-z][a-z'-]*$")

# each letter as an expression of the KB definition language (clutrr.core.genealogy)
_LETTER_DEFINITIONS = {
    "F": "parent . male", "M": "parent . female",
    "B": "(parent . ~parent - self) . male", "Z": "(parent . ~parent - self) . female",
    "S": "~parent . male", "D": "~parent . female",
    "H": "spouse . male", "W": "spouse . female",
}


@dataclass(frozen=True)
class KinType:
    """One kin type of a term: its letters and the speaker sex it is limited to (None: both)."""

    letters: str
    speaker: str | None

    @property
    def relative_sex(self) -> int:
        """0 when the relative it names is male, 1 when female."""
        return 0 if self.letters[-1] in MALE_LETTERS else 1

    def text(self) -> str:
        """The kin type as written in a file (``ms BS``)."""
        prefix = {v: k for k, v in PREFIXES.items()}.get(self.speaker or "")
        return f"{prefix} {self.letters}" if prefix else self.letters

    def definition(self) -> str:
        """The kin type in the KB definition language."""
        body = " . ".join(_LETTER_DEFINITIONS[c] for c in self.letters)
        return f"{self.speaker} . {body}" if self.speaker else body


@dataclass(frozen=True)
class Terminology:
    """A validated terminology: its terms, in file order, each with its kin types."""

    name: str
    description: str
    source: str
    terms: dict[str, tuple[KinType, ...]]
    path: str
    digest: str  # sha256 of the file's bytes
    generations: int = 0  # rules proved for clutrr's families of at most this many generations (0: the world model)

    def table(self) -> dict[tuple[str, str], str]:
        """``{(speaker, kin type): term}`` for speaker ``male`` and ``female``, every kin type of every term."""
        return speaker_table(self.terms)

    @property
    def speaker_sensitive(self) -> bool:
        """Whether some kin type is limited to one speaker sex."""
        return any(kt.speaker for kts in self.terms.values() for kt in kts)

    def kin_types(self, term: str, speaker: str | None = None) -> tuple[KinType, ...]:
        """The term's kin types (those a ``speaker`` of that sex uses it for, when given)."""
        return tuple(kt for kt in self.terms[term] if speaker is None or kt.speaker in (None, speaker))

    def sexes(self, term: str, speaker: str | None = None) -> tuple[bool, bool]:
        """Whether the term names a male relative, and whether a female one."""
        found = {kt.relative_sex for kt in self.kin_types(term, speaker)}
        return 0 in found, 1 in found

    def definition(self, term: str, speaker: str | None = None) -> str:
        """The term in the KB definition language: the union of its kin types (said by a
        ``speaker`` of that sex, when given)."""
        union = " | ".join(f"({kt.definition()})" for kt in self.kin_types(term, speaker))
        return f"{speaker} . ({union})" if speaker else union


def parse_kin_type(text: str) -> KinType:
    """A kin type as written in a file (``FZS``, ``ms BS``); ValueError when it is not one."""
    m = KIN_TYPE_RE.match(str(text).strip())
    if not m:
        raise ValueError(f"kin type {text!r} is not letters of {LETTERS}, optionally after 'ms ' or 'ws '")
    return KinType(m.group(2), PREFIXES.get(m.group(1) or ""))


def speaker_table(terms: Mapping[str, Iterable[KinType]]) -> dict[tuple[str, str], str]:
    """``{(speaker, kin type letters): term}``: each kin type entered for its speaker sex, or for
    both (``male`` and ``female``) when it is not limited to one."""
    out: dict[tuple[str, str], str] = {}
    for term, kin_types in terms.items():
        for kt in kin_types:
            for speaker in (kt.speaker,) if kt.speaker else SPEAKERS:
                out[(speaker, kt.letters)] = term
    return out


def builtin_terminologies() -> list[str]:
    """The names of the terminologies shipped in ``kb_rules/systems``."""
    try:
        folder = data_dir("kb_rules") / "systems"
    except FileNotFoundError:  # pragma: no cover - a broken installation
        return []
    return sorted(p.stem for p in folder.glob("*.yaml"))


def resolve_terminology(name_or_path: str | Path) -> Path:
    """The file of a built-in terminology name, or the path given; KBError for an unknown name."""
    text = str(name_or_path)
    if text in builtin_terminologies():
        return data_dir("kb_rules") / "systems" / f"{text}.yaml"
    path = Path(text)
    if not path.suffix and len(path.parts) == 1 and not path.exists():
        known = ", ".join(builtin_terminologies()) or "none installed"
        raise KBError(f"unknown kinship system {text!r} (built-in: {known}; or a terminology file path)")
    return path


def load_terminology(name_or_path: str | Path) -> Terminology:
    """Read and validate a terminology by built-in name or path; KBError (one line) on any defect."""
    path = resolve_terminology(name_or_path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KBError(f"{path}: cannot read terminology file ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise KBError(f"{path}: not UTF-8 text (offset {exc.start})") from None
    return parse_terminology(text, str(path), hashlib.sha256(data).hexdigest())


def parse_terminology(text: str, path: str = "<string>", digest: str = "") -> Terminology:
    """Parse and validate terminology YAML; ``path`` names the file in error messages."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise KBError(f"{path}:{yaml_error_line(exc)}") from None
    if not isinstance(data, dict):
        raise KBError(f"{path}: expected a mapping at the top level")
    for key in ("name", "description", "source", "terms"):
        if not data.get(key):
            raise KBError(f"{path}: missing top-level key {key!r}")
    if str(data["name"]) in BUILTIN:
        raise KBError(f"{path}: name {data['name']!r} is a built-in KB's; choose another")
    raw = data["terms"]
    if not isinstance(raw, dict):
        raise KBError(f"{path}: 'terms' must be a mapping of term -> {{kin_types: [...]}}")
    terms: dict[str, tuple[KinType, ...]] = {}
    owner: dict[tuple[str, str], str] = {}
    for term, spec in raw.items():
        term = str(term)
        if not TERM_RE.match(term):
            raise KBError(f"{path}: term {term!r}: a term is lowercase letters, hyphens and apostrophes")
        kin_types = spec.get("kin_types") if isinstance(spec, dict) else None
        if not isinstance(kin_types, list) or not kin_types:
            raise KBError(f"{path}: term {term!r}: needs a non-empty list 'kin_types'")
        parsed = []
        for item in kin_types:
            try:
                kt = parse_kin_type(item)
            except ValueError as exc:
                raise KBError(f"{path}: term {term!r}: {exc}") from None
            for speaker in (kt.speaker,) if kt.speaker else SPEAKERS:
                other = owner.get((speaker, kt.letters))
                if other is not None:
                    what = f"twice in {term!r}" if other == term else f"by both {other!r} and {term!r}"
                    raise KBError(f"{path}: ambiguous: kin type {kt.letters} ({speaker} speaking) is named {what}")
                owner[(speaker, kt.letters)] = term
            parsed.append(kt)
        terms[term] = tuple(parsed)
    missing = [f"{kt} ({speaker} speaking)" for kt in REQUIRED for speaker in SPEAKERS if (speaker, kt) not in owner]
    if missing:
        raise KBError(f"{path}: no term for required kin type{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
    generations = data.get("generations", 0)
    if isinstance(generations, bool) or not isinstance(generations, int) or generations == 1 or generations < 0:
        raise KBError(f"{path}: 'generations' must be a whole number of at least 2, got {generations!r}")
    return Terminology(str(data["name"]), " ".join(str(data["description"]).split()),
                       " ".join(str(data["source"]).split()), terms, path, digest, generations)
