"""Subcommands of the ``clutrr`` CLI, one module each (see clutrr.cli)."""
