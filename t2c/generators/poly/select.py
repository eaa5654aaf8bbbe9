"""Selections: a stable argsort of which only the first K positions are read, printed as top-K.

The class: in host code around exchange loops (network.py), a permutation P of local storage
filled `P[r..][q] = q` over 0..C and sorted by the bitonic network a spec's `argsort` /
`argsort_desc` compiles to (docs/specs.md): a top-level host loop

    for (net_k1 = 2; net_k1 / 2 < C; net_k1 *= 2) {
      exchange(q ^ (net_k1 - 1));
      for (net_s1 = net_k1 / 4; net_s1 > 0; net_s1 /= 2) exchange(q ^ net_s1);
    }

whose two exchanges compare `x = KEY(a)`, `y = KEY(b)` of the indices a = P[..][q], b = P[..][j]
and swap when `y > x || (y == x && b < a)` (descending; `y < x` ascending), after which P is read
only by exchanges at positions `P[..][j]` with j a loop variable over 0..K (a spec's `topk`
written as `argsort_desc`, then gathers of the first k).  The network sorts by the total order
"key first (descending or ascending, as C compares: -0.0 == 0.0), then the smaller index", so
P[..][0..K) is the first K of that order, which a selection finds without sorting the row.

A block per row does a radix select: the keys as unsigned integers whose order is the sort's
(floats by their bits, -0.0 as 0.0; 32-bit keys only), up to four passes of 8-bit digit counts
(a warp adds once per distinct digit: uniform keys share their top digits) find the K-th key's
leading digits T and how many keys with those digits it takes (the passes stop once that is all
of them); a pass then gathers every key whose digits are past T and the first of those with T's
digits in index order (ballots per warp), and a bitonic sort of those K in
shared memory orders them by (key, index) as the network does.  Only K <= `most` fits the
block's shared memory: the host tests K and runs the network as before past it.  Keys that are
NaN are not covered (the network's own order is not defined for them).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from ...ir.csyntax import array_name, block_items, cprint, name_subscripts, renamed, walk
from ...analysis.model import parse_expr

THREADS = 512            # threads of a row's block
MOST = 1024              # K past this runs the network (the candidates' shared memory)
_KEYS = {"float": "float", "int": "int", "unsigned": "unsigned", "unsigned int": "unsigned", "signed": "int"}


@dataclass(frozen=True)
class Select:
    """The first `first` positions of a stable argsort `perm` over its last dimension."""
    loop: c_ast.For                    # the network's top-level host loop
    init: int                          # Network.loops index of `P[..][q] = q`
    steps: tuple[int, int]             # Network.loops indices of the network's two exchanges
    perm: str                          # P
    rows: tuple[str, ...]              # the row loops' variables (P's leading subscripts)
    los: tuple[c_ast.Node, ...]        # their starts
    counts: tuple[c_ast.Node, ...]     # their counts
    length: c_ast.Node                 # C: the sorted dimension 0..C
    first: c_ast.Node                  # K: positions read after the sort are below it
    key: c_ast.Node                    # KEY, the sorted index as `poly_q`
    key_type: str                      # float, int or unsigned
    descending: bool
    threads: int = THREADS
    most: int = MOST


def selects_of(net) -> tuple[Select, ...]:
    by_loop = {id(ex.loop): n for n, ex in enumerate(net.loops)}
    out = []
    for at, top in enumerate(net.body):
        if isinstance(top, c_ast.For) and (s := _select(net, at, top, by_loop)) is not None:
            out.append(s)
    return tuple(out)


def _select(net, at: int, top: c_ast.For, by_loop: dict) -> Select | None:
    found = sorting_of(net, at, top, by_loop)
    if found is None or not found.argsort or found.array not in net.local_arrays:
        return None
    first = _first(net, at, found.array, by_loop)
    if first is None:
        return None
    return Select(top, found.init, found.steps, found.array, found.rows, found.los, found.counts, found.length,
                  first, found.key, found.key_type, found.descending, THREADS, MOST)


@dataclass(frozen=True)
class Sorting:
    """A top-level host loop of net.body that runs a compiled sort's network (select.py's class,
    and the value sort: `Y[..][q] = KEY` swapped by `if (Y[..][j] < Y[..][q])`)."""
    loop: c_ast.For = field(repr=False)
    init: int                          # Network.loops index of the fill (`P[..][q] = q` or `Y[..][q] = KEY`)
    steps: tuple[int, int]             # Network.loops indices of the network's two exchanges
    array: str                         # P or Y
    rows: tuple[str, ...]
    los: tuple[c_ast.Node, ...]
    counts: tuple[c_ast.Node, ...]
    length: c_ast.Node
    key: c_ast.Node                    # KEY, the sorted index as `poly_q`
    key_type: str                      # float, int or unsigned
    descending: bool
    argsort: bool                      # P holds indices (ties by the smaller), else Y the keys


def sorting_of(net, at: int, top: c_ast.For, by_loop: dict) -> Sorting | None:
    """The sort `top` (net.body[at]) runs with its fill, or None: a 32-bit key only."""
    outer = _level(top, lambda v: "2", lambda v: f"{v} *= 2")
    if outer is None or not (isinstance(top.cond, c_ast.BinaryOp) and top.cond.op == "<"
                             and cprint(top.cond.left).strip("()") == f"{outer} / 2"):
        return None
    length = top.cond.right
    items = block_items(top.stmt)
    if len(items) != 2 or id(items[0]) not in by_loop or not isinstance(items[1], c_ast.For):
        return None
    inner = items[1]
    step = _level(inner, lambda v: f"{outer} / 4", lambda v: f"{v} /= 2")
    if step is None or cprint(inner.cond) != f"{step} > 0" or \
            len(block_items(inner.stmt)) != 1 or id(block_items(inner.stmt)[0]) not in by_loop:
        return None
    n1, n2 = by_loop[id(items[0])], by_loop[id(block_items(inner.stmt)[0])]
    e1, e2 = net.loops[n1], net.loops[n2]
    if not (e1.partner and e2.partner and e1.bounded and e2.bounded and e1.vars == e2.vars
            and {v for v, _ in e1.host} <= {outer} and {v for v, _ in e2.host} <= {step}
            and cprint(e1.distance) == f"{outer} - 1" and cprint(e2.distance) == step):
        return None
    if [cprint(x) for x in block_items(e1.body)[1:]] != [cprint(x) for x in block_items(e2.body)[1:]] or \
            [cprint(x) for x in (*e1.los, *e1.counts)] != [cprint(x) for x in (*e2.los, *e2.counts)]:
        return None
    q, rows = e1.vars[-1], e1.vars[:-1]
    if cprint(e1.los[-1]) != "0" or cprint(e1.counts[-1].left) != cprint(length) or \
            any(isinstance(x, c_ast.ID) and x.name in rows for x in walk(length)):
        return None
    body = block_items(e1.body)
    got = _comparator(body, q, e1.partner, e1.vars) or _values(body, q, e1.partner, e1.vars)
    if got is None:
        return None
    array, key, ktype, descending = got
    argsort = key is not None
    before = [x for x in net.body[:at] if not isinstance(x, c_ast.Decl)]
    last = max((k for k, x in enumerate(before) if _touches(x, array)), default=None)
    if last is None or id(before[last]) not in by_loop or not argsort and last != len(before) - 1:
        return None                    # a value sort reads its keys at the fill: nothing may come between
    n0 = by_loop[id(before[last])]
    e0 = net.loops[n0]
    fill = block_items(e0.body)
    if e0.vars != e1.vars or [cprint(x) for x in (*e0.los, *e0.counts)] != \
            [cprint(x) for x in (*e1.los, *e1.counts)] or len(fill) != 1 or \
            not (isinstance(fill[0], c_ast.Assignment) and fill[0].op == "=") or \
            cprint(fill[0].lvalue) != cprint(_ref(array, e1.vars)):
        return None
    if argsort:
        if cprint(fill[0].rvalue) != q:
            return None
    elif e0.host or _touches(fill[0].rvalue, array):
        return None
    else:
        key = renamed(fill[0].rvalue, q, "poly_q")
    if _KEYS.get(ktype) is None or _touches(key, array):
        return None
    return Sorting(top, n0, (n1, n2), array, rows, e1.los[:-1], e1.counts[:-1], length, key, _KEYS[ktype],
                   descending, argsort)


def _level(f: c_ast.For, start, step) -> str | None:
    """v of a host loop `for (v = start(v); ...; step(v))`, or None."""
    init = f.init
    if not (isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID)) or \
            f.cond is None or f.next is None:
        return None
    v = init.lvalue.name
    return v if cprint(init.rvalue).strip("()") == start(v) and cprint(f.next) == step(v) else None


def _comparator(body, q: str, j: str, vars_) -> tuple | None:
    """(P, KEY with the index as poly_q, the key's C type, descending) of the network's body
    `int j = q ^ E; if (j > q && j < C) { int a = P[..][q]; int b = P[..][j]; T x = KEY(a);
    T y = KEY(b); if (y > x || (y == x && b < a)) { P[..][q] = b; P[..][j] = a; } }`, or None."""
    if len(body) != 2 or not isinstance(body[1], c_ast.If) or body[1].iffalse is not None:
        return None
    inner = block_items(body[1].iftrue)
    if len(inner) != 5 or not all(isinstance(d, c_ast.Decl) and d.init is not None for d in inner[:4]) or \
            not isinstance(inner[4], c_ast.If) or inner[4].iffalse is not None:
        return None
    da, db, dx, dy, swap = inner
    a, b, x, y = da.name, db.name, dx.name, dy.name
    if not isinstance(da.init, c_ast.ArrayRef):
        return None
    perm = array_name(da.init)
    if cprint(da.init) != cprint(_ref(perm, vars_)) or cprint(db.init) != cprint(_ref(perm, (*vars_[:-1], j))):
        return None
    ktype = " ".join(dx.type.type.names) if isinstance(dx.type, c_ast.TypeDecl) else None
    if ktype is None or cprint(renamed(dx.init, a, b)) != cprint(dy.init) or \
            cprint(dx.init) == cprint(dy.init):
        return None
    order = {cprint(parse_expr(f"{y} {op} {x} || ({y} == {x} && {b} < {a})")): op == ">" for op in (">", "<")}
    descending = order.get(cprint(swap.cond))
    exchange = [cprint(s) for s in block_items(swap.iftrue)]
    want = [cprint(c_ast.Assignment("=", _ref(perm, vars_), c_ast.ID(b))),
            cprint(c_ast.Assignment("=", _ref(perm, (*vars_[:-1], j)), c_ast.ID(a)))]
    if descending is None or exchange != want:
        return None
    reads = {i.name for i in walk(dx.init) if isinstance(i, c_ast.ID)}
    if q in reads or j in reads or b in reads:
        return None
    return perm, renamed(dx.init, a, "poly_q"), ktype, descending


def _values(body, q: str, j: str, vars_) -> tuple | None:
    """(Y, None, the keys' C type, descending) of a value sort's body `int j = q ^ E; if (j > q &&
    j < C) { if (Y[..][j] < Y[..][q]) { T t = Y[..][q]; Y[..][q] = Y[..][j]; Y[..][j] = t; } }`
    (`>`: descending), or None."""
    if len(body) != 2 or not isinstance(body[1], c_ast.If) or body[1].iffalse is not None:
        return None
    inner = block_items(body[1].iftrue)
    if len(inner) != 1 or not isinstance(inner[0], c_ast.If) or inner[0].iffalse is not None or \
            not isinstance(inner[0].cond, c_ast.BinaryOp) or not isinstance(inner[0].cond.left, c_ast.ArrayRef):
        return None
    y = array_name(inner[0].cond.left)
    here, there = _ref(y, vars_), _ref(y, (*vars_[:-1], j))
    order = {cprint(parse_expr(f"{cprint(there)} {op} {cprint(here)}")): op == ">" for op in (">", "<")}
    descending = order.get(cprint(inner[0].cond))
    swap = block_items(inner[0].iftrue)
    if descending is None or len(swap) != 3 or not isinstance(swap[0], c_ast.Decl) or \
            not isinstance(swap[0].type, c_ast.TypeDecl) or swap[0].init is None:
        return None
    t = swap[0].name
    want = [cprint(here), cprint(c_ast.Assignment("=", here, there)), cprint(c_ast.Assignment("=", there, c_ast.ID(t)))]
    if [cprint(swap[0].init), cprint(swap[1]), cprint(swap[2])] != want:
        return None
    return y, None, " ".join(swap[0].type.type.names), descending


def _first(net, at: int, perm: str, by_loop: dict) -> c_ast.Node | None:
    """K when every item after the network touching P is an exchange that only reads it, at
    `P[..][j]` with j its loop over 0..K (one K for all), else None."""
    first = None
    for x in net.body[at + 1:]:
        if not _touches(x, perm):
            continue
        if id(x) not in by_loop:
            return None
        ex = net.loops[by_loop[id(x)]]
        if ex.single is not None or ex.partner or any(w == perm for w, _ in ex.writes):
            return None
        every = [r for r in walk(ex.body) if isinstance(r, c_ast.ArrayRef)]
        parts = {id(r.name) for r in every}          # X[r] of X[r][i]: part of a reference
        refs = [r for r in every if id(r) not in parts and array_name(r) == perm]
        names = [i for i in walk(ex.body) if isinstance(i, c_ast.ID) and i.name == perm]
        if len(refs) != len(names):
            return None
        for r in refs:
            subs = name_subscripts(r)
            if subs is None or subs[-1] not in ex.vars:
                return None
            d = ex.vars.index(subs[-1])
            n = ex.counts[d]
            k = cprint(n.left) if isinstance(n, c_ast.BinaryOp) and n.op == "-" else None
            if cprint(ex.los[d]) != "0" or k is None or first is not None and cprint(first) != k:
                return None
            first = ex.counts[d].left
    return first


def _ref(name: str, subs) -> c_ast.ArrayRef:
    node = c_ast.ID(name)
    for s in subs:
        node = c_ast.ArrayRef(node, c_ast.ID(s))
    return node



def _touches(node, name: str) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in walk(node))


# -- printing ------------------------------------------------------------------------------

def declarations(s: Select, t: int, name: str, r, params: str) -> list[str]:
    """The order's key as an unsigned integer and the row block's kernel."""
    kname, ty, warps, threads = f"{name}_select{t}", s.key_type, s.threads // 32, s.threads
    rank = ["/* the sort's order as unsigned integers: the larger, the earlier */",
            *key_function(f"{kname}_key", ty, not s.descending)]
    decode = []
    for d in reversed(range(len(s.rows))):
        at = "poly_row" if d == 0 else f"poly_row % ({cprint(s.counts[d])})"
        decode.append(f"  const int {s.rows[d]} = {cprint(s.los[d])} + (int)({at});")
        if d:
            decode.append(f"  poly_row /= ({cprint(s.counts[d])});")
    key = cprint(r.node(s.key, {}))
    store = cprint(r.node(c_ast.Assignment("=", _ref(s.perm, (*s.rows, "poly_p")), c_ast.ArrayRef(
        c_ast.ID("poly_i"), c_ast.ID("poly_p"))), {}))
    return rank + [
        f"/* {kname}: {describe(s, t, name)} */",
        f"__global__ void __launch_bounds__({threads}) {kname}({params})", "{",
        "  __shared__ unsigned poly_hist[256];",
        f"  __shared__ unsigned poly_u[{s.most}];",
        f"  __shared__ int poly_i[{s.most}];",
        f"  __shared__ int poly_warp[{warps}];",
        "  __shared__ unsigned poly_prefix, poly_mask;",
        "  __shared__ int poly_want, poly_above, poly_done;",
        "  long long poly_row = blockIdx.x;", *decode,
        f"  const int poly_c = {cprint(s.length)};",
        f"  const int poly_k = min((int)({cprint(s.first)}), poly_c);",
        "  if (poly_k <= 0)   /* nothing is read */",
        "    return;",
        "  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;",
        "  if (poly_t == 0) {", "    poly_prefix = 0u;", "    poly_mask = 0u;", "    poly_want = poly_k;",
        "    poly_above = 0;", "    poly_done = 0;", "  }",
        "  for (int poly_shift = 24; poly_shift >= 0; poly_shift -= 8) {   /* the K-th key, a digit at a time */",
        f"    for (int poly_d = poly_t; poly_d < 256; poly_d += {threads})",
        "      poly_hist[poly_d] = 0u;",
        "    __syncthreads();",
        "    const unsigned poly_pre = poly_prefix, poly_msk = poly_mask;",
        "    const int poly_need = poly_want;",
        f"    for (int poly_base = 0; poly_base < poly_c; poly_base += {threads}) {{   /* whole warps count */",
        "      const int poly_q = poly_base + poly_t;",
        "      unsigned poly_digit = 256u;   /* none */",
        "      if (poly_q < poly_c) {",
        f"        const unsigned poly_v = {kname}_key({key});",
        "        if ((poly_v & poly_msk) == poly_pre)",
        "          poly_digit = (poly_v >> poly_shift) & 255u;",
        "      }",
        "      const unsigned poly_peers = __match_any_sync(0xffffffffu, poly_digit);   /* one add per digit */",
        "      if (poly_digit < 256u && poly_lane == __ffs(poly_peers) - 1)",
        "        atomicAdd(&poly_hist[poly_digit], (unsigned)__popc(poly_peers));",
        "    }",
        "    __syncthreads();",
        "    if (poly_t < 32) {   /* lane l holds digits 255 - 8 l down to 248 - 8 l */",
        "      unsigned poly_own = 0u;",
        "      for (int poly_m = 0; poly_m < 8; poly_m++)",
        "        poly_own += poly_hist[255 - 8 * poly_lane - poly_m];",
        "      unsigned poly_upto = poly_own;",
        "      for (int poly_d = 1; poly_d < 32; poly_d *= 2) {",
        "        const unsigned poly_y = __shfl_up_sync(0xffffffffu, poly_upto, poly_d);",
        "        if (poly_lane >= poly_d)",
        "          poly_upto += poly_y;",
        "      }",
        "      unsigned poly_cum = poly_upto - poly_own;",
        "      if (poly_cum < (unsigned)poly_need && poly_upto >= (unsigned)poly_need) {",
        "        for (int poly_m = 0; poly_m < 8; poly_m++) {",
        "          const int poly_digit = 255 - 8 * poly_lane - poly_m;",
        "          if (poly_cum + poly_hist[poly_digit] >= (unsigned)poly_need) {",
        "            poly_prefix = poly_pre | ((unsigned)poly_digit << poly_shift);",
        "            poly_mask = poly_msk | (255u << poly_shift);",
        "            poly_want = poly_need - (int)poly_cum;",
        "            poly_done = poly_hist[poly_digit] == (unsigned)(poly_need - (int)poly_cum);   /* all of them */",
        "            break;",
        "          }",
        "          poly_cum += poly_hist[poly_digit];",
        "        }",
        "      }",
        "    }",
        "    __syncthreads();",
        "    if (poly_done)   /* every key under the prefix is kept: the lower digits decide nothing */",
        "      break;",
        "  }",
        "  const unsigned poly_kth = poly_prefix, poly_top = poly_mask;   /* the K-th key's known digits */",
        "  const int poly_ties = poly_want, poly_past = poly_k - poly_want;",
        "  int poly_seen = 0;   /* keys equal to the K-th before this chunk */",
        f"  for (int poly_base = 0; poly_base < poly_c; poly_base += {threads}) {{   /* the K keys, ties by index */",
        "    const int poly_q = poly_base + poly_t;",
        "    unsigned poly_v = 0u;",
        "    if (poly_q < poly_c) {",
        f"      poly_v = {kname}_key({key});",
        "      if ((poly_v & poly_top) > poly_kth) {",
        "        const int poly_at = atomicAdd(&poly_above, 1);",
        "        poly_u[poly_at] = poly_v;",
        "        poly_i[poly_at] = poly_q;",
        "      }",
        "    }",
        "    const bool poly_tie = poly_q < poly_c && (poly_v & poly_top) == poly_kth;",
        "    const unsigned poly_ballot = __ballot_sync(0xffffffffu, poly_tie);",
        "    if (poly_lane == 0)",
        "      poly_warp[poly_t / 32] = __popc(poly_ballot);",
        "    __syncthreads();",
        "    int poly_rank = poly_seen + __popc(poly_ballot & ((1u << poly_lane) - 1u));",
        f"    for (int poly_w = 0; poly_w < {warps}; poly_w++) {{",
        "      if (poly_w < poly_t / 32)",
        "        poly_rank += poly_warp[poly_w];",
        "      poly_seen += poly_warp[poly_w];",
        "    }",
        "    if (poly_tie && poly_rank < poly_ties) {",
        "      poly_u[poly_past + poly_rank] = poly_v;",
        "      poly_i[poly_past + poly_rank] = poly_q;",
        "    }",
        "    __syncthreads();",
        "  }",
        "  int poly_size = 1;",
        "  while (poly_size < poly_k)",
        "    poly_size *= 2;",
        f"  for (int poly_p = poly_k + poly_t; poly_p < poly_size; poly_p += {threads}) {{   /* after every key */",
        "    poly_u[poly_p] = 0u;",
        "    poly_i[poly_p] = 0x7fffffff;",
        "  }",
        "  __syncthreads();",
        "  for (int poly_run = 2; poly_run <= poly_size; poly_run *= 2)   /* bitonic sort by (key, index) */",
        "    for (int poly_d = poly_run / 2; poly_d > 0; poly_d /= 2) {",
        f"      for (int poly_p = poly_t; poly_p < poly_size; poly_p += {threads}) {{",
        "        const int poly_o = poly_p ^ poly_d;",
        "        if (poly_o > poly_p) {",
        "          const bool poly_o_first = poly_u[poly_o] > poly_u[poly_p] ||",
        "                                    (poly_u[poly_o] == poly_u[poly_p] && poly_i[poly_o] < poly_i[poly_p]);",
        "          if (poly_o_first == ((poly_p & poly_run) == 0)) {",
        "            const unsigned poly_tu = poly_u[poly_p];",
        "            const int poly_ti = poly_i[poly_p];",
        "            poly_u[poly_p] = poly_u[poly_o];",
        "            poly_i[poly_p] = poly_i[poly_o];",
        "            poly_u[poly_o] = poly_tu;",
        "            poly_i[poly_o] = poly_ti;",
        "          }",
        "        }",
        "      }",
        "      __syncthreads();",
        "    }",
        f"  for (int poly_p = poly_t; poly_p < poly_k; poly_p += {threads})",
        f"    {store};",
        "}", ""]


def key_function(fname: str, ty: str, flip: bool, exact: bool = False) -> list[str]:
    """`unsigned fname(ty v)`: 32-bit keys as unsigned integers in ascending order (floats by their
    bits, ints with the sign bit flipped), all bits inverted when `flip`.  -0.0 counts as 0.0 (as C
    compares them) unless `exact`, where every float's bits come back (`value_function`)."""
    inv = "~" if flip else ""
    if ty == "float":
        zero = "v" if exact else "v == 0.0f ? 0.0f : v"
        body = [f"  const unsigned u = __float_as_uint({zero});" + ("" if exact else "   /* -0.0 == 0.0, as C compares */"),
                f"  return {inv}((u & 0x80000000u) ? ~u : u | 0x80000000u);"]
    elif ty == "int":
        body = [f"  return {inv}((unsigned)v ^ 0x80000000u);"]
    else:
        body = [f"  return {inv}v;"]
    return [f"__device__ __forceinline__ unsigned {fname}({ty} v)", "{", *body, "}", ""]


def site(s: Select, t: int, name: str, args: str, network: list[str], flush: list[str]) -> list[str]:
    """Host lines in place of the network's loop: the selection when K fits, else the network."""
    rows = " * ".join(f"(long long)({cprint(c)})" for c in s.counts) or "1LL"
    return [f"if ({_fits(s)}) {{   /* the first {cprint(s.first)} only: a selection per row */", *flush,
            f"  const long long poly_rows = {rows};",
            f"  if (poly_rows > 0 && ({cprint(s.length)}) > 0)",
            f"    {name}_select{t}<<<(unsigned)poly_rows, {s.threads}>>>({args});",
            "} else {", *("  " + line for line in network), "}"]


def skipped(s: Select, lines: list[str]) -> list[str]:
    """The permutation's fill, run only where the network runs."""
    return [f"if (!({_fits(s)})) {{", *("  " + line for line in lines), "}"]


def _fits(s: Select) -> str:
    return f"({cprint(s.first)}) <= {s.most}"


def describe(s: Select, t: int, name: str) -> str:
    order = "descending" if s.descending else "ascending"
    return (f"the first {cprint(s.first)} of the stable {order} argsort of {cprint(s.key)} for poly_q < "
            f"{cprint(s.length)} into {s.perm}, a block per row: a radix select of the K-th key, the keys "
            f"past it and its ties of smallest index, a bitonic sort of those by (key, index); "
            f"past {s.most} the network runs.")
