"""A host loop of pivot steps in blocks of pivots: a few launches a block, not one or two a pivot.

    pivot_blocks_of(p, host_loop) -> (PivotBlocks | None, why);  kernels, host_code, notes: printing

Takes a top-level host loop over a pivot k (consecutive, ascending) of plain launches, one a
2-d grid whose indices start past k, all ending where k does not move them: an elimination (lu, cholesky,
ludcmp, Gaussian elimination) updating the cells past its pivot. Gives the loop in blocks of
`size` pivots, each launch's points in a block split by which grid indices reach the block's
end E (its first pivot + size): the points with none there run first, in one block of threads,
a pivot at a time (the diagonal block); then a launch per set O of indices at E or past it, a
thread per value of O running the block's pivots in order over the rest of its points (the
panel, the rows to the right, the trailing matrix), its cells with one index in the block
through shared memory (panels), a trailing thread holding several cells. Taken where isl finds every dependence
forward in that order and none between two threads of one launch; each cell's updates keep the
reference's order. Refuses the rest, with the reason. Why: a launch per pivot costs more than
its work. docs/poly.md, "Pivot blocks".
"""
from __future__ import annotations

import copy
import dataclasses
import re
from dataclasses import dataclass
from itertools import combinations
from math import prod

from pycparser import c_ast

from ...analysis import Loop
from ...analysis.model import NotAffine, affine, affine_condition, base_and_subscripts, parse_expr
from ...ir.csyntax import array_name, conjuncts, cprint
from ...ir.dtypes import DTYPES
from ...ir.extents import NotPolynomial, to_poly
from ...errors import UserError
from .ctext import WORD, array_refs, at, extent_text, loop_guard, max_expr, min_expr, names_used, rewrite, substitute
from .mapping import HostLoop, Launch, launch_box
from .oneblock import at_function, param_decl
from .timetiles import Refused


_TOKEN = re.compile(r"\w+|\S")


@dataclass(frozen=True)
class Panel:
    """The cells of a 2-d array a phase's thread block touches with one index in the pivot block:
    in shared memory from the phase's start to its end."""
    array: str
    dims: tuple[str | None, ...]     # each index: a grid variable of the phase (the block's values of it) or None ([b0, E))
    written: bool                    # written in the phase (by the one thread its variable names), stored back at its end


@dataclass(frozen=True)
class Phase:
    """The points of a block whose grid indices `past` are at E or beyond: a launch, a thread per value of them."""
    past: tuple[str, ...]            # grid variables, x's first (); the diagonal block: every index before E
    axes: tuple[str, ...]            # ... the thread axis of each (x, y)
    launches: tuple[int, ...]        # the loop's launches (indices into its items) with points here, in order
    held: bool = False               # each thread writes one cell, kept in a register over the block's pivots
    block: tuple[int, ...] = ()      # threads a block along each axis (x, y)
    cells: tuple[int, ...] = ()      # held: cells a thread holds along each axis, a block's threads apart
    panels: tuple[Panel, ...] = ()   # cells through shared memory
    refs: tuple[tuple[str, int], ...] = ()   # (a reference's C text, its panel)
    guards: tuple[tuple[int, str], ...] = ()   # (launch, its points' condition less what the phase implies)
    loaded: bool = False             # held cells loaded before the pivots (no condition names the pivot)
    live: str = ""                   # ... C: a block may hold a cell some statement takes ("": any block)
    lanes: bool = False              # a 1-d phase: a warp per index (`block`: warps), its lanes over the other indices


@dataclass(frozen=True)
class PivotBlocks:
    """A host loop in blocks of pivots (decided by `pivot_blocks_of`, printed by `kernels` and `host_code`)."""
    size: int                        # pivots a block
    threads: int                     # the diagonal block's threads
    phases: tuple[Phase, ...]        # the diagonal block first, then the launches in order
    tile: tuple[str, ...] = ()       # the 2-d arrays whose diagonal tile the first phase holds in shared memory


def pivot_blocks_of(p, h: HostLoop) -> tuple[PivotBlocks | None, Refused | None]:
    """The loop's pivot blocks (p: forms.Context), or None and why not (None where the loop is not
    of the class's shape: launches only, one a 2-d grid)."""
    opt, l = p.opt.launches.pivot_blocks, h.loop
    if not h.items or not all(isinstance(it, Launch) for it in h.items) or not any(_past_pivot(p, it) for it in h.items):
        return None, None
    if l.derived or l.geometric or l.time is not None or l.step != 1 or l.var not in l.init:
        return None, Refused(None, "not a loop of consecutive ascending values")
    for launch in h.items:
        if why := _refusal(p, launch, l.var):
            return None, Refused(launch, why)
    names = sorted({g.var for it in h.items for g in it.grid})
    pieces, sets, present, cells = [], {(): 0}, set(), {}
    for launch in h.items:
        for o in (c for r in range(len(launch.grid) + 1) for c in combinations([g.var for g in launch.grid], r)):
            sets.setdefault(tuple(sorted(o)), len(sets))
    times = p.an.times(p.plan.tree)
    first = l.lower
    for m, launch in enumerate(h.items):
        grid = [g.var for g in launch.grid]
        for n in launch.nodes():
            at = n.at or {}
            k = at.get(l.var, l.var)
            block = f"floor(({k} - ({first})) / {opt.size})"
            end = f"{opt.size} * {block} + ({first}) + {opt.size}"
            for r in range(len(grid) + 1):
                for o in combinations(grid, r):
                    cons = [f"{at.get(v, v)} >= {end}" if v in o else f"{at.get(v, v)} <= {end} - 1" for v in grid]
                    coords = [at.get(v, v) if v in o else "0" for v in names]
                    if p.an.model.reaches(n.stmt.name, cons):
                        present.add((m, tuple(sorted(o))))
                        cells.setdefault(tuple(sorted(o)), {})[n.stmt.name] = (cons, end)
                    pieces.append((n.stmt.name, cons, (block, str(sets[tuple(sorted(o))]), *coords,
                                                        *times[n.stmt.name])))
    inside = [n.stmt.name for it in h.items for n in it.nodes()]
    deps = p.an.model.between(p.an.all_deps, inside, inside)
    if not p.an.model.parallel_order(deps, pieces, 2, len(names)):
        return None, Refused(None, "a dependence runs backward in blocks of pivots, or joins two threads of one of "
                                   "their launches")
    phases = []
    for o in sorted(sets, key=sets.get):
        members = tuple(m for m, it in enumerate(h.items) if (m, o) in present)
        if not members:
            continue
        axis = {v: it.axes[v] for m in members for it in [h.items[m]] for v in o}
        order = sorted(o, key=lambda v: axis[v])
        if len(set(axis.values())) != len(order):
            return None, Refused(None, f"its launches put {', '.join(o)} on one axis")
        held = bool(o) and _held(p, [h.items[m] for m in members], o, cells.get(o, {}))
        block = (32, 8) if len(o) == 2 else (256,) if o else ()
        phase = Phase(tuple(order), tuple(axis[v] for v in order) if len(order) > 1 else ("x",) * len(order),
                      members, held, block, opt.cells[:len(block)] if held else ())
        phase = _paneled(p, h, phase, cells.get(o, {})) if o and opt.panels else phase
        if phase.held or phase.panels:
            guards = _guards(p, h, phase)
            text = [dict(guards).get(m) or " && ".join(loop_guard(g) for g in h.items[m].grid) for m in phase.launches]
            loaded = phase.held and not any(l.var in WORD.findall(t) for t in text)
            phase = dataclasses.replace(phase, guards=guards, loaded=loaded,
                                        live=_live(p, phase, text) if loaded and len(phase.past) == 2 else "")
        phases.append(phase)
    return PivotBlocks(opt.size, opt.threads, tuple(phases), _tile(p, h, cells.get((), {}))), None


def _tile(p, h: HostLoop, pieces: dict) -> tuple[str, ...]:
    """The arrays the loop writes, where all are 2-d and the diagonal block's points (`pieces`:
    statement -> their constraints) touch them only at [b0, E) in both dimensions (isl) and the
    tiles fit a block's static shared memory; () else."""
    opt, prog = p.opt.launches.pivot_blocks, p.an.program
    if not opt.shared:
        return ()
    written = sorted({a.name for n in pieces for a in prog.statement(n).accesses if a.write})
    arrays = {x.name for x in p.k.arrays}
    if not written or any(a not in arrays or len(p.k.array(a).shape) != 2 for a in written):
        return ()
    if opt.size * opt.size * sum(DTYPES.get(p.k.array(a).dtype, (8,))[0] for a in written) > p.target.shared_static:
        return ()
    for n, (cons, end) in pieces.items():
        for a in prog.statement(n).accesses:
            if a.name not in written:
                continue
            for e in a.index:
                if any(p.an.model.reaches(n, [*cons, c]) for c in (f"{e} <= {end} - {opt.size} - 1", f"{e} >= {end}")):
                    return ()
    return tuple(written)


def _paneled(p, h: HostLoop, phase: Phase, pieces: dict) -> Phase:
    """The phase with its panels (a 1-d phase then 64 threads a block) where the loop's 2-d arrays
    are read or written in it with one index a grid variable of the phase and the other in the
    pivot block, or the pivot block in both (isl, `pieces`: statement -> the phase's constraints,
    E); an array any of whose references is neither that nor all grid variables keeps every
    reference in global memory, as does one whose panel a 2-d phase's threads would share and write.
    Panels past the static shared memory: none."""
    prog, size = p.an.program, p.opt.launches.pivot_blocks.size
    written = {a.name for it in h.items for s in it.statements() for a in prog.statement(s).accesses if a.write}
    arrays = {x.name for x in p.k.arrays}
    found: dict[str, list] = {}                    # array -> [(statement, ref text, dims, write)] or None
    for m in phase.launches:
        for n in h.items[m].nodes():
            st, (cons, end), at = prog.statement(n.stmt.name), pieces[n.stmt.name], n.at or {}
            names = set(st.loops) | set(prog.sizes)
            spec = {v: parse_expr(e) for v, e in at.items()}        # the launch's names -> the statement's
            node = n.stmt.node
            lvalue = cprint(node.lvalue) if isinstance(node, c_ast.Assignment) else None
            for ref in array_refs(node):
                a = array_name(ref)
                if a not in written or a not in arrays or len(p.k.array(a).shape) != 2 or found.get(a, []) is None:
                    continue
                dims = [_dim(p, n.stmt.name, substitute(copy.deepcopy(sub), spec), names, phase.past, at, cons, end, size)
                        for sub in base_and_subscripts(ref)[1]]
                found[a] = None if False in dims else [*found.get(a, []), (cprint(ref), tuple(dims), cprint(ref) == lvalue)]
    panels, refs = [], []
    for a, uses in sorted(found.items()):
        if uses is None or len({t for t, _, _ in uses}) != len({(t, d) for t, d, _ in uses}):
            continue                                # a text in two statements with two shapes: left alone
        mine = {d: any(w for _, dd, w in uses if dd == d) for _, d, _ in uses if None in d}
        if any(w and (len(phase.past) != 1 or all(x is None for x in d)) for d, w in mine.items()):
            continue
        for d, w in mine.items():
            refs += [(text, len(panels)) for text, dd, _ in uses if dd == d]
            panels.append(Panel(a, d, w))
    if not panels:
        return phase
    warps = p.opt.launches.pivot_blocks.lanes
    block = phase.block if len(phase.past) == 2 else (warps,) if warps else (64,)
    out = dataclasses.replace(phase, block=block, panels=tuple(panels), refs=tuple(dict.fromkeys(refs)),
                              lanes=len(phase.past) == 1 and bool(warps))
    if sum(_panel_shape(out, x, size)[0] * _panel_shape(out, x, size)[2] * DTYPES.get(p.k.array(x.array).dtype, (8,))[0]
           for x in panels) > p.target.shared_static:
        return phase
    return out


def _guards(p, h: HostLoop, phase: Phase) -> tuple[tuple[int, str], ...]:
    """Each launch's condition on its points (its grid loops' bounds) less the parts the phase's
    calls always meet (isl: the pivot in the block, the phase's indices at E or past it, the others
    before E), so a trailing thread checks only its own cell's bounds, not a pivot's."""
    l, size, sizes = h.loop, p.opt.launches.pivot_blocks.size, set(p.an.program.sizes)
    where = [f"poly_e - {size} <= {l.var}", f"{l.var} <= poly_e - 1"] + [f"{v} >= poly_e" for v in phase.past]
    names = [l.var, "poly_e", *phase.past]
    where += [c for x in (l.init.split("=", 1)[1].strip() + f" <= {l.var}", l.cond) if (c := _isl(x, {*names, *sizes}))]
    out = []
    for m in phase.launches:
        grid, launch = _grid(p, h.items[m]), h.items[m]
        rest = [v for v in grid if v not in phase.past]
        mine = names + rest
        context = where + [c for v in rest for c in (_isl(f"{v} >= {grid[v][1]}", {*mine, *sizes}),
                                                      f"{v} <= poly_e - 1", _isl(f"{v} <= {grid[v][2]}", {*mine, *sizes})) if c]
        parts = [cprint(c) for g in launch.grid for c in conjuncts(parse_expr(loop_guard(g)))]
        kept = list(parts)
        for c in sorted(parts, key=len, reverse=True):
            others = [x for x in (_isl(o, {*mine, *sizes}) for o in kept if o != c) if x]
            if (text := _isl(c, {*mine, *sizes})) and p.an.model.implies(mine, context + others, text):
                kept.remove(c)
        if kept != parts:
            out.append((m, " && ".join(kept)))
    return tuple(out)


def _live(p, phase: Phase, conditions: list[str]) -> str:
    """C over the block's first indices `poly_<v>0`: whether some cell of its box meets one of the
    launches' `conditions` (each a conjunction of affine comparisons of the cell's indices and the
    sizes), each comparison at the box's corner that favours it: true for every block with a cell,
    false for many without (the upper triangle of a lower-triangular update). "" where a
    comparison's direction is not plain."""
    known = {*phase.past, *p.an.program.sizes}
    ends = {v: (f"poly_{v}0", f"poly_{v}0 + {_span(phase, ax) - 1}") for v, ax in zip(phase.past, phase.axes)}
    out = []
    for text in conditions:
        parts = []
        for c in conjuncts(parse_expr(text)):
            if not isinstance(c, c_ast.BinaryOp) or c.op not in ("<", "<=", ">", ">="):
                return ""
            try:
                e = to_poly(c.left, known) - to_poly(c.right, known)      # c: e < 0 (<=), or e > 0 (>=)
            except NotPolynomial:
                return ""
            corner = cprint(c)
            for v in sorted(e.vars() & set(phase.past)):
                coeff, _ = e.split(v)
                if coeff.vars() or coeff.sign() == 0:
                    return ""
                low = (coeff.sign() > 0) == (c.op in ("<", "<="))           # the end that makes e smallest
                corner = at(corner, v, ends[v][0 if low else 1])
            parts.append(corner)
        out.append(" && ".join(parts) or "1")
    return "" if "1" in out else " || ".join(f"({x})" for x in out)


def _isl(text: str, names: set) -> str | None:
    """isl text of a C condition over `names`, None where it is not affine."""
    try:
        return affine_condition(parse_expr(text), names, "condition")
    except (NotAffine, UserError):
        return None


def _dim(p, stmt: str, sub, names, past, at, cons, end, size):
    """A subscript as a panel's index: the phase's grid variable it always equals, None where it is
    always in the pivot block [E - size, E), False else."""
    try:
        e = affine(sub, names, "subscript")
    except NotAffine:
        return False
    never = lambda *cs: not any(p.an.model.reaches(stmt, [*cons, c]) for c in cs)
    for v in past:
        x = at.get(v, v)
        if never(f"{e} <= {x} - 1", f"{e} >= {x} + 1"):
            return v
    return None if never(f"{e} <= {end} - {size} - 1", f"{e} >= {end}") else False


def _panel_shape(phase: Phase, panel: Panel, size: int) -> tuple[int, int, int]:
    """(rows, columns, row pitch) of a panel in shared memory: a grid variable's extent is the
    block's threads (warps, with lanes) along its axis; rows that threads own apart, or that lanes
    walk, are padded by one (no bank conflicts)."""
    ext = [size if d is None else _span(phase, phase.axes[phase.past.index(d)]) for d in panel.dims]
    apart = panel.dims[0] is not None and panel.dims[1] is None or phase.lanes and panel.dims[0] is None \
        and panel.dims[1] is not None            # lanes walking a column's rows
    return ext[0], ext[1], ext[1] + apart


def _span(phase: Phase, ax: str) -> int:
    """The values of the grid index on axis `ax` a block of the phase takes."""
    n = ax == "y"
    return phase.block[n] * (phase.cells[n] if phase.cells else 1)


def _held(p, launches: list[Launch], past: tuple, pieces: dict) -> bool:
    """Whether each thread of a phase writes one cell, the same in all its statements, and reads it
    only there: every launch's grid is the phase's indices (no loop over the rest), each statement
    one assignment to a cell of those indices alone, and isl finds no other read of the array
    reaching that cell in the phase (`pieces`: statement -> the phase's constraints). Then the cell
    stays in a register over the block's pivots: one load and one store a block, not a pivot."""
    cell = None
    for launch in launches:
        if {g.var for g in launch.grid} != set(past):
            return False
        for n in launch.nodes():
            st, at = p.an.program.statement(n.stmt.name), n.at or {}
            names = {at.get(v, v): v for v in past}
            writes = [a for a in st.accesses if a.write]
            if not isinstance(n.stmt.node, c_ast.Assignment) or len(writes) != 1 or n.stmt.conditional \
                    or not all(x in names or x in p.an.program.sizes for e in writes[0].index for x in WORD.findall(e)):
                return False
            mine = (writes[0].name, tuple(" ".join(names.get(t, t) for t in _TOKEN.findall(e)) for e in writes[0].index))
            if cell not in (None, mine):
                return False
            cell = mine
            for a in st.accesses:
                if a.name == cell[0] and not a.write and a.index != writes[0].index and p.an.model.reaches(
                        n.stmt.name, [*pieces[n.stmt.name][0], *(f"{x} = {y}" for x, y in zip(a.index, writes[0].index))]):
                    return False
    return cell is not None


def _past_pivot(p, launch: Launch) -> bool:
    """A 2-d grid whose every index starts past the host loop's value (the class's update): its
    bounding box's lowest values name the host loop's variable (`i >= j >= k + 1`: k + 1)."""
    if len(launch.grid) != 2 or not launch.host_loops:
        return False
    return all(launch.host_loops[-1].var in WORD.findall(" ".join(lows)) for lows, _ in launch_box(p.an, launch))


def _refusal(p, launch: Launch, var: str) -> str:
    """Why a launch cannot run in blocks of pivots ("" where it can)."""
    if launch.reduction or launch.row or launch.phases or launch.scan or launch.banded or launch.running_max \
            or launch.row_scan or launch.private or launch.tiles or launch.sweep:
        return "a form of its own"
    if len(launch.grid) > 2 or any(g.derived or g.step != 1 for g in launch.grid):
        return "not a 1-d or 2-d grid of consecutive indices"
    if not launch.grid and any(isinstance(n, Loop) for n in launch.body):
        return "a loop in one thread"
    if any(p.plan.storage[w] != "local" for (s, _), w in p.an.web_of.items() if s in launch.statements()):
        return "a scalar carried between launches"
    if any(name in p.local_arrays for s in launch.statements() for name, _, _ in p.an.model.specs[s].accesses):
        return "the reference's local array"
    if launch.grid and any(var in WORD.findall(h) for _, highs in launch_box(p.an, launch) for h in highs):
        return f"a grid index whose last value moves with {var}"
    return ""


def loops(plan) -> list[HostLoop]:
    return [it for it in plan.items if isinstance(it, HostLoop) and it.pivot_blocks]


def name(p, h: HostLoop, phase: Phase) -> str:
    return f"{p.short}_pivots_{h.loop.var}" + "".join(f"_{v}" for v in phase.past)


# -- printing (p: cuda.Printer) ----------------------------------------------------------------

def _grid(p, launch: Launch) -> dict[str, tuple[str, str, str]]:
    """Grid variable -> (axis, first value, last value) of a launch, C."""
    return {g.var: (launch.axes[g.var], min_expr(lows), max_expr(highs))
            for g, (lows, highs) in zip(launch.grid, launch_box(p.an, launch) if launch.grid else [])}


def _call(p, launch: Launch, calls, index: dict[str, str], phase: Phase | None = None, tile: tuple = (),
          cell: str = "", load: bool = False) -> str:
    """`NAME_at(arguments, idx_x, ...)`: `index` gives each grid variable's value; in a phase with
    panels, its `NAME_<phase>` with the panels' pointers after the arguments; in a held phase (or
    its `NAME_held`), the thread's register and the cell's address after (`cell`: their subscript
    among the thread's cells; `load`: the function loading the cell); `tile`: its `NAME_tile`, those
    arrays' names pointed into the shared tile."""
    grid, held = _grid(p, launch), phase is not None and phase.held
    idx = [f"{index[v]} - ({grid[v][1]})" for ax in ("x", "y") for v in grid if grid[v][0] == ax]
    args = [f"poly_s_{a}" if a in tile else a for a in calls[launch.name]] + p.at_locals.get(launch.name, []) + \
        [f"poly_p{n}" for n in range(len(phase.panels) if phase else 0)] + ([f"poly_acc{cell}", f"poly_cell{cell}"] if held else []) + idx
    return f"{launch.name}{_suffix(phase) if phase else '_tile' if tile else '_at'}{'_load' if load else ''}({', '.join(args)});"


def _suffix(phase: Phase) -> str:
    """The name of a launch's point function in a phase: `_at` as the launches have it, `_held` on
    the thread's register, `_<indices>` with the phase's panels."""
    return "_" + "_".join(phase.past) if phase.panels else "_held" if phase.held else "_at"


def _tile_function(p, h: HostLoop, launch: Launch, calls) -> str:
    """`NAME_tile`: a launch's point as `NAME_at`, the tile's arrays flattened with its row pitch."""
    inner, locals_ = p.thread_variables(launch)
    with p.row_pitch(h.pivot_blocks.tile, h.pivot_blocks.size):
        text = "\n".join(p.point_body(launch, p.launch_box(launch) if launch.grid else [], inner, locals_, True))
    return at_function(p, launch, text, ", ".join(p.param_decl(a, launch) for a in calls[launch.name]), "_tile")


def _tile_copy(p, pb: PivotBlocks, into: bool) -> list[str]:
    """The diagonal tile of each array in (`into`) or out of shared memory, the rows and columns inside the array."""
    b = pb.size
    out = [f"  for (int poly_t = threadIdx.x; poly_t < {b * b}; poly_t += blockDim.x) {{",
           f"    const int poly_r = poly_b0 + poly_t / {b}, poly_c = poly_b0 + poly_t % {b};"]
    for a in pb.tile:
        rows, cols = p.k.array(a).shape
        cell = f"{a}[(size_t)poly_r * ({cols}) + poly_c]"
        out += [f"    if (poly_r < ({rows}) && poly_c < ({cols}))",
                f"      {f'poly_tile_{a}[poly_t] = {cell}' if into else f'{cell} = poly_tile_{a}[poly_t]'};"]
    return out + ["  }"] + (["  __syncthreads();"] if into else [])


def _held_node(node, part: str = ""):
    """A statement on the thread's register `poly_acc` for its target cell, the cell loaded the first
    time (its address kept in `poly_cell`); `part`: "load" only that load, "update" only the statement."""
    target = cprint(node.lvalue)
    new = rewrite(copy.deepcopy(node), lambda n: c_ast.ID("poly_acc")
                  if isinstance(n, c_ast.ArrayRef) and cprint(n) == target else None)
    first = c_ast.Compound([c_ast.Assignment("=", c_ast.ID("poly_cell"), c_ast.UnaryOp("&", copy.deepcopy(node.lvalue))),
                            c_ast.Assignment("=", c_ast.ID("poly_acc"), c_ast.UnaryOp("*", c_ast.ID("poly_cell")))])
    load = c_ast.If(c_ast.UnaryOp("!", c_ast.ID("poly_cell")), first, None)
    return {"load": c_ast.Compound([load]), "update": new}.get(part) or c_ast.Compound([load, new])


def _phase_function(p, h: HostLoop, launch: Launch, phase: Phase, calls, load: bool = False) -> str:
    """A launch's point as `NAME_at`, in a phase: its panels' references on their shared copies
    (pointers after the arguments), its cell on the caller's register where the phase holds it;
    where the phase loads its cells first, the point's update alone, or with `load` its cell's
    load alone (`NAME_<phase>_load`)."""
    inner, locals_ = p.thread_variables(launch)
    refs, size = dict(phase.refs), p.opt.launches.pivot_blocks.size

    def on_panel(n):
        if isinstance(n, c_ast.ArrayRef) and (k := refs.get(cprint(n))) is not None:
            first, second = base_and_subscripts(n)[1]
            flat = c_ast.BinaryOp("*", first, c_ast.Constant("int", str(_panel_shape(phase, phase.panels[k], size)[2])))
            return c_ast.ArrayRef(c_ast.ID(f"poly_p{k}"), c_ast.BinaryOp("+", flat, second))
        return None
    node = lambda n: rewrite(copy.deepcopy(n), on_panel)
    guard = dict(phase.guards).get(next(m for m, it in enumerate(h.items) if it is launch))
    part = "load" if load else "update" if phase.loaded else ""
    text = "\n".join(p.point_body(launch, p.launch_box(launch), inner, locals_, True,
                                  (lambda n: _held_node(node(n), part)) if phase.held else node, guard=guard))
    params = [p.param_decl(a, launch) for a in calls[launch.name]] + \
        [f"{p.k.array(x.array).dtype} *poly_p{n}" for n, x in enumerate(phase.panels)]
    if phase.held:
        dtype = p.k.array(_target(launch)).dtype
        params += [f"{dtype} &poly_acc", f"{dtype} *&poly_cell"]
    return at_function(p, launch, text, ", ".join(params), _suffix(phase) + ("_load" if load else ""))


def _target(launch: Launch) -> str:
    return array_name(launch.nodes()[0].stmt.node.lvalue)


def _diagonal(p, h: HostLoop, calls) -> list[str]:
    """A pivot at a time, each launch's points before E block-strided, __syncthreads() after each."""
    l, pb = h.loop, h.pivot_blocks
    out = [f"  int {l.var};", f"  const int poly_e = poly_b0 + {pb.size};"]
    for a in pb.tile:
        dtype = p.k.array(a).dtype
        out += [f"  __shared__ {dtype} poly_tile_{a}[{pb.size * pb.size}];",
                f"  {dtype} *const poly_s_{a} = poly_tile_{a} - (poly_b0 * {pb.size} + poly_b0);   "
                f"/* {a}[r][c] for r, c in [poly_b0, poly_e) */"]
    out += _tile_copy(p, pb, True) if pb.tile else []
    out += [f"  for ({l.var} = poly_b0; {l.var} < poly_e && ({l.cond}); {l.var}++) {{"]
    for launch in h.items:
        if not launch.grid:
            out += ["    if (threadIdx.x == 0)", f"      {_call(p, launch, calls, {}, tile=pb.tile)}", "    __syncthreads();"]
            continue
        grid = _grid(p, launch)
        vars_ = sorted(grid, key=lambda v: grid[v][0])
        counts = {v: f"poly_min({extent_text(grid[v][2], grid[v][1])}, poly_e - ({grid[v][1]}))" for v in vars_}
        total = " * ".join(f"poly_n{grid[v][0]}" for v in vars_)
        index = {v: f"{grid[v][1]} + poly_t" if len(vars_) == 1 else
                 f"{grid[v][1]} + poly_t % poly_nx" if grid[v][0] == "x" else f"{grid[v][1]} + poly_t / poly_nx"
                 for v in vars_}
        out += ["    {", *[f"      const int poly_n{grid[v][0]} = {counts[v]};   /* {v} before E */" for v in vars_],
                f"      if ({' && '.join(f'poly_n{grid[v][0]} > 0' for v in vars_)})",
                f"        for (int poly_t = threadIdx.x; poly_t < {total}; poly_t += blockDim.x)",
                f"          {_call(p, launch, calls, index, tile=pb.tile)}",
                "    }", "    __syncthreads();"]
    return out + ["  }"] + (_tile_copy(p, pb, False) if pb.tile else [])


def _phase(p, h: HostLoop, phase: Phase, calls) -> list[str]:
    """A thread per value of the phase's indices (from E): the block's pivots in order, each launch's
    points with those indices over the rest of its indices before E."""
    l, pb = h.loop, h.pivot_blocks
    out = [f"  const int poly_e = poly_b0 + {pb.size};"]
    many = [ax for ax, c in zip(("x", "y"), phase.cells) if c > 1]
    out += [f"  const int poly_{v} = poly_e + (int)(blockIdx.{ax} * {_span(phase, ax)} + threadIdx.{ax});" +
            (f"   /* and + {b} c for c < {c} */" if c > 1 else "") if ax in many else
            f"  const int poly_{v} = poly_e + (int)(blockIdx.x * {phase.block[0]} + threadIdx.y);   /* a warp each */"
            if phase.lanes else
            f"  const int poly_{v} = poly_e + (int)(blockIdx.{ax} * blockDim.{ax} + threadIdx.{ax});"
            for v, ax in zip(phase.past, phase.axes)
            for b, c in [(phase.block[ax == "y"], phase.cells[ax == "y"] if phase.cells else 1)]]
    if phase.live:                                   # the whole block leaves, before any barrier
        out += [f"  const int poly_{v}0 = poly_e + (int)(blockIdx.{ax} * {_span(phase, ax)});" for v, ax in zip(phase.past, phase.axes)]
        out += [f"  if (!({phase.live}))", "    return;   /* no cell of this block is updated */"]
    shape = "".join(f"[{phase.cells[ax == 'y']}]" for ax in ("y", "x") if ax in many)
    at = "".join(f"[poly_c{ax}]" for ax in ("y", "x") if ax in many)
    if phase.held:
        dtype = p.k.array(_target(h.items[phase.launches[0]])).dtype
        out += [f"  {dtype} poly_acc{shape}{' = {}' if many else ' = 0'};   /* the thread's "
                f"{'cells' if many else 'one cell'}, from {'their' if many else 'its'} first point to the block's end */",
                f"  {dtype} *poly_cell{shape}{' = {}' if many else ' = 0'};"]
    out += _panels(p, phase, True) if phase.panels else []
    out += [f"  int {l.var} = poly_b0;"]
    if phase.loaded:                                 # each cell's conditions hold at every pivot or none
        loads, indent = _cell_loops(phase, many, "  ")
        out += loads + [f"{indent}{_call(p, h.items[m], calls, _cell_index(phase, _grid(p, h.items[m]), many), phase, cell=at, load=True)}"
                        for m in phase.launches] + ([indent[:-2] + "}"] if many else [])
    out += [f"  for (; {l.var} < poly_e && ({l.cond}); {l.var}++) {{"]
    cells, indent = _cell_loops(phase, many, "    ")
    for m in phase.launches:
        launch = h.items[m]
        grid = _grid(p, launch)
        rest = [v for v in grid if v not in phase.past]
        index = _cell_index(phase, grid, many)
        body, inner = [], indent
        for n, v in enumerate(rest):                 # with lanes, the first over the warp's lanes
            first, step = (f"{grid[v][1]} + (int)threadIdx.x", " += 32") if phase.lanes and not n else (grid[v][1], "++")
            body.append(f"{inner}for (int poly_{v} = {first}; poly_{v} < poly_e && poly_{v} <= {grid[v][2]}; poly_{v}{step})")
            inner += "  "
        if phase.lanes and not rest:                 # a point of the index alone: lane 0's
            body.append(f"{inner}if (threadIdx.x == 0)")
            inner += "  "
        cells += body + [f"{inner}{_call(p, launch, calls, index, phase, cell=at)}"]
        cells += [f"{indent}__syncwarp();"] if phase.lanes else []
    out += cells + ([indent[:-2] + "}"] if many else []) + ["  }"]
    out += _panels(p, phase, False) if any(x.written for x in phase.panels) else []
    if not phase.held:
        return out
    store = ["if (poly_cell" + at + ")", "  *poly_cell" + at + " = poly_acc" + at + ";"]
    loops, indent = _cell_loops(phase, many, "  ")
    return out + loops + [indent + x for x in store] + ([indent[:-2] + "}"] if many else [])


def _cell_index(phase: Phase, grid, many: list[str]) -> dict[str, str]:
    """Each grid variable's value at the thread's cell (poly_cx, poly_cy on the axes of `many`)."""
    ax = {v: phase.axes[phase.past.index(v)] for v in grid if v in phase.past}
    return {v: f"poly_{v}" if v not in ax or ax[v] not in many else
            f"poly_{v} + {phase.block[ax[v] == 'y']} * poly_c{ax[v]}" for v in grid}


def _cell_loops(phase: Phase, many: list[str], indent: str) -> tuple[list[str], str]:
    """Unrolled loops over a thread's cells (`many`: the axes of more than one), opening a brace;
    and the indent inside."""
    out = []
    for n, ax in enumerate(a for a in ("y", "x") if a in many):
        last = n == len(many) - 1
        out += ["#pragma unroll", f"{indent}for (int poly_c{ax} = 0; poly_c{ax} < {phase.cells[ax == 'y']}; poly_c{ax}++)"
                + (" {" if last else "")]
        indent += "  "
    return out, indent


def _panels(p, phase: Phase, into: bool) -> list[str]:
    """The phase's panels copied into shared memory (`into`: declared, then a barrier), or the
    written ones stored back after a barrier; the cells inside their arrays."""
    size, threads = p.opt.launches.pivot_blocks.size, prod(phase.block) * (32 if phase.lanes else 1)
    tid = "threadIdx.x" if len(phase.block) == 1 and not phase.lanes else "threadIdx.y * blockDim.x + threadIdx.x"
    out = [] if into else ["  __syncthreads();"]
    for n, x in enumerate(phase.panels):
        if not into and not x.written:
            continue
        rows, cols, pitch = _panel_shape(phase, x, size)
        dtype, (last_r, last_c) = p.k.array(x.array).dtype, p.k.array(x.array).shape
        at = ["poly_b0" if d is None else
              f"(poly_e + (int)blockIdx.{ax} * {_span(phase, ax)})" for d in x.dims
              for ax in [phase.axes[phase.past.index(d)] if d is not None else "x"]]
        what = ", ".join(f"{d} in the block's" if d else "[poly_b0, poly_e)" for d in x.dims)
        if into:
            out += [f"  __shared__ {dtype} poly_panel{n}[{rows * pitch}];",
                    f"  {dtype} *const poly_p{n} = poly_panel{n} - ({at[0]} * {pitch} + {at[1]});   /* {x.array}[r][c], r, c: {what} */"]
        cell, mine = f"{x.array}[(size_t)poly_r * ({last_c}) + poly_c]", f"poly_panel{n}[poly_t / {cols} * {pitch} + poly_t % {cols}]"
        out += [f"  for (int poly_t = {tid}; poly_t < {rows * cols}; poly_t += {threads}) {{",
                f"    const int poly_r = {at[0]} + poly_t / {cols}, poly_c = {at[1]} + poly_t % {cols};",
                f"    if (poly_r < ({last_r}) && poly_c < ({last_c}))",
                f"      {f'{mine} = {cell}' if into else f'{cell} = {mine}'};", "  }"]
    return out + (["  __syncthreads();"] if into else [])


def _kernel(p, h: HostLoop, phase: Phase, body: list[str], calls, threads: int) -> str:
    args = [a for a in list(p.k.params) + [w for w, s in p.plan.storage.items() if s == "host"]
            if a in names_used("\n".join(body)) - {h.loop.var}]
    calls[name(p, h, phase)] = args
    params = [param_decl(p, h, a) for a in args] + ["int poly_b0"]
    what = (f"each thread a share of the diagonal block, one block: each pivot's points with every index before "
            f"E = poly_b0 + {h.pivot_blocks.size}, __syncthreads() after each launch's" if not phase.past else
            f"each thread a value of {', '.join(phase.past)} from E = poly_b0 + {h.pivot_blocks.size}: the block's "
            "pivots in order, each launch's points there")
    bounds = f"__launch_bounds__({threads}) " if threads else ""
    return "\n".join([f"/* {name(p, h, phase)}: {what} (host loop {h.loop.var} in blocks of {h.pivot_blocks.size} pivots) */",
                      f"__global__ void {bounds}{name(p, h, phase)}({', '.join(params)})", "{",
                      *p.waits(name(p, h, phase), [h.loop], params), *body, "}"])


def kernels(p, h: HostLoop, calls) -> list[str]:
    """The diagonal block's kernel and a kernel per other phase (after the launches' NAME_at)."""
    out = [_phase_function(p, h, h.items[m], ph, calls, load) for ph in h.pivot_blocks.phases if ph.held or ph.panels
           for m in ph.launches for load in ((False, True) if ph.loaded else (False,))]
    out += [_tile_function(p, h, launch, calls) for launch in h.items] if h.pivot_blocks.tile else []
    for phase in h.pivot_blocks.phases:
        if not phase.past:
            out.append(_kernel(p, h, phase, _diagonal(p, h, calls), calls, h.pivot_blocks.threads))
        else:
            out.append(_kernel(p, h, phase, _phase(p, h, phase, calls), calls, 0))
    return out


def host_code(p, h: HostLoop, indent: str, calls) -> list[str]:
    """The loop a block of pivots a step: the diagonal block's launch, then each phase's grid from E to
    its indices' last values."""
    l, pb, i = h.loop, h.pivot_blocks, indent
    out = [f"{i}for ({l.init}; {l.cond}; {l.var} += {pb.size})", f"{i}{{", f"{i}  const int poly_b0 = {l.var};"]
    for phase in pb.phases:
        kname, call = name(p, h, phase), ", ".join(calls[name(p, h, phase)] + ["poly_b0"])
        if not phase.past:
            out.append(f"{i}  {p.launch_line(kname, ('1', str(pb.threads)), call, [l])}")
            continue
        last = {v: max_expr(list(dict.fromkeys(_grid(p, h.items[m])[v][2] for m in phase.launches
                                               if v in _grid(p, h.items[m])))) for v in phase.past}
        block = dict(zip(("x", "y"), phase.block))
        span = {ax: _span(phase, ax) for ax in block}
        out += [f"{i}  {{",
                *[f"{i}    const int poly_n{ax} = {extent_text(last[v], f'poly_b0 + {pb.size}')};   /* {v} from E */"
                  for v, ax in zip(phase.past, phase.axes)],
                f"{i}    if ({' && '.join(f'poly_n{ax} > 0' for ax in phase.axes)}) {{",
                f"{i}      dim3 block({f'32, {phase.block[0]}' if phase.lanes else ', '.join(str(block[ax]) for ax in ('x', 'y') if ax in phase.axes)});",
                f"{i}      dim3 grid({', '.join(f'poly_blocks(poly_n{ax}, {span[ax]})' for ax in ('x', 'y') if ax in phase.axes)});",
                f"{i}      {p.launch_line(kname, ('grid', 'block'), call, [l])}",
                f"{i}    }}", f"{i}  }}"]
    return out + [f"{i}}}"]


def notes(p) -> list[str]:
    """The header's lines on the loops in blocks of pivots, and on those of the class not taken."""
    out = []
    for h in (it for it in p.plan.items if isinstance(it, HostLoop)):
        if h.pivot_blocks:
            parts = ", ".join(name(p, h, ph) for ph in h.pivot_blocks.phases)
            out.append(f"  ... host loop {h.loop.var} runs in blocks of {h.pivot_blocks.size} pivots: per block {parts} "
                       "(the diagonal block in one block of threads, then a thread per index at the block's end or past it).")
        elif h.not_pivot_blocks:
            out.append(f"  ... host loop {h.loop.var} keeps a launch per pivot (no blocks of pivots): {h.not_pivot_blocks}.")
    return out
