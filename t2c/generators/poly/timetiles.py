"""A host loop of 1-d stencil launches as overlapped time tiles: several iterations a launch.

    time_tile_of(p, host_loop) -> (TimeTile | None, why);  kernel, host_code, notes: printing

Takes a top-level host loop (a time loop) whose items are all launches of a 1-d grid, where
every array the loop writes is 1-d, all of one extent, and each launch writes cell `g + c0` of
its grid index `g` and reads those arrays only at `g + c` (constants: a stencil's reach); other
arrays are only read; scalars are each thread's own. Gives a kernel that runs `steps`
iterations per launch: each block copies a window of the written arrays into shared memory,
its own cells and `halo` more on each side, runs the iterations' launches as block-strided
loops with __syncthreads() between, each over the cells still valid (a launch of reach r
leaves r more at each end stale), and writes back its own cells. Blocks read one copy of the
arrays and write the other (a scratch copy, scratch.py), so no block reads what another
writes in the same launch. Why: a launch per iteration costs more than its work (jacobi-1d,
pathfinder). Refuses anything else, with the reason. docs/poly.md, "Time tiles".
"""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis.isl_bridge import constant_value
from ...ir import abi
from ...ir.dtypes import DTYPES
from .ctext import WORD, min_expr
from .mapping import HostLoop, Launch, launch_box
from .oneblock import launches, param_decl
from .scratch import give_back, take
from .transform import WAVE
from .wavetiles import TILE_WAVE


@dataclass(frozen=True)
class Step:
    """One launch of an iteration, as the tile runs it (the loop's items, in order)."""
    reach: int                       # cells its reads of the tile's arrays reach past the cell it writes
    offset: str                      # C: the cell it writes minus its grid index (`NAME_at`'s idx_x)


@dataclass(frozen=True)
class TimeTile:
    """A host loop as overlapped time tiles (decided by `time_tile_of`, printed by `kernel`)."""
    steps: int                       # host iterations a launch runs
    threads: int                     # threads per block
    window: int                      # cells of each array a block holds
    arrays: tuple[str, ...]          # the arrays the loop writes: in shared memory, two copies in global
    count: str                       # their cells, C (size_t)
    launches: tuple[Step, ...]       # an iteration's launches in order

    @property
    def halo(self) -> int:
        """Cells past a block's own on each side that its iterations' reads reach."""
        return self.steps * sum(s.reach for s in self.launches)

    @property
    def own(self) -> int:
        """Cells each block computes and writes back."""
        return self.window - 2 * self.halo


def time_tile_of(p, h: HostLoop) -> tuple[TimeTile | None, str]:
    """The loop's time tiles (p: forms.Context), or None and why not (naming the launch that
    stops it by `{}`: the launches are named after forms decide this)."""
    opt = p.opt.launches.time_tiles
    if h.loop.var in (WAVE, TILE_WAVE) or h.loop.time is not None:
        return None, "a wavefront"
    if not h.items or not all(isinstance(it, Launch) for it in h.items):
        return None, "host loops or host statements inside it"
    prog, arrays = p.an.program, {a.name: a for a in p.k.arrays}
    written = {w.name for l in h.items for s in l.statements() for w in prog.statement(s).writes() if w.name in arrays}
    if not written:
        return None, "it writes no array"
    shapes = {arrays[a].shape for a in written}
    if len(shapes) != 1 or len(next(iter(shapes))) != 1:
        return None, f"the arrays it writes ({', '.join(sorted(written))}) are not 1-d of one extent"
    steps = []
    for l in h.items:
        step, why = _step(p, l, written)
        if why:
            return None, f"{{{h.items.index(l)}}}: {why}"
        steps.append(step)
    reach = sum(s.reach for s in steps)
    fits = opt.window // (4 * reach) if reach else opt.steps        # the halo at most a quarter of the window
    tile = TimeTile(min(opt.steps, fits), opt.threads, opt.window, tuple(sorted(written)), abi.count(next(iter(shapes))),
                    tuple(steps))
    if tile.steps < 1:
        return None, f"an iteration's reads reach {reach} cells, past a quarter of the window ({opt.window})"
    if opt.window * sum(_size(arrays[a].dtype) for a in tile.arrays) > p.target.shared_static:
        return None, f"a window of {opt.window} cells of {', '.join(tile.arrays)} passes a block's shared memory"
    return tile, ""


def _step(p, l: Launch, written: set[str]) -> tuple[Step | None, str]:
    """A launch's reach and offset, or why the tile cannot run it."""
    if len(l.grid) != 1 or l.grid[0].derived or l.grid[0].step != 1:
        return None, "not a 1-d grid of consecutive indices"
    if l.reduction or l.row or l.phases or l.scan or l.banded or l.running_max or l.row_scan or l.tiles or l.private:
        return None, "its form needs blocks of its own"
    if any(n.at or n.bind for n in l.grid[-1].statements()):      # its iterators are not the loops' variables
        return None, "a statement placed by a new schedule"
    if any(p.plan.storage[w] != "local" for (s, _), w in p.an.web_of.items() if s in l.statements()):
        return None, "a scalar carried between launches"
    var, at, reads = l.grid[0].var, set(), []
    for s in l.statements():
        spec = p.an.model.specs[s]
        for name, idx, write in spec.accesses:
            if name in p.local_arrays:
                return None, f"the reference's local array {name}"
            if name not in written:
                continue
            c = constant_value(p.an.program.sizes, spec.loops, f"({idx[0]}) - {var}") if len(idx) == 1 else None
            if c is None:
                return None, f"{name}[{', '.join(idx)}] is not at a constant offset from {var}"
            if write:
                at.add(c)
            else:
                reads.append(c)
    if len(at) != 1:
        return None, "it writes the tile's arrays at more than one offset" if at else "it writes none of the tile's arrays"
    (c0,) = at
    first = min_expr(launch_box(p.an, l)[0][0])
    return Step(max((abs(c - c0) for c in reads), default=0), f"{c0} + {first}" if c0 else first), ""


def _size(dtype: str) -> int:
    return DTYPES.get(dtype, (8,))[0]


def loops(plan) -> list[HostLoop]:
    return [it for it in plan.items if isinstance(it, HostLoop) and it.time_tile]


def name(p, h: HostLoop) -> str:
    return f"{p.short}_time_{h.loop.var}"


# -- printing (p: cuda.Printer) ----------------------------------------------------------------

def _arguments(p, h: HostLoop, calls) -> list[str]:
    """The kernel's arguments but the tile's arrays: the names the launches' calls pass (sizes,
    read-only arrays, host scalars) and the sizes the arrays' extent needs."""
    used = {a for l in h.items for a in calls[l.name]} | set(WORD.findall(h.time_tile.count))
    order = list(p.k.params) + [w for w, s in p.plan.storage.items() if s == "host"]
    return [a for a in order if a in used and a != h.loop.var and a not in h.time_tile.arrays]


def kernel(p, h: HostLoop, calls) -> str:
    """The tile kernel: copy the window in, the iterations on it, the block's own cells out."""
    tt, var = h.time_tile, h.loop.var
    args = _arguments(p, h, calls)
    dtype = {a: p.k.array(a).dtype for a in tt.arrays}
    params = [param_decl(p, h, a) for a in args] + \
        [f"const {dtype[a]} *__restrict__ {a}_in, {dtype[a]} *__restrict__ {a}_out" for a in tt.arrays] + \
        ["int poly_first", "int poly_steps"]
    body = [f"  __shared__ {dtype[a]} poly_{a}[{tt.window}];" for a in tt.arrays] + [
        f"  const int poly_count = (int)({tt.count});",
        f"  const int poly_own = (int)blockIdx.x * {tt.own};   /* this block's cells: [poly_own, poly_end) */",
        f"  const int poly_end = poly_own + {tt.own} < poly_count ? poly_own + {tt.own} : poly_count;",
        f"  const int poly_lo = poly_own > {tt.halo} ? poly_own - {tt.halo} : 0;   /* the window: [poly_lo, poly_hi) */",
        f"  const int poly_hi = poly_end + {tt.halo} < poly_count ? poly_end + {tt.halo} : poly_count;",
        "  for (int poly_c = poly_lo + (int)threadIdx.x; poly_c < poly_hi; poly_c += (int)blockDim.x) {",
        *[f"    poly_{a}[poly_c - poly_lo] = {a}_in[poly_c];" for a in tt.arrays], "  }",
        *[f"  {dtype[a]} *{a} = poly_{a} - poly_lo;   /* {a}[c] for c in the window */" for a in tt.arrays],
        "  __syncthreads();",
        "  int poly_stale = 0;   /* cells at each inner end of the window no longer valid */",
        f"  int {var} = poly_first;",
        f"  for (int poly_s = 0; poly_s < poly_steps; poly_s++, {h.loop.next})", "  {"]
    for launch, step in zip(h.items, tt.launches):
        call = ", ".join(calls[launch.name] + ["poly_c" if step.offset == "0" else f"poly_c - ({step.offset})"])
        body += [f"    poly_stale += {step.reach};   /* {launch.name} */" if step.reach else f"    /* {launch.name} */",
                 "    for (int poly_c = (poly_lo > 0 ? poly_lo + poly_stale : 0) + (int)threadIdx.x;",
                 "         poly_c < (poly_hi < poly_count ? poly_hi - poly_stale : poly_count); poly_c += (int)blockDim.x)",
                 f"      {launch.name}_at({call});",
                 "    __syncthreads();"]
    body += ["  }", "  for (int poly_c = poly_own + (int)threadIdx.x; poly_c < poly_end; poly_c += (int)blockDim.x) {",
             *[f"    {a}_out[poly_c] = {a}[poly_c];" for a in tt.arrays], "  }"]
    calls[name(p, h)] = args
    return "\n".join([f"/* {name(p, h)}: host loop {var} in overlapped time tiles: each block holds {tt.window} cells "
                      f"of {', '.join(tt.arrays)} in shared memory, runs up to {tt.steps} iterations on them (each "
                      "launch a block-strided loop over the cells still valid, then __syncthreads()) and writes back "
                      f"its own {tt.own}; the {tt.halo} cells past them on each side are those the iterations' reads "
                      "reach. It reads one copy of the arrays and writes the other. */",
                      f"__global__ void __launch_bounds__({tt.threads}) {name(p, h)}({', '.join(params)})",
                      "{", *body, "}"])


def host_code(p, h: HostLoop, indent: str, calls) -> list[str]:
    """The loop in launches of `steps` iterations, the two copies swapped after each, the last
    copy written back to the caller's arrays; the launches per iteration where the scratch
    copy cannot be had."""
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
    return [f"{i}{{",
            f"{i}  char *poly_other = NULL;   /* the other copy of {', '.join(tt.arrays)}: a launch reads one, writes the other */",
            f"{i}  const long long poly_cells = (long long)({tt.count});",
            f"{i}  if (poly_cells < 1073741824LL && {take('poly_other', f'{at} + 1', p.opt.pool)} == cudaSuccess) {{",
            *lines,
            f"{i}    const unsigned poly_blocks_time = (unsigned)((poly_cells + {tt.own - 1}) / {tt.own});",
            f"{i}    for ({l.init}; {l.cond}; )",
            f"{i}    {{",
            f"{i}      const int poly_first = {l.var};",
            f"{i}      int poly_steps = 0;   /* up to {tt.steps} iterations, as the loop runs them */",
            f"{i}      for (; poly_steps < {tt.steps} && ({l.cond}); poly_steps++, {l.next})",
            f"{i}        ;",
            f"{i}      if (poly_blocks_time > 0) {{",
            f"{i}        {name(p, h)}<<<poly_blocks_time, {tt.threads}>>>"
            f"({', '.join([*calls[name(p, h)], pointers, 'poly_first', 'poly_steps'])});",
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
                       f"iterations a launch, each block {tt.window} cells of {', '.join(tt.arrays)} in shared "
                       f"memory, its own {tt.own} written back.")
        elif h.not_time_tile:
            out.append(f"  ... host loop {h.loop.var} keeps a launch per iteration (no time tiles): {h.not_time_tile}.")
    return out
