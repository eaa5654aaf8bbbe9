"""Copies between differently ordered layouts: transposed reads through shared-memory tiles.

    transposed_of(context, launch) -> Transposed | None;  kernel_body(printer, launch, box, locals_)

Takes a loop-free 2-d launch (or 3-d, a batch on z) over a box whose writes are contiguous along
one grid index and which reads an array contiguous along the other (`B[j][i] = A[i][j]`). Gives
x on the writes' index and blocks of 32 x 8 threads that stage each transposed read's 32 x 32
values in shared memory: reads and writes both coalesced. Exact: the grid loops are parallel
and nothing in the launch writes a staged array. Refuses (None) a loop in the body, a
wavefront, an atomic update, a written or local staged array, tiles past static shared memory.
docs/poly.md, "Transposed launches".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Stmt
from ...analysis.model import base_and_subscripts
from ...ir.csyntax import array_name, cprint, names
from ...ir.kernel import DTYPES
from .ctext import WORD, min_expr, replace_refs

TILE = 32          # a block's points along x and along y
ROWS = 8           # its threads along y: each takes TILE // ROWS rows, ROWS apart


@dataclass
class Read:
    node: c_ast.ArrayRef       # the reference, as in the statements (`A[i][j]`)
    tile: str                  # its shared array
    dtype: str                 # the array's element type


@dataclass
class Transposed:
    reads: list[Read]          # distinct transposed references, each with its tile


def transposed_of(p, launch) -> Transposed | None:
    """The launch's transposed reads and their tiles (see the module doc), or None; swaps the
    launch's x and y axes where its written references are contiguous along y."""
    if len(launch.grid) not in (2, 3) or launch.grid[-1].derived or launch.in_block \
            or not all(isinstance(n, Stmt) for n in launch.body) or any(l.step != 1 for l in launch.grid):
        return None
    grid = {l.var for l in launch.grid}
    if any((grid - {l.var}) & set(WORD.findall(f"{l.init} {l.cond}")) for l in launch.grid):
        return None                                  # not a box
    y, x = launch.rows_cols()
    stmts = [p.an.program.statement(s) for s in launch.statements()]
    if any(s.atomic for s in stmts):
        return None
    written = {a.name for s in stmts for a in s.writes() if a.index}
    nodes = [n.stmt.node for n in launch.body]
    stores = [r for n in nodes for r in _stored(n)]
    fast = {_bare(base_and_subscripts(r)[1][-1]) for r in stores}
    if written != {array_name(r) for r in stores} or len(fast) != 1 or not fast <= {x.var, y.var}:
        return None
    fast = fast.pop()
    slow = y.var if fast == x.var else x.var
    types = {a.name: a.dtype for a in p.k.arrays}
    reads, seen = [], set()
    for n in nodes:
        for r in _loads(n):
            subs = base_and_subscripts(r)[1]
            name, text = array_name(r), cprint(r)
            if len(subs) < 2 or [_bare(s) for s in subs[-2:]] != [fast, slow] or text in seen:
                continue
            if name in written or name in p.local_arrays or name not in types or \
                    any({x.var, y.var} & names(s) for s in subs[:-2]):
                return None
            seen.add(text)
            reads.append(Read(copy.deepcopy(r), f"poly_tile{len(reads)}", types[name]))
    if not reads or sum(TILE * (TILE + 1) * DTYPES[r.dtype][0] for r in reads) > p.target.shared_static:
        return None
    if fast == y.var:                                # the writes' contiguous index goes to x
        launch.axes[x.var], launch.axes[y.var] = "y", "x"
    return Transposed(reads)


def kernel_body(pr, launch, box, locals_) -> list[str]:
    """The body of a transposed launch's kernel (before cuda.Printer.strided wraps it): the
    tiles' loads, a barrier, the points; a block that strides on to further tiles (a capped
    axis) waits for every thread's reads before the next loads."""
    t: Transposed = launch.transposed
    y, x = launch.rows_cols()
    start = {l.var: min_expr(lows) for l, (lows, _) in zip(launch.grid, box)}
    off = lambda v: "" if start[v] == "0" else f"{start[v]} + "
    lines = [f"  __shared__ {r.dtype} {r.tile}[{TILE}][{TILE + 1}];   /* {cprint(r.node)}: (x, y) of the block */"
             for r in t.reads]
    body = []
    for l in launch.grid:
        if launch.axes[l.var] == "z":
            body.append(f"  const int {l.var} = {off(l.var)}(int)({pr.block_index(launch, 'z')} * blockDim.z + threadIdx.z);")
    body += [f"  const int poly_y0 = {off(y.var)}(int)({pr.block_index(launch, 'y')} * {TILE}), "
             f"poly_x0 = {off(x.var)}(int)({pr.block_index(launch, 'x')} * {TILE});"]
    guard = " && ".join(_guard(l) for l in launch.grid)
    rows = f"for (int poly_r = 0; poly_r < {TILE}; poly_r += {ROWS}) {{"
    body += ["#pragma unroll", f"  {rows}   /* the tiles: threadIdx.x along {y.var} */",
             f"    const int {y.var} = poly_y0 + (int)threadIdx.x, {x.var} = poly_x0 + (int)(threadIdx.y + poly_r);",
             f"    if ({guard}) {{"]
    body += [line for r in t.reads for line in
             pr.r.statement(c_ast.Assignment("=", c_ast.ID(f"{r.tile}[threadIdx.y + poly_r][threadIdx.x]"), r.node), {}, "      ")]
    body += ["    }", "  }", "  __syncthreads();",
             "#pragma unroll", f"  {rows}   /* the points: threadIdx.x along {x.var} */",
             f"    const int {y.var} = poly_y0 + (int)(threadIdx.y + poly_r), {x.var} = poly_x0 + (int)threadIdx.x;",
             f"    if (!({guard}))", "      continue;"]
    body += [f"    {ty} {web};" for web, ty in locals_.items()]
    for n in launch.body:
        node = copy.deepcopy(n.stmt.node)
        for r in t.reads:
            node = replace_refs(node, cprint(r.node), f"{r.tile}[threadIdx.x][threadIdx.y + poly_r]")
        body += pr.r.statement(node, pr.names_for(n.stmt.name), "    ")
    body.append("  }")
    if launch.grid_cap:
        body.append("  __syncthreads();   /* every read of the tiles before the next block index's loads */")
    return lines + pr.strided(launch, body)


def describe(launch) -> str:
    y, x = launch.rows_cols()
    names = ", ".join(cprint(r.node) for r in launch.transposed.reads)
    return (f"{TILE} x {TILE} points per block of {TILE} x {ROWS} threads: {names} first copied into shared "
            f"tiles with threadIdx.x along {y.var}, then each thread {TILE // ROWS} rows {ROWS} apart with "
            f"threadIdx.x along {x.var}, reading the tiles")


def _guard(l) -> str:
    return f"{l.var} >= {l.init.split('=', 1)[1].strip()} && {l.cond}"


def _bare(sub) -> str | None:
    return sub.name if isinstance(sub, c_ast.ID) else None


def _stored(node) -> list:
    """The array references `node`'s assignments store to."""
    out = []

    def visit(n):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ArrayRef):
            out.append(n.lvalue)
        for _, kid in n.children():
            visit(kid)
    visit(node)
    return out


def _loads(node) -> list:
    """The array references `node` reads (a compound assignment's target too)."""
    out = []

    def visit(n):
        if isinstance(n, c_ast.Assignment) and isinstance(n.lvalue, c_ast.ArrayRef):
            if n.op != "=":
                out.append(n.lvalue)
            out.extend(r for sub in base_and_subscripts(n.lvalue)[1] for r in _loads(sub))
            visit(n.rvalue)
            return
        if isinstance(n, c_ast.ArrayRef):
            out.append(n)
            out.extend(r for sub in base_and_subscripts(n)[1] for r in _loads(sub))
            return
        for _, kid in n.children():
            visit(kid)
    visit(node)
    return out
