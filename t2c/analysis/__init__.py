"""Analysis: the polyhedral model of an IS reference and what it implies.

    Kernel --model (untiling.py: hand tiling undone where exact)--> Program (loop tree, statements, domains, accesses)
           --dependences--> Analysis (scalar webs, exact dependences, loop facts)
           --cost--> flop and byte counts

`analyze(kernel)` gives an `Analysis` or raises `NotAffine` when the reference leaves
the model (while loops, data-dependent bounds or subscripts); `facts(kernel, dataset)`
gives the IS `Facts` summary in both cases.  islpy is used only in `isl_bridge`.
"""
from __future__ import annotations

from pycparser import c_ast

from ..ir import DATASETS, Count, Facts, Kernel
from ..ir.csyntax import walk
from .cost import counts
from .dependences import Analysis, LoopFacts, Web, analyze_program, isl_model, loop_paths
from .model import Access, Loop, NotAffine, Program, Statement, Stmt, calls_with_arrays, counter_values
from .untiling import build_program


def analyze(kernel: Kernel) -> Analysis:
    """The dependences and loop facts of a kernel's reference (NotAffine if none)."""
    return analyze_program(build_program(kernel))


def fully_written(kernel: Kernel) -> dict[str, bool]:
    """For each `out` array: do the reference's unconditional writes reach every element?

    An array some of whose elements the reference never writes keeps the caller's values
    there, so it is really `inout`; the frontend uses this to correct its intents.  Outside
    the model nothing is proven (an empty answer)."""
    try:
        prog = build_program(kernel)
    except NotAffine:
        return {}
    model = isl_model(counter_values(prog))   # a geometric counter at its values only
    out = {}
    for a in kernel.arrays:
        if a.intent == "out":
            try:
                out[a.name] = model.covers(a.name, a.shape)
            except Exception:                  # an extent isl cannot read: prove nothing
                out[a.name] = False
    return out


def out_of_bounds(kernel: Kernel) -> list[str]:
    """Accesses of the reference that reach outside their array's extents, each as a sentence
    with an example.  Only statements whose every access happens (no `if`, no `?:`, `&&`, `||`
    around it) are judged, so a guarded access is never blamed; a cell computed from data (an
    atomic update's) is the reference check's to judge; outside the model, none."""
    out = []
    for model, st, a, ext in _judged_accesses(kernel, lambda name, shape: True):
        if example := model.outside(st.name, a.name, a.index, ext):
            out.append(f"`{st.text.strip()}` {'writes' if a.write else 'reads'} {a.name} "
                       f"outside its extent [{']['.join(ext)}], e.g. {example}")
    return out


def implied_by_extents(kernel: Kernel) -> list[str]:
    """The constraints on the sizes under which every access of an array with constant extents
    (`float a[1000]` at file scope, `double b[64]`, `double (*A)[256]`) stays inside it, for the accesses that always
    happen (as out_of_bounds judges them): a loop to n over a[1000] gives `n <= 1000`. The
    verifier then draws only sizes the arrays hold; outside the model, none."""
    fixed = {a.name for a in kernel.arrays if a.shape and any(e.isdigit() for e in a.shape)}
    if not kernel.sizes or not fixed:
        return []                                   # (no model built for the others)
    out, model = [], None
    for model, st, a, ext in _judged_accesses(kernel, lambda name, shape: name in fixed):
        out += [c for c in model.inside_when(st.name, a.name, a.index, ext) if c not in out]
    return model.necessary(out) if out else []


def _judged_accesses(kernel: Kernel, which):
    """(model, statement, access, extents) of each access out_of_bounds judges: in a statement
    whose every access happens, an array's (or local array's) whose shape `which(name, shape)`
    takes, at a cell not computed from data."""
    try:
        prog = build_program(kernel)
    except NotAffine:
        return
    shapes = {a.name: a.shape for a in kernel.arrays} | {n: v.shape for n, v in prog.locals.items() if v.shape}
    shapes = {n: e for n, e in shapes.items() if e and which(n, e)}
    if not shapes:
        return
    model = isl_model(counter_values(prog))   # a geometric counter at its values only
    for st in prog.statements:
        if st.conditional or any(isinstance(n, c_ast.TernaryOp) or isinstance(n, c_ast.BinaryOp)
                                 and n.op in ("&&", "||") for n in walk(st.node)):
            continue
        for a in st.accesses:
            ext = shapes.get(a.name)
            if a.index and ext and not a.atomic and len(ext) == len(a.index):
                yield model, st, a, ext


def facts(kernel: Kernel, dataset: str) -> Facts:
    """The IS summary: affine or not, parallel loops (as `var@depth`), and the exact flops and
    bytes at each preset of the kernel up to `dataset` (counting costs time in proportion to
    the instances, so a run counts only what it may measure)."""
    try:
        an = analyze(kernel)
    except NotAffine:
        return Facts(affine=False)
    par = tuple(f"{l.var}@{l.depth}" for l in an.loops if l.parallel)
    counted = [d for d in DATASETS[:DATASETS.index(dataset) + 1]
               if all(s.preset(d) is not None for s in kernel.sizes)]
    return Facts(affine=True, parallel_loops=par, counts=tuple(Count(d, *counts(an, kernel.dataset_sizes(d)))
                                                                for d in counted))


__all__ = ["Access", "Analysis", "Loop", "LoopFacts", "NotAffine", "Program", "Statement",
           "Stmt", "Web", "analyze", "build_program", "calls_with_arrays", "facts", "fully_written",
           "loop_paths", "out_of_bounds"]
