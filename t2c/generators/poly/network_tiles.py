"""Printing a network's tilings (network.Tiling): exchange steps queued on the host and run
as one launch on tiles in shared memory.

Takes a network with tilings; prints, for each tiling t of candidate NAME, the queue type
`NAME_steps{t}`, the kernel `NAME_tiles{t}` (a block per tile: load the arrays into shared
memory, run the steps with a barrier after each, store), the host functions `NAME_flush{t}` and
`NAME_queue{t}`, and at each member's place the code that queues the instance or flushes and
launches it alone. Decides nothing: members, arrays, tile, threads and capacity are the plan's.
docs/poly.md, "Network tilings".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import array_name, block_items, cprint, walk as _walk

TILE_HELPER = [
    "/* The least power of two at least hi, at most most: a tile that covers a range ending at hi. */",
    "static int poly_net_tile(long long hi, int most)",
    "{",
    "  int t = 1;",
    "  while (t < most && t < hi)",
    "    t *= 2;",
    "  return t;",
    "}",
    ""]

CLOSED_HELPER = [
    "/* Whether i ^ e stays in [lo, hi) for every i there: the range is whole aligned runs of the",
    "   least power of two past e, and the XOR changes only the bits below it. */",
    "static int poly_net_closed(int e, int lo, int hi)",
    "{",
    "  int m = e;",
    "  for (int s = 1; s < 32; s *= 2)",
    "    m |= m >> s;",
    "  return ((lo | hi) & m) == 0;",
    "}",
    ""]


def helpers(net) -> list[str]:
    """The host functions the members' tests call."""
    closed = any(ex.tiling is not None and not ex.bounded and ex.distance is not None for ex in net.loops)
    return (TILE_HELPER + (CLOSED_HELPER if closed else [])) if net.tilings else []


def declarations(net, t: int, name: str, r, params: str, args: str) -> list[str]:
    """The queue's struct, the tile kernel and the host functions of tiling t."""
    tg = net.tilings[t]
    depth = len(net.loops[tg.members[0]].vars)
    struct = [f"struct {name}_steps{t} {{   /* steps queued for {name}_tiles{t} */",
              f"  int count, tile, lo[{depth}], n[{depth}];",
              f"  unsigned char kind[{tg.capacity}];"]
    for m in tg.members:
        struct += [f"  {ty} v{m}_{v}[{tg.capacity}];" for v, ty in net.loops[m].host]
    struct += ["};", ""]
    inner, last = "poly_i", depth - 1
    outer = [f"poly_o{d}" for d in range(last)] + [inner]
    load, store = [], []
    for a, _, at in tg.arrays:
        ref = c_ast.ID(a)
        for pos in at:
            ref = c_ast.ArrayRef(ref, c_ast.ID(outer[pos]))
        glob = cprint(r.node(ref, {}))
        load.append(f"      poly_tile_{a}[poly_i - poly_base] = {glob};")
        store.append(f"      {glob} = poly_tile_{a}[poly_i - poly_base];")
    run = lambda lines: ["    for (int poly_i = poly_from + (int)threadIdx.x; poly_i < poly_to; poly_i += blockDim.x) {",
                         *lines, "    }"]
    decode = []
    for d in reversed(range(last)):
        decode += [f"    const int poly_o{d} = poly_b.lo[{d}] + (int)(poly_q % poly_b.n[{d}]);",
                   f"    poly_q /= poly_b.n[{d}];"]
    steps = []
    for m in tg.members:
        ex = net.loops[m]
        body = [_on_tiles(it, tg, ex) for it in block_items(ex.body)]
        used = {x.name for it in body for x in _walk(it) if isinstance(x, c_ast.ID)}
        names = [f"          const int {v} = {outer[d]};" for d, v in enumerate(ex.vars) if v in used]
        steps += [f"      {'if' if not steps else '} else if'} (poly_b.kind[poly_s] == {m}) {{   /* {name}_exchange{m}'s loops */",
                  *(f"        const {ty} {v} = poly_b.v{m}_{v}[poly_s];" for v, ty in ex.host),
                  "        for (int poly_i = poly_from + (int)threadIdx.x; poly_i < poly_to; poly_i += blockDim.x) {",
                  *names,
                  *(line for it in body for line in r.statement(it, {}, "          ")), "        }"]
    blocks = " * ".join(["poly_tiles", *(f"(long long)poly_b.n[{d}]" for d in range(last))])
    kernel = [f"/* {name}_tiles{t}: {describe(net, t, name)} */",
              f"__global__ void __launch_bounds__({tg.threads}) {name}_tiles{t}({params}, struct {name}_steps{t} poly_b)",
              "{",
              *(f"  __shared__ {ty} poly_tile_{a}[{tg.tile}];" for a, ty, _ in tg.arrays),
              f"  const int poly_tile = poly_b.tile, poly_lo = poly_b.lo[{last}], poly_hi = poly_lo + poly_b.n[{last}];",
              "  const int poly_first = poly_lo / poly_tile;",
              "  const long long poly_tiles = (poly_hi - 1) / poly_tile - poly_first + 1;",
              f"  const long long poly_blocks = {blocks};",
              "  for (long long poly_blk = blockIdx.x; poly_blk < poly_blocks; poly_blk += gridDim.x) {",
              "    long long poly_q = poly_blk;",
              "    const int poly_base = (poly_first + (int)(poly_q % poly_tiles)) * poly_tile;",
              "    poly_q /= poly_tiles;", *decode,
              "    const int poly_from = poly_base > poly_lo ? poly_base : poly_lo;",
              "    const int poly_to = poly_base + poly_tile < poly_hi ? poly_base + poly_tile : poly_hi;",
              *run(load), "    __syncthreads();",
              "    for (int poly_s = 0; poly_s < poly_b.count; poly_s++) {", *steps, "      }",
              "      __syncthreads();", "    }",
              *run(store), "    __syncthreads();   /* the next tile's loads overwrite these cells */", "  }", "}", ""]
    half = "poly_b->tile / 2"
    host = [f"/* Launch the steps queued in *poly_b (none: nothing) and empty the queue. */",
            f"static void {name}_flush{t}({params}, struct {name}_steps{t} *poly_b)",
            "{",
            "  if (poly_b->count == 0)",
            "    return;",
            f"  const int poly_lo = poly_b->lo[{last}], poly_hi = poly_lo + poly_b->n[{last}];",
            "  const long long poly_blocks = (long long)((poly_hi - 1) / poly_b->tile - poly_lo / poly_b->tile + 1)"
            + "".join(f" * poly_b->n[{d}]" for d in range(last)) + ";",
            f"  const int poly_threads = {half} >= {tg.threads} ? {tg.threads} : {half} > 32 ? {half} : 32;",
            f"  {name}_tiles{t}<<<poly_blocks < 65535LL ? (unsigned)poly_blocks : 65535u, poly_threads>>>({args}, *poly_b);",
            "  poly_b->count = 0;",
            "}",
            "",
            "/* The slot of one more step over the range (poly_lo, poly_n) on tiles of poly_tile cells: the",
            "   queued steps are launched first when theirs differ or the queue is full. */",
            f"static int {name}_queue{t}({params}, struct {name}_steps{t} *poly_b, int poly_tile, const int *poly_lo, "
            "const int *poly_n)",
            "{",
            f"  int poly_same = poly_b->count > 0 && poly_b->count < {tg.capacity} && poly_b->tile == poly_tile;",
            f"  for (int poly_d = 0; poly_d < {depth}; poly_d++)",
            "    poly_same = poly_same && poly_b->lo[poly_d] == poly_lo[poly_d] && poly_b->n[poly_d] == poly_n[poly_d];",
            "  if (!poly_same) {",
            f"    {name}_flush{t}({args}, poly_b);",
            "    poly_b->tile = poly_tile;",
            f"    for (int poly_d = 0; poly_d < {depth}; poly_d++) {{",
            "      poly_b->lo[poly_d] = poly_lo[poly_d];",
            "      poly_b->n[poly_d] = poly_n[poly_d];",
            "    }",
            "  }",
            "  return poly_b->count++;",
            "}",
            ""]
    return struct + kernel + host


def site(net, n: int, name: str, args: str, launch: list[str]) -> list[str]:
    """Host lines at member n's place: queue the instance when its partner stays in its tile
    and in its range, else launch the queue and then `launch` (the instance on its own)."""
    ex, t = net.loops[n], net.loops[n].tiling
    tg, depth = net.tilings[t], len(ex.vars)
    last = depth - 1
    e = f"({cprint(ex.distance)})" if ex.distance is not None else "0"
    inside = "" if ex.bounded or ex.distance is None else f" && poly_net_closed(poly_e, poly_lo[{last}], poly_lo[{last}] + poly_n{last})"
    sizes = [f"  const int poly_n{d} = {cprint(c)};   /* {v} */" for d, (v, c) in enumerate(zip(ex.vars, ex.counts))]
    return ["{", *sizes,
            f"  if ({' && '.join(f'poly_n{d} > 0' for d in range(depth))}) {{",
            *(f"    {name}_flush{u}({args}, &poly_b{u});" for u in range(len(net.tilings)) if u != t),
            f"    const int poly_lo[{depth}] = {{{', '.join(cprint(lo) for lo in ex.los)}}};",
            f"    const int poly_n[{depth}] = {{{', '.join(f'poly_n{d}' for d in range(depth))}}};",
            f"    const int poly_tile = poly_net_tile((long long)poly_lo[{last}] + poly_n{last}, {tg.tile});",
            f"    const int poly_e = {e};",
            f"    if (poly_lo[{last}] >= 0 && poly_e >= 0 && poly_e < poly_tile{inside}) {{",
            f"      const int poly_at = {name}_queue{t}({args}, &poly_b{t}, poly_tile, poly_lo, poly_n);",
            f"      poly_b{t}.kind[poly_at] = {n};",
            *(f"      poly_b{t}.v{n}_{v}[poly_at] = {v};" for v, _ in ex.host),
            "    } else {",
            f"      {name}_flush{t}({args}, &poly_b{t});",
            *("      " + line for line in launch), "    }",
            "  }", "}"]


def flush_all(net, name: str, args: str, ind: str) -> list[str]:
    return [f"{ind}{name}_flush{t}({args}, &poly_b{t});" for t in range(len(net.tilings))]


def queues(net, name: str) -> list[str]:
    return [f"  struct {name}_steps{t} poly_b{t};   /* steps for {name}_tiles{t}, none yet */\n"
            f"  poly_b{t}.count = 0;" for t in range(len(net.tilings))]


def describe(net, t: int, name: str) -> str:
    tg = net.tilings[t]
    return (f"the steps of {', '.join(f'{name}_exchange{m}' for m in tg.members)} whose partner stays in its tile "
            f"of up to {tg.tile} cells, queued on the host, run in one launch, a block per tile with "
            f"{', '.join(a for a, _, _ in tg.arrays)} in shared memory and a barrier between steps.")


def _on_tiles(node, tg, ex) -> c_ast.Node:
    """A copy of a member's statement with the tiling's arrays read and written in their tiles:
    X[r][i] (or X[r][j]) -> poly_tile_X[i - poly_base]."""
    node = copy.deepcopy(node)
    at = {a: pos.index(len(ex.vars) - 1) for a, _, pos in tg.arrays}
    for x in list(_walk(node)):
        for attr in x.__slots__:
            child = getattr(x, attr, None)
            if isinstance(child, c_ast.ArrayRef) and not (isinstance(x, c_ast.ArrayRef) and attr == "name"):
                setattr(x, attr, _tile_ref(child, at))     # a whole reference (X[r] of X[r][i] is only its base)
            elif isinstance(child, list):
                setattr(x, attr, [_tile_ref(c, at) if isinstance(c, c_ast.ArrayRef) else c for c in child])
    return _tile_ref(node, at) if isinstance(node, c_ast.ArrayRef) else node


def _tile_ref(ref, at: dict):
    """X[..][i].. of a tiled array as poly_tile_X[i - poly_base], anything else as it is."""
    if array_name(ref) not in at:
        return ref
    subs, base = [], ref
    while isinstance(base, c_ast.ArrayRef):
        subs.append(base.subscript)
        base = base.name
    sub = list(reversed(subs))[at[array_name(ref)]]
    return c_ast.ArrayRef(c_ast.ID(f"poly_tile_{array_name(ref)}"), c_ast.BinaryOp("-", sub, c_ast.ID("poly_base")))
