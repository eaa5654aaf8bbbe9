"""A thread's own row of an array, read along its loop or field by field, through shared memory.

    slab_of(context, launch) -> Slab | None;  staging(printer, launch, start, guard) -> kernel lines;
    read(node, slab) -> node;  host(launch, indent) -> (lines, bytes, flag)

Takes a plain launch over one grid index p (a thread per point, no other form) whose statements
read `A[p][E]` of a 2-d A: E naming a loop the thread runs (k-means' `pts[p][k]`), or constant
columns outside loops covering at least half of a constant row (an array of structures,
Livermore 9's `px[i][2..12]`); isl bounds p and E inside A. Such reads stride by a row across a
warp. Gives the block's rows of each such A copied once into dynamic shared memory, consecutive
threads on consecutive elements (coalesced), rows an odd number of elements apart (distinct banks),
and those reads from the copy. Exact: the launch never writes A, or writes only constant columns of
the thread's own row that no staged read names, so the copy holds what each read would have read.
Where the block's rows pass the target's static shared memory (known at run time) the kernel reads global memory as
before (`poly_staged` 0). Refuses (None) other forms, several grid indices, a capped grid.
docs/poly.md, "Rows in shared memory".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Stmt
from ...analysis.isl_bridge import always_within
from ...analysis.model import NotAffine, affine, base_and_subscripts
from ...ir import abi
from ...ir.csyntax import cprint, names
from ...ir.kernel import DTYPES
from .ctext import array_refs, identifiers, rewrite

@dataclass(frozen=True)
class Rows:
    array: str                 # A
    dtype: str                 # its element type
    length: str                # C extent of a row: A's last dimension
    buffer: str                # the shared copy's pointer, poly_rows<K>


@dataclass(frozen=True)
class Slab:
    rows: tuple[Rows, ...]     # largest element type first (each buffer stays aligned)
    reads: frozenset           # C text of the references read from the copies (`pts[p][k]`)
    limit: int                 # the most bytes the block's rows take (Target.shared_static); past it, global reads


def slab_of(p, launch) -> Slab | None:
    """The launch's rows in shared memory (see the module doc), or None."""
    if not p.opt.grid.rows or len(launch.grid) != 1 or launch.grid[0].derived or launch.grid[0].step != 1 \
            or launch.in_block or launch.merged_threads or launch.grid_cap or launch.tile \
            or any((launch.reduction, launch.scan, launch.banded, launch.running_max, launch.row_scan, launch.row,
                    launch.phases, launch.sweep, launch.private, launch.tiles, launch.transposed, launch.block_sum)):
        return None
    prog, grid = p.an.program, launch.grid[0]
    if not identifiers(f"{grid.lower} {grid.upper}") <= set(prog.sizes):
        return None                                   # rows that move with a host loop: not a box
    stmts = [n for n in launch.body if isinstance(n, Stmt)] + \
            [s for n in launch.body if not isinstance(n, Stmt) for s in n.statements()]
    if any(s.stmt.atomic for s in stmts):
        return None
    arrays = {a.name: a for a in prog.kernel.arrays}
    inner = {v for s in stmts for v in s.stmt.loops} - {grid.var} - {l.var for l in launch.host_loops}
    known = set(prog.sizes) | {v for s in stmts for v in s.stmt.loops}
    cells = {}        # a written name -> the constant columns of the thread's own row it writes; None: others
    for s in stmts:
        for w in s.stmt.writes():
            own = len(w.index) == 2 and w.index[0] == grid.var and w.index[1].isdigit()
            if own and cells.get(w.name, set()) is not None:
                cells[w.name] = cells.get(w.name, set()) | {int(w.index[1])}
            else:
                cells[w.name] = None
    rows_in = lambda a: always_within(prog.sizes, prog.context, [grid.var],
                                      [f"{grid.lower} <= {grid.var}", f"{grid.var} <= {grid.upper}"],
                                      grid.var, "0", f"({a.shape[0]}) - 1")
    walked, fixed, reads = {}, {}, {}  # array -> its staged reads along a thread's loop / at constant columns
    for s in stmts:
        for ref in array_refs(s.stmt.node):
            base, subs = base_and_subscripts(ref)
            a = arrays.get(base.name) if isinstance(base, c_ast.ID) else None
            if a is None or len(a.shape) != 2 or len(subs) != 2 or a.name in prog.locals or \
                    not (isinstance(subs[0], c_ast.ID) and subs[0].name == grid.var):
                continue
            try:
                col = affine(subs[1], known, "subscript")
            except NotAffine:
                continue
            if a.name in cells:        # written: only columns it never writes, read at constants
                if cells[a.name] is None or not col.isdigit() or int(col) in cells[a.name] or set(s.stmt.loops) & inner:
                    continue
            elif not (names(subs[1]) & inner or col.isdigit() and not set(s.stmt.loops) & inner):
                continue               # a constant column inside a loop: read once, kept in a register
            if not always_within(prog.sizes, prog.context, list(s.stmt.loops), list(s.stmt.domain), col, "0",
                                 f"({a.shape[1]}) - 1"):
                continue
            (fixed if col.isdigit() else walked).setdefault(a.name, set()).add(col)
            reads.setdefault(a.name, set()).add(cprint(ref))
    # a row walked by a loop is read whole; constant columns, where they are at least half the row
    worth = lambda a: a.name in walked or a.shape[1].isdigit() and 2 * len(fixed.get(a.name, ())) >= int(a.shape[1])
    found = {n: arrays[n] for n in reads if worth(arrays[n]) and rows_in(arrays[n])}
    if not found:
        return None
    order = sorted(found.values(), key=lambda a: -DTYPES[a.dtype][0])
    return Slab(tuple(Rows(a.name, a.dtype, a.shape[1], f"poly_rows{i}") for i, a in enumerate(order)),
                frozenset(r for n in found for r in reads[n]), p.target.shared_static)


def _extent(text: str) -> str:
    return text if text.isidentifier() or text.isdigit() else f"({text})"


def staging(pr, launch, start: str, guard: str) -> list[str]:
    """The kernel's first lines (two spaces in), before its guard: the shared buffers, and with
    `poly_staged` the block's rows copied (consecutive threads, consecutive elements of the
    rows, which lie end to end in A) and a barrier every thread of the block meets."""
    slab: Slab = launch.slab
    grid = launch.grid[0]
    out = ["  extern __shared__ double poly_slab[];   /* the block's rows (8-byte aligned) */"]
    offset = "0"
    for r in slab.rows:
        n = _extent(r.length)
        out.append(f"  {r.dtype} *const {r.buffer} = ({r.dtype} *)((char *)poly_slab + {offset});   "
                   f"/* {r.array}: rows {n} | 1 apart */")
        offset = f"{offset} + ({abi.nbytes(r.dtype, f'(size_t)blockDim.x * ({n} | 1)')} + 7) / 8 * 8"
        if offset.startswith("0 + "):
            offset = offset[4:]
    out += ["  if (poly_staged) {   /* the block's rows, coalesced */",
            f"    const int poly_first = {start}(int)(blockIdx.x * blockDim.x);"]
    for r in slab.rows:
        n = _extent(r.length)
        cell = c_ast.ArrayRef(c_ast.ArrayRef(c_ast.ID(r.array), c_ast.ID(grid.var)), c_ast.ID("poly_c"))
        load = pr.r.statement(c_ast.Assignment("=", c_ast.ID(f"{r.buffer}[poly_r * ({n} | 1) + poly_c]"), cell), {},
                              "        ")
        out += [f"    for (int poly_e = (int)threadIdx.x; poly_e < (int)blockDim.x * {n}; poly_e += (int)blockDim.x) {{",
                f"      const int poly_r = poly_e / {n}, poly_c = poly_e % {n};",
                f"      const int {grid.var} = poly_first + poly_r;",
                f"      if ({guard})", *load, "    }"]
    return out + ["    __syncthreads();", "  }"]


def read(node, slab: Slab):
    """`node` with each staged read `A[p][E]` as `(poly_staged ? poly_rowsK[threadIdx.x * (n | 1) + (E)] : A[p][E])`."""
    rows = {r.array: r for r in slab.rows}

    def pick(n):
        if isinstance(n, c_ast.ArrayRef) and cprint(n) in slab.reads:
            base, subs = base_and_subscripts(n)
            r = rows[base.name]
            mine = c_ast.ID(f"{r.buffer}[(int)threadIdx.x * ({_extent(r.length)} | 1) + ({cprint(subs[1])})]")
            return c_ast.TernaryOp(c_ast.ID("poly_staged"), mine, copy.deepcopy(n))
        return None
    return rewrite(node, pick)


def host(launch, indent: str) -> tuple[list[str], str, str]:
    """Host lines before the launch: the rows' bytes per block and whether they fit; the launch's
    dynamic shared memory and its last argument."""
    terms = " + ".join(f"({abi.nbytes(r.dtype, f'(size_t){launch.threads} * ({_extent(r.length)} | 1)')} + 7) / 8 * 8"
                       for r in launch.slab.rows)
    return ([f"{indent}    const size_t poly_slab = {terms};   /* the block's rows of "
             f"{', '.join(r.array for r in launch.slab.rows)} */",
             f"{indent}    const int poly_staged = poly_slab <= {launch.slab.limit};"],
            "poly_staged ? poly_slab : 0", "poly_staged")


def describe(launch) -> str:
    return (f"; each block first copies its {launch.grid[0].var}'s rows of "
            f"{', '.join(r.array for r in launch.slab.rows)} into shared memory (coalesced), and its threads read them there")
