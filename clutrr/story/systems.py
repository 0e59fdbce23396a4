"""Generator settings of stories told in a kinship system's terms (``--kinship NAME|PATH``)."""
from __future__ import annotations

import re


def kinship_fields(system: str) -> dict[str, str]:
    """GeneratorConfig fields of stories told in a system's terms: its compiled KB, its own
    sentences and no fallback bank; KBError (one line) when the terminology is refused."""
    from clutrr.kinship.derive import kinship_bank_path, kinship_kb_path

    return {"kb": kinship_kb_path(system), "templates": kinship_bank_path(system), "fallback_templates": "none"}


RECORDED = re.compile(r"kinship:(?P<name>[^@/]+)@sha256:(?P<sha>[0-9a-f]{64})(?P<bank>/templates)?")


def recorded_source(source: str) -> str:
    """A KB or template source as ``config.json`` records it, as a path this machine reads: a
    terminology's compiled file is recorded as ``kinship:NAME@sha256:HEX`` (``/templates`` for its
    bank) and found again from the built-in system NAME when its file still has that sha256; any
    other source is returned as given. KBError (one line) when no installed terminology matches."""
    m = RECORDED.fullmatch(source)
    if m is None:
        return source
    from clutrr.core.kb import KBError
    from clutrr.kinship.terminology import builtin_terminologies, load_terminology

    if m["name"] not in builtin_terminologies() or load_terminology(m["name"]).digest != m["sha"]:
        raise KBError(f"{source}: no installed kinship system has this name and sha256 (the data were made from "
                      "another terminology file; give it with --kinship PATH)")
    fields = kinship_fields(m["name"])
    return fields["templates"] if m["bank"] else fields["kb"]
