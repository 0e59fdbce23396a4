"""clutrr: a generator of CLUTRR-style kinship reasoning benchmarks with provably right labels."""

__version__ = "0.3.0"

from importlib.machinery import EXTENSION_SUFFIXES  # noqa: E402
from importlib.util import find_spec  # noqa: E402

# True when the story path runs as mypyc-compiled extension modules (a compiled wheel), False when
# it runs as Python source (an editable install, CLUTRR_PURE=1, no compiler): docs/speed.md. Read
# from the module an import would load, without importing it (nor numpy with it) yet.
compiled: bool = find_spec("clutrr.story.generator").origin.endswith(tuple(EXTENSION_SUFFIXES))
BUILD = "compiled" if compiled else "pure Python"

_GENERATOR_NAMES = ("Example", "GeneratorConfig", "make_example")


def __getattr__(name: str) -> object:
    """The story generator's public names, imported on first use: ``clutrr --version`` and the
    command line's start-up (which may set up numpy first) do not load it."""
    if name in _GENERATOR_NAMES:
        from clutrr.story import generator

        return getattr(generator, name)
    raise AttributeError(f"module 'clutrr' has no attribute {name!r}")


__all__ = ["BUILD", "Example", "GeneratorConfig", "compiled", "make_example", "__version__"]
