"""The poly lowering: an IS kernel and options in, CUDA candidate text out.

`lower(kernel, options)` reads top to bottom, one line per pass.  Every transforming
pass is checked against the reference's exact dependences, so the result computes
what the reference computes; where the polyhedral model does not apply (`NotAffine`)
the candidate is the whole reference in one thread, which is always correct.
"""
from __future__ import annotations

from ...analysis import NotAffine, analyze
from ...ir import Kernel
from .cuda import Printer, sequential_candidate
from .mapping import map_to_grid
from .options import DEFAULT, PolyOptions
from .transform import distribute, fuse, permute, wavefront


class LoweringError(RuntimeError):
    """A pass produced an illegal schedule: a bug in t2c, never a property of the kernel."""


def lower(kernel: Kernel, options: PolyOptions = DEFAULT) -> str:
    if options.sequential:
        return sequential_candidate(kernel, "the options ask for one thread")
    try:
        an = analyze(kernel)                             # polyhedral model + exact dependences
    except NotAffine as e:
        return sequential_candidate(kernel, f"not affine: {e}")   # outside the model: one thread
    tree = an.program.body                               # the reference's own loop tree
    if options.distribute:
        tree = distribute(an, tree)                      # one nest per statement group: own mapping each
    if options.permute:
        tree = permute(an, tree)                         # parallel loops outward: they become the grid
    if options.fuse:
        tree = fuse(an, tree)                            # re-join nests sharing a grid: fewer launches
    if options.wavefront:
        tree = wavefront(an, tree)                       # skew fully carried 2-d bands: parallel diagonals
    if not an.legal(tree):                               # every pass checked itself; this is the last guard
        raise LoweringError(f"{kernel.name}: the transformed schedule breaks a dependence")
    plan = map_to_grid(an, tree, options)                # parallel bands -> launches, carried loops -> host
    return Printer(kernel, an, plan, options).candidate()   # kernels, NAME_device, the drop-in NAME
