"""Frontends: a kernel source -> the IS.  `read_kernel` picks one by the file's suffix.

    .c   -> frontends.c.read_c (C kernels, PolyBench/C)
    .md  -> frontends.prose.read_spec (Markdown kernel specs, docs/specs.md)

Anything else is a UserError naming the file.  Reading counts nothing: the flops and bytes
the bench reports are counted where it asks for them (verify.rungs.cpu_timing), at its one
case's sizes, so that runs which never time a kernel (every emu run) pay nothing for them.
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
