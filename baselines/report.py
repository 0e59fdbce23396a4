"""Write ``baselines/RESULTS.md`` from the reproduction's results JSONs, beside the published numbers.

    python -m clutrr.baselines.report --results baselines/results --out baselines/RESULTS.md

expects ``<results>/<slug>/<model>.json`` for the slugs in :data:`EXPERIMENTS` (missing ones are
listed as not run), adds ``<results>/notes.md`` if present, and draws ``<out folder>/accuracy_vs_k.png``.
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path
from typing import Any

from clutrr.baselines.results import plot_accuracy, read_json

# slug -> (title, model file stem)
EXPERIMENTS = {
    "gat-089907f8": ("GAT on the released data_089907f8 (train k=2,3 clean; test k=2..10)", "gat"),
    "bilstm-attn-7c5b0e70": ("BiLSTM-attention on the released data_7c5b0e70 (robust reasoning, trained clean)",
                             "bilstm-attn"),
    "gat-ours": ("GAT on data from our generator (`generate.py --k 2,3 --test-k 2..10 --noise none`)", "gat"),
}
# Published GAT accuracy by k on data_089907f8: k=2,3 from Sinha's thesis (Table 3.8, "about 1.0"),
# k=4..10 from Minervini et al. 2020, Table 2.
PUBLISHED_GAT = {2: 1.0, 3: 1.0, 4: 0.91, 5: 0.76, 6: 0.54, 7: 0.56, 8: 0.54, 9: 0.55, 10: 0.45}
# BiLSTM-attention trained and tested clean on data_7c5b0e70 (Sinha et al. 2019): 0.58 ± 0.05.
PUBLISHED_BILSTM_CLEAN = (0.58, 0.05)
PUBLISHED = {"gat-089907f8": PUBLISHED_GAT, "gat-ours": PUBLISHED_GAT}
CHOICES = [
    "## Settings and choices", "",
    "- Configs: `baselines/configs/*.yaml`. GAT: node embeddings 100, edge-type embeddings 20 in both the",
    "  attention scores and the messages, 3 heads (averaged), 3 rounds with residual ELU updates, readout",
    "  [head; tail; sum of node states] into a 2-layer MLP (hidden 200), dropout 0.1 on attention and MLP.",
    "  BiLSTM: embeddings 100 (words learned, `@entity-k` placeholders random and frozen), 2 bidirectional",
    "  layers of 100, attention or mean pooling, concatenated with the mean BiLSTM state at each query",
    "  entity's mentions, 2-layer MLP (hidden 200). Adam, lr 0.001, batch 100, no early stopping: the",
    "  model after the last epoch is evaluated.",
    "- Entity ids (graph nodes and text placeholders) are drawn per story from a pool of 100 and redrawn",
    "  for every training batch, so no identity carries over between stories.",
    "- Facts without a relation word (the released files' noise edges) stay in the graph with an extra",
    "  `unknown` edge type; our generator types every edge. The GAT also passes messages against each",
    "  fact, with a separate reverse-type embedding, and every node has a self loop.",
    "- Text is padded per length bucket, not packed (faster on this CPU).",
    "- Threads: 1 per process. On this shared 2-core machine two threads per process ran slower than",
    "  one (see `benchmarks/bench_baselines.py`), so experiments ran side by side, one thread each.",
    "",
]


def machine_description() -> str:
    """A one-line description of this machine and its torch build."""
    import torch

    cpu = platform.processor() or platform.machine()
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return f"{platform.system()} {cpu}, {os.cpu_count()} cores (shared with other jobs), {gpu}, torch {torch.__version__}"


def _fmt(mean: float, std: float) -> str:
    return f"{mean:.2f} ± {std:.2f}"


def pooled_accuracy(doc: dict[str, Any], noise: int) -> tuple[float, float]:
    """Mean and std over runs of the row-weighted accuracy over all test files of one noise family."""
    tests = [t for t in doc["tests"] if t["noise"] == noise]
    rows = sum(t["rows"] for t in tests)
    per_run = [sum(run["accuracy"][t["file"]] * t["rows"] for t in tests) / rows for run in doc["per_run"]]
    return statistics.fmean(per_run), statistics.pstdev(per_run)


def _section(title: str, doc: dict[str, Any], slug: str) -> list[str]:
    seconds = [run["train_seconds"] for run in doc["per_run"]]
    lines = [
        f"## {title}", "",
        f"{doc['runs']} runs (seeds {doc['seed']}..{doc['seed'] + doc['runs'] - 1}), {doc['epochs']} epochs, "
        f"{doc['train_rows']} training stories, device {doc['device']}, {doc['threads']} thread(s); "
        f"training {statistics.fmean(seconds):.0f} s per run, {doc['seconds'] / 60:.1f} min wall in all "
        f"(started {doc['started']}).", "",
    ]
    published = PUBLISHED.get(slug)
    if published is not None:
        head = "published" if slug == "gat-089907f8" else "published on data_089907f8 (reference)"
        lines += [f"| k | {head} | ours (mean ± std) |", "|---|---|---|"]
        for t in doc["tests"]:
            s = doc["summary"][t["file"]]
            ref = f"{published[t['k']]:.2f}" if t["k"] in published else "–"
            lines.append(f"| {t['k']} | {ref} | {_fmt(s['mean'], s['std'])} |")
    else:
        lines += ["| test file | noise | k | rows | ours (mean ± std) |", "|---|---|---|---|---|"]
        for t in doc["tests"]:
            s = doc["summary"][t["file"]]
            lines.append(f"| {t['file']} | {t['noise_name']} | {t['k']} | {t['rows']} | {_fmt(s['mean'], s['std'])} |")
        if slug.startswith("bilstm"):
            mean, std = pooled_accuracy(doc, 1)
            ref_mean, ref_std = PUBLISHED_BILSTM_CLEAN
            lines += ["", f"Clean test (1.2 and 1.3 pooled by rows): ours **{_fmt(mean, std)}**, "
                          f"published {_fmt(ref_mean, ref_std)}."]
    return lines + [""]


def render(experiments: list[tuple[str, dict[str, Any], str]],
           machine: str | None = None, missing: list[str] | None = None) -> str:
    """The RESULTS.md text for ``(title, results document, slug)`` triples."""
    lines = [
        "# Baseline results", "",
        "Generated by `python -m clutrr.baselines.report` from the JSON files under `baselines/results/`",
        "(produced by `python -m clutrr.baselines.reproduce`). Do not edit by hand.", "",
        f"Machine: {machine or machine_description()}.", "",
        "Accuracy is the share of test stories whose relation the model names exactly; mean ± population",
        "std over runs. Published GAT numbers: k=2,3 from Sinha's thesis (Table 3.8, about 1.0),",
        "k=4..10 from Minervini et al. 2020 (Table 2). Published BiLSTM-attention: Sinha et al. 2019,",
        "trained and tested clean in the robust-reasoning setting (0.58 ± 0.05).", "",
    ]
    for title, doc, slug in experiments:
        lines += _section(title, doc, slug)
    for slug in missing or []:
        lines += [f"## {EXPERIMENTS[slug][0]}", "", "Not run.", ""]
    lines += CHOICES + ["![accuracy against k](accuracy_vs_k.png)", ""]
    return "\n".join(lines)


def write_report(results: str | Path, out: str | Path, machine: str | None = None) -> Path:
    """Read the results under ``results``, write ``out`` and the plot beside it.

    ``<results>/notes.md``, when present, is added before the plot (wall times, epoch choices).
    """
    results, out = Path(results), Path(out)
    notes_file = results / "notes.md"
    notes = notes_file.read_text(encoding="utf-8") if notes_file.is_file() else ""
    found, missing = [], []
    for slug, (title, stem) in EXPERIMENTS.items():
        path = results / slug / f"{stem}.json"
        if path.is_file():
            found.append((title, read_json(path), slug))
        else:
            missing.append(slug)
    text = render(found, machine, missing)
    if notes:
        text = text.replace("![accuracy", f"{notes.strip()}\n\n![accuracy", 1)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    curves = []
    for title, doc, slug in found:
        if slug.startswith("gat"):
            curves.append(dict(doc, model=f"GAT ({'ours' if slug == 'gat-ours' else 'released data'})"))
    if curves:
        plot_accuracy(curves, out.parent / "accuracy_vs_k.png", title="GAT accuracy against k",
                      reference={"GAT published": PUBLISHED_GAT})
    return out


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    p = argparse.ArgumentParser(prog="python -m clutrr.baselines.report", description=__doc__.splitlines()[0])
    here = Path(__file__).resolve().parent
    p.add_argument("--results", default=str(here / "results"))
    p.add_argument("--out", default=str(here / "RESULTS.md"))
    args = p.parse_args(argv)
    print(f"wrote {write_report(args.results, args.out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
