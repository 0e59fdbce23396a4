"""The package's build backend: setuptools, plus a mypyc-compiled story path in wheels.

A wheel (``pip install .``, ``pip wheel .``, ``python -m build``) has the modules in ``HOT``
compiled by mypyc, which the backend asks the build front end for (pinned, ``MYPY_PIN``) only
then, and the C extensions of ``C_MODULES`` built beside them. ``CLUTRR_PURE=1``, no C
compiler, or a compile that fails for any reason gives a pure-Python wheel instead (one line on
stderr says why), never a failed install. An editable install
(``pip install -e .``) is always pure: compiled files next to the sources would shadow edits.
"""
from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
import tempfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401  (the rest of the backend, unchanged)
    build_sdist,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

MYPY_PIN = "mypy==2.4.1"  # provides mypyc; the same pin is in the [compile] extra
# The modules a story passes through: families, chains, noise, rendering, the example and its rows.
HOT = (
    "clutrr/core/draws.py",
    "clutrr/core/chainer.py",
    "clutrr/core/noise.py",
    "clutrr/core/family.py",
    "clutrr/core/genealogy.py",
    "clutrr/render/stitching.py",
    "clutrr/render/measures.py",
    "clutrr/story/example.py",
    "clutrr/story/generator.py",
    "clutrr/io/csv_format.py",
    "clutrr/io/rows.py",
    "clutrr/core/memory.py",
    "clutrr/pipeline/tasks.py",
    "clutrr/core/closed_among.py",
    "clutrr/core/large_family.py",
)
# C modules built beside the mypyc ones, for what mypyc compiles to generic calls: each is optional,
# and the code that uses it falls back to Python when it is missing (a pure wheel, an editable install).
C_MODULES = {
    "clutrr.core._mtseed": "clutrr/core/_mtseed.c",  # random.Random(n)'s state, seeded faster (core/draws.py)
    "clutrr.io._lines": "clutrr/io/_lines.c",  # a common example's JSONL and CSV lines, straight into bytes
}
_KIND = "CLUTRR_BUILD_KIND"  # "wheel" while this backend builds a wheel (setup.py reads it)
_BASE = "CLUTRR_BUILD_BASE"  # a wheel build's own temporary build folder (never ./build: no stale files)


def _say(message: str) -> None:
    print(f"clutrr build: {message}", file=sys.stderr, flush=True)


def compiler_found() -> bool:
    """Whether the C compiler Python was built with (or $CC) is on PATH."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    return bool(words) and shutil.which(words[0]) is not None


def compile_wanted() -> bool:
    """Whether a wheel built now compiles the hot modules: not CLUTRR_PURE=1, and a compiler at hand."""
    if os.environ.get("CLUTRR_PURE", "") not in ("", "0"):
        return False
    return compiler_found()


def ext_modules(root: str) -> list:
    """The compiled extensions of a wheel build, or [] for a pure one (setup.py calls this; the
    backend's other steps, metadata and requirements, and editable installs get [])."""
    if os.environ.get(_KIND) != "wheel" or _BASE not in os.environ:
        return []
    if not compile_wanted():
        _say("pure-Python wheel (CLUTRR_PURE is set or no C compiler was found)")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say(f"pure-Python wheel: mypyc is not installed (pip install '{MYPY_PIN}')")
        return []
    paths = [os.path.relpath(os.path.join(root, p)) for p in HOT]
    try:
        compiled = mypycify([*paths, "--follow-imports=silent", "--ignore-missing-imports"], opt_level="3",
                            debug_level="0", target_dir=os.path.join(build_base(), "mypyc"))
    except (Exception, SystemExit) as exc:  # a type error, an unsupported construct: build it pure
        _say(f"pure-Python wheel: mypyc failed ({exc!r})")
        return []
    return [*compiled, *c_extensions(root)]


def c_extensions(root: str) -> list:
    """The setuptools extensions of :data:`C_MODULES` (plain C against the CPython API)."""
    from setuptools import Extension

    return [Extension(name, [os.path.relpath(os.path.join(root, source))]) for name, source in C_MODULES.items()]


def build_base() -> str:
    """Where setuptools and mypyc put their intermediate files: the wheel build's own folder."""
    return os.environ.get(_BASE, "build")


def compile_requires() -> list[str]:
    """What a wheel build asks for besides setuptools: mypy (mypyc) when it compiles, else nothing."""
    return [MYPY_PIN] if compile_wanted() else []


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *compile_requires()]


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return _setuptools.get_requires_for_build_editable(config_settings)  # never compiled: nothing more


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    with tempfile.TemporaryDirectory(prefix="clutrr-build-") as base:
        os.environ.update({_KIND: "wheel", _BASE: base})
        try:
            return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)
        finally:
            del os.environ[_KIND], os.environ[_BASE]


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
