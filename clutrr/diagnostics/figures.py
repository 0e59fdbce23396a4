"""The diagnostics' figures (matplotlib, imported by each function: it is optional)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from clutrr.errors import UsageError


def require() -> None:
    """UsageError (one line) when matplotlib, which draws the figures, is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError("figures need matplotlib: pip install matplotlib") from None


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    """Lay out, write and close a figure."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_confusions(split: str, classes: dict[str, dict], columns: dict[str, str], path: Path) -> Path:
    """One panel per model: the confusion matrix of ``split`` (rows: gold, columns: predicted),
    each row scaled to its gold label's items, with the per-class accuracy on the diagonal."""
    plt = _pyplot()
    models = list(classes)
    labels = classes[models[0]]["confusion"]["labels"]
    size = max(3.0, 0.22 * len(labels) + 1.5)
    cols = min(2, len(models))
    nrows = -(-len(models) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(size * cols, size * nrows), squeeze=False)
    for ax in axes.flat[len(models):]:
        ax.axis("off")
    for ax, name in zip(axes.flat, models):
        c = classes[name]["confusion"]
        keep = [i for i, lab in enumerate(c["labels"]) if lab in labels]
        rows = [[c["matrix"][i][j] for j in keep] for i in keep]
        shares = [[v / (sum(r) or 1) for v in r] for r in rows]
        ax.imshow(shares, vmin=0, vmax=1, cmap="Blues")
        ax.set_title(columns.get(name, name), fontsize=9)
        ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=6)
        ax.set_yticks(range(len(labels)), labels, fontsize=6)
        ax.set_xlabel("predicted", fontsize=8)
        ax.set_ylabel("gold", fontsize=8)
    fig.suptitle(f"{split}: confusion matrices (row shares)", fontsize=10)
    return _save(fig, path)


def plot_coverage(giveaways: dict[str, dict], path: Path) -> Path:
    """The give-away coverage curve of each split (Poliak's dissertation, Figs. 5.2-5.3): the
    share of hypotheses holding a word w with p(l | w) >= x for at least one label, against x."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.5, 3.4))
    for split, gw in giveaways.items():
        ax.plot([c["x"] for c in gw["coverage"]], [100 * c["share"] for c in gw["coverage"]], marker="o",
                markersize=3, label=split)
    ax.set_xlabel("x")
    ax.set_ylabel(f"% hypotheses with p(l | w) >= x\n(w seen >= {next(iter(giveaways.values()))['min_count']} times)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    return _save(fig, path)


def plot_acceptance(entropy: dict[str, dict], lengths: dict[str, list[dict]], path: Path) -> Path:
    """Two panels: the mean entropy of accepted permutations and of the originals, for D^c and
    D^f (the thesis's Fig. 4.4), and the mean acceptance against story length, for stories
    right and wrong originally (Fig. 4.5)."""
    plt = _pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(8.5, 3.4))
    groups = list(entropy)
    bars = ((-0.2, "entropy_original", "original"), (0.2, "entropy_accepted", "accepted permutations"))
    for shift, key, name in bars:
        left.bar([i + shift for i in range(len(groups))], [entropy[g][key] or 0.0 for g in groups], width=0.4,
                 label=name)
    left.set_xticks(range(len(groups)), [f"{g} ({entropy[g]['stories']})" for g in groups])
    left.set_ylabel("mean entropy (bits)")
    left.legend(fontsize=7)
    for group, points in lengths.items():
        right.plot([p["length"] for p in points], [p["acceptance"] for p in points], marker="o", markersize=3,
                   label=f"{group} originally")
    right.set_xlabel("story length (words, bin start)")
    right.set_ylabel("mean acceptance")
    right.set_ylim(0, 1.02)
    right.grid(alpha=0.3)
    right.legend(fontsize=7)
    return _save(fig, path)
