"""A thread's own rows or columns, walked by its loops, through shared memory a strip at a time.

    strips_of(context, launch) -> Strips | None;  kernel_body(printer, launch, index, guard, declared) -> lines;
    chains(loop, arrays) -> {array: (writer, previous cell)}

Takes a plain launch over one grid index g whose top-level loops of statements walk an index j
(step +-1, bounds free of g and of what the launch writes) and name 2-d arrays at
`A[g + d][j + e]` or `A[j + e][g + d]` (d, e constants). Gives `Strips`: blocks of
`grid.strips.threads` threads running each such loop (a `Walk`) `width` iterations at a time,
each strip's cells copied in and out of shared memory coalesced (`Tile`), an input's next strip
ahead. Exact: an array the launch writes is named in the thread's own row or column only, and
barriers order each copy after the block's writes. docs/poly.md, "Strips".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Loop, Stmt
from ...analysis.model import base_and_subscripts, parse_expr
from ...ir.csyntax import cprint
from ...ir.kernel import DTYPES
from .ctext import array_refs, identifiers, loop_guard, offset_text, rewrite, substitute, var_offset
from .slabs import loop_key, statements

#: the fewest iterations a strip runs where the shared memory limit shortens it
LEAST_WIDTH = 8


@dataclass(frozen=True)
class Tile:
    array: str
    dtype: str
    d: tuple[int, int]         # the least and greatest offset from the grid index (both 0 where the launch writes it)
    e: tuple[int, int]         # the least and greatest offset from the loop's index
    loaded: bool               # the loop reads it (other than through a register): copied in per strip
    stored: bool               # the loop writes it: copied out per strip
    offset: int                # bytes into the block's buffer
    ahead: bool = False        # loaded, not stored: two copies, the next strip's copied while this one runs
    down: bool = False         # named `A[j + e][g + d]`: the loop walks down the thread's column


@dataclass(frozen=True)
class Walk:
    key: tuple                 # the loop's variable and statements (slabs.loop_key)
    tiles: tuple[Tile, ...]


@dataclass(frozen=True)
class Strips:
    threads: int               # per block
    width: int                 # iterations per strip
    walks: tuple[Walk, ...]
    bytes: int                 # the buffer: the largest walk's copies (walks run one after another)


def chains(loop: Loop, arrays: set) -> dict:
    """The loop's recurrences through memory: array -> (the statement writing it, C text of the
    cell the previous iteration wrote), for an array of `arrays` written once in the loop,
    unconditionally, by a plain `=` to a cell that moves with the loop, whose previous cell a
    statement reads unconditionally.  Scalar replacement keeps that cell in a register."""
    if loop.step not in (1, -1) or loop.geometric or not loop.body or \
            not all(isinstance(n, Stmt) and n.at is None for n in loop.body):
        return {}
    before = parse_expr(f"{loop.var} - 1" if loop.step > 0 else f"{loop.var} + 1")
    writers = {}
    for n in loop.body:
        for w in n.stmt.writes():
            writers.setdefault(w.name, []).append(n)
    found = {}
    for name, ws in writers.items():
        if name not in arrays or len(ws) != 1:
            continue
        node = ws[0].stmt.node
        if ws[0].stmt.conditional or not isinstance(node, c_ast.Assignment) or node.op != "=" or \
                not isinstance(node.lvalue, c_ast.ArrayRef):
            continue
        prev = cprint(substitute(copy.deepcopy(node.lvalue), {loop.var: before}))
        readers = [m for m in loop.body if any(cprint(r) == prev for r in array_refs(m.stmt.node, name))]
        # read unconditionally: the reference reads the first iteration's cell too (in bounds)
        if prev != cprint(node.lvalue) and readers and not any(m.stmt.conditional for m in readers):
            found[name] = (ws[0], prev)
    return found


# -- the plan -------------------------------------------------------------------------------

def strips_of(p, launch) -> Strips | None:
    """The launch's walks in strips (module doc), or None."""
    o = p.opt.grid.strips
    if o is None or len(launch.grid) != 1 or launch.grid[0].derived or launch.grid[0].step != 1 \
            or launch.merged_threads or launch.grid_cap or launch.tile \
            or any((launch.reduction, launch.scan, launch.banded, launch.running_max, launch.row_scan, launch.row,
                    launch.phases, launch.sweep, launch.private, launch.tiles, launch.transposed, launch.block_sum)):
        return None
    stmts = statements(launch)
    if any(s.stmt.atomic for s in stmts):
        return None
    g = launch.grid[0].var
    prog = p.an.program
    arrays = {a.name: a for a in prog.kernel.arrays if a.name not in prog.locals and len(a.shape) == 2}
    written = {w.name for s in stmts for w in s.stmt.writes()}
    # an array the launch writes: named in the thread's own row (column) only, wherever the launch names it
    own = {(a, down) for a in arrays if a in written for down in (False, True) if
           all(len(subs) == 2 and var_offset(subs[down], g) == 0
               for s in stmts for subs in (base_and_subscripts(r)[1] for r in array_refs(s.stmt.node, a)))}
    fixed = set(p.k.params) | {l.var for l in launch.host_loops}
    loops = [n for n in launch.body if isinstance(n, Loop) and _walkable(n, g, fixed - written)]
    width = o.width
    while True:
        walks = tuple(w for w in (_walk(p, n, g, arrays, written, own, o.threads, width, o.ahead) for n in loops) if w)
        size = max((sum(_tile_bytes(t, o.threads, width) for t in w.tiles) for w in walks), default=0)
        if size <= p.target.shared_static or width <= LEAST_WIDTH:
            break
        width //= 2
    if not walks or size > p.target.shared_static:
        return None
    return Strips(o.threads, width, walks, size)


def _walkable(loop: Loop, g: str, fixed: set) -> bool:
    """A loop of statements, step +-1, whose header names only its variable and `fixed` names."""
    if "=" not in loop.init:
        return False
    bounds = identifiers(loop.init.split("=", 1)[1] + " " + loop.cond) - {loop.var}
    return loop.step in (1, -1) and not loop.geometric and loop.time is None and not loop.derived and \
        bool(loop.body) and all(isinstance(n, Stmt) and n.at is None for n in loop.body) and \
        g not in bounds and bounds <= fixed


def _walk(p, loop: Loop, g: str, arrays: dict, written: set, own: set, threads: int, width: int,
          ahead: bool) -> Walk | None:
    """The loop's tiles: each array of `arrays` it names only at `A[g + d][j + e]` or only at
    `A[j + e][g + d]` (d = 0 for one the launch writes; the latter only where the loop reads
    it: its stores are coalesced already), or None where there is none, or where every tile is
    down a column and the loop stores nothing (a register accumulator's)."""
    chained = chains(loop, set(arrays)) if p.opt.registers.scalar_replacement else {}
    refs = {}                                     # array -> [(d, e, read?)]
    downs = {}                                    # array -> {whether a ref is A[j + e][g + d]}
    after = {}                                    # array -> the cell an unconditional `=` wrote earlier in the iteration
    bad = set()
    for m in loop.body:
        node = m.stmt.node
        target = node.lvalue if isinstance(node, c_ast.Assignment) else None
        for r in array_refs(node):
            base, subs = base_and_subscripts(r)
            name = base.name if isinstance(base, c_ast.ID) else None
            if name not in arrays:
                continue
            down = len(subs) == 2 and var_offset(subs[0], g) is None
            d, e = (var_offset(subs[down], g), var_offset(subs[1 - down], loop.var)) if len(subs) == 2 else (None, None)
            downs.setdefault(name, set()).add(down)
            if d is None or e is None or name in written and (name, down) not in own:
                bad.add(name)
                continue
            text = cprint(r)
            if name in chained and text == chained[name][1]:
                continue                          # the previous cell: a register
            read = r is not target or node.op != "="
            if read and after.get(name) == text:
                read = False                      # what this iteration wrote: already in the copy
            refs.setdefault(name, []).append((d, e, read))
        if target is not None and node.op == "=" and not m.stmt.conditional and array_refs(target) and \
                base_and_subscripts(target)[0].name in arrays:
            after[base_and_subscripts(target)[0].name] = cprint(target)
    tiles, at = [], 0
    loop_writes = {w.name for m in loop.body for w in m.stmt.writes()}
    for name in sorted(refs, key=lambda a: (-DTYPES[arrays[a].dtype][0], a)):
        ds, es = [d for d, _, _ in refs[name]], [e for _, e, _ in refs[name]]
        stored = name in loop_writes
        loaded = any(read for _, _, read in refs[name]) or any(m.stmt.conditional for m in loop.body
                                                                 if name in {w.name for w in m.stmt.writes()})
        down = downs[name] == {True}
        if name in bad or len(downs[name]) > 1 or down and not loaded:
            continue
        t = Tile(name, arrays[name].dtype, (min(ds), max(ds)), (min(es + [0] * stored), max(es + [0] * stored)),
                 loaded, stored, at, ahead and loaded and not stored, down)
        tiles.append(t)
        at += _tile_bytes(t, threads, width)
    # down a column the loads are coalesced already; a loop that stores nothing (its updated cell
    # in a register) lets the compiler issue them ahead itself: copies would only add barriers
    if all(t.down for t in tiles) and p.accumulator_parts(loop) is not None:
        return None
    return Walk(loop_key(loop), tuple(tiles)) if tiles else None


def _shape(t: Tile, threads: int, width: int) -> tuple[int, int, int]:
    """(rows, columns, row stride) of a tile's copy, laid out as A is: the block's rows by the
    strip's columns, the stride odd so that a warp's threads, one row each, read distinct banks;
    or (`down`) the strip's rows by the block's columns, which a warp reads consecutively."""
    walk, grid = width + t.e[1] - t.e[0], threads + t.d[1] - t.d[0]
    return (walk, grid, grid) if t.down else (grid, walk, walk | 1)


def _index(t: Tile, threads: int, width: int, d: str, e: str) -> str:
    """C: the copy's element at offsets `d` (from the block's first grid index) and `e` (from the
    strip's least loop index, both from the tile's least offsets)."""
    rows, cols, stride = _shape(t, threads, width)
    row, col = (e, d) if t.down else (d, e)
    return f"({row}) * {stride} + {col}"


def _tile_bytes(t: Tile, threads: int, width: int) -> int:
    """The tile's bytes in the buffer (32-byte aligned), both copies of one copied ahead."""
    rows, _, stride = _shape(t, threads, width)
    return (rows * stride * DTYPES[t.dtype][0] + 31) // 32 * 32 * (2 if t.ahead else 1)


# -- the kernel -----------------------------------------------------------------------------

def kernel_body(p, launch, index: str, guard: str, declared: list[str]) -> list[str]:
    """The launch's kernel body: `index` (the line computing the grid index), `guard` (C: the
    index is in the domain), `declared` (the thread's variables), then its statements, each walk
    in strips and the rest only where the index is in the domain."""
    st = launch.strips
    g = launch.grid[0].var
    out = [index, f"  const bool poly_in = {guard};   /* past the grid's end: barriers only */",
           f"  const int poly_g0 = {g} - (int)threadIdx.x;   /* the block's first index */",
           f"  __shared__ double4 poly_strip[{st.bytes // 32}];   /* a walk's copies (32-byte aligned) */", *declared]
    walks = {w.key: w for w in st.walks}
    rest = []                                # nodes since the last walk
    for n in [*launch.body, None]:
        w = walks.get(loop_key(n)) if isinstance(n, Loop) else None
        if w is None and n is not None:
            rest.append(n)
            continue
        if rest:
            out += ["  if (poly_in) {", *p.render_nodes(rest, "    "), "  }"]
            rest = []
        if w is not None:
            out += _walk_lines(p, launch, n, w, "  ")
    return out


def _walk_lines(p, launch, loop: Loop, w: Walk, indent: str) -> list[str]:
    """One walk: per strip a barrier, the loaded copies in, a barrier, the strip's iterations
    on the copies (a recurrence's cell in a register: Printer.recurrence_parts), a barrier, the
    stored copies out; a barrier after the last strip. An input's copy `ahead` is two buffers:
    the next strip's copied asynchronously into one while this strip reads the other."""
    st, g, j = launch.strips, launch.grid[0], loop.var
    step, width = loop.step, st.width
    start = loop.init.split("=", 1)[1].strip()
    names = p.names_for(loop.statements()[0].stmt.name)
    tiles = {t.array: t for t in w.tiles}

    def on_copies(node):
        def pick(n):
            if not isinstance(n, c_ast.ArrayRef):
                return None
            base, subs = base_and_subscripts(n)
            t = tiles.get(base.name) if isinstance(base, c_ast.ID) and len(subs) == 2 else None
            if t is None:
                return None
            d, e = var_offset(subs[t.down], g.var), var_offset(subs[1 - t.down], j)
            return c_ast.ArrayRef(c_ast.ID(_now(t)), c_ast.ID(_index(
                t, st.threads, width, offset_text("(int)threadIdx.x", d - t.d[0]), offset_text(f"{j} - poly_lo", e - t.e[0]))))
        return rewrite(copy.deepcopy(node), pick)

    def cell(t: Tile, row: str, col: str) -> str:          # A[row][col] as the kernel names it
        return p.r.statement(parse_expr(f"{t.array}[{row}][{col}]"), names, "")[0].rstrip(";")

    def copy_in(t: Tile, low: str, into: str, ind: str) -> list[str]:
        rows, cols, stride = _shape(t, st.threads, width)
        a = next(x for x in p.k.arrays if x.name == t.array)
        at = f"{into}[(poly_e / {cols}) * {stride} + poly_e % {cols}]"     # A's layout: the tile's row, column
        grid, walk = offset_text("poly_g0", t.d[0]), offset_text(low, t.e[0])
        row, col = (walk, grid) if t.down else (grid, walk)
        put = (f"__pipeline_memcpy_async(&{at}, &{cell(t, 'poly_row', 'poly_col')}, sizeof({t.dtype}));" if t.ahead
               else f"{at} = {cell(t, 'poly_row', 'poly_col')};")
        return [f"{ind}for (int poly_e = (int)threadIdx.x; poly_e < {rows * cols}; poly_e += (int)blockDim.x) {{   /* {t.array}, coalesced */",
                f"{ind}  const int poly_row = {row} + poly_e / {cols}, poly_col = {col} + poly_e % {cols};",
                f"{ind}  if (poly_row >= 0 && poly_row < ({a.shape[0]}) && poly_col >= 0 && poly_col < ({a.shape[1]}))",
                f"{ind}    {put}", f"{ind}}}"]

    kept = p.accumulator_parts(loop, reads=on_copies)      # a cell the loop updates, in a register
    parts = None if kept else p.recurrence_parts(loop, on_copies)
    if kept:
        dtype, acc, target, lines = kept
        firsts, body = [(dtype, acc, target)], lambda ind: [ind + x for x in lines]
    elif parts is None:
        firsts = []
        body = lambda ind: [x for m in loop.body
                            for x in p.r.statement(on_copies(m.stmt.node), p.names_for(m.stmt.name), ind)]
    else:
        firsts, body = parts
    i2, i3, i4 = indent + "  ", indent + "    ", indent + "      "
    out = [f"{indent}{{   /* loop {j} in strips of {width} through shared memory */"]
    if not _declared(loop):
        out.append(f"{i2}int {j};")
    out += [f"{i2}{t.dtype} *const {_buffer(t)} = ({t.dtype} *)((char *)poly_strip + {t.offset});" for t in w.tiles]
    out.append(f"{i2}{j} = {start};")
    out += [f"{i2}{t} {reg} = 0;" for t, reg, _ in firsts]
    if firsts:
        when = "poly_in" if kept else f"poly_in && ({loop.cond})"   # a recurrence's first cell: only if the loop runs
        out += [f"{i2}if ({when}) {{", *[f"{i2}  {reg} = {load};" for _, reg, load in firsts], f"{i2}}}"]
    sign = "+" if step > 0 else "-"
    low = lambda s: s if step > 0 else f"{s} - {width - 1}"
    ahead = [t for t in w.tiles if t.ahead]
    out += [f"{i2}for (int poly_s = {start}, poly_k = 0; ; poly_s {sign}= {width}, poly_k++) {{",
            f"{i3}{{   /* past the loop: {j} keeps the value the reference leaves */",
            f"{i4}const int {j} = poly_s;", f"{i4}if (!({loop.cond}))", f"{i4}  break;", f"{i3}}}",
            f"{i3}{j} = poly_s;",
            f"{i3}const int poly_lo = {low('poly_s')};   /* the strip's least {j} */",
            f"{i3}__syncthreads();   /* the copies are free; what the block wrote before is visible */"]
    if ahead:
        half = lambda t: _shape(t, st.threads, width)[0] * _shape(t, st.threads, width)[2]
        out += [f"{i3}if (poly_k == 0) {{   /* the first strip's inputs */",
                *[x for t in ahead for x in copy_in(t, "poly_lo", _buffer(t), i3 + "  ")],
                f"{i3}  __pipeline_commit();", f"{i3}}}",
                f"{i3}{{   /* the next strip's inputs, while this one runs */",
                f"{i3}  const int {j} = poly_s {sign} {width};", f"{i3}  if ({loop.cond}) {{",
                *[x for t in ahead for x in copy_in(t, low(f"poly_s {sign} {width}"),
                                                     f"({_buffer(t)} + ((poly_k + 1) & 1) * {half(t)})", i3 + "    ")],
                f"{i3}  }}", f"{i3}  __pipeline_commit();", f"{i3}}}",
                *[f"{i3}{t.dtype} *const {_now(t)} = {_buffer(t)} + (poly_k & 1) * {half(t)};" for t in ahead]]
    plain = [t for t in w.tiles if t.loaded and not t.ahead]
    for t in plain:
        out += copy_in(t, "poly_lo", _buffer(t), i3)
    if ahead:
        out.append(f"{i3}__pipeline_wait_prior(1);   /* this strip's inputs are in */")
    if plain or ahead:
        out.append(f"{i3}__syncthreads();")
    out += [f"{i3}for (int poly_u = 0; poly_u < {width}; poly_u++, {loop.next}) {{",
            f"{i4}if (!({loop.cond}))", f"{i4}  break;", f"{i4}if (poly_in) {{",
            *body(i4 + "  "), f"{i4}}}", f"{i3}}}"]
    stored = [t for t in w.tiles if t.stored]
    if stored:
        out.append(f"{i3}__syncthreads();")
    for t in stored:                 # the cells at d = 0, e = 0: the block's threads by the strip
        cols = st.threads if t.down else width
        row, col = ("poly_lo", "poly_g0") if t.down else ("poly_g0", "poly_lo")
        grid, walk = ("poly_col", "poly_row") if t.down else ("poly_row", "poly_col")
        r, c = f"poly_e / {cols}", f"poly_e % {cols}"
        at = _index(t, st.threads, width, f"{c}" if t.down else f"{r}", offset_text(r if t.down else c, -t.e[0]))
        out += [f"{i3}for (int poly_e = (int)threadIdx.x; poly_e < {st.threads * width}; poly_e += (int)blockDim.x) {{   /* {t.array}, coalesced */",
                f"{i4}const int poly_row = {row} + {r}, poly_col = {col} + {c};",
                f"{i4}const int {g.var} = {grid}, {j} = {walk};",
                f"{i4}if (({loop_guard(g)}) && ({loop.cond}))",
                f"{i4}  {cell(t, 'poly_row', 'poly_col')} = {_buffer(t)}[{at}];",
                f"{i3}}}"]
    out += [f"{i2}}}", f"{i2}__syncthreads();   /* the stored copies are visible */"]
    if kept:
        out += [f"{i2}if (poly_in)", f"{i2}  {target} = {acc};"]
    return out + [f"{indent}}}"]


def _buffer(t: Tile) -> str:
    return f"poly_strip_{t.array}"


def _now(t: Tile) -> str:
    """The copy this strip reads: an `ahead` tile's current buffer."""
    return f"poly_now_{t.array}" if t.ahead else _buffer(t)


def _declared(loop: Loop) -> bool:
    """Whether the kernel declares the loop's variable (its header only assigns it)."""
    return loop.init.split("=", 1)[0].strip() == loop.var


def describe(launch) -> str:
    st = launch.strips
    walked = ", ".join(dict.fromkeys(w.key[0] for w in st.walks))
    copies = sorted({t.array for w in st.walks for t in w.tiles})
    return (f"; blocks of {st.threads} threads walk loop {walked} in strips of {st.width} iterations, "
            f"the block's cells of {', '.join(copies)} through shared memory (coalesced)")
