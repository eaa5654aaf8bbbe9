"""The `poly` generator: a polyhedral compiler from the IS to a CUDA candidate, no model.

    generate(kernel, options=DEFAULT, target=SM90) -> str   the candidate .cu text
    explanation(kernel, options, target) -> str        its mapping notes and why each loop
                                                       is parallel or in order

Passes (lower.py): analysis -> distribute -> permute -> fuse -> wavefront -> map to grid, or
isl's scheduler's tree when it runs fewer loops in order (schedule.py) -> 2-d bands in tiles, a
launch per diagonal of tiles (wavetiles.py) -> each launch's form: reductions, scans, rows,
one-block loops, sweeps, tiles, merged runs, persistent loops (forms.py) -> print.  Options
(options.py) are frozen records, one per pass (docs/poly-options.md); the GPU's limits are a
`runtime.target.Target`.  transform.py holds the loop-tree passes, mapping.py the host/grid
split and scalar storage, forms.py every decision the printing needs, cuda.py the printer and
the ABI, with oneblock.py (host loops in one block), persistent.py (host loops in one
cooperative launch), stage.py (operands through shared memory) and tensor.py (their products on
the tensor cores).  docs/poly.md describes it all.
"""
from __future__ import annotations

from ...ir import Kernel
from ...runtime.target import SM90, Target
from .lower import LoweringError, lower
from .options import DEFAULT, PolyOptions


def generate(kernel: Kernel, options: PolyOptions = DEFAULT, target: Target = SM90) -> str:
    """The candidate `.cu` text for `kernel` on `target` (see DESIGN §3 for the ABI)."""
    return lower(kernel, options, target)


def explanation(kernel: Kernel, options: PolyOptions = DEFAULT, target: Target = SM90) -> str:
    """What `t2c gen --explain` prints: the candidate's header (its launches and their forms, or
    why it runs in one thread), the reference numbered, and each loop's reason (analysis/explain.py)."""
    from ...analysis import NotAffine, analyze
    from ...analysis.explain import explain, numbered
    head = []
    for line in generate(kernel, options, target).splitlines():
        if not line.startswith("//"):
            break
        head.append(line[2:].removeprefix(" "))
    try:
        reasons = explain(analyze(kernel))
    except NotAffine as e:
        reasons = numbered(kernel.reference) + f"\noutside the polyhedral model: {e}\n"
    return "\n".join(head) + "\n\n" + reasons


__all__ = ["DEFAULT", "LoweringError", "PolyOptions", "explanation", "generate", "lower"]
