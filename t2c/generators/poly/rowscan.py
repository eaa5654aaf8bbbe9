"""Recurrences along rows as block scans: a block per row, the row in tiles, a running carry.

    row_scan_of(analysis, launch, shape) -> RowScan | None

Takes a launch with a grid of row loops whose threads each run scan.py's recurrence along X's
last, contiguous subscript (cumsum along rows, a moving average), its condition bounding j only
from above. Gives one kernel: a block per row, thread 0 running the statements before the loop,
the row walked in tiles of `scans.rows` composed coalesced through shared memory and warp
scans, the carry moving on. Fixed order; floats reassociated, integers added in unsigned as in
scan.py. Refuses (None) anything else. docs/poly.md, "Scans along rows".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis
from . import phases
from .ctext import WORD, names_used
from .scan import Pairs, Scan, recurrence_of


@dataclass(frozen=True)
class RowScan:
    """A launch's recurrence per grid point, run by a block per grid point (module docstring)."""
    scan: Scan                  # the recurrence along the row (its PRE run by thread 0)
    threads: int                # threads per block: whole warps, at most 32 of them
    items: int                  # consecutive elements per thread in a tile


def row_scan_of(an: Analysis, launch, shape: tuple[int, int]) -> RowScan | None:
    """The launch as a row scan, or None: a grid (no derived loop) whose threads run exactly a
    recurrence along the last subscript of the array they write (scan.recurrence_of), its loop
    condition bounding j only from above; a block of `shape` (threads, elements per thread)."""
    if not launch.grid or any(l.derived for l in launch.grid):
        return None
    sc = recurrence_of(an, launch)
    if sc is None or not _upper_bound(sc.loop.var, sc.loop.cond):
        return None
    threads, items = shape
    if threads % 32 or not 32 <= threads <= 1024 or items < 1:
        return None
    return RowScan(sc, threads, items)


def _upper_bound(var: str, cond: str) -> bool:
    """Whether cond is a conjunction of `var < E` / `var <= E` with E free of var (monotone:
    once false, false for every larger var)."""
    for part in cond.split("&&"):
        m = re.fullmatch(rf"{re.escape(var)}\s*<=?\s*([^<=].*)", part.strip().strip("()").strip())
        if m is None or var in WORD.findall(m.group(1)):
            return False
    return True


def kernel(p, launch, rs: RowScan) -> tuple[str, list[str]]:
    """The kernel's source (p: the Printer) and its arguments (pairs: scan.Pairs)."""
    sc, threads, items = rs.scan, rs.threads, rs.items
    tile, warps, var = threads * items, threads // 32, sc.loop.var
    q = Pairs(p, sc)
    v, names, expr, value, start, cast = q.v, q.names, q.expr, q.value, q.start, q.cast
    pair, then, apply, at, sets = q.pair, q.then, q.apply, q.at, q.sets
    ident, mine, up, excl, whole = (pair("1", "0"), pair("poly_ma", "poly_mb"), pair("poly_ua", "poly_ub"),
                                    pair("poly_ea", "poly_eb"), pair("poly_wa", "poly_wb"))
    tid, lane, warp = "(int)threadIdx.x", "poly_lane", "poly_warp"
    shift = 4 if v in ("double", "unsigned long") else 5   # a slot skipped after every 128 bytes:
    skew = lambda e: f"{e} + (({e}) >> {shift})"      # a thread's consecutive elements, other banks
    shfl = lambda q, d: [f"{u} = __shfl_up_sync(0xffffffffu, {x}, {d});" for u, x in zip(up, q)]

    def warp_scan(pad):                               # `mine` inclusive over the warp's lanes
        return [f"{pad}for (int poly_s = 1; poly_s < 32; poly_s <<= 1) {{", *(pad + "  " + x for x in shfl(mine, "poly_s")),
                f"{pad}  if ({lane} >= poly_s) {{", *(pad + "    " + x for x in then(up, mine, mine)), f"{pad}  }}",
                f"{pad}}}"]
    pre = [x for s in sc.pre for x in p.r.statement(s.stmt.node, p.names_for(s.stmt.name), "      ")]
    store = p.r.statement(c_ast.Assignment("=", sc.target, c_ast.ID(f"{cast(sc.dtype)}poly_b[poly_q]")), names,
                          "          ")
    body = [
        *(["    if (threadIdx.x == 0) {", *pre, "    }", "    __syncthreads();   /* PRE written */"] if pre else []),
        "    {", f"      const int {var} = {start};",
        f"      if (!({sc.loop.cond}))", "        continue;           /* an empty loop reads nothing */",
        f"      poly_x = {cast(v)}{expr(sc.prev)};", "    }",
        "    for (int poly_t0 = 0; ; poly_t0 += " + f"{tile}) {{",
        "      {", f"        const int {var} = {start} + poly_t0;", f"        if (!({sc.loop.cond}))", "          break;",
        "      }",
        f"      for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* the tile's pairs, coalesced */",
        f"        const int poly_j = poly_k * {threads} + {tid}, poly_q = {skew('poly_j')};",
        f"        const int {var} = {start} + poly_t0 + poly_j;",
        f"        if ({sc.loop.cond}) {{", *sets(at("", "poly_q"), value, "          "), "        } else {",
        *sets(at("", "poly_q"), ident, "          "), "        }", "      }", "      __syncthreads();",
        f"      {v} {', '.join(f'{m} = {q}' for m, q in zip(mine, at('', skew(f'{tid} * {items}'))))};",
        f"      for (int poly_k = 1; poly_k < {items}; poly_k++) {{   /* this thread's pairs, composed */",
        *("        " + x for x in then(mine, at("", skew(f"{tid} * {items} + poly_k")), mine)), "      }",
        *warp_scan("      "),
        f"      if ({lane} == 31) {{", *sets(at("s", warp), mine, "        "), "      }",
        *("      " + x for x in shfl(mine, "1")), "      __syncthreads();",
        f"      if ({warp} == 0) {{   /* the warps' totals, scanned */",
        f"        {v} {', '.join((*mine, *up))};   /* (lane 0 .. 31 keep the shuffle above) */", f"        if ({lane} < {warps}) {{", *sets(mine, at("s", lane), "          "),
        "        } else {", *sets(mine, ident, "          "), "        }",
        *warp_scan("        "), f"        if ({lane} < {warps}) {{", *sets(at("s", lane), mine, "          "), "        }",
        "      }", "      __syncthreads();",
        *sets(excl, ident, "      "), f"      if ({warp} > 0) {{", *sets(excl, at("s", f"{warp} - 1"), "        "), "      }",
        f"      if ({lane} > 0) {{", *("        " + x for x in then(excl, up, excl)), "      }",
        *sets(whole, at("s", warps - 1), "      "),
        f"      {v} poly_v = {apply(excl, 'poly_x')};",
        f"      for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* this thread's values */",
        f"        const int poly_q = {skew(f'{tid} * {items} + poly_k')};",
        f"        poly_v = {apply(at('', 'poly_q'), 'poly_v')};", "        poly_b[poly_q] = poly_v;", "      }", f"      poly_x = {apply(whole, 'poly_x')};",
        "      __syncthreads();",
        f"      for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* the tile's values, coalesced */",
        f"        const int poly_j = poly_k * {threads} + {tid}, poly_q = {skew('poly_j')};",
        f"        const int {var} = {start} + poly_t0 + poly_j;", f"        if ({sc.loop.cond})", *store, "      }",
        "      __syncthreads();   /* before the next tile's pairs and totals */", "    }"]
    shared = [f"  __shared__ {v} {', '.join(x + f'[{tile + (tile >> shift)}]' for x in pair('poly_a', 'poly_b'))};",
              f"  __shared__ {v} {', '.join(x + f'[{warps}]' for x in pair('poly_sa', 'poly_sb'))};",
              f"  const int {lane} = {tid} & 31, {warp} = {tid} >> 5;", f"  {v} {', '.join(('poly_x', *up, *excl, *whole))};"]
    src_body = [*shared, *phases.row_heads(p, launch, "  "), *body, "  }"]
    args = p.kernel_args(launch, names_used("\n".join(src_body)))
    params = ", ".join(p.param_decl(x, launch) for x in args)
    src = [f"/* {describe(p, launch)} */", f"__global__ void __launch_bounds__({threads}) {launch.name}({params})",
           "{", *src_body, "}"]
    return "\n".join(src), args


def launch_code(p, launch, rs: RowScan, args: list[str], indent: str) -> list[str]:
    return phases.launch_code(p, launch, args, indent, rs.threads)


def describe(p, launch) -> str:
    """One sentence for the candidate's header."""
    rs = launch.row_scan
    sc = rs.scan
    form = "a prefix sum" if sc.unit else "a first-order linear recurrence"
    rows = ", ".join(l.var for l in launch.grid)
    return (f"{launch.name}: {form} over {sc.loop.var} per ({rows}), a block of {rs.threads} threads per ({rows}): "
            f"tiles of {rs.threads * rs.items} elements loaded coalesced, each thread composes {rs.items}, "
            f"warp-shuffle and warp-total scans, a carry from tile to tile.")
