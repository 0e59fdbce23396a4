"""A picture of a story's graph with matplotlib: the family by generation, the chain, the noise.

People are boxes with their names (square: male, round: female); the two query people have a
red border. Chain facts are solid arrows numbered in chain order; noise facts are dashed
arrows coloured by kind. Above the graph: the question, the gold answer and, for an eval
item, each model's answer; below it: the story. In an SVG every text stays text, and each
fact's arrow and label carry the ids ``fact-I`` and ``fact-I-label`` (person boxes:
``person-I``), so a reader or a test can find every fact of the story in the file.
"""
from __future__ import annotations

import math
import textwrap
from typing import TYPE_CHECKING, Any

from clutrr.errors import UsageError
from clutrr.graph.convert import INSTALL_HINT, require_networkx, to_networkx
from clutrr.graph.layout import layered_layout
from clutrr.graph.story import answer_lines

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

KIND_COLORS = {"none": "#1f1f1f", "supporting": "#1b9e77", "irrelevant": "#d95f02", "disconnected": "#7570b3",
               "connected": "#e7298a"}
GENDER_FILL = {"male": "#d6e6f7", "female": "#fadbe6"}
GENDER_BOX = {"male": "square", "female": "round"}
QUERY_COLOR = "#c0392b"
UNIT = 1.35  # inches per layout unit (one chain step)
NAME_PT, LABEL_PT, TEXT_PT = 9.5, 7.5, 8.0
LINE_IN = 0.2  # a header or caption line
PAD = 0.3  # box padding, in font sizes


def require_matplotlib() -> Any:
    """The matplotlib module, or UsageError naming the extra that installs it."""
    try:
        import matplotlib
    except ImportError:
        raise UsageError(f"drawing needs matplotlib: {INSTALL_HINT}") from None
    return matplotlib


def _header(graph: Any) -> list[tuple[str, str]]:
    """(text, colour) lines above the graph."""
    g = graph.graph
    head, tail = (graph.nodes[i]["name"] for i in g["query"])
    facts = [f"k={g.get('k')}"]
    if g.get("noise"):
        facts.append(f"noise: {g['noise']}")
    if g.get("file"):
        facts.append(f"file {g['file']}")
    lines = [(f"story {g.get('id') or ''}   " + ",  ".join(facts), "#555555"),
             (f"How is {tail} related to {head}?   gold answer: {g.get('target')}", "#000000")]
    correct = [a.get("correct") for a in g.get("answers") or []]
    lines += [(line, "#1e7b34" if ok else QUERY_COLOR) for line, ok in zip(answer_lines(g), correct)]
    return lines


def _notes(graph: Any) -> list[str]:
    kinds = {d["noise"] for _, _, d in graph.edges(data=True)}
    notes = []
    if graph.graph.get("noise_inferred") and kinds - {"none"}:
        notes.append("noise kinds read off the graph's shape (the file does not name them)")
    if any(d["relation"] is None for _, _, d in graph.edges(data=True)):
        notes.append("?: the file gives no relation word for this fact (released CLUTRR files name chain facts only)")
    return notes


def _half_box(text: Any, renderer: Any, dpi: float) -> tuple[float, float]:
    """Half width and height, in points, of a name's box."""
    ext = text.get_window_extent(renderer)
    pad = PAD * NAME_PT
    return ext.width * 72 / dpi / 2 + pad, ext.height * 72 / dpi / 2 + pad


def _to_border(half: tuple[float, float], dx: float, dy: float) -> float:
    """Points from a box's centre to its border in direction (dx, dy), plus a small gap."""
    norm = math.hypot(dx, dy) or 1.0
    cx, cy = abs(dx) / norm, abs(dy) / norm
    return min(half[0] / cx if cx > 1e-9 else math.inf, half[1] / cy if cy > 1e-9 else math.inf) + 2.0


def _curvature(graph: Any, a: int, b: int, key: int, dx: float, dy: float) -> float:
    """Chain facts are straight; noise facts bend (below the row when they run along it),
    parallel ones each a little more."""
    if graph.edges[a, b, key]["position"] is not None:
        return 0.0
    between = sorted(k for u, v, k in graph.edges(keys=True) if {u, v} == {a, b})
    rad = 0.22 * (1 + between.index(key))
    return math.copysign(rad, dx) if abs(dy) < abs(dx) else rad


def _legend(graph: Any) -> list:
    """Legend handles: the chain, the noise kinds present, genders and the query people."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    kinds = {d["noise"] for _, _, d in graph.edges(data=True)}
    handles = [Line2D([], [], color=KIND_COLORS["none"], lw=1.8, label="chain fact (in order)")]
    handles += [Line2D([], [], color=KIND_COLORS[k], lw=1.2, linestyle=(0, (4, 2)), label=f"{k} noise")
                for k in ("supporting", "irrelevant", "disconnected", "connected") if k in kinds]
    return handles + [Patch(fc=GENDER_FILL["male"], ec="#555555", label="male"),
                      Patch(fc=GENDER_FILL["female"], ec="#555555", label="female"),
                      Patch(fc="white", ec=QUERY_COLOR, lw=2.0, label="query person")]


def _people(ax: Any, graph: Any, pos: dict) -> dict:
    """Draw each person's box; the boxes by person."""
    boxes = {}
    head, tail = graph.graph["query"]
    for p, (x, y) in pos.items():
        node = graph.nodes[p]
        query = p in (head, tail)
        style = f"{GENDER_BOX.get(node['gender'], 'round4')},pad={PAD}"
        boxes[p] = ax.text(x, y, node["name"], ha="center", va="center", fontsize=NAME_PT, zorder=3,
                           gid=f"person-{p}", bbox=dict(boxstyle=style, fc=GENDER_FILL.get(node["gender"], "#eeeeee"),
                                                        ec=QUERY_COLOR if query else "#555555",
                                                        lw=2.4 if query else 0.8))
        if query:
            ax.text(x, y + 0.26, "query: first" if p == head else "query: second", ha="center", va="bottom",
                    fontsize=LABEL_PT, color=QUERY_COLOR, style="italic", zorder=3)
    return boxes


def _facts(ax: Any, graph: Any, pos: dict, half: dict) -> None:
    """Draw each fact: an arrow from head to tail and its label at the arrow's middle."""
    from matplotlib.patches import FancyArrowPatch

    for a, b, key, d in sorted(graph.edges(keys=True, data=True), key=lambda e: e[2]):
        on_chain = d["position"] is not None
        (xa, ya), (xb, yb) = pos[a], pos[b]
        dx, dy = xb - xa, yb - ya
        rad = _curvature(graph, a, b, key, dx, dy)
        color = KIND_COLORS.get(d["noise"], "#777777")
        ax.add_patch(FancyArrowPatch(
            (xa, ya), (xb, yb), arrowstyle="-|>", mutation_scale=12, connectionstyle=f"arc3,rad={rad}",
            color=color, lw=1.8 if on_chain else 1.2, linestyle="-" if on_chain else (0, (4, 2)), zorder=1,
            shrinkA=_to_border(half[a], dx / 2 + rad * dy, dy / 2 - rad * dx),
            shrinkB=_to_border(half[b], dx / 2 - rad * dy, dy / 2 + rad * dx), gid=f"fact-{key}"))
        word = d["relation"] if d["relation"] is not None else "?"
        label = f"{d['position'] + 1}. {word}" if on_chain else word
        ax.text(xa + dx / 2 + rad * dy / 2, ya + dy / 2 - rad * dx / 2, label, ha="center", va="center",
                fontsize=LABEL_PT, color=color, zorder=2, gid=f"fact-{key}-label",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))


def as_graph(source: Any) -> Any:
    """``source`` when it is a networkx MultiDiGraph already, else :func:`to_networkx` of it."""
    nx = require_networkx()
    return source if isinstance(source, nx.MultiDiGraph) else to_networkx(source)


def story_figure(source: Any) -> "Figure":
    """The picture (a matplotlib Figure) of a story: anything :func:`clutrr.graph.to_networkx`
    takes, or the graph it made."""
    require_matplotlib()
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    graph = as_graph(source)
    pos = layered_layout(graph)
    xs, ys = [p[0] for p in pos.values()], [p[1] for p in pos.values()]
    x0, x1, y0, y1 = min(xs) - 0.7, max(xs) + 0.7, min(ys) - 0.45, max(ys) + 0.55
    graph_w, graph_h = (x1 - x0) * UNIT, (y1 - y0) * UNIT
    width = max(graph_w, 7.0) + 0.4
    header, notes, handles = _header(graph), _notes(graph), _legend(graph)
    ncol = min(len(handles), int(width / 1.45))
    story = textwrap.wrap(graph.graph.get("story") or "", width=max(60, int(width * 15)))
    lines = [(n, "#666666", "italic") for n in notes] + [(s, "#222222", "normal") for s in story]
    head_h = len(header) * LINE_IN + 0.2
    legend_h = 0.25 * math.ceil(len(handles) / ncol) + 0.1
    foot_h = legend_h + len(lines) * LINE_IN + 0.2
    height = head_h + graph_h + foot_h
    fig = Figure(figsize=(width, height), dpi=100)  # headless, and outside pyplot's global state
    FigureCanvasAgg(fig)
    ax = fig.add_axes(((width - graph_w) / 2 / width, foot_h / height, graph_w / width, graph_h / height))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_axis_off()
    for i, (line, color) in enumerate(header):
        fig.text(0.2 / width, 1 - (0.1 + i * LINE_IN) / height, line, fontsize=TEXT_PT + (1 if i == 1 else 0),
                 color=color, va="top", weight="bold" if i == 1 else "normal")
    boxes = _people(ax, graph, pos)
    renderer = fig.canvas.get_renderer()
    _facts(ax, graph, pos, {p: _half_box(t, renderer, fig.dpi) for p, t in boxes.items()})
    fig.legend(handles=handles, loc="upper left", ncol=ncol, fontsize=TEXT_PT, frameon=False,
               bbox_to_anchor=(0.15 / width, foot_h / height), handlelength=2.2, columnspacing=1.4)
    for i, (line, color, style) in enumerate(lines):
        fig.text(0.2 / width, (foot_h - legend_h - i * LINE_IN) / height, line, fontsize=TEXT_PT, color=color,
                 style=style, va="top")
    return fig
