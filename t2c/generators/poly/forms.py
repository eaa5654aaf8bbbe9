"""The forms pass: how each launch of a plan runs, decided before anything prints.

    formed(analysis, plan, options, target) -> the plan, complete (lower.final_plan's last pass)

Takes the final program's `Analysis`, its `Plan` (mapping.py) and the options; fills the plan's
records in place: each launch's form (the first its recognizer finds: a grid reduction, a scan,
an order-W recurrence, a running maximum, a row scan, lanes per row, a block per row, private
copies), host loops of 1-d or 2-d stencils in time tiles, one-block loops, sweeps, transposes, tiles (staged, tensor cores, registers), threads
per block and shared memory, pointwise temporaries kept in registers (contract.py), merged
runs, grid caps, coarsening, names, and (`launches.persistent`) host loops as one cooperative
launch. Helpers get a `Context`, never the printer, so cuda.Printer only prints. Refuses
nothing: a launch no form takes stays a grid of threads. docs/poly.md, "Forms".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir import Kernel
from ...ir.csyntax import array_name, assignment_reads, cprint
from ...runtime.target import SM90, Target
from . import banded, contract, kadane, merge, oneblock, persistent, phases, pivotblocks, private, reduce, rowscan, scan, slabs, stage, strips, \
    substitution, sweep, tensor, timetiles, transposed, vector
from .ctext import WORD, extent_text, identifiers, max_expr, min_expr
from .cuda import accumulator_of, short_name
from .mapping import HostLoop, Launch, Plan, launch_box
from .options import PolyOptions



@dataclass(frozen=True)
class Context:
    """What the planning helpers read, under the names the printer gives the same facts (one
    helper such as merge.threads serves both)."""
    k: Kernel                                   # the program's kernel (with its copies of inputs)
    an: Analysis
    plan: Plan
    opt: PolyOptions
    target: Target
    local_arrays: dict                          # local array -> its shape
    web_type: dict                              # scalar web -> its C type

    @classmethod
    def of(cls, an: Analysis, plan: Plan, options: PolyOptions, target: Target) -> Context:
        prog = an.program
        return cls(prog.kernel, an, plan, options, target, {n: v.shape for n, v in prog.locals.items() if v.shape},
                   {w: prog.locals[an.webs[w].scalar].dtype for w in an.webs})

    def accumulator_parts(self, loop: Loop, scalars: bool = False) -> tuple | None:
        """(dtype, register name, cell, statement) of a loop in the register accumulator's form."""
        return accumulator_of(self, loop, scalars)

    def empty(self, launch: Launch) -> bool:
        """Whether a launch with a grid has an empty iteration domain."""
        return any(not lows or not highs for lows, highs in launch_box(self.an, launch))


def formed(an: Analysis, plan: Plan, options: PolyOptions, target: Target = SM90) -> Plan:
    p = Context.of(an, plan, options, target)
    for launch in plan.launches:
        if not launch.tiles:                     # a tiled wavefront's form is decided (wavetiles.py)
            _recognized(p, launch)
    # mapping.why_in_order's notes name nests in order: one reduced over its flat range runs in none
    flat = {v for launch in plan.launches if launch.reduction for v, _, _ in launch.reduction.flat}
    plan.notes = [n for n in plan.notes if not any(n.startswith(f"In order: loop {v} ") for v in flat)]
    if options.launches.time_tiles:        # first: a loop in time tiles takes no one-block form
        for h in _stencil_loops(plan):
            h.time_tile, h.not_time_tile = timetiles.time_tile_of(p, h)
            for launch in h.items if h.time_tile and h.time_tile.rank == 1 else []:   # 2-d: NAME_tile besides
                launch.in_block = True
    if options.launches.pivot_blocks:      # before one block: a loop in blocks of pivots takes no other form
        for h in (it for it in plan.items if isinstance(it, HostLoop) and not it.time_tile):
            h.pivot_blocks, h.not_pivot_blocks = pivotblocks.pivot_blocks_of(p, h)
            for launch in h.items if h.pivot_blocks else []:
                launch.in_block = True
    block_loops = [h for h in oneblock.loops_of(plan) if not h.time_tile and not h.pivot_blocks] if options.one_block else []
    for h in block_loops:
        h.one_block = True
        for launch in oneblock.launches(h):
            launch.in_block = True
    threads = (options.one_block.threads or target.max_threads) if options.one_block else 0   # None: the most, or 512
    for launch in plan.launches:
        if launch.in_block:
            launch.row = launch.phases = None   # their lanes need a block of their own
            launch.scan = launch.running_max = launch.banded = launch.row_scan = None   # ... and a scan's blocks their grid
            launch.private = None                                       # ... and a private copy its grid
            if threads % 32 == 0 and threads <= target.max_threads:     # whole warps
                launch.block_sum = reduce.block_sum_of(an, plan.storage, launch)
        elif options.sweeps and not (launch.scan or launch.running_max or launch.banded or launch.tiles or launch.private
                                     or launch.row_scan):
            launch.sweep = sweep.sweep_of(p, launch)
    for launch in plan.launches:
        if options.grid.transpose and not (launch.scan or launch.running_max or launch.banded or launch.tiles
                                           or launch.reduction or launch.row or launch.phases or launch.sweep
                                           or launch.private or launch.row_scan):
            launch.transposed = transposed.transposed_of(p, launch)
        if not launch.transposed and tileable(p, launch):
            _tiled(p, launch)
            launch.per_sm = options.tiles.blocks_per_sm if launch.tile else None
        launch.block = block(p, launch)
        if launch.sweep and launch.sweep.rows is not None and options.sweeps.rows.staged:
            launch.sweep.staged = sweep.stageable(p, launch, launch.sweep) is not None
    plan.contracted = contract.contracted(an, plan, options)   # pointwise temporaries: registers, no buffer
    if plan.contracted:
        p = replace(p, local_arrays={n: s for n, s in p.local_arrays.items() if n not in contract.arrays(plan)})
        plan.notes.append(contract.note(plan.contracted))
    for h in block_loops:
        _one_block(p, h)
    plan.merged = merge.runs(p) if options.launches.merge else []     # runs of launches as one
    for run in plan.merged:
        for launch in run:
            launch.merged_threads = merge.threads(p, run)
    for launch in plan.launches:
        if launch.row and options.reductions.rows.warp_rows:
            launch.row.warps = reduce.warp_rows(p, launch)
        launch.grid_cap = capped(p, launch)
        launch.slab = slabs.slab_of(p, launch)          # a thread's own rows and the tables, staged: one index per thread
        launch.strips = strips.strips_of(p, launch)     # ... or its rows and columns walked in strips
        if launch.strips and launch.slab and launch.slab.rows and \
                not any(t.stored or t.down for w in launch.strips.walks for t in w.tiles):
            launch.strips = None          # the slab copies the same rows whole, once (its own test of fit)
        if launch.strips:
            launch.slab, launch.block = None, (launch.strips.threads,)
        launch.coarsen = coarsened(p, launch)
        launch.preload = preloaded(p, launch)
        launch.vector = vector.vectorized(p, launch)
    _name(p)
    if options.launches.persistent:      # last: its refusals name the launches
        for h in (it for it in plan.items if isinstance(it, HostLoop)):
            h.persistent, h.not_persistent = persistent.persistent_of(p, h)
    return plan


def _stencil_loops(plan: Plan) -> list[HostLoop]:
    """The top-level host loops whose items are all launches of 1-d grids, or all of 2-d grids
    (time tiles' candidates)."""
    return [it for it in plan.items if isinstance(it, HostLoop) and it.items
            and all(isinstance(l, Launch) for l in it.items) and len({len(l.grid) for l in it.items}) == 1
            and len(it.items[0].grid) in (1, 2)]


def _recognized(p: Context, launch: Launch) -> None:
    """The launch's form among the recognizers that need no other launch's."""
    an, storage, opt = p.an, p.plan.storage, p.opt
    if opt.reductions.partials is not None:
        launch.reduction = reduce.reduction_of(an, storage, launch)
        if launch.reduction:
            launch.reduction.parts = opt.reductions.partials
    if opt.scans.linear and not launch.reduction:
        launch.scan = scan.scan_of(an, launch)
    if opt.scans.banded and not (launch.reduction or launch.scan):
        launch.banded = banded.banded_of(an, storage, launch)
    if opt.scans.running_max and not (launch.reduction or launch.scan or launch.banded):
        launch.running_max = kadane.running_max_of(an, storage, launch, opt.scans.running_tile,
                                                       p.target.shared_static)
    if opt.scans.rows and not (launch.reduction or launch.scan or launch.banded or launch.running_max):
        launch.row_scan = rowscan.row_scan_of(an, launch, opt.scans.rows)
    if opt.reductions.rows and not (launch.banded or launch.row_scan):
        launch.row = reduce.row_reduction_of(an, storage, launch, opt.reductions.rows.data_lanes)
        if launch.row and not launch.row.column:
            launch.row.lanes = reduce.row_lanes(p, launch)   # once: merging and printing read it
    if opt.reductions.row_blocks and not (launch.row or launch.banded or launch.row_scan):
        launch.phases = phases.phases_of(an, storage, launch, opt.reductions.row_held, opt.reductions.row_registers,
                                         opt.reductions.row_warps)
    launch.private = private.private_of(p, launch)


def _tiled(p: Context, launch: Launch) -> None:
    """A tileable launch's tile: staged (over a rectangle: `tiles.staging.rect`), its products on
    the tensor cores and its tiles copied ahead where they allow; else a register tile."""
    opt, st = p.opt, p.opt.tiles.staging
    if st:
        rect = st.rect is not None and rectangle(p, launch)
        shape = st.rect.block if rect else st.block
        launch.tile = st.rect.tile if rect else st.tile
        launch.block = shape or opt.grid.block_2d     # stage.plan reads these shapes
        launch.stages, launch.rect = st.rect.ring if rect else 0, rect
        launch.staged = stage.plan(p, launch)
    if not launch.staged:
        launch.block, launch.stages, launch.rect = None, 0, False
        launch.tile = opt.tiles.registers if opt.tiles.registers and not moving(launch) else None
        return
    if st.tensor_cores:
        launch.mma = tensor.plan(p, launch)
    if not (launch.mma and st.tensor_cores.async_copies):
        return
    y, x = launch.rows_cols()
    types = {v.name: v.dtype for v in p.k.scalars} | {a.name: a.dtype for a in p.k.arrays}
    for loop in (n for n in launch.body if isinstance(n, Loop)):
        s = launch.staged[id(loop)]
        raws = {op.name: stage.raw_read(op, {y.var, x.var, loop.var}, types) for op in s.operands}
        if all(raws.values()) and (ring := tensor.ring(p, launch, s)):
            s.ring, s.raws = ring[:2], raws
            launch.shared_bytes = max(launch.shared_bytes, ring[2])


def _one_block(p: Context, h) -> None:
    """A one-block loop's threads, the arrays each of its iterations copies, the scalars each
    thread keeps and the launches that need no barrier after them."""
    opt = p.opt.one_block
    h.threads = oneblock.threads(p, h)
    h.private = oneblock.private_arrays(p, h) if opt.private_blocks else []
    webs, every = oneblock.thread_scalars(p, h) if opt.thread_scalars and not h.private else (set(), set())
    unsynced = oneblock.unsynced(p, h, webs) if opt.fewer_barriers else set()
    h.thread_webs = frozenset(webs)
    for launch in oneblock.launches(h):
        launch.own_scalars = frozenset(webs)
        launch.every_thread, launch.unsynced = id(launch) in every, id(launch) in unsynced
    if opt.substitution and not h.private:
        h.substitution, h.not_substitution = substitution.substitution_of(p, h)


def block(p: Context, launch: Launch) -> tuple | None:
    """The launch's threads per block, (x, y, z) as far as it has dimensions; None for the forms
    whose modules shape their own launches (a reduction on a grid, scans, a tiled wavefront)."""
    if launch.tiles or launch.scan or launch.banded or launch.running_max:
        return None
    if launch.row_scan:
        return (launch.row_scan.threads,)
    if launch.phases:
        return (launch.phases.threads,)
    if launch.transposed:
        return (transposed.TILE, transposed.ROWS, 1)[:len(launch.grid)]
    if launch.sweep:
        return sweep.block(launch)
    if launch.private:
        return (private.THREADS,)
    if launch.row:
        return p.opt.reductions.rows.column_block if launch.row.column else (reduce.ROW_BLOCK,)
    if launch.tile:
        return (*(launch.block or p.opt.grid.block_2d), 1)[:len(launch.grid)]
    if launch.reduction:
        return None
    return p.opt.block(len(launch.grid)) if launch.grid else (1,)


def coarsened(p: Context, launch: Launch) -> int:
    """How many x indices each thread of a plain launch whose threads run no loop takes
    (`grid.coarsen`; 1: one): elementwise maps and stencils, whose threads each move a few
    bytes, keep too few loads in flight at one index per thread to reach the copy bandwidth.  A
    thread takes indices blockDim.x apart (each warp's accesses stay as coalesced as before);
    where all of them are inside the domain it runs them unrolled over `__restrict__` pointers,
    so the compiler issues every load before the first store (the arrays are distinct, which the
    dependence analysis assumes already; the grid loops are parallel, so no instance reads what
    another writes).  A launch inside host loops keeps one index per thread: each step re-reads
    arrays that mostly stay in L2, where loads in flight are not the limit and fewer threads
    only lengthen the step (docs/poly-options.md, `grid.coarsen`).  With `grid.narrow` the factor
    counts 4-byte elements: a launch whose narrowest array has 2-byte (1-byte) elements takes
    2 (4) times as many, so its threads keep as many bytes of loads in flight as a float's."""
    other = launch.tiles or launch.scan or launch.banded or launch.running_max or launch.reduction \
        or launch.row or launch.sweep or launch.phases or launch.tile or launch.block_sum or launch.private \
        or launch.transposed or launch.row_scan or launch.slab or launch.strips
    if not p.opt.grid.coarsen or other or launch.merged_threads or launch.in_block or launch.host_loops or \
            "x" not in launch.axes.values() or launch.grid[-1].derived or \
            not all(isinstance(n, Stmt) for n in launch.body):
        return 1
    if not p.opt.grid.narrow:
        return p.opt.grid.coarsen
    dtypes = {a.name: a.dtype for a in p.k.arrays}
    used = {dtypes[a.name] for n in launch.body for a in n.stmt.accesses if a.name in dtypes}
    return p.opt.grid.coarsen * max(1, 4 // min((ELEMENT_BYTES.get(t, 4) for t in used), default=4))


ELEMENT_BYTES = {"__half": 2, "__nv_bfloat16": 2, "short": 2, "char": 1, "unsigned char": 1}   # else 4 or more


def preloaded(p: Context, launch: Launch) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The reads that a coarsened launch's in-domain path loads for all of a thread's indices
    before any statement runs: (their C text in the reference, the statements that then read
    them from the registers).  A division or a math function compiles to a branch or a
    subroutine call, and the compiler moves no load past one, so otherwise each index's load
    waits behind the previous index's store.  Taken: the reads a plain assignment evaluates
    unconditionally (not under `?:`, `&&`, `||`, `&`), of kernel arrays that no earlier statement
    of the launch writes, whose subscripts name no local.  Exact: the grid loops are parallel, so
    no other index writes what one reads, and each index loads what its statements read."""
    if launch.coarsen <= 1 or not p.opt.grid.preload:
        return ()
    local, written, out = set(p.an.program.locals), set(), {}
    arrays = {a.name for a in p.k.arrays}
    for n in launch.body:
        node = n.stmt.node
        if isinstance(node, c_ast.Assignment) and node.op == "=" and not n.stmt.conditional:
            for ref in assignment_reads(node):
                text = cprint(ref)
                if array_name(ref) in arrays and not identifiers(text) & (local | written):
                    out.setdefault(text, [])
        if isinstance(node, c_ast.Assignment):
            for text, users in out.items():
                if not identifiers(text) & written:
                    users.append(n.stmt.name)
        written |= {w.name for w in n.stmt.writes()}
    return tuple((text, tuple(users)) for text, users in out.items())


def capped(p: Context, launch: Launch) -> dict[str, int]:
    """The grid axes y and z of a launch of threads per grid point (plain or tiled) whose blocks
    may pass CUDA's limit there (`Target.max_grid_yz`, 65535; x takes 2^31 - 1), each with that
    limit: the sizes are runtime values, so every such axis but one whose extent is a literal
    that fits.  The launch asks for at most the limit and each block strides over the rest of
    the axis's blocks (cuda.Printer.strided).  The other forms, merged runs' parts and one-block
    loops' launches (1-d) put their blocks on x only."""
    other = launch.tiles or launch.scan or launch.banded or launch.running_max or launch.reduction \
        or launch.row or launch.sweep or launch.phases or launch.row_scan
    if not launch.grid or other or launch.merged_threads or launch.in_block:
        return {}
    box = dict(zip((l.var for l in launch.grid), launch_box(p.an, launch)))
    per = dict(zip(("y", "x"), launch.per_thread()))
    threads = dict(zip(("x", "y", "z"), launch.block))
    most = p.target.max_grid_yz
    cap = {}
    for l in launch.grid:
        ax = launch.axes[l.var]
        lows, highs = box[l.var]
        if ax == "x" or not lows or not highs:
            continue
        extent = extent_text(max_expr(highs), min_expr(lows))
        if not (extent.isdigit() and -(-int(extent) // (threads[ax] * per.get(ax, 1))) <= most):
            cap[ax] = most
    return dict(sorted(cap.items()))


def rectangle(p: Context, launch: Launch) -> bool:
    """Whether a 2-d launch's points fill the box of its grid loops (no grid loop's bounds
    name another grid index) and none of its loops' bounds move with them (gemm, not syrk's
    triangle or symm's k < i): the launches `tiles.staging.rect` is for."""
    grid = {l.var for l in launch.grid}
    return not moving(launch) and not any(
        (grid - {l.var}) & set(WORD.findall(f"{l.init} {l.cond}")) for l in launch.grid)


def tileable(p: Context, launch: Launch) -> bool:
    """A 2-d launch whose threads run straight-line statements and loops of one updated
    cell (the register accumulator's form); or a 3-d one (`batch_tiles`) whose z loop's
    bounds and its inner loops' name no other grid index: a 2-d tile per z, one z a block
    (doitgen's products, a matrix per (r, q) once its sum has a copy each).  Never one with an
    atomic update: the tile's passes rewrite statements as plain loads and stores."""
    if len(launch.grid) not in (2, 3) or launch.reduction or launch.row or launch.phases or launch.row_scan or launch.in_block \
            or launch.grid[-1].derived or any(p.an.program.statement(s).atomic for s in launch.statements()):
        return False
    if len(launch.grid) == 3:
        z = next(l for l in launch.grid if launch.axes[l.var] == "z")
        names = lambda l: set(WORD.findall(f"{l.init} {l.cond} {l.next}"))
        if not p.opt.tiles.batch or any(z.var in names(l) for l in launch.grid + [
                n for n in launch.body if isinstance(n, Loop)] if l is not z) or ({l.var for l in launch.grid} - {z.var}) & names(z):
            return False
    return all(p.accumulator_parts(n, scalars=True) is not None for n in launch.body if isinstance(n, Loop))


def moving(launch: Launch) -> bool:
    """Whether a loop of the launch has bounds that move with its grid indices (only a
    staged tile takes those: stage.hull)."""
    grid = {l.var for l in launch.grid}
    return any(isinstance(n, Loop) and grid & set(WORD.findall(f"{n.init} {n.cond} {n.next}"))
               for n in launch.body)


def _name(p: Context) -> None:
    """Each launch's kernel name: the kernel's short name, the form, the arrays it writes; a
    name several launches would share numbered from 1 in plan order."""
    short, prog, seen = short_name(p.k), p.an.program, {}
    registers = contract.arrays(p.plan)          # written to registers only
    for launch in p.plan.launches:
        written = []
        for s in launch.statements():
            for a in prog.statement(s).writes():
                local = prog.locals.get(a.name)
                if (local is None or local.shape) and a.name not in written and a.name not in registers:
                    written.append(a.name)
        form = 'reduce' if launch.reduction or launch.running_max else 'scan' if launch.scan or launch.banded or launch.row_scan \
            else 'tiles' if launch.tiles else 'seq' if not launch.grid else 'update'
        base = re.sub(r"\W", "_", f"{short}_{form}_{'_'.join(written) or 'scalars'}")
        seen[base] = seen.get(base, 0) + 1
        launch.name = base if seen[base] == 1 else f"{base}_{seen[base]}"
    for launch in p.plan.launches:
        if seen.get(launch.name, 0) > 1:
            launch.name = f"{launch.name}_1"
