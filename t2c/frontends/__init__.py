"""Frontends: a kernel source -> the IS.  `read_kernel` picks one by the file's suffix.

    .c   -> frontends.c.read_c (C kernels, PolyBench/C)
    .md  -> frontends.prose.read_spec (Markdown kernel specs, docs/specs.md)

Anything else is a UserError naming the file.  Given the run's dataset, `read_kernel` also
fills the IS's `facts` (analysis.facts: affine, parallel loops, exact flops and bytes at each
preset up to that dataset), once, for every later stage to read.
"""
from __future__ import annotations

from pathlib import Path

from ..analysis import facts
from ..errors import UserError


def read_kernel(path, function: str | None = None, dataset: str | None = None):
    """The validated Kernel of a C file or a prose spec (`function` applies to C only), with
    its facts when a run's `dataset` is given."""
    suffix = Path(path).suffix.lower()
    if suffix in (".c", ".h"):
        from .c import read_c
        k = read_c(path, function)
    elif suffix in (".md", ".markdown"):
        from .prose import read_spec
        k = read_spec(path)
    else:
        raise UserError(f"cannot tell which frontend reads '{suffix or 'no suffix'}' files", file=str(path),
                        hint="give a C file (.c) or a Markdown kernel spec (.md)")
    return k.replace(facts=facts(k, dataset)) if dataset else k
