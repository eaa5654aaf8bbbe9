"""Row-wise normalizations: a row's folds and the elementwise outputs that read them, in one
launch of a block per row, with the row's values held on chip (softmax, log-softmax, layer
norm, RMS norm, written as a spec's `let` temporaries or as one C loop over the rows).

Four plan decisions, all for the launches of phases.py (a block per row):

- `lower.row_joined` (a pass over the plan's tree, `reductions.row_joins`): a top-level nest
  over the rows that folds along them (`let mx[r] = max(j: X[r, j])`, `den[r] = ...`) and the
  next nest over the same rows that reads what it wrote (`Y[r, j] = exp(X[r, j] - mx[r]) /
  den[r]`) become one nest when that is legal and the joined launch is a block per row: the
  second nest's 2-d grid becomes a loop its row's threads split, so Y no longer needs a second
  launch that reads the row and the temporaries from global memory again.
- `row_cells` (a record of the launch's RowPhases): a statement of the row setting a cell at the
  row's index (`mx[r] = acc`) that later phases read runs in every thread into a register
  (`poly_row_mx`): the folds give every thread the same total, bit for bit, so every copy holds
  the same value, and no barrier or global round trip publishes it.  Thread 0 still stores it
  when the array is an output or read by another launch; a local array that only this launch
  touches (a spec's `let`) has no device buffer at all.
- `held_rows`: an array that several loop phases read at `A[row, j]` (the same cell) and the
  launch never writes is held in shared memory: the first phase reading it loads each element
  from global memory and keeps it; later phases whose loop has the same header read it back.
  The rule: the first `reductions.row_held` elements of each such row are held (4096: 16 KB
  of floats), the rest of a longer row is re-read from global memory (L2, just read) -- so a
  row up to that length is read from global memory once; a longer one, its held part once and
  its tail once per reading phase.  A barrier ends every loop phase (a fold's after its block
  combine, a map's after its loop), so a later phase may read back elements another thread kept
  (the 16-byte loader below keeps other elements than a scalar reader reads).
- `wide_phases` (Wide records): on a row whose extent is a multiple of LANES and whose vectored
  pointers are 16-byte aligned at the row's start (tested per row at run time: a drop-in caller
  may pass an offset pointer), a phase takes LANES consecutive elements a thread (j = 4t + u,
  then += 4 * blockDim.x) with one 16-byte access each: the loader of a held row of 4-byte
  elements loads it (and keeps it in shared memory by 16 bytes), a map phase stores each
  unconditional `A[row, j] = E` of 4-byte elements by 16 bytes (and reads a held row it was
  loaded by 16 bytes the same way); any other row runs the scalar loop.  Exact: a map phase's
  iterations are independent (it carries nothing) and a stored array is touched in the phase by
  its own statement only, at its cell; a fold's per-thread order changes, the association
  freedom its block combine already takes (max and min are order-free); held rows keep their
  first `elements` (a multiple of LANES, so a chunk is all held or all not).
- `kept_rows` (Kept records): an array that several loop phases read at `A[row, j]` but that
  `held_rows` does not take (the phases' loops start at different indices: a cross-entropy's
  max from 1 and its sum from 0) is read into registers once per row: thread t keeps elements
  j = t + u * blockDim.x for u < `reductions.row_registers`, loaded together at the row's start,
  and each reading phase takes its elements from them (the rest of a longer row from global
  memory). Only a call whose rows fit the registers of REG_THREADS threads (the array's last
  extent at most REG_THREADS times that count) runs that kernel, REG_THREADS threads a row, so
  each row is read once; any other call runs the same phases without registers (phases.plain). Exact as the held rows are: the same element values; a fold's
  per-thread grouping changes within the association freedom its block combine already takes.
- `warp_rows` (a WarpRows record): short rows, a warp each.  The launch also gets a second
  kernel of the same phases in which each warp takes a row (WARPS rows a block): lanes stride
  the loops by 32, folds combine by a butterfly of shuffles that leaves the total in every lane,
  warp barriers instead of block barriers, held rows in each warp's slice of shared memory,
  "thread 0" statements in lane 0; the 16-byte and kept-register paths run in it as in the
  block (their thread index and count are the lane's and 32).  A call runs it where every loop
  phase of a row runs at most `reductions.row_warps` iterations (tested on the host).
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis
from ...ir.csyntax import array_name
from .ctext import extent_text, identifiers, max_expr, min_expr, parens, rewrite, split_const

#: the static shared memory all held rows of one block may take (of the 48 KB a block has without opting in)
HELD_BYTES = 40 * 1024
#: consecutive elements a thread takes by one 16-byte access (wide_phases), and their vector types
LANES = 4
WIDE = {"float": "float4", "int": "int4", "unsigned": "uint4"}
_ARITH = re.compile(r"[\w\s+\-*/%()]+")
#: threads per row of a launch keeping rows in registers (kept_rows)
REG_THREADS = 128
#: blocks of REG_THREADS a multiprocessor the kernel keeping rows asks ptxas for (its launch bounds'
#: minimum): a row's phases wait on its loads and barriers, so rows in flight set the rate, and
#: the kept values with the folds' temporaries (a double exp) otherwise take 64 registers, 8 blocks
REG_BLOCKS = 10
_SIZE = {"float": 4, "double": 8, "int": 4, "long": 8, "__half": 2, "__nv_bfloat16": 2}
#: rows at a time (warps) in a block of a launch's warp kernel (warp_rows): 256 threads, as a block per row
WARPS = 8
#: the shared memory one warp's held rows may take in the warp kernel: 64 warps fill an SM's 2048
#: threads, and 64 x 2 KB (with each block's reserved 1 KB) fit an A100 SM's 164 KB as well as an
#: H100's 227 KB, so held rows never cap the blocks an SM runs below the threads' own limit
WARP_HELD_BYTES = 2048


@dataclass(frozen=True)
class Held:
    """An array whose row each block keeps in shared memory (`poly_row_A[elements]`)."""
    array: str
    dtype: str
    elements: int               # the row's first elements held; the rest re-read from global memory
    loader: int                 # the phase (index) that loads and keeps them
    readers: tuple = ()         # the later phases (indices) that read them back


@dataclass(frozen=True)
class Kept:
    """An array whose row's elements j = t + u * blockDim.x (u < count) thread t keeps in registers."""
    array: str
    dtype: str
    count: int
    readers: tuple              # the loop phases (indices) that read it, all over one loop variable
    guard: str                  # C text: whether element j (that variable) is one some reader reads
    extent: str                 # C text: the array's last extent (a row's length)


def kept_rows(an: Analysis, launch, phases: list, held: tuple, wide: tuple, count: int | None) -> tuple:
    """The Kept records of the launch (module docstring): arrays the launch never writes, read
    by two or more loop phases over one variable at the row's cell `A[row, j]` only, none of them
    a 16-byte phase or a held row; a read under a condition only where every reading loop stays
    within the array's last extent (`j < extent` from a constant start), so its load is in bounds."""
    if not count:
        return ()
    grid = tuple(l.var for l in launch.grid)
    written = {w.name for s in launch.statements() for w in an.program.statement(s).writes()}
    types = {a.name: a.dtype for a in an.program.kernel.arrays}
    extent = {a.name: a.shape[-1] for a in an.program.kernel.arrays if a.shape}
    taken, wide_ = {h.array for h in held}, {w.phase for w in wide}
    out = []
    for name in dict.fromkeys(a.name for p in phases if p.kind != "stmt" for s in _stmts(p) for a in s.stmt.reads()):
        readers = tuple(k for k, p in enumerate(phases) if p.kind != "stmt" and any(s.stmt.reads(name) for s in _stmts(p)))
        loops = [phases[k].node for k in readers]
        stmts = [s for k in readers for s in _stmts(phases[k])]
        if name in written or name in taken or types.get(name) not in _SIZE or len(readers) < 2 or \
                wide_ & set(readers) or len({l.var for l in loops}) != 1 or any(l.step != 1 for l in loops) or \
                any(s.stmt.conditional for s in stmts if s.stmt.reads(name)) and \
                not all(_within(l, extent.get(name)) for l in loops) or \
                any(s.bind for p in phases for s in _stmts(p)) or \
                any(a.atomic or a.index[:-1] != grid or a.index[-1] != loops[0].var
                    for s in stmts for a in s.stmt.accesses if a.name == name):
            continue
        ranges = dict.fromkeys(_range(l) for l in loops)
        out.append(Kept(name, types[name], count, readers, " || ".join(f"({r})" for r in ranges), extent[name]))
    return tuple(out)


def _within(loop, extent: str | None) -> bool:
    """Whether the loop's range lies within [0, extent): a start that is an integer literal at
    least 0 and the condition `var < extent`, spelled as the array's declaration spells it."""
    lo = loop.init.split("=", 1)[1].strip()
    return extent is not None and lo.isdigit() and "".join(loop.cond.split()) == f"{loop.var}<{''.join(extent.split())}"


def _range(loop) -> str:
    """C text: whether the loop's variable is in its range (its start to its condition)."""
    lo = loop.init.split("=", 1)[1].strip()
    return loop.cond if lo == "0" else f"{loop.var} >= {parens(lo)} && {loop.cond}"


def row_cells(an: Analysis, launch, phases: list) -> dict[str, bool]:
    """Array -> whether it must also be stored (module docstring): the arrays that statements of
    the row write at the row's cell and later phases read, every access of the launch to them
    being that cell, the first one such a write."""
    grid = tuple(l.var for l in launch.grid)
    mine = set(launch.statements())
    out = {}
    for k, ph in enumerate(phases):
        if ph.kind != "stmt":
            continue
        w, node = ph.node.stmt.writes(), ph.node.stmt.node
        if len(w) != 1 or not w[0].index or ph.node.stmt.conditional or ph.node.bind or \
                not (isinstance(node, c_ast.Assignment) and node.op == "=") or ph.node.stmt.reads(w[0].name):
            continue
        name = w[0].name
        if name in out or w[0].index != grid:
            continue
        before = any(a.name == name for p in phases[:k] for s in _stmts(p) for a in s.stmt.accesses)
        later = any(s.stmt.reads(name) for p in phases[k + 1:] for s in _stmts(p))
        writes = sum(bool(s.stmt.writes(name)) for p in phases for s in _stmts(p))
        if before or not later or writes != 1 or any(a.index != grid for p in phases[k:] for s in _stmts(p)
                                                     for a in s.stmt.accesses if a.name == name):
            continue
        local = an.program.locals.get(name)
        elsewhere = any(a.name == name for s in an.program.statements if s.name not in mine for a in s.accesses)
        out[name] = local is None or elsewhere
    return out


def held_rows(an: Analysis, launch, phases: list, most: int | None) -> tuple:
    """The arrays whose row the block holds in shared memory (module docstring), within
    HELD_BYTES together."""
    if not most:
        return ()
    grid = tuple(l.var for l in launch.grid)
    written = {w.name for s in launch.statements() for w in an.program.statement(s).writes()}
    types = {a.name: a.dtype for a in an.program.kernel.arrays}
    out, left = [], HELD_BYTES
    names = dict.fromkeys(a.name for p in phases if p.kind != "stmt" for s in _stmts(p) for a in s.stmt.reads())
    for name in names:
        if name in written or name not in types or types[name] not in _SIZE:
            continue
        loops = [k for k, p in enumerate(phases) if p.kind != "stmt" and any(s.stmt.reads(name) for s in _stmts(p))]
        cells = [a for p in phases for s in _stmts(p) for a in s.stmt.accesses if a.name == name]
        if any(s.stmt.conditional for p in phases for s in _stmts(p) if s.stmt.reads(name)):
            continue                         # its phases load the element before their statements, always
        if any(p.kind == "stmt" for k, p in enumerate(phases) if any(s.stmt.reads(name) for s in _stmts(p))) or \
                any(a.atomic or a.index[:-1] != grid or a.index[-1] != phases[loops[0]].node.var for a in cells):
            continue
        first = phases[loops[0]].node
        same = lambda l: (l.var, l.init, l.cond, l.step) == (first.var, first.init, first.cond, first.step)
        readers = tuple(k for k in loops[1:] if same(phases[k].node))
        size = most * _SIZE[types[name]]
        if readers and first.step == 1 and size <= left and not any(s.bind for p in phases for s in _stmts(p)):
            out.append(Held(name, types[name], most, loops[0], readers))
            left -= size
    return tuple(out)


@dataclass(frozen=True)
class Wide:
    """A loop phase run LANES consecutive elements a thread by 16-byte accesses on a fit row."""
    phase: int                  # its index among the launch's phases
    bound: str                  # C text of its loop's extent (the loop runs from 0 while var < bound)
    loads: tuple = ()           # held arrays read by 16 bytes: loaded (the loader) or read back (a map)
    stores: tuple = ()          # (statement, array): map writes `A[row, j] = E` stored by 16 bytes


def wide_phases(an: Analysis, launch, phases: list, held: tuple) -> tuple:
    """The Wide records of the launch's loop phases (module docstring): the loader phase of a
    held row of 4-byte elements, and each map phase with a write to store by 16 bytes."""
    grid = tuple(l.var for l in launch.grid)
    types = {a.name: a.dtype for a in an.program.kernel.arrays}
    fit = {h.array for h in held if h.dtype in WIDE and h.elements % LANES == 0}
    out = []
    for k, ph in enumerate(phases):
        loop = ph.node
        if ph.kind == "stmt" or loop.init.split("=", 1)[1].strip() != "0" or loop.step != 1:
            continue
        var, _, bound = loop.cond.partition("<")
        bound = bound.strip()
        if var.strip() != loop.var or not _ARITH.fullmatch(bound) or loop.var in identifiers(bound):
            continue                         # `var < E`, E arithmetic: the loop's extent is E
        loaded = {h.array for h in held if h.array in fit and h.loader == k}
        stores = tuple((s.stmt.name, name) for s in loop.body
                       if (name := _stored(s, grid + (loop.var,), types, loop.body))) if ph.kind == "map" else ()
        if loaded or stores:
            back = {h.array for h in held if h.array in fit and k in h.readers} if ph.kind == "map" else set()
            out.append(Wide(k, bound, tuple(sorted(loaded | back)), stores))
    return tuple(out)


def _stored(s, cell: tuple, types: dict, body: list) -> str | None:
    """The array an unconditional `A[cell] = E` of 4-byte elements writes, when no other
    statement of the phase touches A and s touches it at that cell only; else None."""
    w, node = s.stmt.writes(), s.stmt.node
    if len(w) != 1 or w[0].index != cell or types.get(w[0].name) not in WIDE or s.stmt.conditional or s.bind or \
            not (isinstance(node, c_ast.Assignment) and node.op == "=" and array_name(node.lvalue) == w[0].name):
        return None
    name = w[0].name
    if any(a.index != cell or a.atomic for a in s.stmt.accesses if a.name == name) or \
            any(a.name == name for t in body if t is not s for a in t.stmt.accesses):
        return None
    return name


def _stmts(phase) -> list:
    return [phase.node] if phase.kind == "stmt" else list(phase.node.body)


def swapped(node, cells: dict):
    """A copy of a statement's node with each reference to an array of `cells` (array -> C
    name of the value: a row register, a held element) replaced by that name."""
    return rewrite(copy.deepcopy(node), lambda n: c_ast.ID(cells[array_name(n)])
                   if isinstance(n, c_ast.ArrayRef) and array_name(n) in cells else None)


@dataclass(frozen=True)
class WarpRows:
    """The launch's warp kernel (`NAME_warps`, module docstring): a warp per row for calls whose
    rows are short."""
    bound: int                  # the most iterations of a row's loop phase that run it
    short: str                  # C text (host, at the launch): whether each loop phase of the call is that short
    held: int                   # each held array's first elements a warp keeps in its slice of shared memory
    warps: int = WARPS          # rows (warps) a block


def warp_rows(an: Analysis, launch, phases: list, held: tuple, bound: int | None) -> WarpRows | None:
    """The WarpRows record of a block-per-row launch, or None (`bound` None: off; a loop phase
    whose iterations over all rows isl bounds by nothing the host knows).

    The class: rows much shorter than a block.  A block of 256 threads per row of n < 256
    elements leaves 256 - n threads idle in every phase and pays a block barrier per phase; its
    SM runs 8 such blocks, so 8 rows' loads are in flight.  A warp per row runs 64 rows an SM,
    every lane busy while n >= 32, with warp barriers only.  Why `bound` = 256 (32 lanes x 8
    elements): up to it a lane issues at most 8 loads per phase, few enough that its loop keeps
    them in flight together, and the kept rows' 8 registers a thread (`row_registers`) hold the
    whole row; past it every thread of the block form has an element (no lane idles), and a
    block puts 8 warps on each row, which a short row count needs to keep loads in flight.
    The condition bounds each loop phase's trip count over all rows (isl's box of its
    statements), so any row it lets through is at most `bound` long; the warp kernel is exact
    for any row (held rows re-read their tail, kept rows run their rest from memory)."""
    if not bound:
        return None
    host = tuple(l.var for l in launch.host_loops)
    extents = []
    for ph in phases:
        if ph.kind == "stmt":
            continue
        stmts = ph.node.statements()
        at = {s.stmt.name: s.at for s in stmts if s.at is not None}
        (lows, highs), = an.model.box([s.stmt.name for s in stmts], (ph.node.var,), host, at)
        if not lows or not highs:
            return None
        extents.append(extent_text(max_expr(highs), min_expr(lows)))
    per = sum(_SIZE[h.dtype] for h in held)
    elements = min([bound, *(h.elements for h in held), *([WARP_HELD_BYTES // per] if per else [])])
    elements -= elements % LANES             # a 16-byte chunk all held or all not, as in the block
    if held and not elements:
        return None
    longest = {}                             # per text apart from a constant, the largest (`c - 1`, `c`: `c`)
    for e in extents:
        base, c = split_const(e)
        longest[base] = max(longest.get(base, c), c)
    text = lambda b, c: b if not c else str(c) if not b else f"{b} {'+' if c > 0 else '-'} {abs(c)}"
    short = " && ".join(f"({text(b, c)}) <= {bound}" for b, c in longest.items())
    return WarpRows(bound, short, elements)
