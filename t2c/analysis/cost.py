"""Flop and byte counts of a kernel at given sizes, from its polyhedral model.

flops: floating-point operations per statement instance (+ - * /, compound
assignments, math calls, negation; model.py counts them) times the number of
instances.  bytes: the compulsory traffic, each array element read loaded once
and each element written stored once (the footprints of the access relations);
scalars in registers are free.  Both are exact counts of the model at the given
sizes (isl counts the points), not estimates of a particular implementation.
"""
from __future__ import annotations

from ..ir import DTYPES
from .dependences import Analysis


def counts(an: Analysis, sizes: dict[str, int]) -> tuple[int, int]:
    """(flops, bytes) at `sizes`."""
    prog = an.program
    flops = sum(s.flops * an.model.count(s.name, sizes) for s in prog.statements if s.flops)
    nbytes = 0
    for a in prog.kernel.arrays:
        read, written = an.model.footprint(a.name, sizes)
        nbytes += (read + written) * DTYPES[a.dtype][0]
    return flops, nbytes

