"""clutrr: a generator of CLUTRR-style kinship reasoning benchmarks with provably right labels."""

__version__ = "0.3.0"

from clutrr.story.generator import Example, GeneratorConfig, make_example  # noqa: E402

__all__ = ["Example", "GeneratorConfig", "make_example", "__version__"]
