"""The checker's flags on every template of every bank, written as text a test compares byte for byte.

``python tests/reader_snapshot.py [BANK ...]`` rewrites ``tests/data/reader_flags/`` from the current code:
run it only after a deliberate change to what the checker reads (the diff then shows every
template whose flags moved). ``tests/test_reader_snapshot.py`` recomputes the same text.

Each bank gets one file: a header with the number of templates, a hash of their ids and a hash
of every statement the reader found in them (each gender of {A}), then one line per flag.
"""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from clutrr.render import bank_check
from clutrr.render.bank_check import Entry, read_bank, resolve_files
from clutrr.render.statements import Facts, Flag, Tok, analyse

REPO = Path(__file__).resolve().parents[1]
SNAPSHOTS = REPO / "tests" / "data" / "reader_flags"
# The seven kinship systems (crow, dravidian and omaha snapshotted after the redesign, once their KBs compiled).
SYSTEMS = ("eskimo", "hawaiian", "iroquois", "sudanese", "crow", "dravidian", "omaha")


BANKS = ("synthetic", "paraphrase", "synthetic-kinship-blood", "amt-pair", "amt-small",
         *(f"kinship-{s}" for s in SYSTEMS))


def bank(name: str) -> tuple[str, str]:
    """(bank source, KB) of a snapshot: the built-in banks under each shipped KB they are written
    for, the AMT fixtures, and each kinship system's bank under its compiled KB."""
    from clutrr.kinship.derive import kinship_bank_path, kinship_kb_path

    fixtures = REPO / "tests" / "fixtures_amt"
    if name.startswith("kinship-"):
        system = name.removeprefix("kinship-")
        return kinship_bank_path(system), kinship_kb_path(system)
    return {"synthetic": ("synthetic", "kinship"), "paraphrase": ("paraphrase", "kinship"),
            "synthetic-kinship-blood": ("synthetic", "kinship-blood"),
            "amt-pair": (str(fixtures / "pair.train.json"), "kinship"),
            "amt-small": (str(fixtures / "small.json"), "kinship")}[name]


def _flags_and_statements(entries: list[Entry], kb_name: str) -> tuple[list[tuple[Entry, Flag]], str]:
    """The checker's flags of every entry, and a hash of every statement its reader found on the
    way (each call of ``analyse`` the checker makes: each template, each gender of {A})."""
    h = hashlib.sha256()

    def recording(toks: list[Tok], facts: Facts, text: str, slot_bank: bool = True) -> tuple[list, list[Flag]]:
        found, flags = analyse(toks, facts, text, slot_bank)
        h.update(f"{text}\x1f{facts.genders}\x1f{found!r}\n".encode())
        return found, flags

    bank_check.analyse = recording
    try:
        flags = bank_check.flag_entries(entries, kb_name)
    finally:
        bank_check.analyse = analyse
    return flags, h.hexdigest()


def snapshot(source: str, kb_name: str) -> str:
    """The snapshot text of one bank under one KB."""
    entries, errors = read_bank(resolve_files(source))
    ids = hashlib.sha256("\n".join(e.template.id for e in entries).encode()).hexdigest()
    flags, statements = _flags_and_statements(entries, kb_name)
    lines = [f"templates {len(entries)} ids {ids[:16]}", f"statements {statements[:16]}"]
    lines += [f"error {e}" for e in errors]
    for e, f in flags:
        lines.append(f"{e.template.id}\t{f.rule}\t{f.kind or '-'}\t{int(f.drops)}\t{f.message}\t{f.span}")
    return "\n".join(lines) + "\n"


def main() -> None:
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or BANKS:
        (SNAPSHOTS / f"{name}.txt").write_text(snapshot(*bank(name)), encoding="utf-8")
        print(name, file=sys.stderr)


if __name__ == "__main__":
    main()
