"""``clutrr kinship show|draw NAME``: a kinship system's table of terms, its derived rules, its picture."""
from __future__ import annotations

import argparse
from pathlib import Path

from clutrr.errors import UsageError

NAME = "kinship"
HELP = "print a kinship system's terms and kin types, or draw them on a family tree"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """Options of the kinship command."""
    actions = p.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", help="the table term -> kin types and the number of derived sound rules")
    show.add_argument("system", help="a built-in system (eskimo, hawaiian, ...) or a terminology file")
    draw = actions.add_parser("draw", help="a family tree, every relative labelled by its term")
    draw.add_argument("system", help="a built-in system or a terminology file")
    draw.add_argument("--out", required=True, help="the picture to write: a .png or .svg file")


def kb_argument(args: argparse.Namespace) -> str:
    """The KB of ``--kb`` or, with ``--kinship``, the compiled KB of the terminology."""
    kinship = getattr(args, "kinship", None)
    if kinship is None:
        return args.kb
    if args.kb != "kinship":
        raise UsageError("--kinship sets the KB: leave out --kb")
    from clutrr.kinship.derive import kinship_kb_path

    return kinship_kb_path(kinship)


def recorded_kinship(paths: list[str]) -> str | None:
    """The ``--kinship`` the datasets at ``paths`` were generated with, read from the
    config.json beside their files (None when none records one); UsageError when they record
    different systems, or when the terminology file changed since (its sha256 differs)."""
    from clutrr.io.bounded import loads as bounded_loads
    from clutrr.kinship.terminology import load_terminology

    found: dict[str, str] = {}  # system -> the config.json that names it
    digests: dict[str, str] = {}
    for text in paths:
        folder = Path(text) if Path(text).is_dir() else Path(text).parent
        try:
            config = bounded_loads((folder / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        arguments = config.get("arguments") if isinstance(config, dict) else None
        system = arguments.get("kinship") if isinstance(arguments, dict) else None
        if isinstance(system, str):
            found.setdefault(system, str(folder / "config.json"))
            kb = ((config.get("spec") or {}).get("config") or {}).get("kb", "")
            digests[system] = str(kb).rpartition("@sha256:")[2]
    if len(found) > 1:
        raise UsageError(f"the files were generated in different kinship systems ({', '.join(sorted(found))}): "
                         f"verify one system at a time, or choose one with --kinship")
    if not found:
        return None
    system, where = next(iter(found.items()))
    digest = load_terminology(system).digest
    if digests[system] and digests[system] != digest:
        raise UsageError(f"{where}: the stories were told in {system!r} with a terminology file of sha256 "
                         f"{digests[system][:12]}..., which has changed since (now {digest[:12]}...); "
                         f"give --kinship to verify under another file")
    return system


def show_text(system: str) -> str:
    """The table of a system: each term with its kin types, then the rules derived for it."""
    from clutrr.kinship.derive import kinship_kb, predicate_terms
    from clutrr.kinship.terminology import load_terminology

    terminology = load_terminology(system)
    kb = kinship_kb(system)
    width = max(map(len, terminology.terms))
    lines = [f"{terminology.name}: {terminology.description}", f"source: {terminology.source}", ""]
    lines += [f"{term:{width}s}  {' '.join(kt.text() for kt in kts)}" for term, kts in terminology.terms.items()]
    owners = predicate_terms(terminology)
    heads = {owners[c][0] for c in kb.rules.values()}
    never = [t for t in terminology.terms if t not in heads]
    world = f"clutrr's families of at most {kb.generations} generations" if kb.generations else "the world model"
    lines += ["", f"{len(kb.rules)} composition rules derived from {world}, each checked on other sampled families"]
    if never:
        lines.append(f"terms no rule derives (stated in stories, asked only at k=1): {', '.join(never)}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Print the table, or draw the picture."""
    if args.action == "show":
        print(show_text(args.system))
        return 0
    from clutrr.kinship.terminology import load_terminology

    if not args.out.lower().endswith((".png", ".svg")):
        raise UsageError(f"--out {args.out}: the picture is a .png or .svg file")
    terminology = load_terminology(args.system)
    try:
        from clutrr.graph.kinship_tree import draw_terms
    except ImportError:
        raise UsageError("kinship draw needs clutrr.graph.kinship_tree, which this installation lacks") from None
    draw_terms(terminology.table(), Path(args.out), f"{terminology.name} kinship terms")
    print(f"wrote {args.out}")
    return 0
