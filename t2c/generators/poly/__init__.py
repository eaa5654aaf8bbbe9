"""The `poly` generator: a polyhedral compiler from the IS to a CUDA candidate, no model.

    generate(kernel, options=DEFAULT, target=SM90) -> str   the candidate .cu text
    explanation(kernel, options, target) -> str        its mapping notes and why each loop
                                                       is parallel or in order
    unmodelled(kernel, options, target) -> str | None  why it runs in one thread, outside the
                                                       model (the construct and its line)

Passes (lower.py): analysis, loop passes (transform.py), mapping (mapping.py), isl's schedule
(schedule.py), tiled wavefronts, the forms of each launch (forms.py and the form modules; local
arrays that live in one iteration as registers: contract.py; with `launches.persistent`, host
loops as one cooperative launch: persistent.py), then printing
(cuda.py). Options are frozen records, one per pass (options.py); the GPU's limits a
`runtime.target.Target`. Every transformation is checked against the exact dependences; outside
the model the candidate is the reference in one thread. docs/poly.md describes each pass.
"""
from __future__ import annotations

from ...ir import Kernel
from ...runtime.target import SM90, Target
from .lower import LoweringError, lower, unmodelled
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
        reasons = numbered(kernel.reference, kernel.origin) + f"\noutside the polyhedral model: {e}\n"
    return "\n".join(head) + "\n\n" + reasons


__all__ = ["DEFAULT", "LoweringError", "PolyOptions", "explanation", "generate", "lower", "unmodelled"]
