"""What a process keeps for its whole life, frozen out of the cyclic collector's way.

The command line and an engine's workers load KBs and template banks once and freeze them
(``gc.freeze``): the collector's full passes never walk them again. Such a process marks itself
here, and the task loop freezes what each task leaves (the generator's caches) too. The mark is
a flag, not ``gc.get_freeze_count()``: counting frozen objects walks every one of them, and
asked after every task of a long run, that took about a third of its CPU time.
"""
from __future__ import annotations

import gc

_marked = False


def freeze_kept() -> None:
    """Freeze every object tracked now, and mark this process as one that freezes what it keeps."""
    global _marked
    gc.freeze()
    _marked = True


def freezes_kept() -> bool:
    """Whether this process called :func:`freeze_kept`."""
    return _marked
