"""Atomic updates into a small array: each block adds into its own copy in shared memory.

    private_of(context, launch) -> Private | None

Takes a 1-d launch whose atomic updates all add into one array (a histogram, a scatter-add);
gives a kernel whose blocks add into a copy in dynamic shared memory with shared atomics, then
each non-zero cell into the array once, and beside it the plain kernel, which the host launches
when the copy does not fit `Target.shared_static`. The updates commute (the model allows no
other access), so integer counts are exact. Refuses (None) other forms, grids of several
dimensions, several or local arrays, types without shared `atomicAdd`, extents that never fit.
docs/poly.md, "Private copies".
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from math import prod

from ...analysis.model import ATOMIC_DTYPES
from ...ir import abi
from .ctext import extent_text, max_expr, min_expr

DTYPE_BYTES = {"int": 4, "unsigned": 4, "float": 4, "double": 8}


@dataclass(frozen=True)
class Private:
    array: str                  # the array every atomic update of the launch adds into
    dtype: str                  # its element type
    cells: str                  # its extent (C text over the sizes: the product of its shape)
    points: int                 # grid indices per thread at least (the blocks are capped too)
    blocks: int                 # the most blocks: as many as the target's SMs hold at once


def private_of(p, launch) -> Private | None:
    """The launch's private copy, or None (p: forms.Context)."""
    opt = p.opt.reductions.private
    prog = p.an.program
    if not opt or len(launch.grid) != 1 or launch.grid[0].derived or launch.grid[0].step != 1 or launch.in_block \
            or launch.reduction or launch.scan or launch.banded or launch.running_max or launch.row or launch.phases \
            or launch.row_scan:
        return None
    arrays = {prog.statement(s).atomic for s in launch.statements()} - {None}
    if len(arrays) != 1:
        return None
    name, = arrays
    if name in p.local_arrays or name in prog.locals:
        return None
    arr = p.k.array(name)
    if arr.dtype not in ATOMIC_DTYPES:
        return None
    if all(e.isdigit() for e in arr.shape) and prod(int(e) for e in arr.shape) * DTYPE_BYTES[arr.dtype] > p.target.shared_static:
        return None
    cells = " * ".join(e if re.fullmatch(r"\w+", e) else f"({e})" for e in arr.shape)
    return Private(name, arr.dtype, cells, opt.points, p.target.sms * (p.target.sm_threads // THREADS))


THREADS = 256                   # a private launch's threads per block


def shared_name(pv: Private) -> str:
    return f"poly_private_{pv.array}"


def kernel_body(printer, launch, pv: Private, box, declared: list[str]) -> list[str]:
    """The private kernel's body: zero the block's copy, stride the grid adding into it, add it
    into the array.  `declared`: the thread's inner loop variables and local scalars."""
    l = launch.grid[0]
    start = min_expr(box[0][0])
    start = "" if start == "0" else f"{start} + "
    s, c = shared_name(pv), "poly_c"
    r = printer.r
    printer.r = copy.copy(r)                 # the updates add into the block's copy
    printer.r.rename_arrays = {**r.rename_arrays, pv.array: s}
    printer.r.shapes = {**r.shapes, s: printer.k.array(pv.array).shape}
    try:
        body = printer.render_nodes(launch.body, "    ")
    finally:
        printer.r = r
    guard = f"{l.var} >= {l.init.split('=', 1)[1].strip()} && {l.cond}"
    return [f"  extern __shared__ {pv.dtype} {s}[];   /* this block's copy of {pv.array} */",
            f"  const int poly_cells = {pv.cells};",
            f"  for (int {c} = threadIdx.x; {c} < poly_cells; {c} += blockDim.x)",
            f"    {s}[{c}] = 0;",
            "  __syncthreads();",
            *declared,
            f"  for (int {l.var} = {start}(int)(blockIdx.x * blockDim.x + threadIdx.x); {guard}; "
            f"{l.var} += (int)(gridDim.x * blockDim.x))",
            "  {", *body, "  }",
            "  __syncthreads();",
            f"  for (int {c} = threadIdx.x; {c} < poly_cells; {c} += blockDim.x)",
            f"    if ({s}[{c}] != 0)",
            f"      atomicAdd(&{pv.array}[{c}], {s}[{c}]);"]


def launch_code(printer, launch, pv: Private, call: str, indent: str) -> list[str]:
    """The private kernel where the array fits the shared memory, else the plain one."""
    (lows, highs), = printer.launch_box(launch)
    if not lows or not highs:
        return [f"{indent}/* {launch.name}: empty iteration domain, nothing to launch */"]
    loops, name = launch.host_loops, launch.name
    per = THREADS * pv.points
    return [f"{indent}{{",
            f"{indent}  const int extent = {extent_text(max_expr(highs), min_expr(lows))};   /* {launch.grid[0].var} */",
            f"{indent}  const size_t cells = {abi.count(printer.k.array(pv.array).shape)};   "
            f"/* a copy of {pv.array} per block */",
            f"{indent}  const size_t bytes = {abi.nbytes(pv.dtype, 'cells')};",
            f"{indent}  if (extent > 0 && bytes <= {printer.target.shared_static}) {{",
            f"{indent}    const unsigned blocks = poly_blocks(extent, cells > {per} ? (int)cells : {per});   /* indices per block */",
            f"{indent}    {printer.launch_line(name + '_private', (f'blocks < {pv.blocks} ? blocks : {pv.blocks}', str(THREADS), 'bytes'), call, loops)}",
            f"{indent}  }} else if (extent > 0)",
            f"{indent}    {printer.launch_line(name, ('poly_blocks(extent, 256)', '256'), call, loops)}",
            f"{indent}}}"]


def describe(launch, pv: Private) -> str:
    return (f"{launch.name}_private: each block keeps a copy of {pv.array} in shared memory; its {THREADS} threads "
            f"stride {launch.grid[0].var} (at least {pv.points} each) adding into the copy with shared atomics, then "
            f"add its non-zero cells into {pv.array}; {launch.name} (one thread per {launch.grid[0].var}, global "
            f"atomics) when {pv.array} does not fit.")
