"""Permutation acceptance of a saved model export (``--probe ... --out`` of the baselines, or
any ``.npz`` with the same arrays), per test file: Sinha's thesis's Ω_max (both readings),
Ω_rand, P^c and P^f (eq. 4.3), the entropy of accepted permutations (Fig. 4.4) and the
acceptance by story length (Fig. 4.5). See :mod:`clutrr.diagnostics.permutation_metrics`.

An export holds, per story, ``test_file``, ``story`` (its id), ``gold`` (a label index) and
``original_probs``; per permutation, ``story_index`` (its story's row) and ``probs``; and
``labels`` (the class names).
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np

from clutrr.diagnostics.permutation_metrics import (
    accepted_entropy, acceptance_shares, length_acceptance, permutation_acceptance,
)
from clutrr.errors import UsageError

EXPORT_ARRAYS = ("labels", "test_file", "story", "gold", "original_probs", "story_index", "probs")
OMEGA_MAX = ("both", "thesis", "prose")


def read_export(path: str | Path) -> dict[str, np.ndarray]:
    """The arrays of an export; UsageError when the file is missing, not an .npz or lacks one."""
    try:
        data = np.load(path, allow_pickle=False)
        if not isinstance(data, np.lib.npyio.NpzFile):
            raise ValueError("one array, not an .npz archive")
        with data:
            arrays = {k: data[k] for k in data.files}
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise UsageError(f"{path}: not a permutation export (.npz): {exc}") from None
    missing = [k for k in EXPORT_ARRAYS if k not in arrays]
    if missing:
        raise UsageError(f"{path}: a permutation export needs the arrays {', '.join(missing)}")
    return arrays


def score_export(export: dict[str, np.ndarray], lengths: dict[str, int] | None = None,
                 width: int = 10) -> dict[str, dict]:
    """Per test file: the acceptance metrics, the entropy comparison and (with ``lengths``, a
    story id -> word count map) the acceptance by length in bins of ``width`` words."""
    words = [str(w) for w in export["labels"]]
    gold = export["gold"].astype(int)
    original = export["original_probs"].astype(float)
    probs = export["probs"].astype(float)
    index = export["story_index"].astype(int)
    perm_pred = probs.argmax(axis=1)
    by_story: list[list[int]] = [[] for _ in gold]
    for j, i in enumerate(index):
        by_story[i].append(j)
    out = {}
    for file in dict.fromkeys(str(f) for f in export["test_file"]):
        rows = [i for i, f in enumerate(export["test_file"]) if str(f) == file and by_story[i]]
        if not rows:
            continue
        g = [words[gold[i]] for i in rows]
        o = [words[int(original[i].argmax())] for i in rows]
        permuted = [[words[int(perm_pred[j])] for j in by_story[i]] for i in rows]
        metrics = permutation_acceptance(g, o, permuted, len(words)).as_dict()
        local = {i: n for n, i in enumerate(rows)}
        perms = [j for i in rows for j in by_story[i]]
        entry = {"metrics": metrics,
                 "entropy": accepted_entropy(gold[rows], original[rows], [local[int(index[j])] for j in perms],
                                             probs[perms])}
        if lengths is not None:
            ids = [str(export["story"][i]) for i in rows]
            unknown = [s for s in ids if s not in lengths]
            if unknown:
                raise UsageError(f"{file}: story {unknown[0]} of the export is not in the data folder")
            entry["length"] = length_acceptance([lengths[s] for s in ids], acceptance_shares(g, permuted),
                                                [a == b for a, b in zip(o, g)], width)
        out[file] = entry
    return out


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def acceptance_lines(scores: dict[str, dict], omega_max: str = "both") -> list[str]:
    """The report of :func:`score_export` as text lines; ``omega_max`` picks which reading of
    Ω_max is printed (``both`` also says why they differ)."""
    out = []
    for file, entry in scores.items():
        m = entry["metrics"]
        n = m["stories"]
        omegas = []
        if omega_max in ("both", "prose"):
            omegas.append(f"Omega_max {m['omega_max']:.2f} (prose: at least one accepted; random guesser "
                          f"{m['random_omega_max']:.2f})")
        if omega_max in ("both", "thesis"):
            omegas.append(f"Omega_max {m['omega_max_thesis']:.2f} (formula: acceptance above 1/|D_test| = 1/{n}; "
                          f"random guesser {m['random_omega_max_thesis']:.2f})")
        out.append(f"{file}: {n} stories, q={m['q']}, {m['n_labels']} labels")
        out += [f"  {o}" for o in omegas]
        if omega_max == "both":
            same = "equal" if m["omega_max"] == m["omega_max_thesis"] else "differ"
            out.append(f"  the two readings {same}: they can differ only when 1/|D_test| >= 1/q (here 1/{n} "
                       f"{'>=' if n <= m['q'] else '<'} 1/{m['q']}), where the formula needs more than "
                       "one accepted permutation")
        out.append(f"  Omega_rand {m['omega_rand']:.2f} (random guesser {m['random_omega_rand']:.2f}); "
                   f"P^c {_num(m['p_correct'])} over |D^c| = {m['originally_correct']}; P^f {_num(m['p_wrong'])} "
                   f"over |D^f| = {m['flipped']} (over all {m['originally_wrong']} wrong: {_num(m['p_wrong_all'])})")
        for group, e in entry["entropy"].items():
            out.append(f"  entropy {group}: accepted permutations {_num(e['entropy_accepted'])} bits "
                       f"({e['accepted_permutations']}), originals {_num(e['entropy_original'])} bits "
                       f"({e['stories']} stories)")
        for group, points in entry.get("length", {}).items():
            cells = " ".join(f"{p['length']}:{p['acceptance']:.2f}({p['stories']})" for p in points)
            out.append(f"  acceptance by length, {group} originally (words:mean(stories)): {cells or '-'}")
    return out
