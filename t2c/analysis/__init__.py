"""Analysis: the polyhedral model of an IS reference and what it implies.

    Kernel --model--> Program (loop tree, statements, domains, accesses)
           --dependences--> Analysis (scalar webs, exact dependences, loop facts)
           --cost--> flop and byte counts

`analyze(kernel)` gives an `Analysis` or raises `NotAffine` when the reference leaves
the model (while loops, data-dependent bounds or subscripts); `facts(kernel)` gives
the IS `Facts` summary in both cases.  islpy is used only in `isl_bridge`.
"""
from __future__ import annotations

from ..ir import Facts, Kernel
from .dependences import Analysis, LoopFacts, Web, analyze_program, loop_paths
from .model import Access, Loop, NotAffine, Program, Statement, Stmt, build_program


def analyze(kernel: Kernel) -> Analysis:
    """The dependences and loop facts of a kernel's reference (NotAffine if none)."""
    return analyze_program(build_program(kernel))


def fully_written(kernel: Kernel) -> dict[str, bool]:
    """For each `out` array: do the reference's unconditional writes reach every element?

    An array some of whose elements the reference never writes keeps the caller's values
    there, so it is really `inout`; the frontend uses this to correct its intents.  Outside
    the model nothing is proven (an empty answer)."""
    from .dependences import _specs
    from .isl_bridge import Model
    try:
        prog = build_program(kernel)
    except NotAffine:
        return {}
    model = Model(_specs(prog), prog.sizes, prog.context)
    out = {}
    for a in kernel.arrays:
        if a.intent == "out":
            try:
                out[a.name] = model.covers(a.name, a.shape)
            except Exception:                  # an extent isl cannot read: prove nothing
                out[a.name] = False
    return out


def facts(kernel: Kernel) -> Facts:
    """The IS summary: affine or not, parallel loops (as `var@depth`), flops and bytes."""
    from .cost import counts_text
    try:
        an = analyze(kernel)
    except NotAffine:
        return Facts(affine=False)
    par = tuple(f"{l.var}@{l.depth}" for l in an.loops if l.parallel)
    flops, nbytes = counts_text(an)
    return Facts(affine=True, parallel_loops=par, flops=flops, bytes=nbytes)


__all__ = ["Access", "Analysis", "Loop", "LoopFacts", "NotAffine", "Program", "Statement",
           "Stmt", "Web", "analyze", "build_program", "facts", "fully_written", "loop_paths"]
