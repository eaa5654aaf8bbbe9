"""Frontends: a kernel source -> the IS.  `read_kernel` picks one by the file's suffix.

    .c   -> frontends.c.read_c (C kernels, PolyBench/C)
    .md  -> frontends.prose.read_spec (Markdown kernel specs, docs/specs.md)

Anything else is a UserError naming the file.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import UserError


def read_kernel(path, function: str | None = None):
    """The validated Kernel of a C file or a prose spec (`function` applies to C only)."""
    suffix = Path(path).suffix.lower()
    if suffix in (".c", ".h"):
        from .c import read_c
        return read_c(path, function)
    if suffix in (".md", ".markdown"):
        from .prose import read_spec
        return read_spec(path)
    raise UserError(f"cannot tell which frontend reads '{suffix or 'no suffix'}' files", file=str(path),
                    hint="give a C file (.c) or a Markdown kernel spec (.md)")
