"""Generator settings of stories told in a kinship system's terms (``--kinship NAME|PATH``)."""
from __future__ import annotations


def kinship_fields(system: str) -> dict[str, str]:
    """GeneratorConfig fields of stories told in a system's terms: its compiled KB, its own
    sentences and no fallback bank; KBError (one line) when the terminology is refused."""
    from clutrr.kinship.derive import kinship_bank_path, kinship_kb_path

    return {"kb": kinship_kb_path(system), "templates": kinship_bank_path(system), "fallback_templates": "none"}
