"""Readers of untrusted JSON and Python-literal text, bounded in size and nesting depth.

A file or a server may hold ``[[[[...]]]]`` a million levels deep: the standard readers
then fail with RecursionError (or MemoryError) deep inside the parser. :func:`loads` and
:func:`literal` measure the nesting first and refuse it with a ValueError that says so;
every caller already turns a ValueError into its one-line message naming the file and line.
"""
from __future__ import annotations

import ast
import json
import re
import warnings

MAX_DEPTH = 64  # far above any record clutrr reads (a prediction, a reply, a story's edges: 4 or fewer)
MAX_LITERAL = 1 << 20  # characters of one Python-literal field

_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_PY_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"|\'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'')
_BRACKETS = re.compile(r"[\[\]{}()]")
_OPENING = "[{("


def too_deep(text: str, strings: re.Pattern = _JSON_STRING, limit: int = MAX_DEPTH) -> bool:
    """Whether brackets outside the quoted strings of ``text`` nest deeper than ``limit``."""
    if sum(text.count(c) for c in _OPENING) <= limit:
        return False
    depth = 0
    for m in _BRACKETS.finditer(strings.sub('""', text)):
        depth += 1 if m.group() in _OPENING else -1
        if depth > limit:
            return True
    return False


def loads(text: str | bytes, limit: int = MAX_DEPTH) -> object:
    """``json.loads(text)``, but a ValueError (not RecursionError) for nesting deeper than ``limit``."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if too_deep(text, _JSON_STRING, limit):
        raise ValueError(f"JSON nested deeper than {limit} levels")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"JSON nested deeper than {limit} levels") from None


def literal(text: str, limit: int = MAX_DEPTH, max_chars: int = MAX_LITERAL) -> object:
    """``ast.literal_eval(text)`` for untrusted text: ValueError for text longer than
    ``max_chars``, nested deeper than ``limit``, or that the parser cannot build (a chain of
    a million operators), instead of RecursionError, MemoryError or TypeError."""
    if len(text) > max_chars:
        raise ValueError(f"longer than {max_chars:,} characters")
    if too_deep(text, _PY_STRING, limit):
        raise ValueError(f"nested deeper than {limit} levels")
    try:
        with warnings.catch_warnings():  # an invalid escape in a string is the file's problem, not a warning
            warnings.simplefilter("ignore")
            return ast.literal_eval(text)
    except SyntaxError as exc:
        raise ValueError(f"not a Python literal ({exc.msg})") from None
    except (RecursionError, MemoryError):
        raise ValueError("too complex to parse (nested operators)") from None
    except TypeError as exc:  # e.g. an unhashable dict key
        raise ValueError(f"not a Python literal ({exc})") from None
