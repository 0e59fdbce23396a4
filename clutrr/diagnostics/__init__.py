"""Diagnostics from the seed papers: verification, artifact audit, NLI recasting, probes, permutation metrics."""
