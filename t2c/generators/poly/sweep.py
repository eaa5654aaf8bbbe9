"""A thread's sweep around parallel loops: a block of lanes per grid index instead.

    sweep_of(context, launch) -> Sweep | None

Takes a 1-d launch whose threads each run a loop carrying a dependence around inner loops that
do not (symm's and trmm's rows), or a one-thread launch of that shape (ludcmp's back
substitution). Gives a `Sweep`: blocks of `sweeps.block` (grid indices x lanes), the carried
loop in every thread, innermost loops that carry nothing or only a reduction split among the
lanes (parts summed in a fixed order), the rest in lane 0; or rows in chunks (`sweeps.rows`).
The lanes go on threadIdx.x where their loops index the contiguous dimension and the grid
index does not (`Sweep.lanes_x`), the grid index there otherwise.  Refuses (None) a carried loop whose bounds use the grid index or a scalar: every thread of a
block must meet the same barriers. docs/poly.md, "Sweeps".
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from ...analysis import Loop, Stmt
from ...ir.csyntax import array_name, cprint, names
from .ctext import WORD, array_refs, at, replace_refs
from .reduce import OPS, Accumulator, accumulator_of, combine, fold_step, fresh_name, join, parse_target
from .mapping import subscript_counts
from .transform import depth_of
from . import stage


@dataclass
class Sweep:
    split: set = field(default_factory=set)          # id(loop): iterations shared by the lanes
    sums: dict = field(default_factory=dict)         # id(loop) -> Accumulator: a part per lane
    carried: set = field(default_factory=set)        # id(loop): run by every thread, in order
    rows: Loop | None = None                         # the loop the lanes take in chunks (_rows)
    staged: bool = False                             # ... its sum's reads through shared memory (stageable)
    lanes_x: bool = False                            # the lanes on threadIdx.x, the grid index on y (_lanes_on_x)
    shape: tuple[int, int] = (0, 0)                  # (indices, lanes) of its block (_shape), set once by sweep_of


def _shape(p, launch, sw: Sweep | None) -> tuple[int, int]:
    """(indices, lanes) of a sweep's block: `sweeps.block`, `sweeps.rows.block` for rows in chunks,
    `sweeps.along` for lanes on x that only split loops, or one index with all its threads for a
    one-thread launch.  Such lanes walk along each index's row level after level, so the block's
    rows are the data its levels read again: `along` gives a block few rows (one: its levels hit
    L1, not DRAM).  A sum combines every lane's part at each step (a barrier, then lane 0 adds a
    part per warp), so a sweep with sums keeps `block`."""
    o = p.opt.sweeps
    width, lanes = o.rows.block if sw is not None and sw.rows is not None else \
        o.along if sw is not None and sw.lanes_x and not sw.sums else o.block
    return (width, lanes) if launch.grid else (1, width * lanes)


def shape(launch) -> tuple[int, int]:
    """(indices, lanes) of the planned sweep's block (`Sweep.shape`)."""
    return launch.sweep.shape


def block(launch) -> tuple[int, int]:
    """The block's threads (x, y): (indices, lanes), or (lanes, indices) with the lanes on x."""
    width, lanes = shape(launch)
    return (lanes, width) if launch.sweep.lanes_x else (width, lanes)


def _whole_warps(width: int, lanes: int, most: int) -> bool:
    """Whole warps, an index's lanes in whole warps, at most `most` threads (the target's)."""
    return width <= 32 and 32 % width == 0 and width * lanes % 32 == 0 and width * lanes <= most


def sweep_of(p, launch) -> Sweep | None:
    """The launch as a sweep (module docstring), or None when it is not one."""
    width, lanes = _shape(p, launch, None)
    if len(launch.grid) > 1 or launch.grid and launch.grid[0].derived or launch.reduction or launch.row or launch.phases \
            or launch.tile:
        return None
    if not _whole_warps(width, lanes, p.target.max_threads):
        return None
    an, tree = p.an, p.plan.tree
    locals_ = set(an.program.locals)
    outside = {l.var for l in launch.grid} | locals_   # what a shared loop's bounds may not use
    sw = Sweep()

    def lanes_may_run(loop) -> bool:       # no scalar of lane 0's in its header or body
        return not set(WORD.findall(f"{loop.init} {loop.cond}")) & locals_ and \
            not any(a.name in locals_ for s in loop.statements() for a in s.stmt.accesses)

    def visit(nodes) -> bool:
        for n in nodes:
            if isinstance(n, Stmt):
                continue
            if any(isinstance(c, Loop) for c in n.body):
                if set(WORD.findall(f"{n.init} {n.cond} {n.next}")) & outside or n.time or n.derived:
                    return False
                sw.carried.add(id(n))
                if not visit(n.body):
                    return False
                continue
            if n.step != 1 or n.time or n.derived:
                continue                                  # lane 0 runs it
            if lanes_may_run(n) and not an.carries(tree, n, depth_of(tree, n)):
                sw.split.add(id(n))
            elif not set(WORD.findall(f"{n.init} {n.cond}")) & locals_ and (acc := _sum(p, n)) is not None:
                sw.sums[id(n)] = acc
        return True
    if not visit(launch.body) or not (sw.split or sw.sums) or not sw.carried:
        return None
    sw.rows = _rows(p, launch, sw) if p.opt.sweeps.rows and _whole_warps(*p.opt.sweeps.rows.block, p.target.max_threads) else None
    sw.lanes_x = sw.rows is None and bool(launch.grid) and _lanes_on_x(launch, sw)
    sw.shape = _shape(p, launch, sw)
    if sw.lanes_x and not (sw.shape[1] % 32 == 0 and _whole_warps(*sw.shape, p.target.max_threads)):
        sw.lanes_x = False                             # its block would split an index's lanes across warps
        sw.shape = _shape(p, launch, sw)
    return sw


def _lanes_on_x(launch, sw: Sweep) -> bool:
    """Whether the lanes go on threadIdx.x: the class of sweeps whose lanes' loops (split or
    summed) index the contiguous dimension of their references while the grid index does not (a
    per-row pass over a[i][j] under grid index i), so that a warp touches 32 consecutive cells of
    one row instead of short pieces of 32 / width rows.  mapping.grid_axes's rule over the lanes'
    statements, the lanes' loops counted as one; ties keep the grid index on x (symm's and trmm's
    columns j).  The caller asks for whole warps of an index's lanes."""
    j, lane_loops = launch.grid[0].var, [l for l in _loops(launch.body) if id(l) in sw.split or id(l) in sw.sums]
    grid, lanes = [0, 0], [0, 0]                      # (strided, last) references
    for l in lane_loops:
        strided, last = subscript_counts(l.statements(), [j, l.var])
        grid = [grid[0] + strided[j], grid[1] + last[j]]
        lanes = [lanes[0] + strided[l.var], lanes[1] + last[l.var]]
    return (-lanes[0], lanes[1]) > (-grid[0], grid[1])


def _rows(p, launch, sw: Sweep) -> Loop | None:
    """The launch's one loop, when its lanes may take it in chunks (module docstring): it holds
    only a sum into a cell of the loop's and the grid's indices, and carries no flow or output
    dependence; no other read of the sum's array reaches that cell in the same iteration."""
    an, tree = p.an, p.plan.tree
    if not launch.grid or len(launch.body) != 1 or not isinstance(launch.body[0], Loop):
        return None
    loop = launch.body[0]
    if loop.step != 1 or len(loop.body) != 1 or id(loop.body[0]) not in sw.sums:
        return None
    a = sw.sums[id(loop.body[0])]
    st, cell = a.stmt.stmt, a.stmt.stmt.writes()[0]
    own = {loop.var, launch.grid[0].var}
    words = set(WORD.findall(" ".join(cell.index)))
    if not cell.index or loop.var not in words or not words <= own | {x.name for x in p.k.sizes}:
        return None
    if any((a.stmt.bind or {}).get(v, v) != v for v in own):
        return None                                    # the same names, other loops of the schedule
    stmts = [s.stmt.name for s in loop.statements()]
    if an.model.carries(an.deps["flow"].union(an.deps["output"]), an.schedule(tree), stmts,
                        2 * depth_of(tree, loop) + 1):
        return None
    reads = [r for r in st.reads() if r.name == cell.name and tuple(r.index) != tuple(cell.index)]
    if any(an.model.touches(st.name, tuple(r.index), tuple(cell.index)) for r in reads):
        return None
    return loop


def _chunks(p, launch, sw: Sweep, lane: str, live: str, fresh, lanes: int, start: str, guard: str) -> list[str]:
    """The rows of a chunked sweep (`_rows`): `lanes` iterations at a time, a thread each; its sum
    in a register (its reads staged through shared memory where `_staged` allows), the cell it
    folds into loaded with it; a barrier; the cells written."""
    loop, inner = sw.rows, sw.rows.body[0]
    a = sw.sums[id(inner)]
    names = p.names_for(a.stmt.stmt.name)
    target = p.r.statement(parse_target(a.target), names, "")[0].rstrip(";")
    base, row, part, held = fresh("base"), fresh("row"), fresh("part"), fresh("held")
    lo = loop.init.split("=", 1)[1].strip()
    staged = _staged(p, launch, sw, lanes, fresh, start, guard, (base, row, part), names) if sw.staged else None
    decls, sums = staged or ([], [f"    if ({row})", f"      for ({inner.init}; {inner.cond}; {inner.next})",
                                  *p.r.statement(fold_step(a, part), names, "        ")])
    return [*decls, f"  for (int {base} = {lo}; {at(loop.cond, loop.var, base)}; {base} += {lanes}) {{   "
            f"/* {lanes} iterations of {loop.var} at a time */",
            f"    {loop.var} = {base} + {lane};",
            f"    const bool {row} = {live} && ({loop.cond});",
            f"    {a.dtype} {part} = {OPS[a.op][0]}, {held} = 0;", *sums,
            f"    if ({row})", f"      {held} = {target};",
            "    __syncthreads();   /* the chunk's reads are done: an iteration reads no cell an earlier one writes */",
            f"    if ({row})", f"      {join(a.op, target, part, held)}",
            "  }"]


STAGE_DEPTH = 32        # loop values per shared tile of a chunked sum
_BOUND = re.compile(r"^\s*(\w+)\s*(<=?)\s*(.+?)\s*$")


def _staged(p, launch, sw: Sweep, lanes: int, fresh, start: str, guard: str, chunk, names):
    """(declarations, lines) of a chunked sum whose reads each depend on its loop and the row or
    the grid index (trmm's `A[k][i] * B[k][j]`), through shared memory STAGE_DEPTH values of its
    loop at a time: a tile per read, the rows' values (`A[k][i]` for the chunk's rows) or the
    columns' (`B[k][j]` for the block's indices), each element loaded by one thread where it lies
    in its array's bounds (0 elsewhere, read by no thread); then each thread adds the products of
    its own loop range in order.  The loop's range over the chunk: its bounds at the chunk's
    first and last rows (affine in the row, so those are the extremes).  The same cells, read
    before the chunk's barrier as before.  Only where the plan found the sum so (`stageable`)."""
    (base, row, part), (loop, inner) = chunk, (sw.rows, sw.rows.body[0])
    a = sw.sums[id(inner)]
    width = shape(launch)[0]
    i, j, k = loop.var, launch.grid[0].var, inner.var
    low, end, reads = stageable(p, launch, sw)
    tiles = {text: (ref, kind, fresh(f"{kind}s_{n}")) for n, (text, (ref, kind)) in enumerate(reads.items(), 1)}
    t, e, k0, kk, klo, kend = (fresh(x) for x in ("t", "e", "k0", "kk", "klo", "kend"))
    last = f"{base} + {lanes - 1}"
    decls = [f"  const int {t} = (int)(threadIdx.y * {width} + threadIdx.x);"]
    lines = [f"    const int {klo} = poly_min({at(low, i, base)}, {at(low, i, last)});   /* {k} over the chunk's rows */",
             f"    const int {kend} = poly_max({at(end, i, base)}, {at(end, i, last)});",
             f"    for (int {k0} = {klo}; {k0} < {kend}; {k0} += {STAGE_DEPTH}) {{",
             "      __syncthreads();   /* the tiles before are read */"]
    body = copy.deepcopy(a.part)
    for ref, kind, name in tiles.values():
        n = lanes if kind == "row" else width
        g, value = (i, f"{base} + {e} % {n}") if kind == "row" else (j, f"{start}(int)(blockIdx.x * {width}) + {e} % {n}")
        here = {**names, g: f"poly_{g}", k: f"poly_{k}"}
        valid = [f"poly_{k} < {kend}", at(loop.cond if kind == "row" else guard, g, f"poly_{g}")]
        valid += stage.in_extents(p, ref, here)
        decls.append(f"  __shared__ {a.dtype} {name}[{STAGE_DEPTH}][{n + 1}];   /* {kind} values {cprint(ref)}, "
                     f"{STAGE_DEPTH} of {k} at a time */")
        lines += [f"      for (int {e} = {t}; {e} < {STAGE_DEPTH * n}; {e} += {lanes * width}) {{",
                  f"        const int poly_{k} = {k0} + {e} / {n}, poly_{g} = {value};",
                  f"        {name}[{e} / {n}][{e} % {n}] = {' && '.join(dict.fromkeys(valid))} ? {cprint(p.r.node(ref, here))} : "
                  f"({a.dtype})0;", "      }"]
        body = replace_refs(body, cprint(ref), f"{name}[{kk}][threadIdx.{'y' if kind == 'row' else 'x'}]")
    step = fold_step(Accumulator(a.stmt, a.target, a.dtype, a.op, body), part)
    return decls, [*lines, "      __syncthreads();",
                   f"      if ({row})   /* this row's {k} in the tile */",
                   f"        for (int {kk} = poly_max(0, {low} - {k0}); {kk} < poly_min({STAGE_DEPTH}, {end} - {k0}); "
                   f"{kk}++) {{",
                   f"          {k} = {k0} + {kk};", *p.r.statement(step, names, "          "), "        }", "    }"]


def stageable(p, launch, sw: Sweep) -> tuple[str, str, dict] | None:
    """(the sum's loop's first value, one past its last, C text of each read to stage -> (the
    reference, "row" or "col")) of a chunked sum whose reads `_staged` can take through shared
    memory, or None: the sum has another form or its tiles pass 48 KiB."""
    loop, inner = sw.rows, sw.rows.body[0]
    a = sw.sums[id(inner)]
    width, lanes = shape(launch)
    i, j, k = loop.var, launch.grid[0].var, inner.var
    sizes = {x.name for x in p.k.sizes}
    affine = lambda text: set(WORD.findall(text)) <= {i} | sizes and not re.search(r"[^\w\s+\-*()]", text)
    bound, low = _BOUND.match(inner.cond), inner.init.split("=", 1)[1].strip()
    if inner.step != 1 or not bound or bound[1] != k or not affine(low) or not affine(bound[3]):
        return None
    reads, arrays = {}, {x.name for x in p.k.arrays}
    for ref in array_refs(a.part):
        text, words = cprint(ref), names(ref)
        if k not in words or text in reads:
            continue                                   # the same value every iteration: read as it is
        array = array_name(ref)
        kind = "row" if words <= {k, i, array} | sizes else "col" if words <= {k, j, array} | sizes else None
        if kind is None or array not in arrays:
            return None
        reads[text] = (ref, kind)
    if not reads or a.dtype not in stage.SIZE or sum(STAGE_DEPTH * ((lanes if kind == "row" else width) + 1)
                                                      * stage.SIZE[a.dtype] for _, kind in reads.values()) > p.target.shared_static:
        return None
    return low, bound[3] if bound[2] == "<" else f"{bound[3]} + 1", reads


def _sum(p, loop: Loop) -> Accumulator | None:
    """The loop's one statement as a reduction whose contribution uses no local scalar."""
    an = p.an
    if len(loop.body) != 1 or not isinstance(loop.body[0], Stmt):
        return None
    st = loop.body[0]
    if st.bind is not None and st.bind.get(loop.var) != loop.var:
        return None                                   # an isl loop that is not the reference's own
    acc = accumulator_of(an, p.plan.storage, st, loop)
    if acc is None or acc.decls:
        return None
    name = acc.stmt.stmt.name
    if not any(f.var == loop.var and f.reduction and name in f.statements for f in an.loops):
        return None
    if any(a.name in an.program.locals and a.name != acc.target for a in acc.stmt.stmt.accesses):
        return None
    return acc


def kernel_body(p, launch, sw: Sweep, start: str, guard: str, locals_: list[str]) -> list[str]:
    """The sweep kernel's body (p: the Printer).

    The work comes in segments: the lanes' (split loops, the parts of sums) and lane 0's
    (statements, the sums' totals).  A barrier ends each segment except where nothing needs
    it: consecutive lanes' segments that share no array one of them writes run as one, and
    lane 0's statements that touch no array (`temp2 = 0.0`) need none (no lane reads its
    scalars).  An array cell a sum folds into is loaded by lane 0 with the parts, before the
    barrier that the total waits for anyway.  With the lanes on x (`lanes_x`) the same lanes
    combine their parts in the same order, so the results are the same bit for bit."""
    j = launch.grid[0].var if launch.grid else ""
    width, lanes = shape(launch)
    at, across = ("threadIdx.y", "threadIdx.x") if sw.lanes_x else ("threadIdx.x", "threadIdx.y")   # index, lane
    arrays = {a.name for a in p.k.arrays} | set(p.local_arrays)
    taken = set(p.k.params) | set(p.an.program.locals) | {l.var for l in _loops(launch.body)} | {j}
    fresh = lambda name: fresh_name(name, taken)
    lane, live, other, part, off = (fresh(x) for x in ("lane", "live", "other", "part", "off"))
    per_warp = 32 // width                            # lanes of one index in a warp (lanes on y): a shuffle tree's
    step = 1 if sw.lanes_x else width                 # ... neighbouring lanes this many threads apart
    loops = [f"  int {v};" for v in dict.fromkeys(l.var for l in _loops(launch.body))]
    first = "blockIdx.x" if width == 1 else f"blockIdx.x * {width}"
    index = [f"  const int {j} = {start}(int)({first} + {at});"] if j else []
    head = [*index, f"  const int {lane} = {across};                /* {lanes} lanes{f' per {j}' if j else ''} */",
            f"  const bool {live} = {guard or 'true'};   /* no early return: the block meets at barriers */",
            *loops, *locals_]
    if sw.rows is not None:
        return head + _chunks(p, launch, sw, lane, live, fresh, lanes, start, guard)
    shared, held, declared = {}, {}, []
    for key, a in sw.sums.items():
        shared[key] = fresh(f"warps_{len(shared) + 1}")
        declared.append(f"  __shared__ {a.dtype} {shared[key]}[{lanes // per_warp}][{width}];   /* a part per warp */")
        if a.stmt.stmt.writes()[0].index:
            held[key] = fresh(f"held_{len(held) + 1}")
            declared.append(f"  {a.dtype} {held[key]} = 0;   /* lane 0: the cell it folds into */")
        taken |= {shared[key], held.get(key, "")}
    touched = lambda n, write: {a.name for s in ([n] if isinstance(n, Stmt) else n.statements())
                                for a in (s.stmt.writes() if write else s.stmt.accesses) if a.name in arrays}

    def items(nodes, indent) -> list[str]:
        out = []
        lane0, lane0_bare = [], True                  # lane 0's pending lines; no array, no buffer
        lanes_, reads, writes = [], set(), set()      # the lanes' pending lines and arrays

        def flush_lane0():
            nonlocal lane0_bare
            if lane0:
                out.extend([f"{indent}if ({live} && {lane} == 0) {{", *lane0, f"{indent}}}"] +
                           ([] if lane0_bare else [f"{indent}__syncthreads();"]))
            lane0.clear()
            lane0_bare = True

        def flush_lanes():
            if lanes_:
                out.extend(lanes_ + [f"{indent}__syncthreads();"])
            lanes_.clear()
            reads.clear()
            writes.clear()

        def add_lanes(lines, r, w):
            flush_lane0()
            if writes & (r | w) or w & reads:
                flush_lanes()
            lanes_.extend(lines)
            reads.update(r)
            writes.update(w)
        for n in nodes:
            shared_work = id(n) in sw.carried or id(n) in sw.split or id(n) in sw.sums
            if isinstance(n, Stmt) or not shared_work:
                flush_lanes()
                lane0 += p.render_nodes([n], indent + "  ")
                lane0_bare = lane0_bare and not touched(n, False)
                continue
            lo = n.init.split("=", 1)[1].strip()
            head = f"for ({n.var} = {'' if lo == '0' else lo + ' + '}{lane}; {n.cond}; {n.var} += {lanes})"
            if id(n) in sw.carried:
                flush_lanes()
                flush_lane0()
                out += [f"{indent}for ({n.init}; {n.cond}; {n.next})", f"{indent}{{",
                        *items(n.body, indent + "  "), f"{indent}}}"]
            elif id(n) in sw.split:
                add_lanes([f"{indent}if ({live})", f"{indent}  {head}", f"{indent}  {{",
                           *p.render_nodes(n.body, indent + "    "), f"{indent}  }}"],
                          touched(n, False), touched(n, True))
            else:
                a, buf = sw.sums[id(n)], shared[id(n)]
                names = p.names_for(a.stmt.stmt.name)
                target = p.r.statement(parse_target(a.target), names, "")[0].rstrip(";")
                lines = [f"{indent}{{", f"{indent}  {a.dtype} {part} = {OPS[a.op][0]};",
                         f"{indent}  if ({live})", f"{indent}    {head}",
                         *p.r.statement(fold_step(a, part), names, indent + "      ")]
                if per_warp > 1:                      # the index's lanes in one warp: a shuffle tree
                    lines += [f"{indent}  for (int {off} = {per_warp // 2 * step}; {off} >= {step}; {off} >>= 1)",
                              f"{indent}    {part} = " +
                              combine(a.op, part, f"__shfl_down_sync(0xffffffffu, {part}, {off})") + ";",
                              f"{indent}  if ({lane} % {per_warp} == 0)",
                              f"{indent}    {buf}[{lane} / {per_warp}][{at}] = {part};"]
                else:
                    lines.append(f"{indent}  {buf}[{lane}][{at}] = {part};")
                if id(n) in held:
                    lines += [f"{indent}  if ({live} && {lane} == 0)", f"{indent}    {held[id(n)]} = {target};"]
                add_lanes(lines + [f"{indent}}}"], touched(n, False), set())
                flush_lanes()
                lane0 += [f"{indent}  {{", f"{indent}    {a.dtype} {part} = {buf}[0][{at}];",
                          f"{indent}    for (int {other} = 1; {other} < {lanes // per_warp}; {other}++)",
                          f"{indent}      {part} = {combine(a.op, part, f'{buf}[{other}][{at}]')};",
                          f"{indent}    {join(a.op, target, part, held.get(id(n), ''))}", f"{indent}  }}"]
                lane0_bare = False
        flush_lanes()
        flush_lane0()
        return out
    return head + declared + items(launch.body, "  ")


def _loops(nodes) -> list[Loop]:
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            out += [n] + _loops(n.body)
    return out


def describe(p, launch, sw: Sweep) -> str:
    width, lanes = shape(launch)
    x = " (the lanes on x)" if sw.lanes_x else ""
    rows = f"one {launch.grid[0].var}" if launch.grid and width == 1 else f"{width} consecutive {launch.grid[0].var}" \
        if launch.grid else ""
    block = f"blocks of {rows} x {lanes} lanes{x}" if launch.grid else \
        f"one block of {lanes} lanes"
    if sw.rows is not None:
        staged = f" (its reads through shared memory, {STAGE_DEPTH} values of the loop at a time)" if sw.staged else ""
        return (f"{launch.name}: {block}: loop {sw.rows.var} in chunks of {lanes} iterations, a lane each, "
                f"its sum in order in a register{staged}; the chunk's reads, __syncthreads(), then its writes "
                f"(loop {sw.rows.var} carries only reads of cells later iterations write).")
    ordered = [l.var for l in _loops(launch.body) if id(l) in sw.carried]
    shared = [l.var for l in _loops(launch.body) if id(l) in sw.split or id(l) in sw.sums]
    sums = " (sums: a part per lane, added in a fixed order)" if sw.sums else ""
    return (f"{launch.name}: {block}: loop"
            f"{'s' if len(ordered) > 1 else ''} {', '.join(ordered)} in order in every thread, loop"
            f"{'s' if len(set(shared)) > 1 else ''} {', '.join(dict.fromkeys(shared))} split among the lanes"
            f"{sums}, the rest in lane 0, __syncthreads() between.")
