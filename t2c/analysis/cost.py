"""Flop and byte counts of a kernel at given sizes, from its polyhedral model.

flops: floating-point operations per statement instance (+ - * /, compound
assignments, math calls, negation; model.py counts them) times the number of
instances.  bytes: the compulsory traffic, each array element read loaded once
and each element written stored once (the footprints of the access relations);
scalars in registers are free.  Both are exact counts of the model at the given
sizes (isl counts the points), not estimates of a particular implementation; under a
geometric counter, at the counter's values only (model.counter_values).

Reads through data are not points of the model: a gather (`x[col[k]]`, `table[idx[j]]`), a
loop kept whole because its bounds or exits come from data (model `opaque`: CSR rows, bags),
an atomic update at a computed cell.  Such counts are bounds, and `Work.bounded` says so: a
gathered array's reads count at most its whole extent (the union with its affine footprint,
capped there), or its affine footprint plus one element per gathering reference and instance
where that is less (exact where the affine reads alone cover the extent); an opaque loop's body
runs a number of times the model does not know, so its flops are left out (the flops are then
a lower count, the bytes an upper one).
"""
from __future__ import annotations

from math import prod
from typing import NamedTuple

from ..ir import DTYPES
from ..ir.kernel import eval_extent
from .dependences import Analysis, isl_model
from .model import counter_values


class Work(NamedTuple):
    flops: int
    bytes: int
    bounded: bool = False      # reads through data: bytes an upper bound, flops a lower one


def counts(an: Analysis, sizes: dict[str, int]) -> Work:
    """(flops, bytes, bounded) at `sizes`."""
    prog = an.program
    exact = counter_values(prog)
    model = an.model if exact is prog else isl_model(exact)
    runs = {s.name: model.count(s.name, sizes) for s in prog.statements
            if s.flops and not s.opaque or s.gathers}
    flops = sum(s.flops * runs[s.name] for s in prog.statements if s.flops and not s.opaque)
    bounded = any(s.opaque or s.atomic for s in prog.statements)
    nbytes = 0
    for a in prog.kernel.arrays:
        read, written = model.footprint(a.name, sizes)
        gathers = [(s, s.gathers.count(a.name)) for s in prog.statements if a.name in s.gathers and runs[s.name]]
        extent = prod(eval_extent(e, sizes) for e in a.shape) if gathers else 0
        if read < extent:                  # else the gathers read nothing the affine reads do not
            most = extent if any(s.opaque for s, _ in gathers) else \
                read + sum(refs * runs[s.name] for s, refs in gathers)
            read, bounded = min(most, extent), True
        nbytes += (read + written) * DTYPES[a.dtype][0]
    return Work(flops, nbytes, bounded)
