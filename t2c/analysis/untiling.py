"""Which hand-tiled nests the model reads untiled: those whose tiled order changes no result.

    build_program(kernel) -> Program

Takes a `Kernel`; gives its `Program` (model.py) with each hand-tiled nest (tiles.py) untiled
where that is exact, else as written, and a line of `Program.notes` for each (`t2c gen --explain`
prints them). Untiling reorders the instances; it is kept only where the tiled order, the untiled
program's schedule with a dimension floor((i - L) / T) back above each point loop i, runs every
dependence of the untiled program forward (`Model.respects`, exact through isl; scalars privatized
as their webs allow): both orders then compute the same. A pair of instances of one nest is all
that can change order (outside it, the enclosing loops and the nest's place order them as before).
Refuses a nest whose point loop the model reads as one opaque statement.
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

from dataclasses import replace

from ..ir import Kernel
from .dependences import Analysis, analyze_program, tree_times
from .model import Program, Untiled
from .model import build_program as build_model


def build_program(k: Kernel) -> Program:
    """Module docstring; raises NotAffine where the model does not apply."""
    prog = build_model(k, untile=None)
    if not prog.untiled:
        return prog
    an, notes, kept = None, [], set()
    for t in prog.untiled:
        names, points = ", ".join(t.order), ", ".join(p for _, p, _ in t.pairs)
        if None in t.points:
            kept.add(t.line)
            notes.append(f"line {t.line}: hand-tiled loops {names} kept as written (poly reads their body as "
                         "one statement)")
            continue
        an = an or analyze_program(prog)
        if broken := _reversed(an, t):
            kept.add(t.line)
            notes.append(f"line {t.line}: hand-tiled loops {names} kept as written: running {points} "
                         f"untiled would reverse {broken}")
        else:
            notes.append(f"line {t.line}: hand-tiled loops {names} read untiled, as {points} over their full "
                         "ranges (the tiled order keeps every dependence's)")
    if kept:
        prog = build_model(k, untile=frozenset(t.line for t in prog.untiled) - kept)
    return replace(prog, notes=tuple(notes))


def _reversed(an: Analysis, t: Untiled) -> str | None:
    """None where the tiled order of nest t runs every dependence of `an` forward; else the array
    or scalar of one it would reverse, with its statements."""
    model = an.model
    tiled = model.schedule(_tiled_times(an.program, t))
    if model.respects(an.all_deps, tiled):
        return None
    untiled = an.schedule(an.program.body)
    for name in sorted({acc[0] for s in model.specs.values() for acc in s.accesses}):
        d = model.dependences(untiled, arrays=[name])
        deps = d["flow"].union(d["anti"]).union(d["output"])
        if not model.respects(deps, tiled):
            stmts = sorted({x for pair in model.deps_of(deps) for x in pair[:2]}, key=lambda x: int(x[1:]))
            shown = name[4:] if name.startswith("t2c_") else name
            return f"a dependence on {shown} ({'; '.join(f'{x} line {an.program.statement(x).line}' for x in stmts)})"
    return "a dependence"


def _tiled_times(prog: Program, t: Untiled) -> dict[str, tuple[str, ...]]:
    """`Analysis.times` of the program with nest t's tile loops back: before each point loop, a
    dimension floor((p - L) / T) for each tile loop written just above it (p its point variable, L
    that point loop's start)."""
    lower = {loop.var: loop.lower for loop in t.points}
    size = {p: n for _, p, n in t.pairs}
    tile_of = {tv: p for tv, p, _ in t.pairs}
    above, waiting = {}, []
    for v in t.order:
        if v in tile_of:
            waiting.append(tile_of[v])
        else:
            above[v], waiting = waiting, []
    dims = {id(loop): [(p, f"floor(({p} - ({lower[p]})) / {size[p]})") for p in above[loop.var]] for loop in t.points}
    return tree_times(prog.body, dims)
