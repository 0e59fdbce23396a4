"""The package's build backend: setuptools, plus a mypyc-compiled story path in wheels.

A wheel (``pip install .``, ``pip wheel .``, ``python -m build``) has the modules in ``HOT``
compiled by mypyc, which the backend asks the build front end for (pinned, ``MYPY_PIN``) only
then. ``CLUTRR_PURE=1``, no C compiler, or a compile that fails for any reason gives a pure-Python
wheel instead (one line on stderr says why), never a failed install. An editable install
(``pip install -e .``) is always pure: compiled files next to the sources would shadow edits.
"""
from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig

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
)
_KIND = "CLUTRR_BUILD_KIND"  # set by this backend for setup.py: "wheel" or "editable"


def _say(message: str) -> None:
    print(f"clutrr build: {message}", file=sys.stderr, flush=True)


def compiler_found() -> bool:
    """Whether the C compiler Python was built with (or $CC) is on PATH."""
    cc = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    words = shlex.split(cc)
    return bool(words) and shutil.which(words[0]) is not None


def compile_wanted() -> bool:
    """Whether this build compiles the hot modules: a wheel, not CLUTRR_PURE=1, a compiler at hand."""
    if os.environ.get("CLUTRR_PURE", "") not in ("", "0"):
        return False
    if os.environ.get(_KIND, "wheel") != "wheel":
        return False
    return compiler_found()


def ext_modules(root: str) -> list:
    """The compiled extensions of a wheel build, or [] for a pure one (setup.py calls this)."""
    if not compile_wanted():
        if os.environ.get(_KIND) == "wheel":
            _say("pure-Python wheel (CLUTRR_PURE is set or no C compiler was found)")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say(f"pure-Python wheel: mypyc is not installed (pip install '{MYPY_PIN}')")
        return []
    paths = [os.path.relpath(os.path.join(root, p)) for p in HOT]
    try:
        return mypycify([*paths, "--follow-imports=silent", "--ignore-missing-imports"], opt_level="3",
                        debug_level="0")
    except (Exception, SystemExit) as exc:  # a type error, an unsupported construct: build it pure
        _say(f"pure-Python wheel: mypyc failed ({exc!r})")
        return []


def get_requires_for_build_wheel(config_settings=None) -> list[str]:
    extra = [MYPY_PIN] if compile_wanted() else []
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]


def get_requires_for_build_editable(config_settings=None) -> list[str]:
    return _setuptools.get_requires_for_build_editable(config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    os.environ[_KIND] = "wheel"
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    os.environ[_KIND] = "editable"
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
