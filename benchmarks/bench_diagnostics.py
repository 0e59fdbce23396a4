"""The figures of docs/diagnostics.md, from one run on a small generated folder.

    python benchmarks/bench_diagnostics.py [--work DIR] [--docs docs] [--train-rows 220]
                                           [--test-rows 110] [--q 100] [--seed 1]

Generates the small dataset of the page's console samples (same options and seed), then runs
the diagnostics through the ``clutrr`` CLI and prints what each prints:

* ``clutrr audit DATA --per-class --figures``: confusion matrices of every audit model;
* ``clutrr recast DATA --labels 3`` and ``clutrr audit NLI3 --giveaway --figures``: the
  hypothesis give-away words (Poliak's dissertation, §5.5) and their coverage curve;
* ``clutrr probe DATA --kind word-permute`` and ``clutrr probe DATA --acceptance EXPORT``:
  permutation acceptance of a unigram+bigram Naive Bayes trained on the training split (a cheap
  model that reads some word order), its entropy of accepted permutations and its acceptance by
  story length (Sinha's thesis, Figs. 4.4-4.5).

The figures are copied into ``--docs`` under the names the page shows. Everything is
deterministic (no timing); ``tests/test_bench_diagnostics.py`` reruns it on a tiny folder.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
# docs figure name -> where the run writes it (relative to --work)
FIGURES = {
    "diagnostics_confusion.png": "audit/confusion_1.2_test.png",
    "diagnostics_giveaway_coverage.png": "audit-nli3/giveaway_coverage.png",
    "diagnostics_acceptance.png": "acceptance/acceptance_1.4_test.png",
}


def clutrr(*argv: str) -> str:
    """Run one ``clutrr`` command; echo it and what it prints; exit on failure."""
    from clutrr.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            code = main(list(argv))
        except SystemExit as exc:
            code = exc.code
    print(f"$ clutrr {' '.join(argv)}\n{out.getvalue()}", end="")
    if code not in (0, None):
        raise SystemExit(f"clutrr {' '.join(argv)} failed with status {code}")
    return out.getvalue()


def story_features(story: str) -> list[str]:
    """Unigrams and bigrams of a story's tokens: a bag that a word permutation changes."""
    from clutrr.diagnostics.audit import story_tokens

    words = story_tokens(story)
    return words + [f"{a} {b}" for a, b in zip(words, words[1:])]


def bigram_export(data: Path, probes: Path, path: Path) -> Path:
    """Train the Naive Bayes on ``data``'s training split, predict the test stories and their
    word-permute probes, and save the class probabilities as the baselines' export does."""
    from clutrr.core.kb import load_kb
    from clutrr.diagnostics.naive_bayes import MultinomialNB
    from clutrr.diagnostics.probes import source_id
    from clutrr.io.csv_format import read_csv
    from clutrr.io.datadir import load_splits

    words = list(load_kb("kinship").words)
    splits = load_splits(data)
    train = [r for s in splits if s.is_train for r in s.rows]
    model = MultinomialNB().fit([story_features(r.story) for r in train], [r.target for r in train])
    columns = [model.labels.index(w) if w in model.labels else None for w in words]

    def probs(stories: list[str]) -> np.ndarray:
        scores = model.scores([story_features(s) for s in stories])
        full = np.full((len(stories), len(words)), -np.inf)
        for j, c in enumerate(columns):
            if c is not None:
                full[:, j] = scores[:, c]
        full = np.exp(full - full.max(axis=1, keepdims=True))
        return full / full.sum(axis=1, keepdims=True)

    arrays: dict[str, list] = {k: [] for k in ("test_file", "story", "gold", "story_index", "perm")}
    originals, permuted = [], []
    for split in (s for s in splits if not s.is_train):
        perms: dict[str, list] = {}
        for p in read_csv(probes / split.path.name):
            perms.setdefault(source_id(p.id), []).append(p)
        for row in split.rows:
            if row.id not in perms:
                continue
            for p in perms[row.id]:
                arrays["story_index"].append(len(arrays["story"]))
                arrays["perm"].append(int(p.id.rsplit("perm", 1)[1]))
                permuted.append(p.story)
            arrays["test_file"].append(split.path.name)
            arrays["story"].append(row.id)
            arrays["gold"].append(words.index(row.target))
            originals.append(row.story)
    np.savez_compressed(path, labels=np.array(words), test_file=np.array(arrays["test_file"]),
                        story=np.array(arrays["story"]), gold=np.array(arrays["gold"], dtype=np.int16),
                        original_probs=probs(originals).astype(np.float16),
                        story_index=np.array(arrays["story_index"], dtype=np.int32),
                        perm=np.array(arrays["perm"], dtype=np.int32), probs=probs(permuted).astype(np.float16))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=ROOT / "results" / "diagnostics",
                        help="folder for the data and every output (must not exist, or be this script's)")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs", help="where the figures are copied")
    parser.add_argument("--train-rows", type=int, default=220)
    parser.add_argument("--test-rows", type=int, default=110)
    parser.add_argument("--q", type=int, default=100, help="permutations per story (the thesis's q)")
    parser.add_argument("--seed", type=int, default=1, help="the generator's seed")
    args = parser.parse_args(argv)
    work = args.work
    if work.exists() and not (work / "data").is_dir():
        raise SystemExit(f"{work} exists and is not this script's output folder")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    data = str(work / "data" / "small")
    clutrr("generate", "--k", "2,3", "--test-k", "2,4", "--train-rows", str(args.train_rows), "--test-rows",
           str(args.test_rows), "--seed", str(args.seed), "--out", data, "--quiet")
    clutrr("audit", data, "--per-class", "--figures", "--out", str(work / "audit"))
    clutrr("recast", data, "--labels", "3", "--out", str(work / "nli3"))
    clutrr("audit", str(work / "nli3"), "--encoder", "none", "--giveaway", "--per-class", "--figures",
           "--out", str(work / "audit-nli3"))
    clutrr("probe", data, "--kind", "word-permute", "--q", str(args.q), "--out", str(work / "probes"))
    export = bigram_export(Path(data), work / "probes", work / "export.npz")
    clutrr("probe", data, "--acceptance", str(export), "--figures", str(work / "acceptance"))
    args.docs.mkdir(parents=True, exist_ok=True)
    for name, made in FIGURES.items():
        shutil.copyfile(work / made, args.docs / name)
        print(f"wrote {args.docs / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
