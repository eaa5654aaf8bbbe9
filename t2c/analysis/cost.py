"""Flop and byte counts of a kernel at given sizes, from its polyhedral model.

flops: floating-point operations per statement instance (+ - * /, compound
assignments, math calls, negation; model.py counts them) times the number of
instances.  bytes: the compulsory traffic, each array element read loaded once
and each element written stored once (the footprints of the access relations);
scalars in registers are free.  Both are exact counts of the model at the given
sizes (isl counts the points), not estimates of a particular implementation; under a
geometric counter, at the counter's values only (model.counter_values).
"""
from __future__ import annotations

from ..ir import DTYPES
from .dependences import Analysis, isl_model
from .model import counter_values


def counts(an: Analysis, sizes: dict[str, int]) -> tuple[int, int]:
    """(flops, bytes) at `sizes`."""
    prog = an.program
    exact = counter_values(prog)
    model = an.model if exact is prog else isl_model(exact)
    flops = sum(s.flops * model.count(s.name, sizes) for s in prog.statements if s.flops)
    nbytes = 0
    for a in prog.kernel.arrays:
        read, written = model.footprint(a.name, sizes)
        nbytes += (read + written) * DTYPES[a.dtype][0]
    return flops, nbytes

