"""A terminology at a glance: one speaker's family tree, every relative coloured and labelled by its term.

The tree has a fixed place for each kin type (ego's generation in the middle row, parents and
grandparents above, children and grandchildren below; the father's side on the left, the
mother's and the spouse's on the right), so the same kin type sits in the same spot in every
system's picture and two pictures can be compared at a glance. A relative is drawn when the
system has a term for it from that speaker; each box shows the term and, below it, the kin
type (``FZS``: father's sister's son). One panel per speaker sex present in ``terms``; kin
types the tree has no place for (``FFB``) are listed under the panel with their terms.
In an SVG each box carries the id ``kin-<speaker>-<kin type>`` and its text stays text.
"""
from __future__ import annotations

import colorsys
from pathlib import Path
from typing import Any

from clutrr.errors import UsageError
from clutrr.graph.draw import require_matplotlib
from clutrr.graph.output import check_targets, picture_paths, save_figure
from clutrr.kinship.terminology import SPEAKERS, parse_kin_type, speaker_table

# (kin type, x, generation). "P" stands for the spouse: W for a male speaker, H for a female one.
SLOTS = (
    ("FF", 3.0, 2), ("FM", 4.0, 2), ("MF", 11.5, 2), ("MM", 12.5, 2),
    ("FZH", 0.0, 1), ("FZ", 1.0, 1), ("FB", 2.0, 1), ("FBW", 3.0, 1), ("F", 5.5, 1), ("M", 6.5, 1),
    ("PF", 9.25, 1), ("PM", 10.25, 1), ("MB", 12.0, 1), ("MBW", 13.0, 1), ("MZ", 14.0, 1), ("MZH", 15.0, 1),
    ("FZS", 0.0, 0), ("FZD", 1.0, 0), ("FBS", 2.0, 0), ("FBD", 3.0, 0), ("B", 4.0, 0), ("BW", 5.0, 0),
    ("Z", 6.0, 0), ("ZH", 7.0, 0), ("ego", 8.0, 0), ("P", 9.0, 0), ("PB", 10.0, 0), ("PZ", 11.0, 0),
    ("MBS", 12.0, 0), ("MBD", 13.0, 0), ("MZS", 14.0, 0), ("MZD", 15.0, 0),
    ("BS", 2.5, -1), ("BD", 3.5, -1), ("ZS", 5.0, -1), ("ZD", 6.0, -1), ("S", 7.25, -1), ("SW", 8.25, -1),
    ("D", 9.25, -1), ("DH", 10.25, -1), ("PBS", 11.5, -1), ("PBD", 12.5, -1), ("PZS", 13.5, -1), ("PZD", 14.5, -1),
    ("SS", 7.25, -2), ("SD", 8.25, -2), ("DS", 9.25, -2), ("DD", 10.25, -2),
)
COUPLES = (("FF", "FM"), ("MF", "MM"), ("FZ", "FZH"), ("FB", "FBW"), ("F", "M"), ("PF", "PM"),
           ("MB", "MBW"), ("MZ", "MZH"), ("B", "BW"), ("Z", "ZH"), ("ego", "P"), ("S", "SW"), ("D", "DH"))
LINKS = {"ego": "F", "B": "F", "Z": "F", "F": "FF", "FB": "FF", "FZ": "FF", "M": "MF", "MB": "MF",
         "MZ": "MF", "W": "PF", "H": "PF", "WB": "PF", "WZ": "PF", "HB": "PF", "HZ": "PF"}
MALE_LAST = set("FBSH")
BOX_W, BOX_H = 0.92, 0.56
KELLY = ("#f3c300", "#875692", "#f38400", "#a1caf1", "#be0032", "#c2b280", "#848482", "#008856", "#e68fac",
         "#0067a5", "#f99379", "#604e97", "#f6a600", "#b3446c", "#dcd300", "#882d17", "#8db600", "#654522",
         "#e25822", "#2b3d26")
LIGHTEN = 0.4  # share of white mixed into each colour
GOLDEN = 0.381966  # hue step for terms past Kelly's list


def speaker_terms(system: dict[str, Any]) -> dict[tuple[str, str], str]:
    """A terminology file's ``terms`` as (speaker, kin type) -> term, speaker "male" or "female"
    (:func:`clutrr.kinship.terminology.speaker_table`: a kin type without a ``ms ``/``ws ``
    prefix is entered for both speakers)."""
    return speaker_table({term: [parse_kin_type(kt) for kt in entry["kin_types"]]
                          for term, entry in system["terms"].items()})


def _spouse(speaker: str) -> str:
    return "W" if speaker == "male" else "H"


def _slots(speaker: str) -> dict[str, tuple[float, int]]:
    """Kin type -> (x, generation) for this speaker (``P`` replaced by the spouse's letter)."""
    p = _spouse(speaker)
    return {kt.replace("P", p) if kt != "ego" else kt: (x, gen) for kt, x, gen in SLOTS}


def _parent(kin_type: str, speaker: str) -> str | None:
    """The parent a kin type's box hangs from (``FZS`` -> ``FZ``, ``S`` -> ego, ``B`` -> ``F``)."""
    if kin_type in LINKS:
        return LINKS[kin_type].replace("P", _spouse(speaker))
    if kin_type[-1] not in "SD":
        return None
    return kin_type[:-1] or "ego"


def _term_colours(terms: dict[tuple[str, str], str]) -> dict[str, str]:
    """One colour per term, in the order the tree first shows it (male panel first), so every
    picture of a system has the same colours."""
    order: list[str] = []
    for speaker in SPEAKERS:
        for kt in _slots(speaker):
            term = terms.get((speaker, kt))
            if term is not None and term not in order:
                order.append(term)
    order += sorted({t for t in terms.values() if t not in order})
    return {t: _colour(i) for i, t in enumerate(order)}


def _colour(i: int) -> str:
    """The i-th term's colour: Kelly's colours of maximum contrast (K. L. Kelly 1965, without black
    and white) mixed with white so black text stays readable; past them, golden-section hues."""
    if i < len(KELLY):
        rgb = [int(KELLY[i][k:k + 2], 16) / 255 for k in (1, 3, 5)]
    else:
        rgb = colorsys.hsv_to_rgb(((i - len(KELLY)) * GOLDEN) % 1.0, (0.5, 0.3)[i % 2], 0.95)
    return "#{:02x}{:02x}{:02x}".format(*(round((c + (1 - c) * LIGHTEN) * 255) for c in rgb))


def _panel(ax: Any, speaker: str, terms: dict[tuple[str, str], str], colours: dict[str, str]) -> None:
    from matplotlib.patches import FancyBboxPatch

    slots = _slots(speaker)
    shown = {kt: xy for kt, xy in slots.items() if kt == "ego" or (speaker, kt) in terms}
    line = {"color": "#777777", "linewidth": 0.9, "zorder": 1}
    partner: dict[str, str] = {}
    for a, b in COUPLES:
        a, b = (kt.replace("P", _spouse(speaker)) if kt != "ego" else kt for kt in (a, b))
        if a in shown and b in shown:
            partner[a], partner[b] = b, a
            (xa, ga), (xb, gb) = shown[a], shown[b]
            ax.plot([xa, xb], [ga, gb], linestyle="--", **line)
    for kt, (x, gen) in shown.items():
        parent = _parent(kt, speaker)
        if parent in shown:
            px, pg = shown[parent]
            if parent in partner:
                px = (px + shown[partner[parent]][0]) / 2
            mid = gen + 0.5
            ax.plot([px, px, x, x], [pg, mid, mid, gen + BOX_H / 2], **line)
    for kt, (x, gen) in shown.items():
        if kt == "ego":
            face, term, edge = "#ffffff", "ego", "#c0392b"
        else:
            term = terms[(speaker, kt)]
            face, edge = colours[term], "#333333"
        male = kt == "ego" and speaker == "male" or kt != "ego" and kt[-1] in MALE_LAST
        box = "square,pad=0" if male else "round,pad=0,rounding_size=0.22"
        ax.add_patch(FancyBboxPatch((x - BOX_W / 2, gen - BOX_H / 2), BOX_W, BOX_H, boxstyle=box,
                                    facecolor=face, edgecolor=edge, linewidth=1.2, zorder=2,
                                    gid=f"kin-{speaker}-{kt}"))
        ax.text(x, gen + 0.07, term, ha="center", va="center", fontsize=min(6.3, 75 / len(term)),
                fontweight="bold", zorder=3, gid=f"kin-{speaker}-{kt}-term")
        ax.text(x, gen - 0.16, speaker if kt == "ego" else kt, ha="center", va="center", fontsize=5.5,
                color="#333333", zorder=3, gid=f"kin-{speaker}-{kt}-type")
    other_spouse = "H" if speaker == "male" else "W"  # a man has no husband, a woman no wife
    extra = sorted(kt for sp, kt in terms if sp == speaker and kt not in slots and kt[0] != other_spouse)
    if extra:  # named by the system but with no place in this tree: listed, never dropped silently
        listed = ", ".join(f"{kt} {terms[(speaker, kt)]}" for kt in extra)
        ax.text(-0.6, -2.55, f"also named: {listed}", fontsize=6, color="#333333", va="bottom",
                gid=f"kin-{speaker}-extra")
    ax.set_title(f"{speaker} speaker", fontsize=9)
    ax.set_xlim(-0.7, 15.7)
    ax.set_ylim(-2.6, 2.6)
    ax.set_axis_off()


def terms_figure(terms: dict[tuple[str, str], str], title: str) -> Any:
    """The matplotlib Figure of :func:`draw_terms` (not saved)."""
    require_matplotlib()
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    speakers = [s for s in SPEAKERS if any(sp == s for sp, _ in terms)]
    if not speakers:
        raise UsageError("no terms to draw: give (speaker, kin type) -> term for a male or a female speaker")
    colours = _term_colours(terms)
    fig = Figure(figsize=(13.5, 3.4 * len(speakers) + 1.1))
    axes = fig.subplots(len(speakers), 1, squeeze=False)[:, 0]
    for ax, speaker in zip(axes, speakers):
        _panel(ax, speaker, terms, colours)
    handles = [Patch(facecolor=c, edgecolor="#333333", label=t) for t, c in colours.items()]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 8), fontsize=7, frameon=False)
    fig.suptitle(title, fontsize=11)
    rows = -(-len(handles) // 8)
    fig.subplots_adjust(left=0.01, right=0.99, top=0.93, bottom=0.04 + 0.035 * rows, hspace=0.12)
    return fig


def draw_terms(terms: dict[tuple[str, str], str], out: Path, title: str) -> None:
    """Draw each speaker's family tree under a terminology to ``out`` (.svg or .png by its suffix).

    ``terms`` maps (speaker, kin type) -> term, speaker "male" or "female" (see
    :func:`speaker_terms`). Boxes are coloured by term (legend below), square for men and round
    for women, labelled with the term and the kin type; ego has a red border. A file that clutrr
    did not draw is never overwritten."""
    target = picture_paths(out, 1)[0]
    check_targets([target])
    save_figure(terms_figure(terms, title), target)
