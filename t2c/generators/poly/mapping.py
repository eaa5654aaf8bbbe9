"""From a transformed loop tree to a launch plan: what runs on the host, what on the grid.

    map_to_grid(analysis, tree, options) -> Plan;  serial_depth(plan) -> int

Takes the `Analysis`, the final loop tree and the options; gives a `Plan` of `Launch`es (a
parallel loop and up to `grid.max_dims` parallel loops nested in it, the one indexing most
contiguous subscripts on threadIdx.x), `HostLoop`s (carried loops with parallel work inside),
one-thread launches for the rest, `HostStmt`s for scalars computed from sizes and parameters,
and each scalar web's storage: `host`, `local` (a thread's register) or `global` (a
`__device__` variable between launches). Refuses nothing. docs/poly.md, "Mapping".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod

from ...analysis import Analysis, Loop, Stmt
from ...analysis.explain import carried
from .options import PolyOptions
from .transform import band_of, grid_depth, parallel, reordered, replaced, webs_ok
from .transposed import ROWS, TILE

_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class Launch:
    grid: list[Loop]                 # grid loops, outermost first; empty: a single thread
    axes: dict[str, str]             # grid loop variable -> "x" | "y" | "z"
    body: list                       # nodes each thread runs, in order
    host_loops: list[Loop]           # host loops around the launch, outermost first
    name: str = ""
    reduction: object = None         # reduce.Reduction: partials on a grid, then one block
    scan: object = None              # scan.Scan: a recurrence as block compositions, a block across, blocks apply
    banded: object = None            # banded.Banded: an order-W recurrence as chunk maps, one block across
    running_max: object = None       # kadane.RunningMax: a maximum of running sums, ordered block tuples
    row_scan: object = None          # rowscan.RowScan: a recurrence per grid index, a block scan each
    row: object = None               # reduce.RowReduction: a warp per grid index
    phases: object = None            # phases.RowPhases: a block per grid index, its loops in turn
    block_sum: object = None         # reduce.BlockSum: inside a one-block loop, the block sums
    sweep: object = None             # sweep.Sweep: a block of lanes per grid index
    private: object = None           # private.Private: atomic updates into a copy per block in shared memory
    tiles: object = None             # wavetiles.TileWave: a block per tile of a band, a launch per tile diagonal
    tile: tuple | None = None        # (rows, columns) of grid points per thread (cuda.register_tile)
    per_sm: int | None = None        # ... the blocks per SM its registers must fit (`tiles.blocks_per_sm`)
    staged: dict | None = None       # id(accumulator loop) -> stage.Staged: operands in shared memory
    mma: dict | None = None          # id(accumulator loop) -> its (row, column) operand products on
                                     # the tensor cores (stage.mma_pairs); the points follow their layout
    shared_bytes: int = 0            # its dynamic shared memory (the largest of its staged loops' rings)
    block: tuple | None = None       # its threads per block (x, y, z), one entry per launched dimension;
                                     # None where its form's module shapes its launches (scan, reduction ...)
    stages: int = 0                  # its ring of asynchronous tiles when not the options' (a rectangle's)
    rect: bool = False               # a staged tile over a rectangle (forms.rectangle: rect_* options)
    in_block: bool = False           # also run inside a kernel of its whole host loop (oneblock.py, timetiles.py)
    own_scalars: frozenset = frozenset()   # ... the scalar webs each thread of that loop keeps
    every_thread: bool = False       # ... a one-thread launch every thread of that loop runs
    unsynced: bool = False           # ... no __syncthreads() after it there (oneblock.unsynced)
    merged_threads: int = 0          # a part of a merged launch (Plan.merged): that launch's threads per block
    grid_cap: dict = field(default_factory=dict)   # axis (y, z) -> the most blocks one launch puts on it
                                     # (Target.max_grid_yz); each block strides over the rest (forms.capped)
    coarsen: int = 1                 # x indices per thread, blockDim.x apart (forms.coarsened)
    preload: tuple = ()              # (C text, statements): reads a coarsened thread loads first (forms.preloaded)
    vector: object = None            # vector.Vector: its coarsened indices consecutive, moved in 4-16 byte chunks
    transposed: object = None        # transposed.Transposed: reads in the other order through shared tiles
    slab: object = None              # slabs.Slab: each thread's own rows of inputs, and tables, through shared memory
    strips: object = None            # strips.Strips: each thread's own rows walked in strips through shared memory

    def per_thread(self) -> tuple[int, int]:
        """(rows, columns) of grid points each thread takes: its register tile, a transposed
        launch's rows, or its coarsened x indices."""
        return self.tile or ((TILE // ROWS, 1) if self.transposed else (1, self.coarsen))

    def nodes(self) -> list[Stmt]:
        """Its statements' nodes, in order (those of the loops in its body too)."""
        out = []
        for n in self.body:
            out.extend([n] if isinstance(n, Stmt) else n.statements())
        return out

    def statements(self) -> list[str]:
        return [n.stmt.name for n in self.nodes()]

    def rows_cols(self) -> tuple[Loop, Loop]:
        """A 2-d launch's grid loops, the one on threadIdx.y (rows) first (a tiled launch's
        third, on z, is its batch: forms.tileable)."""
        y, x = sorted((l for l in self.grid if self.axes[l.var] != "z"), key=lambda l: self.axes[l.var], reverse=True)
        return y, x

    @property
    def threads(self) -> int:
        """Threads per block (0 where its form's module shapes its launches)."""
        return prod(self.block) if self.block else 0


@dataclass
class HostLoop:
    loop: Loop
    items: list
    one_block: bool = False          # also run whole in one block of threads (oneblock.py)
    threads: int = 0                 # ... that block's threads
    private: list[str] = field(default_factory=list)   # ... arrays each iteration copies (a block each)
    thread_webs: frozenset = frozenset()   # ... scalar webs every thread keeps a copy of
    substitution: object = None      # ... substitution.Substitution: also chained or blocked substitution (one_block.substitution)
    not_substitution: str = ""       # ... or why not, for a loop of its shape
    persistent: object = None        # persistent.Persistent: also one cooperative launch (launches.persistent)
    not_persistent: str = ""         # ... or why not, with that option on
    time_tile: object = None         # timetiles.TimeTile: several iterations per launch (launches.time_tiles)
    not_time_tile: object = None     # ... or why not (timetiles.Refused), for a loop of 1-d or 2-d grid launches
    pivot_blocks: object = None      # pivotblocks.PivotBlocks: in blocks of pivots (launches.pivot_blocks)
    not_pivot_blocks: object = None  # ... or why not (timetiles.Refused), for a loop of launches, one a 2-d grid


@dataclass
class HostStmt:
    stmt: object                     # a Statement


@dataclass
class Plan:
    items: list
    launches: list[Launch]
    storage: dict[str, str] = field(default_factory=dict)     # web -> host | local | global
    notes: list[str] = field(default_factory=list)
    tree: list = field(default_factory=list)                  # the loop tree it maps
    merged: list[list[Launch]] = field(default_factory=list)  # runs of launches printed as one (merge.py)
    contracted: tuple = ()                                    # contract.Contraction: local arrays held in registers

    def block_loops(self) -> list[HostLoop]:
        """The top-level host loops that also run in one block (forms.formed decides)."""
        return [it for it in self.items if isinstance(it, HostLoop) and it.one_block]


def host_statements(an: Analysis) -> set[str]:
    """Top-level statements computable on the host before any launch: they read no
    array, write only local scalars, and every scalar they read is written only by
    such statements (kernels then receive those scalars by value)."""
    prog = an.program
    top = {n.stmt.name for n in prog.body if isinstance(n, Stmt)}
    cand = set()
    for name in top:
        s = prog.statement(name)
        if s.conditional or type(s.node).__name__ == "Return":
            continue
        if all(a.name in prog.locals and not prog.locals[a.name].shape for a in s.accesses) \
                and s.writes():
            cand.add(name)
    changed = True
    while changed:
        changed = False
        for name in sorted(cand):
            webs = {an.web_of[(name, a.name)] for a in prog.statement(name).accesses}
            if any(not set(web_writers(an, w)) <= cand for w in webs):
                cand.discard(name)
                changed = True
    return cand


def web_writers(an: Analysis, web: str) -> list[str]:
    w = an.webs[web]
    return [s for s in w.statements if an.program.statement(s).writes(w.scalar)]


def map_to_grid(an: Analysis, tree: list, options: PolyOptions) -> Plan:
    host = host_statements(an)
    launches: list[Launch] = []

    def plan(nodes, host_loops) -> list:
        items, seq = [], []

        def flush():
            if seq:
                launch = Launch([], {}, list(seq), list(host_loops))
                launches.append(launch)
                items.append(launch)
                seq.clear()
        for n in nodes:
            if isinstance(n, Stmt):
                if n.stmt.name in host and not host_loops:
                    flush()
                    items.append(HostStmt(n.stmt))
                else:
                    seq.append(n)
            elif parallel(an, tree, n):
                flush()
                grid = []
                for l in band_of(n)[:options.grid.max_dims]:
                    if not parallel(an, tree, l):
                        break
                    grid.append(l)
                launch = Launch(grid, grid_axes(an, grid), grid[-1].body, list(host_loops))
                launches.append(launch)
                items.append(launch)
            elif _has_parallel(an, tree, n):
                flush()
                items.append(HostLoop(n, plan(n.body, host_loops + [n])))
            else:
                seq.append(n)
        flush()
        return items

    p = Plan(plan(tree, []), launches, tree=tree)
    p.storage = _storage(an, p, host)
    if not any(l.grid for l in launches):       # a nest in order: say why (a 1-d loop: a recurrence or a reduction)
        p.notes += [x for n in tree if isinstance(n, Loop) and any(isinstance(m, Loop) for m in n.body)
                    and (x := why_in_order(an, tree, n))]
    return p


def launch_box(an: Analysis, launch: Launch) -> list:
    """(lows, highs) of each grid loop of a launch with a grid, as C text (Model.box): empty
    lists where its iteration domain is empty."""
    at = {n.stmt.name: n.at for n in launch.grid[-1].statements() if n.at is not None}
    return an.model.box(launch.statements(), tuple(l.var for l in launch.grid),
                        tuple(l.var for l in launch.host_loops), at)


def why_in_order(an: Analysis, tree, loop: Loop) -> str | None:
    """A sentence naming a dependence that keeps a top-level loop of `tree` in order."""
    why = carried(an, an.schedule(tree), tuple(s.stmt.name for s in loop.statements()), 1, loop.var)
    return f"In order: loop {loop.var} {why}." if why else None


def serial_depth(plan: Plan) -> int:
    """The most loops that run in order (host loops, loops inside a thread) around one statement."""
    def inner(nodes, depth):
        return max([depth if isinstance(n, Stmt) else inner(n.body, depth + 1) for n in nodes], default=0)
    return max([len(l.host_loops) + inner(l.body, 0) for l in plan.launches], default=0)


def _has_parallel(an, tree, loop) -> bool:
    return any(isinstance(n, Loop) and (parallel(an, tree, n) or _has_parallel(an, tree, n))
               for n in loop.body)


def contiguous_on_grid(an: Analysis, tree: list, dims: int = 3) -> list:
    """Each top-level band of more than `dims` parallel loops whose contiguous loop (`grid_axes`'
    x over all of them) lies past the first `dims` -- the grid's reach -- nested with its last
    `dims` parallel loops outermost and the others inside them, so each thread runs those (a
    pooling over (channel, z, y, x): x on the grid, coalesced, the channels in each thread,
    instead of x in each thread and no read coalesced).  Checked like every loop pass (legal,
    the webs' rule, still `dims` parallel loops first); a band it cannot reorder stays."""
    out = tree
    for loop in [n for n in tree if isinstance(n, Loop)]:
        band = band_of(loop)
        par = []
        for l in band:
            if not parallel(an, out, l):
                break
            par.append(l)
        if len(par) <= dims:
            continue
        x = next(v for v, axis in grid_axes(an, par).items() if axis == "x")
        if x in {l.var for l in par[:dims]}:
            continue
        new = reordered(an, out, loop, par[-dims:] + par[:-dims] + band[len(par):], band[-1].body)
        if new is None:
            continue
        trial = replaced(out, loop, [new])
        if an.legal(trial) and webs_ok(an, trial) and grid_depth(an, trial, new, dims) == dims:
            out = trial
    return out


def grid_axes(an: Analysis, grid: list[Loop]) -> dict[str, str]:
    """threadIdx.x for the loop that leaves the fewest references strided across a warp (the
    loop in a subscript before the last: `X[b][ch][p]` under ch), then the one most used in last
    subscripts (coalescing), ties the innermost; then y, z.  A reference that does not name the
    loop is one address for the warp (`mean[ch]` under p), which costs nothing."""
    order = [l.var for l in grid]
    strided, last = subscript_counts(grid[-1].statements(), order)
    x = max(reversed(order), key=lambda v: (-strided[v], last[v]))    # ties: the innermost
    rest = [v for v in reversed(order) if v != x]
    return {x: "x", **{v: ax for v, ax in zip(rest, ("y", "z"))}}


def subscript_counts(stmts, order: list[str]) -> tuple[dict[str, int], dict[str, int]]:
    """(strided, last): for each loop variable of `order`, how many of the statements' references
    name it in a subscript before the last (a warp's threads along it touch far-apart cells), and
    how many of the others name it in their last, contiguous subscript (consecutive cells)."""
    strided = {v: 0 for v in order}
    last = {v: 0 for v in order}
    for n in stmts:
        bind = n.bind or {}                              # a new schedule: iterators -> loop vars
        for a in n.stmt.accesses:
            words = [{w for it in _WORD.findall(i) for w in _WORD.findall(bind.get(it, it))} for i in a.index]
            for v in order:
                if any(v in ws for ws in words[:-1]):
                    strided[v] += 1
                elif words and v in words[-1]:
                    last[v] += 1
    return strided, last


def _storage(an: Analysis, plan: Plan, host: set[str]) -> dict[str, str]:
    where = {}
    for launch in plan.launches:
        for s in launch.statements():
            where[s] = launch
    out = {}
    for name, w in an.webs.items():
        if set(web_writers(an, name)) <= host:
            out[name] = "host"
            continue
        launches = {id(where[s]) for s in w.statements if s in where}
        launch = where.get(w.statements[0])
        if len(launches) == 1 and launch is not None and \
                {l.var for l in launch.host_loops} <= set(w.private):
            out[name] = "local"
        else:
            out[name] = "global"
    return out
