"""``mypyc_attr`` for the modules a compiled wheel builds with mypyc (docs/speed.md).

mypyc reads the decorator while compiling (a class marked ``native_class=False`` stays an
ordinary Python class: an exception, or a class that is pickled to workers or read through
its ``__dict__``; ``serializable=True`` lets a native class pickle as in Python); at run time
it does nothing, so no install needs mypy_extensions.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr
else:
    def mypyc_attr(*_names: str, **_attrs: object):
        """Leave the class as it is (mypyc has already read the attributes)."""
        return lambda thing: thing

__all__ = ["mypyc_attr"]
