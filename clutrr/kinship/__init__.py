"""Kinship systems as data: a terminology file (``kb_rules/systems``) read and validated
(:mod:`~clutrr.kinship.terminology`), compiled to a KB whose composition rules are derived from
the world model (:mod:`~clutrr.kinship.derive`), its one-fact sentences, glossary and kin types."""
