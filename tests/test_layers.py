"""The import graph: no circles, and each layer imports only the layers below it (docs/design.md).

Every module of ``clutrr/`` and ``baselines/`` (installed as ``clutrr.baselines``) is parsed
with ``ast``; every import of a clutrr module counts, at the top of a file or inside a
function (an import inside a function does not dodge a circle, it hides one). Imports of
other libraries (torch, pyarrow, ray, ...) are not checked. Packages of one layer do not
import each other.
"""
from __future__ import annotations

import ast
from pathlib import Path

from helpers import REPO

# lowest first; a package imports only packages of lower layers (and its own modules)
LAYERS: list[tuple[str, ...]] = [
    ("clutrr.errors", "clutrr.paths", "clutrr.frozen"),  # leaves: no clutrr imports
    ("clutrr.core",),  # KB, families, chaining, entailment, noise, vocabularies, the story record
    ("clutrr.kinship",),  # kinship terminologies as data: validated, compiled to KBs with derived sound rules
    ("clutrr.render", "clutrr.questions"),  # templates and banks, AMT format, stitching, text measures, the
    # template checker; question forms: their words, answers proved from a story's facts, the choice of a question
    ("clutrr.story",),  # one story from a config, a seed and an index (the generator)
    ("clutrr",),  # the package itself: __version__ and the generator's API
    ("clutrr.io", "clutrr.engines"),  # formats, shards, manifests, staging; where tasks run
    ("clutrr.pipeline",),  # one generation run: plan, execute, collect, de-duplicate, assemble
    ("clutrr.llm",),  # chat clients, prompts, answer extraction
    ("clutrr.eval",),  # scoring predictions, reports
    ("clutrr.rl", "clutrr.diagnostics", "clutrr.graph"),  # RL rewards and curricula; audits, probes,
    # verification; story graphs (networkx, pictures)
    ("clutrr.release",),  # the named configurations built, verified, described and fingerprinted
    ("clutrr.integrations",),  # plug-ins for TRL, reasoning-gym, verifiers (imported only when used)
    ("clutrr.baselines",),  # reference models (never import commands)
    ("clutrr.commands",),  # argv -> config objects, one call each
    ("clutrr.cli",),  # the `clutrr` entry point
]
SOURCES = ((REPO / "clutrr", "clutrr"), (REPO / "baselines", "clutrr.baselines"))


def modules(sources=SOURCES) -> dict[str, tuple[Path, bool, str]]:
    """Module name -> (file, is a package's __init__, the file as shown) for every .py file under the sources."""
    out = {}
    for root, name in sources:
        for path in sorted(root.rglob("*.py")):
            parts = [name, *path.relative_to(root).with_suffix("").parts]
            package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if package else parts)] = (path, package, str(path.relative_to(root.parent)))
    return out


def imports(name: str, path: Path, package: bool, known: dict) -> list[tuple[str, int]]:
    """(imported clutrr module, line) for every import in the file, wherever it stands."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package holding this module
                here = name.split(".") if package else name.split(".")[:-1]
                base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
            for alias in node.names:  # `from pkg import module` imports the module
                found.append((f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base, node.lineno))
    out = []
    for target, line in found:
        if target.startswith("baselines.") or target == "baselines":
            target = "clutrr." + target
        while target and target not in known:  # `import clutrr.io.rows.Task`-like names: the module
            target = target.rpartition(".")[0]
        if target and target != name and (target == "clutrr" or target.startswith("clutrr.")):
            out.append((target, line))
    return out


def graph(sources=SOURCES) -> tuple[dict[str, tuple[Path, bool, str]], dict[str, list[tuple[str, int]]]]:
    """The modules and their imports of clutrr modules."""
    known = modules(sources)
    return known, {m: imports(m, path, package, known) for m, (path, package, _) in known.items()}


def package_of(module: str) -> str:
    """``clutrr.io.rows`` -> ``clutrr.io``; ``clutrr`` and ``clutrr.cli`` stand for themselves."""
    return ".".join(module.split(".")[:2])


def circles(edges: dict[str, list[tuple[str, int]]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted({t for t, _ in edges[start]})))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted({t for t, _ in edges.get(child, [])}))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def layer_problems(known: dict, edges: dict, layers=LAYERS) -> list[str]:
    """One line per package missing from the layers and per import that does not point down."""
    rank = {pkg: i for i, group in enumerate(layers) for pkg in group}
    problems = [f"add {pkg} to the layer list in tests/test_layers.py (and docs/design.md)"
                for pkg in sorted({package_of(m) for m in known} - set(rank))]
    for module, targets in sorted(edges.items()):
        src = package_of(module)
        for target, line in targets:
            dst = package_of(target)
            if src == dst or src not in rank or dst not in rank:
                continue
            if rank[dst] >= rank[src]:
                side = "a higher" if rank[dst] > rank[src] else "the same"
                problems.append(f"{known[module][2]}:{line}: {module} imports {target}, in {side} layer ({src} -> {dst})")
    return problems


def test_the_import_graph_has_no_circles():
    _, edges = graph()
    found = circles(edges)
    assert not found, "import circles:\n" + "\n".join(" <-> ".join(group) for group in found)


def test_each_layer_imports_only_layers_below_it():
    known, edges = graph()
    problems = layer_problems(known, edges)
    assert not problems, "\n".join(problems)


def test_the_checks_find_circles_upward_imports_and_unlisted_packages(tmp_path):
    pkg = tmp_path / "clutrr"
    files = {
        "__init__.py": "",
        "errors.py": "",
        "core/__init__.py": "",
        "core/a.py": "def f():\n    from clutrr.core import b\n",  # a circle through an import inside a function
        "core/b.py": "from . import a\n",
        "core/c.py": "from clutrr.io.rows import Task\n",  # up
        "io/__init__.py": "",
        "io/rows.py": "import torch\nfrom clutrr.errors import UsageError\nfrom clutrr.core import c\n",
        "extra/__init__.py": "",
    }
    for name, text in files.items():
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / name).write_text(text)
    known, edges = graph(((pkg, "clutrr"),))
    assert circles(edges) == [["clutrr.core.a", "clutrr.core.b"], ["clutrr.core.c", "clutrr.io.rows"]]
    problems = layer_problems(known, edges, [("clutrr.errors",), ("clutrr.core",), ("clutrr",), ("clutrr.io",)])
    assert problems == ["add clutrr.extra to the layer list in tests/test_layers.py (and docs/design.md)",
                        "clutrr/core/c.py:1: clutrr.core.c imports clutrr.io.rows, in a higher layer "
                        "(clutrr.core -> clutrr.io)"]
