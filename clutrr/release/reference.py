"""Reference baselines on the full release, for the card: read from ``reference.json`` (written by
``python -m clutrr.baselines.release``), shown for a configuration only when its data fingerprint
matches the one they were measured on."""
from __future__ import annotations

import json
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "reference.json"


def load_reference(path: Path = REFERENCE) -> dict:
    """The reference results, or an empty document when none were measured."""
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


def reference_tables(configs: list[str], fingerprints: dict[str, str], path: Path = REFERENCE) -> list[str]:
    """The card's section: per configuration measured on these very bytes, each model's accuracy per test file."""
    ref = load_reference(path)
    out = ["## Reference baselines", ""]
    measured = {name: c for name, c in ref.get("configs", {}).items()
                if name in configs and c["fingerprint"] == fingerprints.get(name)}
    if not measured:
        return out + ["Reference baselines (the composer and a GAT) were measured on the full release (seed 0, scale "
                      "1); this build's data differ, so their figures are not repeated here (see "
                      "`baselines/RESULTS.md`).", ""]
    out += [f"Accuracy on each test file (and on the whole test split), {ref['runs']}. Trained on the "
            f"configuration's train split with `{ref['command']}`; {ref['cost']}.", ""]
    for name in configs:
        if name not in measured:
            continue
        files = measured[name]["files"]
        out += [f"`{name}`:", "", "| model | all | " + " | ".join(files) + " |",
                "|---|---|" + "---|" * len(files)]
        for model, res in measured[name]["models"].items():
            out.append(f"| {model} | {res['all']:.3f} | " + " | ".join(f"{res['by_file'][f]:.3f}" for f in files) + " |")
        out.append("")
    out += [*ref.get("notes", []), ""] if ref.get("notes") else []
    skipped = [c for c in configs if c not in measured]
    if skipped:
        out += [f"Not measured: {', '.join(f'`{c}`' for c in skipped)} ({ref.get('skipped', 'see baselines/RESULTS.md')}).",
                ""]
    return out
