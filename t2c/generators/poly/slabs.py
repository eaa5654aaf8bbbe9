"""A thread's own row of an array, read along its loop or field by field, and the tables that every
thread reads, through shared memory.

    slab_of(context, launch) -> Slab | None;  staging(printer, launch, start, guard) -> kernel lines;
    read(node, slab) -> node;  params(launch) -> kernel parameters;  host(launch, indent) -> (lines, bytes, flags);
    kept(printer, launch) -> kernel lines;  split(printer, launch, loop, indent) -> lines | None

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
A table (`grid.tables`, `Table`): an array the launch never writes, every read of which names no
grid index and sits in a loop of the thread (k-means' centres `ctr[c][k]`), is copied whole once
per block into the same dynamic shared memory after the rows, where rows and tables fit
(`poly_tables`, at run time), and read there; a Slab may hold tables and no rows.
A staged row read only at `A[p][k]` by loops `for (k = 0; k < E; k++)` over its whole length E
also goes to registers (`grid.row_registers`, `Registers`): its first R elements copied once, each
such loop printed as an unrolled loop over those (compile-time indices) and a loop over the rest.
docs/poly.md, "Rows in shared memory".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Loop, Stmt
from ...analysis.isl_bridge import always_within
from ...analysis.model import NotAffine, affine, base_and_subscripts
from ...ir import abi
from ...ir.csyntax import array_name, cprint, names
from ...ir.kernel import DTYPES
from .ctext import WORD, array_refs, identifiers, rewrite

#: the fewest table elements a launch copies: every block waits for its copy (a global round trip
#: and a barrier) before any work, which a few reads per thread (a short filter's taps) do not
#: repay, while L1 serves a table that small to every warp anyway (docs/poly.md, "Tables")
TABLE_MIN = 16


@dataclass(frozen=True)
class Rows:
    array: str                 # A
    dtype: str                 # its element type
    length: str                # C extent of a row: A's last dimension
    buffer: str                # the shared copy's pointer, poly_rows<K>


@dataclass(frozen=True)
class Registers:
    """A staged row also kept in registers: the thread's first `count` elements of it, read by
    loops `for (k = 0; k < length; k++)` (`loops`), each printed as an unrolled loop over the
    registers and a loop over the rest of the row (split)."""
    array: str                 # A
    dtype: str
    length: str                # the row's C extent E, the loops' extent too
    count: int                 # R: grid.row_registers, or E where E is a smaller constant
    name: str                  # the register array, poly_reg<K> beside poly_rows<K>
    loops: frozenset           # the split loops' keys (loop_key): (variable, their statements' names)


@dataclass(frozen=True)
class Table:
    """An array every thread of the block reads at the same cells, many times (see _tables):
    copied whole, in its own layout, so a read's flat subscript is the same in the copy."""
    array: str                 # A
    dtype: str
    shape: tuple[str, ...]     # A's C extents, as the kernel's flat subscripts use them
    extent: str                # its elements, the product of its extents (`nc * d`)
    buffer: str                # the shared copy's pointer, poly_table<K>


@dataclass(frozen=True)
class Slab:
    """A launch's dynamic shared memory: the block's rows, then the tables. Rows and tables share
    the buffer, the barrier before the guard and the limit, so one record holds the layout and the
    run-time fit of both; either may be empty (not both)."""
    rows: tuple[Rows, ...]     # largest element type first (each buffer stays aligned)
    reads: frozenset           # C text of the references read from the copies (`pts[p][k]`)
    limit: int                 # the most bytes the block's rows and tables take (Target.shared_static); past it, global reads
    registers: tuple[Registers, ...] = ()   # rows also in registers (grid.row_registers)
    tables: tuple[Table, ...] = ()          # arrays copied whole after the rows (grid.tables), where both fit

    @property
    def whole_in_registers(self) -> str:
        """The C condition under which every staged row is read from registers only (each row has
        Registers, whose loops are all its reads, and is no longer than them), '' where some row
        has none. A call where it holds stages nothing: each thread loads its own row into its
        registers once from global memory (its row's lines through L1), so the shared copy would
        only add a barrier and its shared memory would cap the blocks per multiprocessor."""
        regs = {g.array: g for g in self.registers}
        if not self.rows or any(r.array not in regs or r.length.isdigit() and int(r.length) > regs[r.array].count for r in self.rows):
            return ""
        fits = [f"{_extent(g.length)} <= {g.count}" for g in self.registers if not (g.length.isdigit() and int(g.length) <= g.count)]
        return " && ".join(fits) or "1"


def slab_of(p, launch) -> Slab | None:
    """The launch's rows and tables in shared memory (see the module doc), or None."""
    if not (p.opt.grid.rows or p.opt.grid.tables) or len(launch.grid) != 1 or launch.grid[0].derived \
            or launch.grid[0].step != 1 or launch.in_block or launch.merged_threads or launch.grid_cap or launch.tile \
            or any((launch.reduction, launch.scan, launch.banded, launch.running_max, launch.row_scan, launch.row,
                    launch.phases, launch.sweep, launch.private, launch.tiles, launch.transposed, launch.block_sum)):
        return None
    if any(s.stmt.atomic for s in statements(launch)):
        return None
    rows, staged = _rows(p, launch) if p.opt.grid.rows else ((), frozenset())
    tables = _tables(p, launch) if p.opt.grid.tables else ()
    if not rows and not tables:
        return None
    return Slab(rows, staged, p.target.shared_static, _registers(p, launch, rows, staged) if rows else (), tables)


def statements(launch) -> list[Stmt]:
    """The launch's statements, those of its loops too, in order."""
    return [n for n in launch.body if isinstance(n, Stmt)] + \
        [s for n in launch.body if not isinstance(n, Stmt) for s in n.statements()]


def _rows(p, launch) -> tuple[tuple[Rows, ...], frozenset]:
    """The rows to stage and the C text of their reads; ((), frozenset()) where none."""
    prog, grid = p.an.program, launch.grid[0]
    if not identifiers(f"{grid.lower} {grid.upper}") <= set(prog.sizes):
        return (), frozenset()                        # rows that move with a host loop: not a box
    stmts = statements(launch)
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
    order = sorted(found.values(), key=lambda a: -DTYPES[a.dtype][0])
    rows = tuple(Rows(a.name, a.dtype, a.shape[1], f"poly_rows{i}") for i, a in enumerate(order))
    return rows, frozenset(r for n in found for r in reads[n])


def _tables(p, launch) -> tuple[Table, ...]:
    """The arrays of the launch that every thread of a block reads at the same cells (Table):
    one that no statement of the launch writes (so the copy holds what each read would read,
    the launch being the only kernel running between its copy and its reads), named only as
    whole elements, every subscript free of the grid index, each read in a statement under a loop
    of the thread (read many times by each thread: a read outside loops would gain nothing
    from the copy), of known extents (a buffer, not a pointwise register: contract.py) and not,
    at a constant extent, larger than the limit alone."""
    prog, grid = p.an.program, launch.grid[0]
    stmts = statements(launch)
    written = {w.name for s in stmts for w in s.stmt.writes()}
    inner = {v for s in stmts for v in s.stmt.loops} - {grid.var} - {l.var for l in launch.host_loops}
    arrays = {a.name: (a.dtype, tuple(a.shape)) for a in prog.kernel.arrays if a.name not in prog.locals}
    arrays |= {n: (prog.locals[n].dtype, tuple(shape)) for n, shape in p.local_arrays.items()}
    found: dict[str, bool] = {}                 # A -> every read so far in the class
    for s in stmts:
        text = cprint(s.stmt.node)
        for a, (_, shape) in arrays.items():
            refs = [r for r in _all_refs(s.stmt.node) if array_name(r) == a]
            if a in written or not refs or found.get(a) is False:
                continue
            subs = [base_and_subscripts(r)[1] for r in refs]
            found[a] = bool(shape) and len(refs) == WORD.findall(text).count(a) \
                and all(len(sub) == len(shape) and not any(grid.var in names(x) for x in sub) for sub in subs) \
                and bool(set(s.stmt.loops) & inner)
    out = []
    for a in sorted((a for a, ok in found.items() if ok), key=lambda a: (-DTYPES[arrays[a][0]][0], a)):
        dtype, shape = arrays[a]
        extent = " * ".join(_extent(e) for e in shape)
        if all(e.isdigit() for e in shape) and _const_bytes(dtype, shape) > p.target.shared_static:
            continue                                  # never fits: the copy would never run
        out.append(Table(a, dtype, shape, extent, f"poly_table{len(out)}"))
    return tuple(out)


def _const_bytes(dtype: str, shape) -> int:
    n = DTYPES[dtype][0]
    for e in shape:
        n *= int(e)
    return n


def loop_key(loop: Loop) -> tuple:
    """A loop of a launch's body by its variable and its statements' names (which are unique)."""
    return loop.var, tuple(s.stmt.name for s in loop.statements())


def _all_refs(node) -> list:
    """Every ArrayRef chain under `node`, those inside subscripts too (`x[A[p][k]]` gives both)."""
    out = []
    for ref in array_refs(node):
        out.append(ref)
        for sub in base_and_subscripts(ref)[1]:
            out += _all_refs(sub)
    return out


def _registers(p, launch, rows: tuple[Rows, ...], staged: frozenset) -> tuple[Registers, ...]:
    """The staged rows kept in registers too (see Registers): a row A every one of whose reads
    in the launch is a staged `A[p][k]` with k the variable of a loop of the launch's body that
    runs from 0 to A's row length by 1, whose variable no statement outside such a loop names, that holds
    no other such loop nor sits in one, that names no array it writes at two cells (the printer's
    recurrences keep those) and holds no break, goto or return (the second loop would still run);
    the launch never writes A (a walked row: slab_of)."""
    count = p.opt.grid.row_registers
    if not count:
        return ()
    prog, grid = p.an.program, launch.grid[0]
    lengths = {r.array: r.length for r in rows}
    every = [n for n in launch.body if isinstance(n, Stmt)] + \
            [s for n in launch.body if not isinstance(n, Stmt) for s in n.statements()]
    written = {w.name for s in every for w in s.stmt.writes()}

    def whole(loop: Loop, length: str) -> bool:          # for (k = 0; k < length; k++)
        moved = any(s.at is not None or s.bind is not None for s in loop.statements())
        return loop.step == 1 and not loop.geometric and loop.time is None and not loop.derived and not moved \
            and loop.lower.strip("() ") == "0" and identifiers(loop.upper) <= set(prog.sizes) \
            and always_within(prog.sizes, prog.context, [], [], loop.upper, f"({length}) - 1", f"({length}) - 1") \
            and not any(loop.var in identifiers(cprint(s.stmt.node)) and loop.var not in s.stmt.loops for s in every) \
            and not _rereads(loop) and not any(_exits(s.stmt.node) for s in loop.statements())

    uses: dict[str, set | None] = {}    # A -> the loops reading it; None: a read outside the class
    parents: dict[tuple, set] = {}      # a loop's key -> its enclosing loops' keys
    def walk(nodes, enclosing: tuple):
        for n in nodes:
            if not isinstance(n, Stmt):
                parents[loop_key(n)] = {loop_key(l) for l in enclosing}
                walk(n.body, enclosing + (n,))
                continue
            text = cprint(n.stmt.node)
            for a in lengths:
                refs = [r for r in _all_refs(n.stmt.node) if array_name(r) == a]
                if len(refs) != WORD.findall(text).count(a):
                    uses[a] = None                        # named other than as an element
                for ref in refs:
                    subs = base_and_subscripts(ref)[1]
                    loop = next((l for l in reversed(enclosing) if isinstance(subs[1], c_ast.ID)
                                 and l.var == subs[1].name), None)
                    if uses.get(a, set()) is None:
                        continue
                    if cprint(ref) in staged and cprint(subs[0]) == grid.var and loop is not None \
                            and whole(loop, lengths[a]):
                        uses.setdefault(a, set()).add(loop_key(loop))
                    else:
                        uses[a] = None
    walk(launch.body, ())
    split = {key for keys in uses.values() if keys for key in keys}
    out = []
    for i, r in enumerate(rows):
        keys = uses.get(r.array)
        if not keys or r.array in written or any(parents[key] & split for key in keys):
            continue
        n = min(count, int(r.length)) if r.length.isdigit() else count
        out.append(Registers(r.array, r.dtype, r.length, n, f"poly_reg{i}", frozenset(keys)))
    return tuple(out)


def _rereads(loop: Loop) -> bool:
    """Whether the loop names an array it writes at more than one cell (adi's `p[i][j]` and
    `p[i][j - 1]`): the printer may keep such a loop's values in registers (Printer.recurrences),
    which a split loop would not."""
    written = {w.name for s in loop.statements() for w in s.stmt.writes() if w.index}
    texts = {}
    for s in loop.statements():
        for ref in _all_refs(s.stmt.node):
            if array_name(ref) in written:
                texts.setdefault(array_name(ref), set()).add(cprint(ref))
    return any(len(t) > 1 for t in texts.values())


def _exits(node) -> bool:
    return isinstance(node, (c_ast.Break, c_ast.Goto, c_ast.Return)) or any(_exits(kid) for _, kid in node.children())


def _extent(text: str) -> str:
    return text if text.isidentifier() or text.isdigit() else f"({text})"


def staging(pr, launch, start: str, guard: str) -> list[str]:
    """The kernel's first lines (two spaces in), before its guard: the shared buffers, and with
    `poly_staged` the block's rows copied (consecutive threads, consecutive elements of the
    rows, which lie end to end in A), with `poly_tables` each table copied whole (consecutive
    threads, consecutive elements), and a barrier every thread of the block meets. The tables
    lie after the rows where the rows are staged, else from the start."""
    slab: Slab = launch.slab
    grid = launch.grid[0]
    what = " and ".join(["the block's rows"] * bool(slab.rows) + ["the tables"] * bool(slab.tables))
    out = [f"  extern __shared__ double poly_slab[];   /* {what} (8-byte aligned) */"]
    offset = "0"
    for r in slab.rows:
        n = _extent(r.length)
        out.append(f"  {r.dtype} *const {r.buffer} = ({r.dtype} *)((char *)poly_slab + {offset});   "
                   f"/* {r.array}: rows {n} | 1 apart */")
        offset = f"{offset} + ({abi.nbytes(r.dtype, f'(size_t)blockDim.x * ({n} | 1)')} + 7) / 8 * 8"
        if offset.startswith("0 + "):
            offset = offset[4:]
    offset = f"(poly_staged ? {offset} : 0)" if slab.rows else "0"
    for t in slab.tables:
        out.append(f"  {t.dtype} *const {t.buffer} = ({t.dtype} *)((char *)poly_slab + {offset});   "
                   f"/* {t.array}: {t.extent} elements */")
        offset = f"{offset} + ({abi.nbytes(t.dtype, abi.count(t.shape))} + 7) / 8 * 8"
        if offset.startswith("0 + "):
            offset = offset[4:]
    if slab.rows:
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
    if not slab.tables:
        return out + ["    __syncthreads();", "  }"]
    out += ["  }"] * bool(slab.rows) + ["  if (poly_tables) {   /* the tables, whole, coalesced */"]
    for t in slab.tables:
        cell = c_ast.ArrayRef(c_ast.ID(t.array), c_ast.ID("poly_e"))     # flat: the copy keeps A's layout
        load = pr.r.statement(c_ast.Assignment("=", c_ast.ID(f"{t.buffer}[poly_e]"), cell), {}, "      ")
        out += [f"    for (int poly_e = (int)threadIdx.x; poly_e < {t.extent}; poly_e += (int)blockDim.x)", *load]
    return out + ["  }", f"  if ({'poly_staged || ' * bool(slab.rows)}poly_tables)", "    __syncthreads();"]


def read(node, slab: Slab):
    """A copy of `node` with each staged read `A[p][E]` as `(poly_staged ? poly_rowsK[threadIdx.x * (n | 1) + (E)] : A[p][E])`
    and each read of a table `T[E1]...[Ek]` as `(poly_tables ? poly_tableK[flat] : T[E1]...[Ek])`, flat
    as the kernel flattens T (the copy keeps T's layout)."""
    rows = {r.array: r for r in slab.rows}
    tables = {t.array: t for t in slab.tables}

    def pick(n):
        if isinstance(n, c_ast.ArrayRef) and cprint(n) in slab.reads:
            base, subs = base_and_subscripts(n)
            return _staged(copy.deepcopy(n), rows[base.name], cprint(subs[1]))
        if isinstance(n, c_ast.ArrayRef) and array_name(n) in tables:
            t = tables[array_name(n)]
            ref = copy.deepcopy(n)
            subs = [rewrite(sub, pick) for sub in base_and_subscripts(ref)[1]]   # a table read in a subscript too
            if len(subs) != len(t.shape):
                return None
            for sub, at in zip(reversed(subs), _chain(ref)):
                at.subscript = sub
            return c_ast.TernaryOp(c_ast.ID("poly_tables"), c_ast.ArrayRef(c_ast.ID(t.buffer), _flat(subs, t.shape)),
                                   ref)
        return None
    return rewrite(copy.deepcopy(node), pick)


def _chain(ref) -> list:
    """The ArrayRef nodes of a chain `A[i][j]`, outermost (last subscript) first."""
    out = []
    while isinstance(ref, c_ast.ArrayRef):
        out.append(ref)
        ref = ref.name
    return out


def _flat(subs: list, shape: tuple[str, ...]):
    """Row-major flat subscript of `subs` in an array of `shape`, as cuda.Renderer flattens."""
    flat = copy.deepcopy(subs[0])
    for ext, sub in zip(shape[1:], subs[1:]):
        flat = c_ast.BinaryOp("+", c_ast.BinaryOp("*", flat, c_ast.ID(_extent(ext))), copy.deepcopy(sub))
    return flat


def _staged(ref, r: Rows, column: str):
    """`ref` (`A[p][column]`) read from the block's copy where it was made, else from A."""
    mine = c_ast.ID(f"{r.buffer}[(int)threadIdx.x * ({_extent(r.length)} | 1) + ({column})]")
    return c_ast.TernaryOp(c_ast.ID("poly_staged"), mine, ref)


def kept(pr, launch) -> list[str]:
    """The kernel's lines (two spaces in) after its guard: each register row (Registers) filled
    from the thread's staged row, at compile-time indices so that it stays in registers."""
    slab: Slab = launch.slab
    rows, p = {r.array: r for r in slab.rows}, launch.grid[0].var
    out = []
    for g in slab.registers:
        ref = c_ast.ArrayRef(c_ast.ArrayRef(c_ast.ID(g.array), c_ast.ID(p)), c_ast.ID("poly_u"))
        guarded = not (g.length.isdigit() and int(g.length) >= g.count)
        load = pr.r.statement(c_ast.Assignment("=", c_ast.ID(f"{g.name}[poly_u]"), _staged(ref, rows[g.array], "poly_u")),
                              {}, "      " if guarded else "    ")
        out += [f"  {g.dtype} {g.name}[{g.count}];   /* {g.array}: the thread's row, its first {g.count} elements */",
                "#pragma unroll", f"  for (int poly_u = 0; poly_u < {g.count}; poly_u++)",
                *[f"    if (poly_u < {_extent(g.length)})"] * guarded, *load]
    return out


def split(pr, launch, loop: Loop, indent: str) -> list[str] | None:
    """A loop of Registers.loops as an unrolled loop over the registers (`k` a compile-time index,
    guarded by the row's length) and a loop over the rest of the row reading the staged copy: the
    same statements in the same order on the same values. A register accumulator's cell
    (Printer.register_accumulator) stays in its register across both. None for other loops."""
    slab: Slab = launch.slab
    regs = {g.array: g for g in slab.registers if loop_key(loop) in g.loops}
    if not regs:
        return None
    k, p, first = loop.var, launch.grid[0].var, next(iter(regs.values()))
    count, length = first.count, _extent(first.length)

    def registered(node):                 # A[p][k] from poly_regK[k], other staged reads as before
        node = rewrite(copy.deepcopy(node), lambda n: c_ast.ID(f"{regs[array_name(n)].name}[{k}]")
                       if isinstance(n, c_ast.ArrayRef) and array_name(n) in regs and
                       cprint(n) == f"{array_name(n)}[{p}][{k}]" else None)
        return read(node, slab)

    staged = lambda node: read(node, slab)
    hook = lambda inner, at: split(pr, launch, inner, at)
    parts = pr.accumulator_parts(loop, reads=registered)
    inner = indent + "  " if parts else indent
    body = lambda reads, at: ([f"{at}{line}" for line in pr.accumulator_parts(loop, reads=reads)[3]] if parts
                              else pr.render_nodes(loop.body, at, reads, hook))
    guarded = not (first.length.isdigit() and int(first.length) >= count)
    at = inner + "  " * guarded
    out = [f"{inner}#pragma unroll", f"{inner}for (int {k} = 0; {k} < {count}; {k}++)   /* {', '.join(regs)} in registers */",
           *[f"{inner}  if ({k} < {length})"] * guarded, f"{at}{{", *body(registered, at + "  "), f"{at}}}"]
    if not (first.length.isdigit() and int(first.length) <= count):
        out += [f"{inner}for (int {k} = {count}; {k} < {length}; {k}++)", f"{inner}{{",
                *body(staged, inner + "  "), f"{inner}}}"]
    if parts:
        dtype, acc, cell, _ = parts
        out = [f"{indent}{{", f"{inner}{dtype} {acc} = {cell};   /* the cell stays in a register */", *out,
               f"{inner}{cell} = {acc};", f"{indent}}}"]
    return out


def _flags(slab: Slab) -> list[str]:
    """The run-time flags of the launch: its rows staged, its tables copied."""
    return ["poly_staged"] * bool(slab.rows) + ["poly_tables"] * bool(slab.tables)


def params(launch) -> list[str]:
    """The kernel's last parameters: its flags."""
    return [f"int {flag}" for flag in _flags(launch.slab)]


def host(launch, indent: str) -> tuple[list[str], str, str]:
    """Host lines before the launch: the rows' bytes per block and whether they fit, then the
    tables' bytes and whether they fit after the rows staged; the launch's dynamic shared memory
    and its last arguments."""
    slab: Slab = launch.slab
    lines, shared = [], []
    if slab.rows:
        terms = " + ".join(f"({abi.nbytes(r.dtype, f'(size_t){launch.threads} * ({_extent(r.length)} | 1)')} + 7) / 8 * 8"
                           for r in slab.rows)
        lines += [f"{indent}    const size_t poly_slab = {terms};   /* the block's rows of "
                  f"{', '.join(r.array for r in slab.rows)} */",
                  f"{indent}    const int poly_staged = poly_slab <= {slab.limit}" + (
                      f" && !({whole})" if (whole := slab.whole_in_registers) else "") + ";" + (
                      "   /* rows read from registers only are not staged */" if whole else "")]
        shared.append("poly_staged ? poly_slab : 0")
    if slab.tables:
        terms = " + ".join(f"({abi.nbytes(t.dtype, abi.count(t.shape))} + 7) / 8 * 8" for t in slab.tables)
        rows = "(poly_staged ? poly_slab : 0) + " if slab.rows else ""
        count = " + ".join(abi.count(t.shape) for t in slab.tables)
        lines += [f"{indent}    const size_t poly_table = {terms};   /* the tables "
                  f"{', '.join(t.array for t in slab.tables)}, whole */",
                  f"{indent}    const int poly_tables = {count} >= {TABLE_MIN} && {rows}poly_table <= {slab.limit};"
                  "   /* else read from global memory */"]
        shared.append("poly_tables ? poly_table : 0")
    shared_text = shared[0] if len(shared) == 1 else " + ".join(f"({x})" for x in shared)
    return lines, shared_text, ", ".join(_flags(slab))


def describe(launch) -> str:
    kept = "".join(f"; each thread keeps the first {g.count} elements of its row of {g.array} in registers"
                   for g in launch.slab.registers)
    if launch.slab.whole_in_registers:
        kept += " (a call whose rows fit them copies nothing: each thread loads its own row)"
    rows = (f"; each block first copies its {launch.grid[0].var}'s rows of "
            f"{', '.join(r.array for r in launch.slab.rows)} into shared memory (coalesced), and its threads read them there"
            + kept) if launch.slab.rows else ""
    tables = (f"; each block first copies the whole of {', '.join(t.array for t in launch.slab.tables)}, which every "
              f"thread reads in its loops, into shared memory where it fits, and its threads read it there"
              if launch.slab.tables else "")
    return rows + tables
