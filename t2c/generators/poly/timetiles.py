"""A host loop of stencil launches as overlapped time tiles: several iterations a launch.

    time_tile_of(p, host_loop) -> (TimeTile | None, why);  kernel, host_code, notes: printing

Takes a top-level host loop whose launches share one grid rank r, write arrays of rank r and
one shape at `g + c0` of their grid index g, and read them only at constant offsets `g + c`.
Gives a kernel running `steps` iterations a launch: each block copies a window (its cells and
a halo as wide as the iterations reach) into shared memory, runs the launches over the cells
still valid with a barrier between (unrolled: a fixed count of cells a thread, a one-store
launch's values all taken before its stores), and writes back its own cells; blocks read one
copy of the arrays and write the other. Refuses anything else, with the reason.
docs/poly.md, "Time tiles".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from math import prod

from pycparser import c_ast

from ...analysis import Stmt
from ...analysis.isl_bridge import constant_value
from ...ir import abi
from ...ir.csyntax import array_name
from ...ir.dtypes import DTYPES
from .ctext import WORD, min_expr, names_used, stored_value
from .mapping import HostLoop, Launch, launch_box
from .oneblock import at_function, launch_axes, param_decl
from .scratch import give_back, take
from .transform import WAVE
from .wavetiles import TILE_WAVE


@dataclass(frozen=True)
class Step:
    """One launch of an iteration, as the tile runs it (the loop's items, in order)."""
    reach: tuple[int, ...]           # per dimension: cells its reads of the tile's arrays reach past the cell it writes
    offset: tuple[str, ...]          # per dimension, C: the cell it writes minus its grid index (`NAME_at`'s idx_x, ...)
    axes: tuple[str, ...]            # per dimension: the axis of the launch's grid index there (x, y)
    split: str | None = None         # one store, no scalar: its array's type (its cells' values taken first), else None


@dataclass(frozen=True)
class Refused:
    """Why a host loop keeps a launch per iteration: the launch that stops it (None: the loop)."""
    launch: Launch | None
    why: str

    def __str__(self) -> str:              # printed once forms have named the launches
        return f"{self.launch.name}: {self.why}" if self.launch else self.why


@dataclass(frozen=True)
class TimeTile:
    """A host loop as overlapped time tiles (decided by `time_tile_of`, printed by `kernel`)."""
    steps: int                       # host iterations a launch runs
    threads: int                     # threads per block
    window: tuple[int, ...]          # per dimension: cells of each array a block holds
    arrays: tuple[str, ...]          # the arrays the loop writes: in shared memory, two copies in global
    extents: tuple[str, ...]         # their shape, C
    launches: tuple[Step, ...]       # an iteration's launches in order
    unrolled: bool = False           # each thread's cells a fixed count, unrolled

    @property
    def rank(self) -> int:
        return len(self.window)

    @property
    def count(self) -> str:
        """The arrays' cells, C (size_t)."""
        return abi.count(self.extents)

    @property
    def halo(self) -> tuple[int, ...]:
        """Cells past a block's own on each side of each dimension that its iterations' reads reach."""
        return tuple(self.steps * sum(s.reach[d] for s in self.launches) for d in range(self.rank))

    @property
    def own(self) -> tuple[int, ...]:
        """Cells along each dimension that each block computes and writes back."""
        return tuple(w - 2 * h for w, h in zip(self.window, self.halo))

    @property
    def barrier(self) -> str:
        """Between an iteration's launches: a warp's where the block is one warp."""
        return "__syncwarp()" if prod(self.block) == 32 else "__syncthreads()"

    @property
    def block(self) -> tuple[int, ...]:
        """Threads along x, y: a 1-d tile's on x; a 2-d tile's warps across a row, stacked."""
        return (self.threads,) if self.rank == 1 else (32, self.threads // 32)


def time_tile_of(p, h: HostLoop) -> tuple[TimeTile | None, Refused | None]:
    """The loop's time tiles (p: forms.Context), or None and why not."""
    opt = p.opt.launches.time_tiles
    if h.loop.var in (WAVE, TILE_WAVE) or h.loop.time is not None:
        return None, Refused(None, "a wavefront")
    if not h.items or not all(isinstance(it, Launch) for it in h.items):
        return None, Refused(None, "host loops or host statements inside it")
    prog, arrays = p.an.program, {a.name: a for a in p.k.arrays}
    written = {w.name for l in h.items for s in l.statements() for w in prog.statement(s).writes() if w.name in arrays}
    if not written:
        return None, Refused(None, "it writes no array")
    shapes, ranks = {arrays[a].shape for a in written}, {len(l.grid) for l in h.items}
    if len(shapes) != 1 or len(ranks) != 1 or len(next(iter(shapes))) not in ranks:
        return None, Refused(None, f"the arrays it writes ({', '.join(sorted(written))}) are not of one shape, "
                                   "of its launches' rank")
    (shape,), (rank,) = shapes, ranks
    steps = []
    for l in h.items:
        step, why = _step(p, l, written)
        if why:
            return None, Refused(l, why)
        steps.append(step)
    window = (opt.window,) if rank == 1 else opt.plane
    reach = [sum(s.reach[d] for s in steps) for d in range(rank)]
    fits = min((w // (4 * r) for w, r in zip(window, reach) if r), default=opt.steps)   # each halo at most a quarter
    tile = TimeTile(min(opt.steps, fits), opt.threads, window, tuple(sorted(written)), shape, tuple(steps),
                    opt.unrolled_plane if rank > 1 else opt.unrolled)
    if tile.steps < 1:
        return None, Refused(None, f"an iteration's reads reach {', '.join(map(str, reach))} cells, past a quarter "
                                   f"of the window ({' x '.join(map(str, window))})")
    if prod(window) * sum(_size(arrays[a].dtype) for a in tile.arrays) > p.target.shared_static:
        return None, Refused(None, f"a window of {' x '.join(map(str, window))} cells of {', '.join(tile.arrays)} "
                                   "passes a block's shared memory")
    return tile, None


def _step(p, l: Launch, written: set[str]) -> tuple[Step | None, str]:
    """A launch's reach and offset per dimension, or why the tile cannot run it."""
    if any(g.derived or g.step != 1 for g in l.grid):
        return None, "not a grid of consecutive indices"
    if l.reduction or l.row or l.phases or l.scan or l.banded or l.running_max or l.row_scan or l.tiles or l.private:
        return None, "its form needs blocks of its own"
    if any(n.at or n.bind for n in l.grid[-1].statements()):      # its iterators are not the loops' variables
        return None, "a statement placed by a new schedule"
    if any(p.plan.storage[w] != "local" for (s, _), w in p.an.web_of.items() if s in l.statements()):
        return None, "a scalar carried between launches"
    grid, at, reads = [g.var for g in l.grid], set(), []
    for s in l.statements():
        spec = p.an.model.specs[s]
        for name, idx, write in spec.accesses:
            if name in p.local_arrays:
                return None, f"the reference's local array {name}"
            if name not in written:
                continue
            cell = _offsets(p, spec.loops, idx, grid)
            if cell is None:
                return None, f"{name}[{', '.join(idx)}] is not at a constant offset from {', '.join(grid)}"
            if write:
                at.add(cell)
            else:
                reads.append(cell)
    if len(at) != 1:
        return None, "it writes the tile's arrays at more than one offset" if at else "it writes none of the tile's arrays"
    ((vars_, c0),) = at
    if any(v != vars_ for v, _ in reads):
        return None, "its reads and its write follow its grid indices in different orders"
    firsts = dict(zip(grid, (min_expr(lows) for lows, _ in launch_box(p.an, l))))
    return Step(tuple(max((abs(c[d] - c0[d]) for _, c in reads), default=0) for d in range(len(grid))),
                tuple(f"{c} + {firsts[v]}" if c else firsts[v] for v, c in zip(vars_, c0)),
                tuple(l.axes[v] for v in vars_), _one_store(p, l)), ""


def _one_store(p, l: Launch) -> str | None:
    """The stored array's type where a launch's body is one store of a cell and no scalar of its
    own (its value can be taken apart from its store), else None."""
    if len(l.body) != 1 or not isinstance(l.body[0], Stmt) or any(s == l.body[0].stmt.name for s, _ in p.an.web_of):
        return None
    target = stored_value(l.body[0].stmt.node)[1]
    return p.k.array(array_name(target)).dtype if target is not None else None


def _offsets(p, loops, idx, grid: list[str]):
    """((the grid index of each dimension), (its constant offset)) of a subscript, or None."""
    vars_, offs = [], []
    for e in idx:
        found = [(v, c) for v in grid if v not in vars_
                 for c in [constant_value(p.an.program.sizes, loops, f"({e}) - {v}")] if c is not None]
        if len(found) != 1:
            return None
        vars_.append(found[0][0])
        offs.append(found[0][1])
    return (tuple(vars_), tuple(offs)) if len(vars_) == len(grid) else None


def _size(dtype: str) -> int:
    return DTYPES.get(dtype, (8,))[0]


def loops(plan) -> list[HostLoop]:
    return [it for it in plan.items if isinstance(it, HostLoop) and it.time_tile]


def name(p, h: HostLoop) -> str:
    return f"{p.short}_time_{h.loop.var}"


# -- printing (p: cuda.Printer) ----------------------------------------------------------------

def _entry(h: HostLoop, l: Launch) -> str:
    """The device function a tile calls for launch `l`: its NAME_at (1-d) or NAME_tile (2-d)."""
    return f"{l.name}_at" if h.time_tile.rank == 1 else f"{l.name}_tile"


def _passed(h: HostLoop, l: Launch, calls) -> list[str]:
    """The arguments the tile passes to launch `l`'s device function (its launch's, for NAME_at)."""
    return calls[l.name if h.time_tile.rank == 1 else _entry(h, l)]


def _arguments(p, h: HostLoop, calls) -> list[str]:
    """The kernel's arguments but the tile's arrays: the names the launches' calls pass (sizes,
    read-only arrays, host scalars) and the sizes the arrays' extent needs."""
    used = {a for l in h.items for a in _passed(h, l, calls)} | set(WORD.findall(h.time_tile.count))
    order = list(p.k.params) + [w for w, s in p.plan.storage.items() if s == "host"]
    return [a for a in order if a in used and a != h.loop.var and a not in h.time_tile.arrays]


def _on_window(p, tt: TimeTile):
    """While printing a launch's body in a tile: a 2-d tile's arrays flattened with the window's
    row pitch (the tile points the arrays' names into the window); a 1-d tile's as they are."""
    return p.row_pitch(tt.arrays if tt.rank > 1 else (), tt.window[-1])


def _tile_function(p, h: HostLoop, l: Launch, calls) -> str:
    """`NAME_tile`: a 2-d launch's body as `NAME_at` would be, on the window (`_on_window`)."""
    inner_vars, locals_ = p.thread_variables(l)
    with _on_window(p, h.time_tile):
        text = "\n".join(p.point_body(l, launch_box(p.an, l), inner_vars, locals_, True))
    calls[_entry(h, l)] = args = p.kernel_args(l, names_used(text))
    return at_function(p, l, text, ", ".join(p.param_decl(a, l) for a in args), "_tile")


def _nest(heads: list[str], indent: str, inner: list[str], braces: bool = True) -> list[str]:
    """Loops `heads` (each one or more lines) nested from `indent`, `inner` in the innermost."""
    out = []
    for n, head in enumerate(heads):
        lines = head.split("\n")
        lines[-1] += " {" if braces and n == len(heads) - 1 else ""
        out += [indent + "  " * n + x for x in lines]
    out += [indent + "  " * len(heads) + x for x in inner]
    return out + ([indent + "  " * (len(heads) - 1) + "}"] if braces else [])


def _unrolled(tt: TimeTile, step: Step, c, sx, ax, first, past, call, entry: str) -> list[str]:
    """A launch's cells as each thread's fixed share of the window, loops of compile-time counts
    unrolled, each cell run where it is still valid.  A launch of one store (`Step.split`) takes
    every cell's value first, then stores them: the loads of all a thread's cells issue together
    (a launch's cells are independent: no cell reads what another writes)."""
    width = dict(zip(("x", "y"), tt.block))
    each = [-(-tt.window[d] // width[ax[d]]) for d in range(tt.rank)]
    flat = " + ".join(f"poly_m{x}" + "".join(f" * {e}" for e in each[d + 1:]) for d, x in enumerate(sx))
    inside = " && ".join(f"{c[d]} >= poly_from{x} && {c[d]} < poly_to{x}" for d, x in enumerate(sx))

    def cells(inner: list[str]) -> list[str]:
        out, indent = [], "      "
        for d, x in enumerate(sx):
            out += [f"{indent}#pragma unroll",
                    f"{indent}for (int poly_m{x} = 0; poly_m{x} < {each[d]}; poly_m{x}++) {{",
                    f"{indent}  const int {c[d]} = poly_lo{x} + (int)threadIdx.{ax[d]} + poly_m{x} * {width[ax[d]]};"]
            indent += "  "
        out += [indent + line for line in inner]
        for _ in sx:
            indent = indent[:-2]
            out.append(f"{indent}}}")
        return out

    out = [f"    {{   /* still valid: [{', '.join(f'poly_from{x}' for x in sx)}, {', '.join(f'poly_to{x}' for x in sx)}) */",
           *(f"      const int poly_from{x} = {first(d)}, poly_to{x} = {past(d)};" for d, x in enumerate(sx))]
    if step.split:
        out += [f"      {step.split} poly_v[{prod(each)}];   /* this thread's cells' values, stored after all are taken */",
                f"      bool poly_ok[{prod(each)}];",
                *cells([f"poly_ok[{flat}] = {inside} && {entry}_value({call}, poly_v[{flat}]);"]),
                *cells([f"if (poly_ok[{flat}])", f"  {entry}_store({call}, poly_v[{flat}]);"])]
    else:
        out += cells([f"if ({inside})", f"  {entry}({call});"])
    return out + ["    }"]


def _split_functions(p, h: HostLoop, l: Launch, calls) -> str:
    """`NAME_at_value` (false outside the launch's domain) and `NAME_at_store` (2-d: NAME_tile_...,
    subscripts with the window's row pitch): a one-store launch's value at a cell, its store."""
    entry = _entry(h, l)
    value, target = stored_value(l.body[0].stmt.node)
    box, v = launch_box(p.an, l), c_ast.ID("poly_v")
    with _on_window(p, h.time_tile):
        taken = p.point_body(l, box, [], {}, True, lambda n: c_ast.Assignment("=", v, copy.deepcopy(value)),
                             "return false;") + ["  return true;"]
        stored = p.point_body(l, box, [], {}, True, lambda n: c_ast.Assignment("=", copy.deepcopy(target), v))
    args = p.kernel_args(l, names_used("\n".join(taken + stored)))
    calls[f"{entry}_value"] = args
    params = ", ".join([*(p.param_decl(a, l) for a in args), *(f"int idx_{x}" for x in launch_axes(l))])
    ty = next(s.split for x, s in zip(h.items, h.time_tile.launches) if x is l)
    return "\n".join([f"/* {l.name} at one cell as its value (false outside its domain), then its store */",
                      f"static __device__ __forceinline__ bool {entry}_value({params}, {ty} &poly_v)",
                      "{", *taken, "}", "",
                      f"static __device__ __forceinline__ void {entry}_store({params}, {ty} poly_v)",
                      "{", *stored, "}"])


def kernel(p, h: HostLoop, calls) -> str:
    """The tile kernel (after the 2-d launches' NAME_tile): copy the window in, the iterations on
    it, the block's own cells out."""
    tt, var = h.time_tile, h.loop.var
    tiles = [_tile_function(p, h, l, calls) for l in h.items] if tt.rank > 1 else []
    tiles += [_split_functions(p, h, l, calls) for l, s in zip(h.items, tt.launches) if tt.unrolled and s.split]
    args = _arguments(p, h, calls)
    dtype = {a: p.k.array(a).dtype for a in tt.arrays}
    params = [param_decl(p, h, a) for a in args] + \
        [f"const {dtype[a]} *__restrict__ {a}_in, {dtype[a]} *__restrict__ {a}_out" for a in tt.arrays] + \
        ["int poly_first", "int poly_steps"]
    dims = range(tt.rank)
    sx = [""] if tt.rank == 1 else [str(d) for d in dims]          # a 1-d tile's names have no suffix
    ax = ["x"] if tt.rank == 1 else ["y", "x"]
    c, pitch = [f"poly_c{x}" for x in sx], tt.window[-1]
    cell = "poly_c" if tt.rank == 1 else "(size_t)poly_c0 * poly_count1 + poly_c1"          # in the arrays
    there = "poly_c - poly_lo" if tt.rank == 1 else f"(poly_c0 - poly_lo0) * {pitch} + (poly_c1 - poly_lo1)"
    base = "poly_lo" if tt.rank == 1 else f"(poly_lo0 * {pitch} + poly_lo1)"
    mine = "poly_c" if tt.rank == 1 else f"poly_c0 * {pitch} + poly_c1"   # through the names pointed into the window
    body = [f"  __shared__ {dtype[a]} poly_{a}[{prod(tt.window)}];" for a in tt.arrays]
    for d, x in zip(dims, sx):
        own, halo = tt.own[d], tt.halo[d]
        body += [f"  const int poly_count{x} = (int)({abi.count((tt.extents[d],))});",
                 f"  const int poly_own{x} = (int)blockIdx.{ax[d]} * {own};   /* this block's cells: [poly_own{x}, poly_end{x}) */",
                 f"  const int poly_end{x} = poly_own{x} + {own} < poly_count{x} ? poly_own{x} + {own} : poly_count{x};",
                 f"  const int poly_lo{x} = poly_own{x} > {halo} ? poly_own{x} - {halo} : 0;   /* the window: [poly_lo{x}, poly_hi{x}) */",
                 f"  const int poly_hi{x} = poly_end{x} + {halo} < poly_count{x} ? poly_end{x} + {halo} : poly_count{x};"]
    strided = lambda d, lo, hi: f"for (int {c[d]} = {lo} + (int)threadIdx.{ax[d]}; {c[d]} < {hi}; {c[d]} += (int)blockDim.{ax[d]})"
    body += _nest([strided(d, f"poly_lo{sx[d]}", f"poly_hi{sx[d]}") for d in dims], "  ",
                  [f"poly_{a}[{there}] = {a}_in[{cell}];" for a in tt.arrays])
    body += [f"  {dtype[a]} *{a} = poly_{a} - {base};   /* {a}[c] for c in the window */" for a in tt.arrays] + [
        "  __syncthreads();",
        f"  int {', '.join(f'poly_stale{x} = 0' for x in sx)};   /* cells at each inner end of the window no longer valid */",
        f"  int {var} = poly_first;",
        f"  for (int poly_s = 0; poly_s < poly_steps; poly_s++, {h.loop.next})", "  {"]
    first = lambda d: f"(poly_lo{sx[d]} > 0 ? poly_lo{sx[d]} + poly_stale{sx[d]} : 0)"
    past = lambda d: f"(poly_hi{sx[d]} < poly_count{sx[d]} ? poly_hi{sx[d]} - poly_stale{sx[d]} : poly_count{sx[d]})"
    valid = lambda d: (f"for (int {c[d]} = {first(d)} + (int)threadIdx.{ax[d]};\n"
                       f"     {c[d]} < {past(d)}; {c[d]} += (int)blockDim.{ax[d]})")
    for launch, step in zip(h.items, tt.launches):
        index = {a: c[d] if o == "0" else f"{c[d]} - ({o})" for d, (a, o) in enumerate(zip(step.axes, step.offset))}
        at = [index[a] for a in launch_axes(launch)]
        grow = " ".join(f"poly_stale{sx[d]} += {r};" for d, r in enumerate(step.reach) if r)
        body.append(f"    {grow}   /* {launch.name} */" if grow else f"    /* {launch.name} */")
        if tt.unrolled:
            passed = calls[f"{_entry(h, launch)}_value"] if step.split else _passed(h, launch, calls)
            body += _unrolled(tt, step, c, sx, ax, first, past, ", ".join(passed + at), _entry(h, launch))
        else:
            call = f"{_entry(h, launch)}({', '.join(_passed(h, launch, calls) + at)});"
            body += _nest([valid(d) for d in dims], "    ", [call], braces=False)
        body.append(f"    {tt.barrier};")
    body += ["  }", *_nest([strided(d, f"poly_own{sx[d]}", f"poly_end{sx[d]}") for d in dims], "  ",
                           [f"{a}_out[{cell}] = {a}[{mine}];" for a in tt.arrays])]
    calls[name(p, h)] = args
    cells = lambda t: " x ".join(map(str, t))
    share, walk = ("a fixed share", "unrolled") if tt.unrolled else ("a block-strided share", "a block-strided loop")
    return "\n\n".join([*tiles, "\n".join([
        f"/* {name(p, h)}: each thread {share} of its block's window. Host loop {var} in overlapped "
        f"time tiles: each block holds {cells(tt.window)} cells "
        f"of {', '.join(tt.arrays)} in shared memory, runs up to {tt.steps} iterations on them (each "
        f"launch {walk} over the cells still valid, then {tt.barrier}) and writes back "
        f"its own {cells(tt.own)}; the {cells(tt.halo)} cells past them on each side are those the iterations' reads "
        "reach. It reads one copy of the arrays and writes the other. */",
        f"__global__ void __launch_bounds__({tt.threads}) {name(p, h)}({', '.join(params)})",
        "{", *p.waits(name(p, h), [h], ", ".join(params)), *body, "}"])])


def host_code(p, h: HostLoop, indent: str, calls) -> list[str]:
    """The loop in launches of `steps` iterations, the two copies swapped after each, the last
    copy written back to the caller's arrays; the launches per iteration where the scratch
    copy cannot be had (or a 2-d tile's rows of blocks pass CUDA's 65535)."""
    tt, l, i = h.time_tile, h.loop, indent
    dtype = {a: p.k.array(a).dtype for a in tt.arrays}
    at, lines = "0", []
    for a in tt.arrays:
        size = abi.nbytes(dtype[a], tt.count)
        lines.append(f"{i}    {dtype[a]} *poly_in_{a} = {a}, *poly_out_{a} = ({dtype[a]} *)(poly_other + {at});")
        at = f"{at} + ({size} + 255) / 256 * 256" if at != "0" else f"({size} + 255) / 256 * 256"
    swap = [f"{i}        {{ {dtype[a]} *poly_x = poly_in_{a}; poly_in_{a} = poly_out_{a}; poly_out_{a} = poly_x; }}"
            for a in tt.arrays]
    back = [f"{i}    if (poly_in_{a} != {a})   /* the last launch wrote the scratch copy */\n"
            f"{i}      cudaMemcpyAsync({a}, poly_in_{a}, {abi.nbytes(dtype[a], tt.count)}, cudaMemcpyDeviceToDevice, 0);"
            for a in tt.arrays]
    pointers = ", ".join(f"poly_in_{a}, poly_out_{a}" for a in tt.arrays)
    if tt.rank == 1:
        fits, threads, some = "", str(tt.threads), "poly_blocks_time > 0"
        blocks = f"const unsigned poly_blocks_time = (unsigned)((poly_cells + {tt.own[0] - 1}) / {tt.own[0]});"
    else:
        fits, threads, some = f" && (long long)({tt.extents[0]}) / {tt.own[0]} < 65535", f"dim3({', '.join(map(str, tt.block))})", "poly_cells > 0"
        blocks = (f"const dim3 poly_blocks_time((unsigned)(((long long)({tt.extents[1]}) + {tt.own[1] - 1}) / {tt.own[1]}), "
                  f"(unsigned)(((long long)({tt.extents[0]}) + {tt.own[0] - 1}) / {tt.own[0]}));")
    return [f"{i}{{",
            f"{i}  char *poly_other = NULL;   /* the other copy of {', '.join(tt.arrays)}: a launch reads one, writes the other */",
            f"{i}  const long long poly_cells = (long long)({tt.count});",
            f"{i}  if (poly_cells < 1073741824LL{fits} && {take('poly_other', f'{at} + 1', p.opt.pool)} == cudaSuccess) {{",
            *lines,
            f"{i}    {blocks}",
            f"{i}    for ({l.init}; {l.cond}; )",
            f"{i}    {{",
            f"{i}      const int poly_first = {l.var};",
            f"{i}      int poly_steps = 0;   /* up to {tt.steps} iterations, as the loop runs them */",
            f"{i}      for (; poly_steps < {tt.steps} && ({l.cond}); poly_steps++, {l.next})",
            f"{i}        ;",
            f"{i}      if ({some}) {{",
            f"{i}        " + p.launch_line(name(p, h), ("poly_blocks_time", threads),
                                       ", ".join([*calls[name(p, h)], pointers, "poly_first", "poly_steps"]), [h]),
            *swap,
            f"{i}      }}",
            f"{i}    }}",
            *back,
            f"{i}    {give_back('poly_other', p.opt.pool)}",
            f"{i}  }} else {{   /* no scratch copy: a launch per iteration */",
            *p.host_loop(h, i + "    ", calls),
            f"{i}  }}",
            f"{i}}}"]


def notes(p) -> list[str]:
    """The header's lines on the host loops that run in time tiles, and on those refused."""
    out = []
    for h in (it for it in p.plan.items if isinstance(it, HostLoop)):
        if h.time_tile:
            tt = h.time_tile
            out.append(f"  ... host loop {h.loop.var} runs in overlapped time tiles ({name(p, h)}): {tt.steps} "
                       f"iterations a launch, each block {' x '.join(map(str, tt.window))} cells of "
                       f"{', '.join(tt.arrays)} in shared memory, its own {' x '.join(map(str, tt.own))} written back.")
        elif h.not_time_tile:
            out.append(f"  ... host loop {h.loop.var} keeps a launch per iteration (no time tiles): {h.not_time_tile}.")
    return out
