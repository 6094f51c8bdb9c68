"""The one error type for problems selfdx can name in the user's input.

`SelfdxError` is an Inspect `PrerequisiteError`, so `inspect eval` prints its message as one
clear line with no traceback and exits non-zero; it is also a `ValueError`, so Python callers can
catch it as the bad value it reports. The `selfdx` command prints it the same way.
"""

from __future__ import annotations

import sys

from inspect_ai._util.error import PrerequisiteError
from rich.text import Text


class SelfdxError(PrerequisiteError, ValueError):
    """Bad input or misuse, with a message naming the file, row, item, argument and field."""

    def __init__(self, message: str) -> None:
        ValueError.__init__(self, message)
        # Text, not a markup string: brackets in file names or values are printed as they are.
        PrerequisiteError.__init__(self, Text(f"selfdx: {message}"))

    def __str__(self) -> str:
        return str(self.args[0])


class ArgumentError(SelfdxError):
    """A task or command argument of the wrong type or value; the message names the argument."""


class ScorerArgumentError(PrerequisiteError):
    """An argument a scorer does not have (`inspect score ... -S dta=demo`): not a ValueError,
    which Inspect's scorer loader would take for "scorer not found" and hide."""

    def __init__(self, message: str) -> None:
        super().__init__(Text(f"selfdx: {message}"))
        self.message = message

    def __str__(self) -> str:
        return self.message


def warn(message: str) -> None:
    """A one-line warning on standard error: something was left out, and why."""
    print(f"selfdx: warning: {message}", file=sys.stderr, flush=True)
