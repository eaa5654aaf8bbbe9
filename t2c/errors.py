"""Errors a user can act on, kept apart from job outcomes and from bugs.

A `UserError` is a mistake in what the user gave (a file, a flag): the CLI prints its one line
`file:line:col: what is wrong; what to do` and exits 2, never with a traceback; in a batch it
becomes that kernel's result and the batch goes on. An `EndpointFailed` is a `UserError` with
its own exit code, 6, so that a script can tell "the server is down" from "my flags are wrong"
(2) and "the model's kernel was rejected" (1); a batch does not cache it, so the next run asks
again.
"""
from __future__ import annotations

#: t2c's exit codes (docs/usage.md), here so that every command module exits alike.
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_REGRESSION, EXIT_INTERNAL, EXIT_NOTHING = 0, 1, 2, 3, 4, 5
EXIT_ENDPOINT, EXIT_INTERRUPTED = 6, 130


class UserError(Exception):
    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 col: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message, self.file, self.line, self.col, self.hint = message, file, line, col, hint

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = f"{self.file}:{self.line or 1}:{self.col or 1}: "
        return where + self.message + (f"; {self.hint}" if self.hint else "")


class NoKernel(UserError):
    """A C file with no one function to read as the kernel (only `main`, or several unmarked)."""


class UnsupportedC(UserError):
    """The C is valid but uses something t2c does not take (goto, recursion, ...)."""


class EndpointFailed(UserError):
    """The model endpoint failed: unreachable, timing out, answering garbage or errors, or
    refusing the request.  The CLI exits 6."""
