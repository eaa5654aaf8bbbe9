"""Pointwise temporaries: a local array each thread keeps as one register (array contraction).

    contracted(analysis, plan, options) -> (Contraction, ...)   (forms.formed fills Plan.contracted)

The class: a local array (a spec's `let`, a C local array or VLA; never a parameter, so never an
output) whose accesses all lie in the statements of one launch, touching one cell per iteration
of the loops around all of them, each read taking the value that a write of that same iteration
stored (isl, exact last writer: `Analysis.pointwise`): `let r[i, j] = fmod(theta[i, j], ...)`,
then `wrapped[i, j] = g(r[i, j])` in the same (joined) nest. Such an array carries no value from
one iteration to another nor out of its launch, so the thread running an iteration keeps its
cell in a register and the array has no device buffer: no store to memory, no load back.

Refused (the buffer stays): a read at another cell than the iteration's (a stencil over the
temporary), a read in another launch or after it (the returned value), a read that may see a
value from before any write, a reference that is not one whole cell (a row passed on, a cell
through data, an atomic update), and a launch whose form may not run each iteration of the
loops it spreads over threads whole, in order, on one thread: taken are plain grids (coarsened,
merged, in a one-block loop), register and staged tiles (a register per point) and a block per
row's loop phases; not reductions, scans, sweeps, lanes per row, private copies, transposes, block
sums or wavefront tiles, nor a row statement of a block per row (`rows.row_cells` takes those).
docs/poly.md, "Pointwise temporaries".
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, loop_paths
from ...ir.csyntax import walk
from .ctext import array_refs, identifiers
from .mapping import Launch, Plan
from .options import PolyOptions
from .reduce import fresh_name


@dataclass(frozen=True)
class Contraction:
    """A local array that each thread holds as one register: the cell of its current iteration."""
    array: str
    dtype: str
    register: str               # C name of each thread's copy (one per point of a register tile)
    loops: tuple[str, ...]      # the loops one iteration of which writes and reads one cell


def contracted(an: Analysis, plan: Plan, options: PolyOptions) -> tuple[Contraction, ...]:
    """The plan's pointwise temporaries (module docstring), in the order the program declares them."""
    if not options.registers.contraction:
        return ()
    prog = an.program
    paths = loop_paths(plan.tree)
    cells = {a for l in plan.launches if l.phases for a, _ in l.phases.cells}   # rows.row_cells: registers already
    taken = set(prog.kernel.params) | set(prog.locals) | {v for s in prog.statements for v in s.loops} | \
        {x for s in prog.statements for x in identifiers(s.text)}
    out = []
    for name, var in prog.locals.items():
        if not var.shape or name in cells or (prog.returns and name in identifiers(prog.returns)):
            continue
        stmts = {s.name for s in prog.statements if any(a.name == name for a in s.accesses) or name in s.gathers}
        launch = next((l for l in plan.launches if stmts <= set(l.statements())), None)
        if not stmts or launch is None or not all(_whole_cells(prog.statement(s), name, len(var.shape)) for s in stmts):
            continue
        spread = _spread(launch, stmts)
        common = _common([paths[s] for s in stmts])
        if spread is None or any(not any(l is c for c in common) for l in spread) or \
                not an.pointwise(plan.tree, name, len(common)):
            continue
        out.append(Contraction(name, var.dtype, fresh_name(f"poly_cell_{name}", taken), tuple(l.var for l in common)))
        taken.add(out[-1].register)
    return tuple(out)


def _whole_cells(st, name: str, rank: int) -> bool:
    """Whether each reference of statement `st` to array `name` is one whole cell (`A[i][j]`,
    every subscript given) that the model describes: no row passed on, no cell through data."""
    if st.opaque or st.atomic or name in st.gathers or any(a.atomic for a in st.accesses if a.name == name):
        return False
    refs = array_refs(st.node, name)
    uses = sum(isinstance(n, c_ast.ID) and n.name == name for n in walk(st.node))
    return uses == len(refs) and all(_rank(r) == rank for r in refs)


def _rank(ref) -> int:
    n = 0
    while isinstance(ref, c_ast.ArrayRef):
        ref, n = ref.name, n + 1
    return n


def _spread(launch: Launch, stmts: set[str]) -> list | None:
    """The loops whose iterations the launch's form spreads over threads, each iteration whole
    and in order on one of them (its grid; a block per row's loop phases that touch the array);
    None for a form that may run one otherwise (module docstring)."""
    if launch.reduction or launch.scan or launch.banded or launch.running_max or \
            launch.row_scan or launch.row or launch.sweep or launch.tiles or launch.private or \
            launch.transposed or launch.block_sum:
        return None
    spread = list(launch.grid)
    for ph in launch.phases.phases if launch.phases else ():
        if ph.kind == "stmt" and ph.node.stmt.name in stmts:
            return None                  # every thread or thread 0 runs it: rows.row_cells' case
        if ph.kind != "stmt" and any(s.stmt.name in stmts for s in ph.node.body):
            spread.append(ph.node)
    return spread


def _common(paths: list[list]) -> list:
    """The loops (nodes of the tree) around every one of the paths, outermost first."""
    out = []
    for level in zip(*paths):
        if not all(l is level[0] for l in level):
            break
        out.append(level[0])
    return out


def arrays(plan: Plan) -> dict[str, Contraction]:
    """Array -> its contraction, for the plan's pointwise temporaries."""
    return {c.array: c for c in plan.contracted}


def note(contractions) -> str:
    """The header's sentence on the plan's pointwise temporaries."""
    each = "; ".join(f"{c.array} (each read at the cell its thread wrote in the same iteration of "
                     f"{', '.join(c.loops) or 'the launch'}) is a register of each thread, {c.register}"
                     for c in contractions)
    return f"Registers: {each}; no device buffer, and no other launch reads them."
