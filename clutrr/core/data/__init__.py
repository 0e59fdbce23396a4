"""Data shipped with the package (first-name lists)."""
