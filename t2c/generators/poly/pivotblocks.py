"""A host loop of pivot steps in blocks of pivots: a few launches a block, not one or two a pivot.

    pivot_blocks_of(p, host_loop) -> (PivotBlocks | None, why);  kernels, host_code, notes: printing

Takes a top-level host loop over a pivot k (consecutive, ascending) of plain launches, one a
2-d grid whose indices start past k, all ending where k does not move them: an elimination (lu, cholesky,
ludcmp, Gaussian elimination) updating the cells past its pivot. Gives the loop in blocks of
`size` pivots, each launch's points in a block split by which grid indices reach the block's
end E (its first pivot + size): the points with none there run first, in one block of threads,
a pivot at a time (the diagonal block); then a launch per set O of indices at E or past it, a
thread per value of O running the block's pivots in order over the rest of its points (the
panel, the rows to the right, the trailing matrix). Taken where isl finds every dependence
forward in that order and none between two threads of one launch; each cell's updates keep the
reference's order. Refuses the rest, with the reason. Why: a launch per pivot costs more than
its work. docs/poly.md, "Pivot blocks".
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from itertools import combinations

from pycparser import c_ast

from ...analysis import Loop
from ...ir.csyntax import array_name, cprint
from ...ir.dtypes import DTYPES
from .ctext import WORD, extent_text, max_expr, min_expr, names_used, rewrite
from .mapping import HostLoop, Launch, launch_box
from .oneblock import at_function, param_decl
from .timetiles import Refused


_TOKEN = re.compile(r"\w+|\S")


@dataclass(frozen=True)
class Phase:
    """The points of a block whose grid indices `past` are at E or beyond: a launch, a thread per value of them."""
    past: tuple[str, ...]            # grid variables, x's first (); the diagonal block: every index before E
    axes: tuple[str, ...]            # ... the thread axis of each (x, y)
    launches: tuple[int, ...]        # the loop's launches (indices into its items) with points here, in order
    held: bool = False               # each thread writes one cell, kept in a register over the block's pivots


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
        phases.append(Phase(tuple(order), tuple(axis[v] for v in order) if len(order) > 1 else ("x",) * len(order),
                            members, bool(o) and _held(p, [h.items[m] for m in members], o, cells.get(o, {}))))
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
            for g, (lows, highs) in zip(launch.grid, p.launch_box(launch) if launch.grid else [])}


def _call(p, launch: Launch, calls, index: dict[str, str], held: bool = False, tile: tuple = ()) -> str:
    """`NAME_at(arguments, idx_x, ...)`: `index` gives each grid variable's value; `held`: its
    `NAME_held`, the thread's register and the cell's address after; `tile`: its `NAME_tile`, those
    arrays' names pointed into the shared tile."""
    grid = _grid(p, launch)
    idx = [f"{index[v]} - ({grid[v][1]})" for ax in ("x", "y") for v in grid if grid[v][0] == ax]
    args = [f"poly_s_{a}" if a in tile else a for a in calls[launch.name]] + p.at_locals.get(launch.name, []) + \
        (["poly_acc", "poly_cell"] if held else []) + idx
    return f"{launch.name}_{'held' if held else 'tile' if tile else 'at'}({', '.join(args)});"


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


def _held_node(node):
    """A statement on the thread's register `poly_acc` for its target cell, the cell loaded the first
    time (its address kept in `poly_cell`)."""
    target = cprint(node.lvalue)
    new = rewrite(copy.deepcopy(node), lambda n: c_ast.ID("poly_acc")
                  if isinstance(n, c_ast.ArrayRef) and cprint(n) == target else None)
    first = c_ast.Compound([c_ast.Assignment("=", c_ast.ID("poly_cell"), c_ast.UnaryOp("&", copy.deepcopy(node.lvalue))),
                            c_ast.Assignment("=", c_ast.ID("poly_acc"), c_ast.UnaryOp("*", c_ast.ID("poly_cell")))])
    return c_ast.Compound([c_ast.If(c_ast.UnaryOp("!", c_ast.ID("poly_cell")), first, None), new])


def _held_function(p, launch: Launch, calls) -> str:
    """`NAME_held`: a launch's point as `NAME_at`, its cell on the caller's register."""
    inner, locals_ = p.thread_variables(launch)
    text = "\n".join(p.point_body(launch, p.launch_box(launch), inner, locals_, True, _held_node))
    dtype = p.k.array(_target(launch)).dtype
    params = [p.param_decl(a, launch) for a in calls[launch.name]] + [f"{dtype} &poly_acc", f"{dtype} *&poly_cell"]
    return at_function(p, launch, text, ", ".join(params), "_held")


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
    out += [f"  const int poly_{v} = poly_e + (int)(blockIdx.{ax} * blockDim.{ax} + threadIdx.{ax});"
            for v, ax in zip(phase.past, phase.axes)]
    if phase.held:
        dtype = p.k.array(_target(h.items[phase.launches[0]])).dtype
        out += [f"  {dtype} poly_acc = 0;   /* the thread's one cell, from its first point to the block's end */",
                f"  {dtype} *poly_cell = 0;"]
    out += [f"  int {l.var};", f"  for ({l.var} = poly_b0; {l.var} < poly_e && ({l.cond}); {l.var}++) {{"]
    for m in phase.launches:
        launch = h.items[m]
        grid = _grid(p, launch)
        rest = [v for v in grid if v not in phase.past]
        index = {v: f"poly_{v}" for v in grid}
        body, indent = [], "    "
        for v in rest:
            body.append(f"{indent}for (int poly_{v} = {grid[v][1]}; poly_{v} < poly_e && poly_{v} <= {grid[v][2]}; poly_{v}++)")
            indent += "  "
        out += body + [f"{indent}{_call(p, launch, calls, index, phase.held)}"]
    return out + ["  }"] + (["  if (poly_cell)", "    *poly_cell = poly_acc;"] if phase.held else [])


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
    out = [_held_function(p, h.items[m], calls) for ph in h.pivot_blocks.phases if ph.held for m in ph.launches]
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
        block = {"x": 32, "y": 8} if len(phase.past) == 2 else {"x": 256}
        out += [f"{i}  {{",
                *[f"{i}    const int poly_n{ax} = {extent_text(last[v], f'poly_b0 + {pb.size}')};   /* {v} from E */"
                  for v, ax in zip(phase.past, phase.axes)],
                f"{i}    if ({' && '.join(f'poly_n{ax} > 0' for ax in phase.axes)}) {{",
                f"{i}      dim3 block({', '.join(str(block[ax]) for ax in ('x', 'y') if ax in phase.axes)});",
                f"{i}      dim3 grid({', '.join(f'poly_blocks(poly_n{ax}, {block[ax]})' for ax in ('x', 'y') if ax in phase.axes)});",
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
