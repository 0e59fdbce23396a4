"""Section (e) of ``RESULTS.md``: the baselines on each kinship system and the composer's transfer,
from ``kinship.json`` (written by :mod:`clutrr.baselines.kinship`)."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from clutrr.errors import UsageError
from clutrr.eval.report import md_table

KINSHIP_FILE = "kinship.json"  # in the results folder
MODEL_TITLES = {"composer": "composer", "gat": "our GAT"}


def _accuracy(curve: dict[str, dict], k: int) -> str:
    cell = curve.get(str(k))
    return "–" if cell is None else f"{cell['accuracy']:.2f}"


def system_lines(name: str, entry: dict[str, Any], ks: list[int]) -> list[str]:
    """One system's heading, what it is, and its accuracy by k per model (or why it has none)."""
    lines = [f"### {name}", "", entry.get("description", ""), ""]
    if "cannot_generate" in entry:
        return lines + [f"{name}: cannot generate: {entry['cannot_generate']}", ""]
    models = entry["models"]
    first = next(iter(models.values()))
    lines += [f"- `{m}`: {r['train_rows']} training stories, {r['valid_rows']} validation stories, "
              f"{r['cpu_seconds']:.0f} CPU s to train and score." for m, r in models.items()]
    rows = [[str(k), str(first["by_k"].get(str(k), {}).get("n", "–")),
             *(_accuracy(r["by_k"], k) for r in models.values())] for k in ks]
    lines += ["", *md_table(["k", "stories", *(MODEL_TITLES.get(m, m) for m in models)], rows), ""]
    cut = entry.get("cannot_generate_from_k")
    if cut:
        lines += [f"{name}: cannot generate k={cut['k']}..{ks[-1]}: {cut['reason']}", ""]
    return lines


def transfer_lines(transfer: dict[str, dict], ks: list[int]) -> list[str]:
    """The transfer table: one row per (training system -> test system)."""
    if not transfer:
        return []
    rows = [[pair.replace(" -> ", " → "), *(_accuracy(r["by_k"], k) for k in ks), f"{r['untyped_facts']:.2f}"]
            for pair, r in transfer.items()]
    return ["### Transfer between systems (composer, through the glossary)", "",
            "The composer trained on one system's stories (train → test) answers the other system's test stories: "
            "each term of a story is read as the first kin type its glossary lists (its focal member) and named "
            "with the training system's term for that kin type, and the answer goes back the same way "
            "(`clutrr/baselines/kinship_transfer.py`). A row with one system twice is the system's own test "
            "files read through its own glossary. The last column is the share of stated facts whose focal kin "
            "type the training system has no term for (read as untyped facts).", "",
            *md_table(["train → test", *(f"k={k}" for k in ks), "facts with no term"], rows), ""]


def kinship_lines(doc: dict[str, Any]) -> list[str]:
    """Section (e) of RESULTS.md: its heading, then :func:`kinship_body`."""
    return ["## (e) Kinship systems", "", *kinship_body(doc, "../docs/kinship.md")]


def kinship_body(doc: dict[str, Any], kinship_page: str) -> list[str]:
    """What the figures are, the per-system tables, then the transfer table (``kinship_page``: the
    link to docs/kinship.md from where the text is shown)."""
    ks = list(doc["spec"]["test_k"])
    spec = doc["spec"]
    lines = [f"Each system's stories are `{doc['generate']}` (seed {spec['seed']}), told in its terms with its "
             f"composition rules derived and proved sound ([docs/kinship.md]({kinship_page})); each model is "
             f"trained {doc['runs']} and scored by `clutrr eval` on the system's own test files. Made by "
             f"`{doc['command']}` on {doc['machine']}.", ""]
    for name, entry in doc["systems"].items():
        lines += system_lines(name, entry, ks)
    return lines + transfer_lines(doc["transfer"], ks)


DOCS_BLOCK = re.compile(r"(<!-- kinship-baselines -->\n)(.*?)(<!-- /kinship-baselines -->)", re.S)


def docs_block(doc: dict[str, Any]) -> str:
    """The text docs/kinship_baselines.md shows between its ``kinship-baselines`` markers."""
    return "\n".join(kinship_body(doc, "kinship.md")) + "\n"


def write_docs(page: str | Path, doc: dict[str, Any]) -> Path:
    """Replace the ``kinship-baselines`` block of ``page`` with the figures of ``doc``
    (UsageError, nothing written, when the page has no such block)."""
    page = Path(page)
    try:
        text = page.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {page}: {exc.strerror}") from None
    if not DOCS_BLOCK.search(text):
        raise UsageError(f"{page} has no <!-- kinship-baselines --> block to fill (nothing was written)")
    page.write_text(DOCS_BLOCK.sub(lambda m: m[1] + docs_block(doc) + m[3], text, count=1), encoding="utf-8")
    return page
