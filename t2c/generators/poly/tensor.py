"""The gemm family's products on the fp64 tensor cores: the plan and the printing of its loops.

    plan(context, launch) -> {id(loop): [(row operand, column operand), ...]} | None
    ring(context, launch, staged) -> (tiles, depth, bytes) | None;  tile, async_loop: printing

Takes a tiled launch whose accumulator loops are all staged and add only products of a row and
a column operand in double (`stage.mma_pairs`); gives the warps' fragments for `mma.sync`
m16n8k8 (m8n8k4 where rows or depths do not allow) and the ring of tiles copied ahead. The
same products summed in another order: within the verifier's bound, not bit for bit. Refuses
(None) warps not dividing into 8 x 4 threads, odd row counts, depths not a multiple of 4.
docs/poly.md, "Tensor cores".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...analysis import Loop
from ...ir.csyntax import cprint
from ...runtime.target import M16N8K8
from .ctext import max_expr, min_expr, replace_refs, substitute
from .mapping import Launch
from . import stage



def plan(p, launch: Launch) -> dict | None:
    """The staged loops' products on the tensor cores, when every loop of the launch is
    such a sum (stage.mma_pairs) and the block's warps divide its point tile into warp
    tiles of 8 x 8 fragments: warps of 8 x 4 threads' worth (blockDim.x a multiple of 8,
    blockDim.y of 4) and an even number of rows per thread."""
    (bx, by), (rows, _) = launch.block[:2], launch.tile
    if bx % 8 or by % 4 or rows % 2 or any(s.depth % 4 for s in launch.staged.values()):
        return None
    pairs = {i: stage.mma_pairs(s) for i, s in launch.staged.items()}
    return pairs if all(pairs.values()) else None


def _major(p, s) -> set[str]:
    """The operands whose shared tiles keep k fastest (`async_copies.k_major`: k is their contiguous index)."""
    return {op.name for op in s.operands if op.k_fastest and p.opt.tiles.staging.tensor_cores.async_copies.k_major}


def _dims(launch: Launch, op, depth: int, major: set[str]) -> tuple[int, int]:
    """An operand's shared tile of `depth` k: `[grid][k]` for the `major` ones, else `[k][grid]`,
    its rows pitched for conflict-free fragment loads."""
    n = stage.span(launch, op)
    return (n, stage.pitch(depth, True)) if op.name in major else (depth, stage.pitch(n, True))


def ring(p, launch: Launch, s) -> tuple[int, int, int] | None:
    """(tiles, depth, bytes) of a staged loop's ring in dynamic shared memory (async_loop):
    `async_copies.ring` (`rect.ring`) tiles per operand, the depth halved until the ring fits in
    `async_copies.ring_bytes` and the target's opt-in limit; None when it never does."""
    ac = p.opt.tiles.staging.tensor_cores.async_copies
    tiles, bk, major = max(2, launch.stages or ac.ring), s.depth, _major(p, s)
    size = lambda depth: tiles * stage.SIZE[s.dtype] * sum(a * b for a, b in (_dims(launch, op, depth, major)
                                                                               for op in s.operands))
    limit = min(ac.ring_bytes, p.target.shared_optin)
    while size(bk) > limit and bk % 8 == 0:
        bk //= 2                   # a ring of tiles of half the depth
    return (tiles, bk, size(bk)) if size(bk) <= limit else None


def async_loop(p, launch: Launch, loop: Loop, s, box, pairs, acc) -> list[str]:
    """A staged loop on the tensor cores whose operands are elements in double, possibly
    scaled (stage.raw_read): `tiles.staging.tensor_cores.async_copies.ring` (`tiles.staging.rect.ring`) shared buffers per operand in a ring, in dynamic
    shared memory; while the warps multiply the tile in one, the block's threads copy the
    tiles `async_stages - 1` ahead into the others asynchronously (cuda_pipeline.h;
    out-of-range elements are zero-filled: the copy reads 0 of its 8 bytes, and its address,
    computed as for any other, is never read), one barrier per tile.  A
    fragment applies the operand's factors as it loads (the same product the register
    staging computes), and is 0 past the loop's end; with `tiles.staging.tensor_cores.async_copies.scale_in_place` each thread
    applies them to the elements it copied, once its copies landed and before the barrier.
    A loop whose bounds move with a grid index copies only the elements its points read
    (stage.mask).  An operand whose contiguous index is k keeps it fastest in shared memory
    (`tiles.staging.tensor_cores.async_copies.k_major`: `[grid][k]`, so a warp's copies store to consecutive banks), the others
    `[k][grid]`; both pitched for conflict-free fragment loads.  Its tiles and depth are `s.ring`
    (`ring`).  The launch's dynamic shared memory (`launch.shared_bytes`) is the largest ring of
    its loops, which all start at its first byte: a barrier after each loop keeps the next one's
    copies out of it until it is read."""
    bx, by = launch.block[:2]
    y, x = launch.rows_cols()
    (ring, bk), raws = s.ring, s.raws
    ac = p.opt.tiles.staging.tensor_cores.async_copies
    names, threads = p.names_for(loop.body[0].stmt.name), bx * by
    spans = {op.name: stage.span(launch, op) for op in s.operands}
    major = _major(p, s)
    shape = lambda op, depth: _dims(launch, op, depth, major)
    decl, issue, scale, values, whole, offset = ["  extern __shared__ double poly_shared[];   /* the launch's dynamic shared memory */"], [], [], {}, {}, 0
    for op in s.operands:
        g = y if op.kind == "row" else x
        lows, highs = dict(zip((l.var for l in launch.grid), box))[g.var]
        loop_lines, kk, r, split = _elements(p, launch, op, bk, spans[op.name], threads)
        if split and split not in decl:
            decl.append(split)
        ref = p.r.node(raws[op.name], {**names, g.var: "poly_g", loop.var: "poly_k"})
        dims = shape(op, bk)
        at = f"[{r}][{kk}]" if op.name in major else f"[{kk}][{r}]"
        decl.append(f"  {s.dtype} (*{op.name})[{dims[0]}][{dims[1]}] = reinterpret_cast<{s.dtype} (*)[{dims[0]}][{dims[1]}]>"
                    f"(poly_shared + {offset});   /* {op.kind} operand {cprint(raws[op.name])}, {ring} tiles"
                    f"{', k fastest' if op.name in major else ''} */")
        offset += ring * dims[0] * dims[1]
        each = lambda k, loop_lines=loop_lines, kk=kk, r=r: [*loop_lines,
                          f"  const int poly_g = {g.var}_base + {r}, poly_k = {k} + {kk};",
                          f"  const bool poly_in = poly_g >= {min_expr(lows)} && poly_g <= {max_expr(highs)} && poly_k < {s.end}"
                          f"{stage.mask(p, s, op, {**names, g.var: 'poly_g', loop.var: 'poly_k'})};"]
        issue += [*each("poly_k1"), f"  __pipeline_memcpy_async(&{op.name}[poly_next]{at}, "
                                    f"&{cprint(ref)}, 8, poly_in ? 0 : 8);", "}"]
        # the operand's expression of its staged element (`poly_raw`), printed with the element read as `read`
        scaled = p.r.node(replace_refs(copy.deepcopy(op.node), cprint(raws[op.name]), "poly_raw"), names)
        times = lambda read, scaled=scaled: cprint(substitute(copy.deepcopy(scaled), {"poly_raw": c_ast.ID(read)}))
        if cprint(scaled) != "poly_raw" and not ac.scale_in_place:      # factors applied as fragments load
            values[op.name] = lambda read, k, times=times: f"poly_k0 + {k} < {s.end} ? {times(read)} : 0.0"
            whole[op.name] = lambda read, k, times=times: times(read)
        elif cprint(scaled) != "poly_raw":        # this thread's copied elements times their factors, in place
            scale += [*each("poly_k0"), "  if (poly_in) {", f"    double &poly_v = {op.name}[poly_b]{at};",
                      f"    poly_v = {times('poly_v')};", "  }", "}"]
    ind = lambda lines, pad: [pad + line for line in lines]
    ahead = f"{(ring - 1) * bk}"
    return ["  {", *decl,
            f"  for (int poly_s = 0; poly_s < {ring - 1}; poly_s++) {{   /* the first tiles */",
            f"    const int poly_k1 = {s.low} + poly_s * {bk}, poly_next = poly_s;",
            f"    if (poly_k1 < {s.end}) {{", *ind(issue, "      "), "    }", "    __pipeline_commit();", "  }",
            f"  for (int poly_k0 = {s.low}, poly_b = 0; poly_k0 < {s.end}; "
            f"poly_k0 += {bk}, poly_b = poly_b == {ring - 1} ? 0 : poly_b + 1) {{",
            f"    __pipeline_wait_prior({ring - 2});   /* this thread's copies of this tile have landed */",
            *ind(scale, "    "),
            "    __syncthreads();   /* ... and every thread's; the tile before it is read */",
            f"    if (poly_k0 + {ahead} < {s.end}) {{   /* the tile {ring - 1} ahead, into the one read before */",
            f"      const int poly_k1 = poly_k0 + {ahead}, poly_next = poly_b == 0 ? {ring - 1} : poly_b - 1;",
            *ind(issue, "      "), "    }",
            "    __pipeline_commit();",
            *ind(_tiles(p, launch, s, pairs, acc, bk, values, whole, major), "    "), "  }",
            "  __syncthreads();   /* the ring is read before anything else uses it */", "  }"]


def _elements(p, launch: Launch, op, bk: int, n: int, threads: int) -> tuple[list[str], str, str, str]:
    """A thread's elements of an operand's tile of `bk` x `n`: (the loop over them, C text of
    an element's loop offset and grid offset, a declaration the loop needs or '').  With
    `tiles.staging.tensor_cores.async_copies.unrolled` (`tiles.staging.rect.unrolled` for a rectangle's launch: forms.rectangle) a
    fixed number of elements, unrolled; where the block's threads cover
    whole lines of the contiguous index, each thread keeps one offset along it (`poly_q*`) and
    steps whole lines along the other (`poly_p*`), both computed once; otherwise `poly_e`,
    `poly_t` plus multiples of the threads, split by stage.slot (a guard where the threads do
    not divide the tile).  Without the option a loop from `poly_t` in steps of the threads."""
    count, line = bk * n, bk if op.k_fastest else n
    kk, r = stage.slot(op, bk, n)
    if not (p.opt.tiles.staging.rect.unrolled if launch.rect else p.opt.tiles.staging.tensor_cores.async_copies.unrolled):
        return [f"for (int poly_e = poly_t; poly_e < {count}; poly_e += {threads}) {{"], kk, r, ""
    head = ["#pragma unroll", f"for (int poly_c = 0; poly_c < {-(-count // threads)}; poly_c++) {{"]
    if threads % line == 0 and count % threads == 0:
        across, down = f"poly_q{line}", f"poly_p{line} + poly_c * {threads // line}"
        kk, r = (across, down) if op.k_fastest else (down, across)
        return head, kk, r, f"  const int poly_p{line} = poly_t / {line}, poly_q{line} = poly_t % {line};"
    guard = [f"  if (poly_e >= {count}) break;"] if count % threads else []
    return [*head, f"  const int poly_e = poly_t + poly_c * {threads};", *guard], kk, r, ""


def _tiles(p, launch: Launch, s, pairs, acc, bk, values, whole, major) -> list[str]:
    """The products of the ring's tile `poly_b`: fragments whose operands carry factors check
    each k against the loop's end (an element past it is a copied zero, and a factor times it
    must not count: inf * 0); with `tiles.staging.tensor_cores.async_copies.whole_tiles` a tile that lies wholly inside the loop takes
    the same products without those checks, and only the last, partial tile checks."""
    checked = tile(p, launch, s, pairs, acc, bk, "[poly_b]", values, major)
    if not (p.opt.tiles.staging.tensor_cores.async_copies.whole_tiles and whole):
        return checked
    ind = lambda lines: ["  " + line for line in lines]
    return [f"if (poly_k0 + {bk} <= {s.end}) {{   /* a whole tile: every k inside the loop */",
            *ind(tile(p, launch, s, pairs, acc, bk, "[poly_b]", whole, major)), "} else {", *ind(checked), "}"]


def tile(p, launch: Launch, s, pairs, acc, bk, buffer="", values=None, major=()) -> list[str]:
    """A staged tile of `bk` k on the tensor cores, 8 k at a time (mma.sync m16n8k8, option
    `tiles.staging.tensor_cores.m16`, when a warp has rows of 16 points and bk is a multiple of 8) or 4 (m8n8k4):
    each warp loads its fragments of the operands from shared memory (m8n8k4: an A fragment's
    lane holds row lane / 4 at k lane % 4, a B fragment's column lane / 4 at k lane % 4;
    m16n8k8: A's value r is row lane / 4 + 8 (r % 2) at k lane % 4 + 4 (r / 2), B's value r
    column lane / 4 at k lane % 4 + 4 r) and adds every product to its accumulator fragments
    (a lane's two points per 8 x 8 fragment: cuda.Printer.tiled_body; an m16n8k8 fragment is
    two of them, one above the other).  `buffer`: the shared arrays' first subscript;
    `values`: operand -> its fragment's value from its shared read and k offset (async_loop);
    `major`: operands whose shared tiles are k fastest (`[grid][k]`, async_loop)."""
    rows, cols = launch.tile
    m16 = p.opt.tiles.staging.tensor_cores.m16 and p.target.has(M16N8K8) and rows % 4 == 0 and bk % 8 == 0
    kstep, per = (8, {"row": 4, "col": 2}) if m16 else (4, {"row": 1, "col": 1})
    used = {name for pair in pairs for name in pair}
    out = []
    for op in (op for op in s.operands if op.name in used):
        n = rows // (4 if m16 else 2) if op.kind == "row" else cols
        for r in range(per[op.kind]):
            koff = (4 * (r // 2) if op.kind == "row" else 4 * r) if m16 else 0
            k = "poly_kk + poly_lane % 4" + (f" + {koff}" if koff else "")
            at = (f"poly_wy + poly_f * {16 if m16 else 8} + poly_lane / 4" + (" + 8" if r % 2 else "")
                  if op.kind == "row" else "poly_wx + poly_f * 8 + poly_lane / 4")
            read = f"{op.name}{buffer}[{at}][{k}]" if op.name in major else f"{op.name}{buffer}[{k}][{at}]"
            value = (values or {}).get(op.name, lambda read, k: read)(read, k)
            frag = f"{op.name}_frag[poly_f]" + (f"[{r}]" if m16 else "")
            out += ([f"double {op.name}_frag[{n}]" + (f"[{per[op.kind]}];" if m16 else ";")] if r == 0 else []) + [
                "#pragma unroll", f"for (int poly_f = 0; poly_f < {n}; poly_f++)", f"  {frag} = {value};"]
    for a, b in pairs:
        if m16:
            cells = ", ".join(f"{acc}[4 * poly_f + {q}][poly_h]" for q in range(4))
            call = (f"poly_dmma16({cells}, {', '.join(f'{a}_frag[poly_f][{r}]' for r in range(4))}, "
                    f"{b}_frag[poly_h][0], {b}_frag[poly_h][1]);")
        else:
            call = (f"poly_dmma({acc}[2 * poly_f][poly_h], {acc}[2 * poly_f + 1][poly_h], {a}_frag[poly_f], "
                    f"{b}_frag[poly_h]);")
        out += ["#pragma unroll", f"for (int poly_f = 0; poly_f < {rows // (4 if m16 else 2)}; poly_f++)",
                "  #pragma unroll", f"  for (int poly_h = 0; poly_h < {cols}; poly_h++)", f"    {call}"]
    return ["#pragma unroll", f"for (int poly_kk = 0; poly_kk < {bk}; poly_kk += {kstep}) {{",
            *["  " + line for line in out], "}"]
