"""Vector access: a coarsened elementwise launch whose threads each take consecutive indices and
move them with 4- to 16-byte loads and stores.

    vectorized(p, launch) -> Vector | None;  aligned / chunk_lines (printing)

The class: a loop-free launch over one grid dimension from 0 (activations, casts, axpy, packing,
quantizing: forms.coarsened) that moves 16- or 8-bit arrays, whose array writes are each one
unconditional `A[x] = E` of its own statement, and whose other accesses of those arrays are reads
in that statement.  Its thread takes
`coarsen` consecutive indices instead of indices blockDim.x apart, loads every preloaded `B[x]` read
(forms.preloaded) as whole chunks of those indices (`coarsen` x element size bytes, in chunks of at
most 16) and stores each written array the same way after all its statements: a warp's 2-byte
accesses become 16-byte ones, so 16- and 8-bit arrays keep as many bytes per instruction in flight
as wide ones.  Exact: each thread's indices are its own (the grid loop is parallel), every read of a
written array is in its own statement, which reads before it writes, and the stores follow every
read.  The in-domain path also requires each chunked pointer aligned to its chunk (cudaMalloc's are;
a drop-in caller's offset pointer takes the per-index path, as the domain's edge does).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...ir import DTYPES
from ...ir.csyntax import array_name
from .ctext import min_expr
from .mapping import launch_box

CHUNK = 16                     # bytes of the widest load and store (uint4)
NARROW = 4                     # taken only where an array's elements are narrower (docs/poly.md)
_TYPES = {16: "uint4", 8: "uint2", 4: "unsigned"}


@dataclass(frozen=True)
class Vector:
    loads: tuple[str, ...]                 # C texts of the preloaded reads `B[x]` loaded by chunks
    stores: tuple[tuple[str, str], ...]    # (statement, array) of each write `A[x] = E` stored by chunks
    chunks: tuple[tuple[str, int], ...]    # (array, bytes of its chunk) of every chunked array


def vectorized(p, launch) -> Vector | None:
    """The launch's vector access (module docstring), or None: not of the class, no chunked array
    narrower than 4 bytes (wide elements already move 4 or 8 bytes a lane, and a thread's run of
    them spans more than one chunk: docs/poly.md), or an array whose `coarsen` elements fill no
    4-byte word (a chunk is a whole number of words)."""
    if launch.coarsen <= 1 or not p.opt.grid.vector or len(launch.grid) != 1 or launch.grid[0].derived:
        return None
    x = launch.grid[0].var
    lows, _ = launch_box(p.an, launch)[0]
    if not lows or min_expr(lows) != "0":
        return None
    arrays = {a.name: a.dtype for a in p.k.arrays}
    writer, touched = {}, {}
    for n in launch.body:
        s = n.stmt
        if n.bind and any(k != v for k, v in n.bind.items()):
            return None
        for a in s.accesses:
            if a.name not in arrays:
                continue
            touched.setdefault(a.name, set()).add(s.name)
            if a.write:
                node = s.node
                if a.index != (x,) or s.conditional or a.name in writer or not (
                        isinstance(node, c_ast.Assignment) and node.op == "=" and array_name(node.lvalue) == a.name):
                    return None
                writer[a.name] = s.name
    if not writer or any(touched[a] != {s} for a, s in writer.items()):
        return None
    at_x = {f"{a}[{x}]": a for a in arrays}           # preloads are C texts of the reference's reads
    loads = [text for text, _ in launch.preload if text in at_x]
    chunked = {at_x[t] for t in loads} | set(writer)
    chunks = {a: min(CHUNK, launch.coarsen * DTYPES[arrays[a]][0]) for a in sorted(chunked)}
    if any(b < 4 for b in chunks.values()) or min(DTYPES[arrays[a]][0] for a in chunked) >= NARROW:
        return None
    return Vector(tuple(loads), tuple((s, a) for a, s in writer.items()), tuple(chunks.items()))


# -- printing ------------------------------------------------------------------------------

def aligned(v: Vector) -> str:
    """The in-domain path's test that every chunked pointer is aligned to its chunk."""
    return " && ".join(f"((unsigned long long)({a}) & {b - 1}u) == 0" for a, b in v.chunks)


def chunk_lines(v: Vector, array: str, reg: str, dtype: str, count: int, at: str, load: bool) -> list[str]:
    """Copy `count` elements of `array` from index `at` into the register array `reg` (load) or
    back (store), a chunk at a time through a vector register."""
    size = dict(v.chunks)[array]
    ty, n = _TYPES[size], count * DTYPES[dtype][0] // size
    out = []
    for k in range(n):
        where = f"(({'const ' if load else ''}{ty} *)&{array}[{at}])[{k}]"
        if load:
            out.append(f"{{ const {ty} poly_c = {where}; memcpy((char *){reg} + {k * size}, &poly_c, {size}); }}")
        else:
            out.append(f"{{ {ty} poly_c; memcpy(&poly_c, (char *){reg} + {k * size}, {size}); {where} = poly_c; }}")
    return out
