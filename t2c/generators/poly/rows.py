"""Row-wise normalizations: a row's folds and the elementwise outputs that read them, in one
launch of a block per row, with the row's values held on chip (softmax, log-softmax, layer
norm, RMS norm, written as a spec's `let` temporaries or as one C loop over the rows).

Three plan decisions, all for the launches of phases.py (a block per row):

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
  its tail once per reading phase.  Every thread reads back only the elements it kept itself (the same
  loop header, the same stride), so no barrier is needed for them.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis
from ...ir.csyntax import array_name
from .ctext import rewrite

#: the static shared memory all held rows of one block may take (of the 48 KB a block has without opting in)
HELD_BYTES = 40 * 1024
_SIZE = {"float": 4, "double": 8, "int": 4, "long": 8, "__half": 2, "__nv_bfloat16": 2}


@dataclass(frozen=True)
class Held:
    """An array whose row each block keeps in shared memory (`poly_row_A[elements]`)."""
    array: str
    dtype: str
    elements: int               # the row's first elements held; the rest re-read from global memory
    loader: int                 # the phase (index) that loads and keeps them
    readers: tuple = ()         # the later phases (indices) that read them back


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


def _stmts(phase) -> list:
    return [phase.node] if phase.kind == "stmt" else list(phase.node.body)


def swapped(node, cells: dict):
    """A copy of a statement's node with each reference to an array of `cells` (array -> C
    name of the value: a row register, a held element) replaced by that name."""
    return rewrite(copy.deepcopy(node), lambda n: c_ast.ID(cells[array_name(n)])
                   if isinstance(n, c_ast.ArrayRef) and array_name(n) in cells else None)
