"""clutrr: a generator of CLUTRR-style kinship reasoning benchmarks with provably right labels."""

__version__ = "0.1.0"
