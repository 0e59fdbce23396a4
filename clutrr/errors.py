"""The error type every command turns into one line on stderr and exit code 2."""


class UsageError(Exception):
    """Bad input from the user: an argument, a file or a path. The message is one line."""
