"""The reader's grammar (clutrr/render/shapes): every shape's examples run as doctests, every
shape is used by the reader, and no function in clutrr/render is longer than 80 lines."""
from __future__ import annotations

import ast
import doctest
import importlib
from pathlib import Path

import pytest

import clutrr.render

RENDER = Path(clutrr.render.__file__).resolve().parent
SHAPES = RENDER / "shapes"
FAMILIES = ("groups", "possessive", "having", "prepositional", "appositive", "copular", "roles", "marriage")
MAX_LINES = 80


@pytest.mark.parametrize("name", [*FAMILIES, "examples"])
def test_the_examples_of_every_shape_hold(name):
    module = importlib.import_module(f"clutrr.render.shapes.{name}")
    result = doctest.testmod(module)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0


def _names_used(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
        {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}


@pytest.mark.parametrize("name", FAMILIES)
def test_every_shape_with_examples_is_used_by_the_reader(name):
    """A shape is listed in the registry or called by another rule (no dead shape)."""
    trees = {p.stem: ast.parse(p.read_text(encoding="utf-8")) for p in SHAPES.glob("*.py") if p.stem != "examples"}
    used = set().union(*(_names_used(t) for stem, t in trees.items() if stem != name))
    used |= _names_used(ast.Module([n for n in trees[name].body if isinstance(n, (ast.Assign, ast.AnnAssign))], []))
    shapes = [n.name for n in trees[name].body if isinstance(n, ast.FunctionDef)
              and ">>> show(" in (ast.get_docstring(n) or "")]
    assert shapes, f"{name} has no shape with examples"
    assert [s for s in shapes if s not in used] == []


def long_functions(source: str) -> list[str]:
    """The functions (methods and nested ones too) longer than MAX_LINES lines in ``source``."""
    return [f"{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_LINES]


def test_no_function_in_render_is_longer_than_80_lines():
    paths = sorted(RENDER.rglob("*.py"))
    assert SHAPES / "registry.py" in paths
    assert [f"{p.relative_to(RENDER)}:{line}" for p in paths for line in long_functions(p.read_text("utf-8"))] == []


def test_the_length_check_finds_a_long_method():
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_LINES))
    assert long_functions(f"class C:\n    def f(self):\n{body}\n") == [f"2 f ({MAX_LINES + 1} lines)"]
    short = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES - 1))
    assert long_functions(f"def g():\n{short}\n") == []


def test_the_cached_flags_depend_on_every_shape():
    """The bank cache's key hashes the reader's grammar: editing a shape refreshes cached flags."""
    from clutrr.render.usable import _checker_inputs

    inputs = set(_checker_inputs("kinship"))
    assert sorted(SHAPES.glob("*.py")) and set(SHAPES.glob("*.py")) <= inputs
    assert RENDER / "statements.py" in inputs
