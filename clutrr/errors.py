"""The error type every command turns into one line on stderr and exit code 2."""


class UsageError(Exception):
    """Bad input from the user: an argument, a file or a path. The message is one line."""


def yaml_error_line(exc: Exception) -> str:
    """A PyYAML error as ``"LINE: not valid YAML (PROBLEM)"``, one line, to follow ``"path:"``."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    where = f"{mark.line + 1}: " if mark is not None else " "
    return f"{where}not valid YAML ({problem})"
