"""The gemm family's products on the fp64 tensor cores: the plan and the printing of its loops.

    plan(printer, launch) -> {id(loop): [(row operand, column operand), ...]} | None
    step(printer, launch, staged, pairs, acc) -> four k of a staged tile, as CUDA lines
    async_loop(printer, launch, loop, staged, box, pairs, acc, raws) -> a staged loop with its
        tiles copied ahead asynchronously, as CUDA lines, or None when two buffers never fit

Takes a tiled launch whose every accumulator loop is staged (stage.py) and adds only products
of a row and a column operand in double (`stage.mma_pairs`); the block's points are then a sum
of matrix products, which PTX `mma.sync.aligned.m8n8k4.row.col.f64` computes 8 x 8 x 4 at a
time (the helper `poly_dmma` in cuda.HELPERS; GPUs before sm_80 get the same sums by shuffles).
Each warp takes (rows / 2) x cols fragments of the block's points; a lane's points are its
fragments' (cuda.Printer.tiled_body maps them).  The same products of the same staged values,
added in another order: within the verifier's bound, not bit for bit.  Refuses (plan is None)
blocks whose warps do not divide into 8 x 4 threads' worth, odd row counts and tile depths
that are not a multiple of 4.
"""
from __future__ import annotations

import copy
import re

from ...analysis import Loop
from ...frontends.c.normalize import cprint
from .mapping import Launch
from . import stage

_RAW = re.compile(r"\bpoly_raw\b")      # the staged element in an operand's expression


def plan(p, launch: Launch) -> dict | None:
    """The staged loops' products on the tensor cores, when every loop of the launch is
    such a sum (stage.mma_pairs) and the block's warps divide its point tile into warp
    tiles of 8 x 8 fragments: warps of 8 x 4 threads' worth (blockDim.x a multiple of 8,
    blockDim.y of 4) and an even number of rows per thread."""
    (bx, by), (rows, _) = p.opt.block_2d, launch.tile
    if bx % 8 or by % 4 or rows % 2 or any(s.depth % 4 for s in launch.staged.values()):
        return None
    pairs = {i: stage.mma_pairs(s) for i, s in launch.staged.items()}
    return pairs if all(pairs.values()) else None


def async_loop(p, launch: Launch, loop: Loop, s, box, pairs, acc, raws) -> list[str] | None:
    """A staged loop on the tensor cores whose operands are elements in double, possibly
    scaled (stage.raw_read): two shared buffers per operand; while the warps multiply the
    tile in one, the block's threads copy the next tile's elements into the other
    asynchronously (cuda_pipeline.h; out-of-range elements are zero-filled, read from
    nowhere).  A fragment applies the operand's factors as it loads (the same product the
    register staging computes), and is 0 past the loop's end.  The depth halves until both
    buffers fit in static shared memory; None when they never do."""
    from .cuda import _max, _min, _replace_refs      # cuda.py imports this module
    bx, by = p.opt.block_2d
    y, x = launch.rows_cols()
    bk, names, threads = s.depth, p.names_for(loop.body[0].stmt.name), bx * by
    shared = lambda depth: 2 * depth * stage.SIZE[s.dtype] * sum(
        stage.pitch(stage.span(p.opt, launch, op), True) for op in s.operands)
    while shared(bk) > stage.SHARED_LIMIT and bk % 8 == 0:
        bk //= 2                   # two buffers of half the depth
    if shared(bk) > stage.SHARED_LIMIT:
        return None
    decl, issue, values = [], [], {}
    for op in s.operands:
        g = y if op.kind == "row" else x
        lows, highs = dict(zip((l.var for l in launch.grid), box))[g.var]
        n = stage.span(p.opt, launch, op)
        kk, r = stage.slot(op, bk, n)
        ref = p.r.node(raws[op.name], {**names, g.var: "poly_g", loop.var: "poly_k"})
        decl.append(f"  __shared__ {s.dtype} {op.name}[2][{bk}][{stage.pitch(n, True)}];   /* {op.kind} operand "
                    f"{cprint(raws[op.name])}, two buffers */")
        issue += [f"for (int poly_e = poly_t; poly_e < {bk * n}; poly_e += {threads}) {{",
                  f"  const int poly_g = {g.var}_base + {r}, poly_k = poly_k1 + {kk};",
                  f"  const bool poly_in = poly_g >= {_min(lows)} && poly_g <= {_max(highs)} && poly_k < {s.end};",
                  f"  __pipeline_memcpy_async(&{op.name}[poly_next][{kk}][{r}], "
                  f"poly_in ? &{cprint(ref)} : {cprint(ref.name)}, 8, poly_in ? 0 : 8);", "}"]
        scaled = _replace_refs(copy.deepcopy(op.node), cprint(raws[op.name]), "poly_raw")
        text = cprint(p.r.node(scaled, names))
        values[op.name] = (lambda read: read) if text == "poly_raw" else (
            lambda read, text=text: f"poly_k0 + poly_kk + poly_lane % 4 < {s.end} ? "
                                    f"{_RAW.sub(lambda _: read, text)} : 0.0")
    ind = lambda lines, pad: [pad + line for line in lines]
    four = step(p, launch, s, pairs, acc, buffer="[poly_b]", values=values)
    return [*decl, "  int poly_b = 0;   /* the buffer the warps read */", "  {",
            f"    const int poly_k1 = {s.low}, poly_next = 0;", *ind(issue, "    "), "  }",
            "  __pipeline_commit();",
            f"  for (int poly_k0 = {s.low}; poly_k0 < {s.end}; poly_k0 += {bk}) {{",
            f"    if (poly_k0 + {bk} < {s.end}) {{   /* the next tile, into the other buffer */",
            f"      const int poly_k1 = poly_k0 + {bk}, poly_next = poly_b ^ 1;", *ind(issue, "      "), "    }",
            "    __pipeline_commit();",
            "    __pipeline_wait_prior(1);   /* this thread's copies of this tile have landed */",
            "    __syncthreads();   /* ... and every thread's */",
            "    #pragma unroll", f"    for (int poly_kk = 0; poly_kk < {bk}; poly_kk += 4) {{",
            *ind(four, "      "), "    }",
            "    __syncthreads();   /* this buffer is read before it is refilled */",
            "    poly_b ^= 1;", "  }"]


def step(p, launch: Launch, s, pairs, acc, buffer="", values=None) -> list[str]:
    """Four k of a staged tile on the tensor cores: each warp loads its fragments of the
    operands from shared memory (an A fragment's lane holds row lane / 4 at k lane % 4, a
    B fragment's column lane / 4 at k lane % 4) and adds every product's 8 x 8 x 4 step
    to its accumulator fragments (a lane's two points per fragment: tiled_body).
    `buffer`: the shared arrays' first subscript; `values`: operand -> the fragment's value
    of its shared read (async_loop)."""
    rows, cols = launch.tile
    used = {name for pair in pairs for name in pair}
    out = []
    for op in (op for op in s.operands if op.name in used):
        n, base = (rows // 2, "poly_wy") if op.kind == "row" else (cols, "poly_wx")
        read = f"{op.name}{buffer}[poly_kk + poly_lane % 4][{base} + poly_f * 8 + poly_lane / 4]"
        out += [f"double {op.name}_frag[{n}];", "#pragma unroll", f"for (int poly_f = 0; poly_f < {n}; poly_f++)",
                f"  {op.name}_frag[poly_f] = {(values or {}).get(op.name, lambda r: r)(read)};"]
    for r, c in pairs:
        out += ["#pragma unroll", f"for (int poly_f = 0; poly_f < {rows // 2}; poly_f++)", "  #pragma unroll",
                f"  for (int poly_h = 0; poly_h < {cols}; poly_h++)",
                f"    poly_dmma({acc}[2 * poly_f][poly_h], {acc}[2 * poly_f + 1][poly_h], {r}_frag[poly_f], "
                f"{c}_frag[poly_h]);"]
    return out
