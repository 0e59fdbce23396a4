"""accuracy_vs_k.png: accuracy against chain length, a curve per model (and noise type)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

from clutrr.errors import UsageError
from clutrr.eval.metrics import Tally
from clutrr.eval.published import Reference
from clutrr.eval.report import Report


def _curves(report: Report) -> list[tuple[str, list[int], list]]:
    """(label, ks, tallies) per noise type of the report's test files."""
    by_noise: dict[str, dict[int, list]] = {}
    for split, tally in report.by_split.items():
        info = report.split_info[split]
        by_noise.setdefault(info["noise"], {}).setdefault(info["k"], []).append(tally)
    out = []
    for noise, by_k in by_noise.items():
        ks = sorted(by_k)
        label = report.model if len(by_noise) == 1 else f"{report.model} ({noise})"
        out.append((label, ks, [by_k[k] for k in ks]))
    return out


def has_matplotlib() -> bool:
    """Whether matplotlib is installed (the plot needs it)."""
    return importlib.util.find_spec("matplotlib") is not None


def plot_accuracy_vs_k(reports: list[Report], path: str | Path, references: list[Reference] = (),
                       title: str | None = None) -> Path:
    """Draw every model's accuracy by k with 95% Wilson intervals as error bars, and the
    references as dashed lines; write a PNG to ``path``."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError("the plot needs matplotlib: pip install 'clutrr[eval]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, ax = plt.subplots(figsize=(7.6, 4.2))
    for report in reports:
        for label, ks, groups in _curves(report):
            pooled = []
            for tallies in groups:
                t = Tally()
                for x in tallies:
                    t.add(x.n, x.correct)
                pooled.append(t)
            acc = [t.accuracy or 0.0 for t in pooled]
            ci = [t.to_dict()["ci"] for t in pooled]
            err = [[max(0.0, a - lo) for a, (lo, _) in zip(acc, ci)], [max(0.0, hi - a) for a, (_, hi) in zip(acc, ci)]]
            ax.errorbar(ks, acc, yerr=err, marker="o", capsize=3, label=label)
    for ref in references:
        ks = sorted(ref.accuracy)
        ax.plot(ks, [ref.accuracy[k] for k in ks], linestyle="--", marker="x", alpha=0.8, label=ref.label)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("k (relations in the chain)")
    ax.set_ylabel("test accuracy")
    ax.set_ylim(0.0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    ax.set_title(title or f"Accuracy against k on {Path(reports[0].data).name}")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
