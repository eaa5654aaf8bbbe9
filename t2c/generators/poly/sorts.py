"""Sorts: a compiled sort's whole network, read anywhere afterwards, printed as an LSD radix sort.

The class: select.py's sorting networks (`sorting_of`: a spec's `sort`, `sort_desc`, `argsort`,
`argsort_desc` as compile.py emits them, into an output or a local array) over a 32-bit key
(float, int, unsigned), whose result is read other than only at its first K positions (those
are selections).  64-bit keys keep the network.

The keys become unsigned integers whose ascending order is the sort's (select.key_function:
floats by their bits, -0.0 as 0.0 for argsorts, ints with the sign bit flipped, all bits
inverted for descending), so a stable sort of those by 8-bit digits, lowest first, is the
network's order: ties keep index order, as the argsort's comparison has it; a value sort's equal
keys are equal values (a float value sort keeps the bits, -0.0 before 0.0, which compare equal).
A pass runs only where some two keys of the row differ in its digit (the OR and AND of the
row's keys tell), and the last pass that runs writes the target.

Both kernels rank with one device function (`rank`): a block's keys in shared memory, each warp
walking its contiguous chunk 32 keys at a time, `__match_any_sync` grouping a step's equal
digits, and an exclusive scan in (digit, warp) order placing every key: stable.
- a row of C <= MOST keys: a block per row loads it once, runs its passes in shared memory and
  stores the result once;
- longer rows (rows as grid.y): per pass, a count kernel (a tile of MOST keys per block, digit-major
  counts hist[row][digit][tile]), a scan kernel (a block per (row, digit) over its tiles) and a
  scatter kernel (its tile ranked in shared memory, then written in that order, so a digit's keys
  leave as one coalesced run).  Keys (and indices) ping-pong between two pool-kept scratch
  halves; the first pass that runs reads the keys through KEY, the last writes the target.
Keys that are NaN are not covered (the network's own order is not defined for them).
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...ir import abi
from ...ir.csyntax import cprint
from . import select
from .scratch import give_back, take

THREADS = 256            # threads of every sort kernel: a thread per digit in the scans
WARPS = THREADS // 32
MOST = 2048              # a row up to MOST keys in one block; longer rows in tiles of MOST
_BLOCK_ROWS = 65535      # grid.y


@dataclass(frozen=True)
class Sort(select.Sorting):
    """A whole sort (select.Sorting's fields), run as a radix sort."""


def sorts_of(net, selects: tuple = ()) -> tuple[Sort, ...]:
    """The network's sorts that are no selection (`selects`: those read only at their first K)."""
    by_loop = {id(ex.loop): n for n, ex in enumerate(net.loops)}
    taken = {id(s.loop) for s in selects}
    out = []
    for at, top in enumerate(net.body):
        if isinstance(top, c_ast.For) and id(top) not in taken and \
                (found := select.sorting_of(net, at, top, by_loop)) is not None:
            out.append(Sort(**vars(found)))
    return tuple(out)


# -- printing ------------------------------------------------------------------------------

def helpers(name: str) -> list[str]:
    """The device functions every sort's kernels share (printed once)."""
    w = WARPS
    return [
        f"/* the exclusive prefix of v over a block of {THREADS} threads in thread order; *total gets the sum */",
        f"__device__ unsigned {name}_radix_scan(unsigned v, unsigned *sums, unsigned *total)", "{",
        "  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;",
        "  unsigned x = v;",
        "  for (int d = 1; d < 32; d *= 2) {",
        "    const unsigned y = __shfl_up_sync(0xffffffffu, x, d);",
        "    if (lane >= d)", "      x += y;", "  }",
        "  if (lane == 31)", "    sums[w] = x;",
        "  __syncthreads();",
        "  if (w == 0) {",
        f"    unsigned s = lane < {w} ? sums[lane] : 0u;",
        f"    for (int d = 1; d < {w}; d *= 2) {{",
        "      const unsigned y = __shfl_up_sync(0xffffffffu, s, d);",
        "      if (lane >= d)", "        s += y;", "    }",
        f"    if (lane < {w})", "      sums[lane] = s;", "  }",
        "  __syncthreads();",
        "  const unsigned out = x - v + (w ? sums[w - 1] : 0u);",
        f"  *total = sums[{w - 1}];",
        "  __syncthreads();   /* sums free again */",
        "  return out;", "}", "",
        "/* The n keys u[0..n) (and their indices i, unless NULL) in the stable order of their digit",
        "   (u >> shift) & 255, into du (di); starts[d] gets the place of digit d's first key.  Each warp",
        "   walks its contiguous chunk 32 keys at a time in order: __match_any_sync groups a step's equal",
        "   digits, and a key's place is its rank among its group's lower lanes after the warp's earlier",
        "   keys of that digit, after those of the lower warps, after the lower digits. */",
        f"__device__ void {name}_radix_rank(const unsigned *u, const int *i, unsigned *du, int *di, int n, int shift,",
        "                                 unsigned *counts, unsigned *starts, unsigned *sums)", "{",
        "  const int t = threadIdx.x, lane = t % 32, w = t / 32;",
        f"  const int per = ((n + {w - 1}) / {w} + 31) / 32 * 32;",
        "  const int lo = min(n, w * per), hi = min(n, lo + per);",
        f"  for (int x = 0; x < {w}; x++)",
        "    counts[x * 256 + t] = 0u;",
        "  __syncthreads();",
        "  for (int b = lo; b < hi; b += 32) {   /* the warp's counts of each digit */",
        "    const int p = b + lane;",
        "    const unsigned d = p < hi ? (u[p] >> shift) & 255u : 256u;",
        "    const unsigned peers = __match_any_sync(0xffffffffu, d);",
        "    if (d < 256u && lane == __ffs(peers) - 1)",
        "      counts[w * 256 + d] += __popc(peers);",
        "    __syncwarp();", "  }",
        "  __syncthreads();",
        "  unsigned all = 0u, total;   /* thread t: digit t */",
        f"  for (int x = 0; x < {w}; x++)",
        "    all += counts[x * 256 + t];",
        f"  unsigned at = {name}_radix_scan(all, sums, &total);",
        "  starts[t] = at;",
        f"  for (int x = 0; x < {w}; x++) {{   /* (digit, warp) order */",
        "    const unsigned c = counts[x * 256 + t];",
        "    counts[x * 256 + t] = at;",
        "    at += c;", "  }",
        "  __syncthreads();",
        "  for (int b = lo; b < hi; b += 32) {   /* the same walk: each key to its place */",
        "    const int p = b + lane;",
        "    const unsigned d = p < hi ? (u[p] >> shift) & 255u : 256u;",
        "    const unsigned peers = __match_any_sync(0xffffffffu, d);",
        "    unsigned to = 0u;",
        "    if (d < 256u) {",
        "      to = counts[w * 256 + d] + __popc(peers & ((1u << lane) - 1u));",
        "      du[to] = u[p];",
        "      if (di)", "        di[to] = i[p];", "    }",
        "    __syncwarp();",
        "    if (d < 256u && lane == __ffs(peers) - 1)   /* the group's lowest lane: rank 0 */",
        "      counts[w * 256 + d] = to + __popc(peers);",
        "    __syncwarp();", "  }",
        "  __syncthreads();", "}", "",
        "/* the passes a row needs, a bit each: those whose digit differs between two of its keys (vary:",
        "   their OR ^ AND), pass 0 when none does (it writes the keys as they are) */",
        f"__device__ __forceinline__ unsigned {name}_radix_passes(unsigned vary)", "{",
        "  unsigned m = 0u;",
        "  for (int p = 0; p < 4; p++)",
        "    if ((vary >> (8 * p)) & 255u)", "      m |= 1u << p;",
        "  return m ? m : 1u;", "}", ""]


def declarations(s: Sort, t: int, name: str, r, params: str) -> list[str]:
    """The key functions and the sort's kernels: the row block, and count, scan and scatter."""
    kn, ty = f"{name}_sort{t}", s.key_type
    out = ["/* the sort's order as unsigned integers, ascending */",
           *select.key_function(f"{kn}_key", ty, s.descending, exact=not s.argsort)]
    if not s.argsort:
        out += ["/* the key of an unsigned integer of the sort's order */", *_value_function(f"{kn}_value", ty, s.descending)]
    key = f"{kn}_key(({ty})({cprint(r.node(s.key, {}))}))"
    arg = s.argsort
    shared = [f"  __shared__ unsigned poly_u[2][{MOST}];",
              *([f"  __shared__ int poly_i[2][{MOST}];"] if arg else []),
              f"  __shared__ unsigned poly_counts[{WARPS} * 256], poly_starts[256], poly_sums[{WARPS}];"]
    idx = lambda b: f"poly_i[{b}]" if arg else "NULL"
    rank = lambda n, shift: (f"{name}_radix_rank(poly_u[0], {idx(0)}, poly_u[1], {idx(1)}, {n}, {shift}, "
                             "poly_counts, poly_starts, poly_sums);")
    store = _store(s, r, f"{kn}_value")
    extra = ", int poly_pass, long long poly_row0, long long poly_rows"
    out += [f"/* {kn}_rows: {describe(s, t, name)} */",
            f"__global__ void __launch_bounds__({THREADS}) {kn}_rows({params})", "{",
            *shared, "  __shared__ unsigned poly_or, poly_and;",
            *_decode(s, "blockIdx.x"),
            f"  const int poly_c = {cprint(s.length)};   /* at most {MOST}: the host's test */",
            "  const int poly_t = threadIdx.x;",
            "  if (poly_t == 0) {", "    poly_or = 0u;", "    poly_and = ~0u;", "  }",
            "  __syncthreads();",
            "  unsigned poly_o = 0u, poly_a = ~0u;",
            f"  for (int poly_q = poly_t; poly_q < poly_c; poly_q += {THREADS}) {{   /* the row, read once */",
            f"    const unsigned poly_k = {key};",
            "    poly_u[0][poly_q] = poly_k;", *(["    poly_i[0][poly_q] = poly_q;"] if arg else []),
            "    poly_o |= poly_k;", "    poly_a &= poly_k;", "  }",
            "  atomicOr(&poly_or, poly_o);", "  atomicAnd(&poly_and, poly_a);",
            "  __syncthreads();",
            f"  const unsigned poly_m = {name}_radix_passes(poly_or ^ poly_and);",
            "  int poly_at = 0;   /* the half holding the keys */",
            "  for (int poly_pass = 0; poly_pass < 4; poly_pass++)",
            "    if ((poly_m >> poly_pass) & 1u) {",
            f"      {name}_radix_rank(poly_u[poly_at], {idx('poly_at')}, poly_u[1 - poly_at], {idx('1 - poly_at')}, "
            "poly_c, 8 * poly_pass, poly_counts, poly_starts, poly_sums);",
            "      poly_at = 1 - poly_at;", "    }",
            f"  for (int poly_g = poly_t; poly_g < poly_c; poly_g += {THREADS}) {{   /* and written once */",
            *store("poly_u[poly_at][poly_g]", "poly_i[poly_at][poly_g]", "    "), "  }", "}", ""]
    tiles = [f"  const int poly_c = {cprint(s.length)};", f"  const int poly_tiles = (poly_c + {MOST - 1}) / {MOST};"]
    tile = [*tiles, f"  const int poly_base = blockIdx.x * {MOST}, poly_n = min(poly_c - poly_base, {MOST});"]
    runs = ["  if (!((poly_m >> poly_pass) & 1u))   /* every key has the same digit */", "    return;",
            "  const int poly_e = __popc(poly_m & ((1u << poly_pass) - 1u));   /* passes run before this one */"]
    vary = f"{name}_radix_passes(poly_vary[poly_r] ^ poly_vary[poly_rows + poly_r])"
    row = ["  const long long poly_r = poly_row0 + blockIdx.y;", *_decode(s, "poly_r")]
    half = "(size_t)((poly_e - 1) & 1) * poly_rows * poly_c + (size_t)poly_r * poly_c + poly_base"
    out += [f"/* {kn}_count: pass poly_pass's digit counts of a tile (pass 0: also the row's OR and AND) */",
            f"__global__ void __launch_bounds__({THREADS}) {kn}_count({params}{extra}, const unsigned *poly_gu, "
            "unsigned *poly_hist, unsigned *poly_vary)", "{",
            "  __shared__ unsigned poly_h[256], poly_or, poly_and;", *row, *tile,
            f"  const unsigned poly_m = poly_pass ? {vary} : 1u;", *runs,
            "  const int poly_t = threadIdx.x, poly_lane = poly_t % 32, poly_shift = 8 * poly_pass;",
            "  poly_h[poly_t] = 0u;",
            "  if (poly_t == 0) {", "    poly_or = 0u;", "    poly_and = ~0u;", "  }",
            "  __syncthreads();",
            "  unsigned poly_o = 0u, poly_a = ~0u;",
            f"  for (int poly_b = 0; poly_b < poly_n; poly_b += {THREADS}) {{   /* whole warps count */",
            "    const int poly_p = poly_b + poly_t;",
            "    unsigned poly_d = 256u;   /* none */",
            "    if (poly_p < poly_n) {",
            "      unsigned poly_k;",
            "      if (poly_e == 0) {", "        const int poly_q = poly_base + poly_p;", f"        poly_k = {key};",
            "      } else", f"        poly_k = poly_gu[{half} + poly_p];",
            "      poly_o |= poly_k;", "      poly_a &= poly_k;",
            "      poly_d = (poly_k >> poly_shift) & 255u;", "    }",
            "    const unsigned poly_peers = __match_any_sync(0xffffffffu, poly_d);   /* one add per digit */",
            "    if (poly_d < 256u && poly_lane == __ffs(poly_peers) - 1)",
            "      atomicAdd(&poly_h[poly_d], (unsigned)__popc(poly_peers));", "  }",
            "  if (poly_pass == 0) {", "    atomicOr(&poly_or, poly_o);", "    atomicAnd(&poly_and, poly_a);", "  }",
            "  __syncthreads();",
            "  poly_hist[((size_t)poly_r * 256 + poly_t) * poly_tiles + blockIdx.x] = poly_h[poly_t];",
            "  if (poly_pass == 0 && poly_t == 0) {",
            "    atomicOr(&poly_vary[poly_r], poly_or);", "    atomicAnd(&poly_vary[poly_rows + poly_r], poly_and);", "  }",
            "}", "",
            f"/* {kn}_scan: a (row, digit)'s counts over the tiles, exclusive, and the digit's total */",
            f"__global__ void __launch_bounds__({THREADS}) {kn}_scan({params}{extra}, unsigned *poly_hist, "
            "unsigned *poly_total, const unsigned *poly_vary)", "{",
            f"  __shared__ unsigned poly_sums[{WARPS}];",
            "  const long long poly_r = poly_row0 + blockIdx.y;", *tiles,
            f"  const unsigned poly_m = {vary};", *runs,
            "  unsigned *poly_h = poly_hist + ((size_t)poly_r * 256 + blockIdx.x) * poly_tiles;",
            "  unsigned poly_carry = 0u;",
            f"  for (int poly_b = 0; poly_b < poly_tiles; poly_b += {THREADS}) {{",
            "    const int poly_x = poly_b + threadIdx.x;",
            "    const unsigned poly_v = poly_x < poly_tiles ? poly_h[poly_x] : 0u;",
            "    unsigned poly_sum;",
            f"    const unsigned poly_before = {name}_radix_scan(poly_v, poly_sums, &poly_sum);",
            "    if (poly_x < poly_tiles)", "      poly_h[poly_x] = poly_carry + poly_before;",
            "    poly_carry += poly_sum;", "  }",
            "  if (threadIdx.x == 0)", "    poly_total[poly_r * 256 + blockIdx.x] = poly_carry;", "}", "",
            f"/* {kn}_scatter: a tile in the pass's stable order, each digit's keys a run at its place in the row */",
            f"__global__ void __launch_bounds__({THREADS}) {kn}_scatter({params}{extra}, unsigned *poly_gu"
            + (", int *poly_gi" if arg else "") + ", const unsigned *poly_hist, const unsigned *poly_total, "
            "const unsigned *poly_vary)", "{",
            *shared, "  __shared__ unsigned poly_to[256];", *row, *tile,
            f"  const unsigned poly_m = {vary};", *runs,
            "  const bool poly_last = (poly_m >> (poly_pass + 1)) == 0u;   /* it writes the target */",
            "  const int poly_t = threadIdx.x, poly_shift = 8 * poly_pass;",
            f"  for (int poly_p = poly_t; poly_p < poly_n; poly_p += {THREADS})",
            "    if (poly_e == 0) {", "      const int poly_q = poly_base + poly_p;", f"      poly_u[0][poly_p] = {key};",
            *(["      poly_i[0][poly_p] = poly_q;"] if arg else []),
            "    } else {", f"      poly_u[0][poly_p] = poly_gu[{half} + poly_p];",
            *([f"      poly_i[0][poly_p] = poly_gi[{half} + poly_p];"] if arg else []), "    }",
            "  unsigned poly_sum;   /* thread t: digit t's first place in the row, for this tile */",
            f"  const unsigned poly_before = {name}_radix_scan(poly_total[poly_r * 256 + poly_t], poly_sums, &poly_sum);",
            "  poly_to[poly_t] = poly_before + poly_hist[((size_t)poly_r * 256 + poly_t) * poly_tiles + blockIdx.x];",
            f"  {rank('poly_n', 'poly_shift')}",
            f"  for (int poly_p = poly_t; poly_p < poly_n; poly_p += {THREADS}) {{   /* in order: runs of a digit */",
            "    const unsigned poly_d = (poly_u[1][poly_p] >> poly_shift) & 255u;",
            "    const int poly_g = (int)(poly_to[poly_d] + (unsigned)poly_p - poly_starts[poly_d]);",
            "    if (poly_last) {",
            *store("poly_u[1][poly_p]", "poly_i[1][poly_p]", "      "),
            "    } else {",
            "      const size_t poly_at = (size_t)(poly_e & 1) * poly_rows * poly_c + (size_t)poly_r * poly_c + poly_g;",
            "      poly_gu[poly_at] = poly_u[1][poly_p];", *(["      poly_gi[poly_at] = poly_i[1][poly_p];"] if arg else []),
            "    }", "  }", "}", ""]
    return out


def _store(s: Sort, r, value_function: str):
    """Lines writing the target at position poly_g of the row from a key `u` or an index `i`."""
    cell = select._ref(s.array, (*s.rows, "poly_g"))
    def lines(u: str, i: str, ind: str) -> list[str]:
        value = c_ast.ID(i) if s.argsort else c_ast.FuncCall(c_ast.ID(value_function), c_ast.ExprList([c_ast.ID(u)]))
        return [f"{ind}{cprint(r.node(c_ast.Assignment('=', cell, value), {}))};"]
    return lines


def _decode(s: Sort, row: str) -> list[str]:
    """The row loops' variables of flat row `row`, the last fastest."""
    out = [f"  long long poly_row = {row};"] if s.rows else []
    for d in reversed(range(len(s.rows))):
        at = "poly_row" if d == 0 else f"poly_row % ({cprint(s.counts[d])})"
        out.append(f"  const int {s.rows[d]} = {cprint(s.los[d])} + (int)({at});")
        if d:
            out.append(f"  poly_row /= ({cprint(s.counts[d])});")
    return out


def _value_function(fname: str, ty: str, flip: bool) -> list[str]:
    """The inverse of select.key_function(..., exact=True)."""
    inv = "~" if flip else ""
    if ty == "float":
        body = [f"  const unsigned u = {inv}k;", "  return __uint_as_float((u & 0x80000000u) ? u ^ 0x80000000u : ~u);"]
    elif ty == "int":
        body = [f"  return (int)({inv}k ^ 0x80000000u);"]
    else:
        body = [f"  return {inv}k;"]
    return [f"__device__ __forceinline__ {ty} {fname}(unsigned k)", "{", *body, "}", ""]


def site(s: Sort, t: int, name: str, args: str, flush: list[str], pool: bool) -> list[str]:
    """Host lines in place of the network's loop: the row kernel when a row fits a block, else the
    passes over tiles with their scratch (from the kept pool)."""
    kn = f"{name}_sort{t}"
    rows = " * ".join(f"(long long)({cprint(c)})" for c in s.counts) or "1LL"
    scratch = [("poly_gu", "unsigned", "2 * poly_cells"), *([("poly_gi", "int", "2 * poly_cells")] if s.argsort else []),
               ("poly_hist", "unsigned", "(size_t)poly_rows * 256 * poly_tiles"),
               ("poly_total", "unsigned", "(size_t)poly_rows * 256"), ("poly_vary", "unsigned", "2 * (size_t)poly_rows")]
    common = f"{args}, poly_pass, poly_row0, poly_rows"
    gi = ", poly_gi" if s.argsort else ""
    return ["{", *flush,
            f"  const long long poly_rows = {rows};",
            f"  const int poly_c = {cprint(s.length)};",
            "  if (poly_rows > 0 && poly_c > 0) {",
            f"    if (poly_c <= {MOST}) {{   /* a row per block */",
            f"      {kn}_rows<<<(unsigned)poly_rows, {THREADS}>>>({args});",
            "    } else {",
            f"      const int poly_tiles = (poly_c + {MOST - 1}) / {MOST};",
            "      const size_t poly_cells = (size_t)poly_rows * poly_c;",
            *(f"      {ty} *{v} = NULL;" for v, ty, _ in scratch),
            *(f"      {take(v, abi.nbytes(ty, f'({n})'), pool)};" for v, ty, n in scratch),
            "      cudaMemsetAsync(poly_vary, 0, poly_rows * sizeof(unsigned), 0);   /* the rows' OR of keys */",
            "      cudaMemsetAsync(poly_vary + poly_rows, 0xff, poly_rows * sizeof(unsigned), 0);   /* and AND */",
            f"      for (long long poly_row0 = 0; poly_row0 < poly_rows; poly_row0 += {_BLOCK_ROWS}) {{",
            f"        const unsigned poly_some = (unsigned)(poly_rows - poly_row0 < {_BLOCK_ROWS} ? poly_rows - poly_row0 "
            f": {_BLOCK_ROWS});",
            "        for (int poly_pass = 0; poly_pass < 4; poly_pass++) {",
            f"          {kn}_count<<<dim3((unsigned)poly_tiles, poly_some), {THREADS}>>>({common}, poly_gu, poly_hist, "
            "poly_vary);",
            f"          {kn}_scan<<<dim3(256u, poly_some), {THREADS}>>>({common}, poly_hist, poly_total, poly_vary);",
            f"          {kn}_scatter<<<dim3((unsigned)poly_tiles, poly_some), {THREADS}>>>({common}, poly_gu{gi}, "
            "poly_hist, poly_total, poly_vary);",
            "        }", "      }",
            *(f"      {give_back(v, pool)}" for v, _, _ in scratch),
            "    }", "  }", "}"]


def describe(s: Sort, t: int, name: str) -> str:
    order = "descending" if s.descending else "ascending"
    what = (f"the stable {order} argsort of {cprint(s.key)}" if s.argsort else
            f"the {order} sort of the values {cprint(s.key)}")
    return (f"{what} for poly_q < {cprint(s.length)} into {s.array}: an LSD radix sort of the keys as unsigned "
            f"integers, 8-bit digits, a pass only where the row's keys differ in its digit; a row of up to {MOST} "
            f"in one block's shared memory, longer rows in tiles of {MOST} (per pass: counts, a scan per digit, "
            f"a stable scatter).")
