"""Everything is in pyproject.toml but the compiled modules, which build_support/clutrr_build.py decides."""
import os
import sys

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(ROOT, "build_support"))
import clutrr_build  # noqa: E402


class OptionalBuildExt(build_ext):
    """Compiles the extensions; if the C compiler fails, the wheel is pure Python (the sources stay in it)."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001  (any compiler failure: fall back, never fail the install)
            clutrr_build._say(f"pure-Python wheel: the C build failed ({exc})")
            for out in self.get_outputs():
                if os.path.exists(out):
                    os.remove(out)
            self.extensions = []


setup(ext_modules=clutrr_build.ext_modules(ROOT), cmdclass={"build_ext": OptionalBuildExt},
      options={"build": {"build_base": clutrr_build.build_base()}})
