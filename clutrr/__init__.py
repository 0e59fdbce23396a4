"""clutrr: a generator of CLUTRR-style kinship reasoning benchmarks with provably right labels."""

__version__ = "0.3.0"

from importlib.machinery import EXTENSION_SUFFIXES  # noqa: E402

from clutrr.story import generator as _generator  # noqa: E402
from clutrr.story.generator import Example, GeneratorConfig, make_example  # noqa: E402

# True when the story path runs as mypyc-compiled extension modules (a compiled wheel), False when
# it runs as Python source (an editable install, CLUTRR_PURE=1, no compiler): docs/speed.md.
compiled: bool = _generator.__file__.endswith(tuple(EXTENSION_SUFFIXES))
BUILD = "compiled" if compiled else "pure Python"

__all__ = ["BUILD", "Example", "GeneratorConfig", "compiled", "make_example", "__version__"]
