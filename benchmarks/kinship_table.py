"""The seven terminologies side by side, as the Markdown table of docs/kinship.md.

Reads kb_rules/systems/*.yaml and prints one row per first-degree, uncle-and-aunt, nephew-and-niece
and first-cousin kin type, one column per system; a cell reads "son / nephew" where a male and a
female speaker use different terms. With ``--draw DIR`` it also draws each system's family trees
to DIR/NAME.png with clutrr.graph.kinship_tree.draw_terms (what ``clutrr kinship draw`` calls).

    python benchmarks/kinship_table.py                       # the table
    python benchmarks/kinship_table.py --draw docs/kinship   # and the pictures
"""
from __future__ import annotations

import argparse
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = ROOT / "kb_rules" / "systems"
ORDER = ("eskimo", "hawaiian", "sudanese", "iroquois", "dravidian", "crow", "omaha")
ROWS = ("F M B Z S D H W FB FZ MB MZ BS BD ZS ZD "
        "FBS FBD FZS FZD MBS MBD MZS MZD").split()


def load_systems(folder: Path = SYSTEMS) -> dict[str, dict]:
    """name -> the parsed terminology file, in the order of the docs' columns."""
    return {name: yaml.safe_load((folder / f"{name}.yaml").read_text(encoding="utf-8")) for name in ORDER}


def cell(terms: dict[tuple[str, str], str], kin_type: str) -> str:
    male, female = terms[("male", kin_type)], terms[("female", kin_type)]
    return male if male == female else f"{male} / {female}"


def markdown_table(folder: Path = SYSTEMS) -> str:
    """The side-by-side table (Markdown, one line per kin type, ending in a newline)."""
    from clutrr.graph.kinship_tree import speaker_terms

    systems = {name: speaker_terms(data) for name, data in load_systems(folder).items()}
    lines = ["| kin type | " + " | ".join(systems) + " |", "|---" * (len(systems) + 1) + "|"]
    for kin_type in ROWS:
        lines.append(f"| {kin_type} | " + " | ".join(cell(t, kin_type) for t in systems.values()) + " |")
    return "\n".join(lines) + "\n"


def draw_all(out: Path, folder: Path = SYSTEMS) -> list[Path]:
    """Draw every system's trees to out/NAME.png; the paths written."""
    from clutrr.graph.kinship_tree import draw_terms, speaker_terms

    paths = []
    for name, data in load_systems(folder).items():
        path = out / f"{name}.png"
        draw_terms(speaker_terms(data), path, f"{name} kinship terms")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draw", type=Path, metavar="DIR", help="also draw DIR/NAME.png for each system")
    args = parser.parse_args()
    print(markdown_table(), end="")
    if args.draw:
        args.draw.mkdir(parents=True, exist_ok=True)
        for path in draw_all(args.draw):
            print(f"wrote {path}")


if __name__ == "__main__":
    main()
