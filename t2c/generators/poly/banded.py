"""Linear recurrences of order W as chunked transfer maps: chunks, one block across, chunks apply.

Takes a one-thread launch of `s = B(i); for (d = 1; d <= W && ...; d++) s -= C(i, d) * X[i - d];
X[i] = s` (a banded solve, an IIR filter) or `X[i] = E`, E affine in X[i - c], c <= W (a
biquad), B and C reading no X and no other local. Gives `NAME_transfer` (each chunk's affine
map of the last W values), `NAME_across` (one block carries the window across chunks),
`NAME_apply` (each chunk reruns from its window), and `NAME_serial` for W past
`scans.banded.order`. Refuses (None) anything else. The maps reassociate the recurrence in a
fixed order. docs/poly.md, "Order-W recurrences".
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir.csyntax import cprint, walk
from .ctext import WORD, extent_text, max_expr, min_expr, names_used
from .scan import ONE, REAL_TYPES, Form, array_ref

THREADS = 128                     # threads per block of the per-chunk kernels
ACROSS = 64                       # NAME_across's threads: groups of consecutive chunks
_TERM = re.compile(r"^\(?\s*(\w+)\s*(<=|<)\s*(.+?)\s*\)?$")


@dataclass(frozen=True)
class Banded:
    """A launch's order-W recurrence (see the module docstring), in one of two forms."""
    loop: Loop                  # over i
    store: Stmt                 # the statement that writes X[..., i]
    array: str                  # X
    dtype: str                  # X's element type
    acc: str                    # the type of a value before it is stored (s's, or X's)
    order: str                  # W, C text
    prev: c_ast.Node            # X[..., i - d], d named `dist`
    dist: str                   # d
    reads_before: str           # at i = lo, the condition on d under which X[lo - d] is read
    # the inner-loop form: s = B(i); for (d ...) s op= C(i, d) * X[..., i - d]; X[..., i] = s
    inner: Loop | None = None
    first: Stmt | None = None
    update: Stmt | None = None
    b: c_ast.Node | None = None
    op: str = ""
    term: c_ast.Node | None = None
    # the explicit form: X[..., i] = E, E = B(i) + sum over c of A_c(i) * X[..., i - c]
    linear: tuple = ()          # (c, A_c): A_c a C node or ONE


def banded_of(an: Analysis, storage: dict, launch) -> Banded | None:
    """The launch as an order-W recurrence, or None when it is not exactly that form."""
    body, prog = launch.body, an.program
    if launch.grid or launch.host_loops or len(body) != 1 or not isinstance(body[0], Loop):
        return None
    loop = body[0]
    known = set(prog.kernel.params) | {loop.var, "int", "long"}
    if loop.step != 1 or loop.derived or loop.time or not set(WORD.findall(f"{loop.init} {loop.cond}")) <= known:
        return None                                  # the kernels print its header as it is
    if any(n.at or n.bind or n.stmt.conditional or n.stmt.atomic or not isinstance(n.stmt.node, c_ast.Assignment)
           for n in loop.statements()):
        return None
    reals = {a.name for a in prog.kernel.arrays if a.dtype in REAL_TYPES} | \
            {x.name for x in prog.kernel.scalars if x.dtype in REAL_TYPES}
    if len(loop.body) == 1 and isinstance(loop.body[0], Stmt):
        return _explicit(an, loop, loop.body[0], reals)
    if len(loop.body) == 3 and isinstance(loop.body[1], Loop):
        return _inner(an, storage, loop, reals)
    return None


def _target(an: Analysis, store: Stmt, i: str):
    """(X, its subscripts, its element type) of `X[..., i] = ...` over a floating X whose other
    subscripts are free of i, else None."""
    ref = array_ref(store.stmt.node.lvalue)
    arr = next((a for a in an.program.kernel.arrays if ref and a.name == ref[0]), None)
    if store.stmt.node.op != "=" or arr is None or arr.dtype not in REAL_TYPES or ref[1][-1] != i or \
            any(i in WORD.findall(x) for x in ref[1][:-1]):
        return None
    return ref[0], ref[1], arr.dtype


def _inner(an: Analysis, storage: dict, loop: Loop, reals: set[str]) -> Banded | None:
    """s = B(i); for (d = 1; d <= W ...; d++) s op= C(i, d) * X[..., i - d]; X[..., i] = s."""
    prog = an.program
    first, inner, store = loop.body
    if not (isinstance(first, Stmt) and isinstance(store, Stmt)) or inner.step != 1 or inner.derived or \
            inner.time or len(inner.body) != 1 or not isinstance(inner.body[0], Stmt) or inner.lower != "1":
        return None
    update, i, d = inner.body[0], loop.var, inner.var
    target, s_node = _target(an, store, i), store.stmt.node.rvalue
    if target is None or not isinstance(s_node, c_ast.ID) or any(d in WORD.findall(x) for x in target[1]):
        return None
    (name, subs, dtype), s = target, s_node.name
    local = prog.locals.get(s)
    if local is None or local.shape or local.dtype not in REAL_TYPES:
        return None
    for n in (first, update, store):                 # s lives only in these statements
        web = an.web_of.get((n.stmt.name, s))
        if web is None or storage.get(web) != "local" or \
                not set(an.webs[web].statements) <= {first.stmt.name, update.stmt.name, store.stmt.name}:
            return None
    # s = B(i): no X, no other local
    f = first.stmt.node
    if f.op != "=" or not (isinstance(f.lvalue, c_ast.ID) and f.lvalue.name == s) or \
            _reads(f.rvalue, {name, *prog.locals}):
        return None
    # s op= C(i, d) * X[..., i - d]: linear in X[i - d], no constant part
    u = update.stmt.node
    if not (isinstance(u.lvalue, c_ast.ID) and u.lvalue.name == s):
        return None
    if u.op in ("+=", "-="):
        op, term = u.op[0], u.rvalue
    elif u.op == "=" and isinstance(u.rvalue, c_ast.BinaryOp) and u.rvalue.op in ("+", "-") and \
            isinstance(u.rvalue.left, c_ast.ID) and u.rvalue.left.name == s:
        op, term = u.rvalue.op, u.rvalue.right
    else:
        return None
    if _reads(term, set(prog.locals)):
        return None
    form = Form(name, subs, (*subs[:-1], f"{i}-{d}"), False, dtype, reals)
    lin = form.linear(term)
    order = _order(inner, i, set(prog.kernel.params))
    if lin is None or lin[0] is None or lin[1] is not None or order is None:
        return None
    return Banded(loop, store, name, dtype, local.dtype, order, form.prev, d, inner.cond,
                  inner, first, update, f.rvalue, op, term)


def _explicit(an: Analysis, loop: Loop, store: Stmt, reals: set[str]) -> Banded | None:
    """X[..., i] = E, E affine in X[..., i - c] for integers c up to W >= 2 (W = 1 is scan.py's):
    each term's coefficient, found with the other terms' X renamed, reads no X; E reads no local."""
    i, e = loop.var, store.stmt.node.rvalue
    target = _target(an, store, i)
    if target is None or _reads(e, set(an.program.locals)):
        return None
    name, subs, dtype = target
    dists = {}                                        # c -> its references' ids in e
    for x in walk(e):
        ref = array_ref(x)
        m = re.fullmatch(rf"{i}-(\d+)", ref[1][-1]) if ref and ref[0] == name and len(ref[1]) == len(subs) else None
        if m and ref[1][:-1] == subs[:-1] and int(m.group(1)) >= 1:
            dists.setdefault(int(m.group(1)), []).append(x)
    if not dists or max(dists) < 2:
        return None
    linear = []
    for c in sorted(dists):
        others = [x for k, xs in dists.items() if k != c for x in xs]
        lin = Form(name, subs, (*subs[:-1], f"{i}-{c}"), False, dtype, reals).linear(_renamed(e, others))
        if lin is None or lin[0] is None or lin[0] is not ONE and _reads(lin[0], {_OTHER}):
            return None
        linear.append((c, lin[0]))
    prev = copy.deepcopy(store.stmt.node.lvalue)
    prev.subscript = c_ast.BinaryOp("-", c_ast.ID(i), c_ast.ID("poly_d"))
    return Banded(loop, store, name, dtype, dtype, str(max(dists)), prev, "poly_d", "1", linear=tuple(linear))


_OTHER = "poly_other"             # another term's X while one term's coefficient is found


def _renamed(e, refs: list):
    """A copy of e whose references among refs (by identity) read _OTHER instead of X."""
    at = [k for k, x in enumerate(walk(e)) if any(x is r for r in refs)]
    e = copy.deepcopy(e)
    for x in [x for k, x in enumerate(walk(e)) if k in at]:
        while isinstance(x.name, c_ast.ArrayRef):
            x = x.name
        x.name = c_ast.ID(_OTHER)
    return e


def _reads(e, names: set[str]) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name in names for x in walk(e))


def _order(inner: Loop, i: str, params: set[str]) -> str | None:
    """W of an inner condition `d <= W && ...`: one term bounds d by W (a parameter or an
    integer), every other by i itself (the band's start).  Such terms only tighten as d grows
    and hold for d = i - lo + k at every i once they hold at i = lo: the window before the
    loop is read at i = lo or not at all."""
    d, order = inner.var, None
    for t in inner.cond.split("&&"):
        m = _TERM.match(t.strip())
        if not m or m.group(1) != d:
            return None
        bound = m.group(3).strip("() ")
        if bound == i and m.group(2) == "<=":
            continue
        if order is not None or not (bound.isdigit() or bound in params):
            return None
        order = bound if m.group(2) == "<=" else f"({bound} - 1)"
    return order


# -- printing ------------------------------------------------------------------------------

def _start(bd: Banded) -> str:
    start = bd.loop.init.split("=", 1)[1].strip()
    return start if WORD.fullmatch(start) or start.isdigit() else f"({start})"


def _step(p, bd: Banded, homogeneous: bool, window: bool, store: list[str], pad: str) -> list[str]:
    """One iteration i (from poly_o): poly_v, X[..., i]'s value, read from the window
    (`poly_win[d - 1]`) or from X itself, without B when homogeneous; then `store`."""
    names = p.names_for((bd.update or bd.store).stmt.name)
    text = lambda e: cprint(p.r.node(_windowed(e, bd) if window else e, names))
    head = [f"{pad}const int {bd.loop.var} = {_start(bd)} + poly_o;", f"{pad}if (!({bd.loop.cond}))", f"{pad}  break;"]
    if bd.inner is None and homogeneous:
        parts = [(f"({text(a)}) * " if a is not ONE else "") + f"poly_win[{c - 1}]" for c, a in bd.linear]
        value = [f"{pad}{bd.acc} poly_v = {' + '.join(parts)};"]
    elif bd.inner is None:
        value = [f"{pad}{bd.acc} poly_v = {text(bd.store.stmt.node.rvalue)};"]
    else:
        b = "0" if homogeneous else cprint(p.r.node(bd.b, p.names_for(bd.first.stmt.name)))
        value = [f"{pad}{bd.acc} poly_v = {b};", f"{pad}for (int {bd.dist} = 1; {bd.inner.cond}; {bd.dist}++)",
                 f"{pad}  poly_v {bd.op}= {text(bd.term)};"]
    return [*head, *value, *(pad + x for x in store)]


def _windowed(e, bd: Banded):
    """A copy of e with each X[..., i - t] (t the distance's name or an integer) read from the
    window, `poly_win[t - 1]`."""
    e = copy.deepcopy(e)
    lead, i = array_ref(bd.store.stmt.node.lvalue)[1][:-1], bd.loop.var

    def go(n):
        ref = array_ref(n) if isinstance(n, c_ast.ArrayRef) else None
        m = re.fullmatch(rf"{i}-(\w+)", ref[1][-1]) if ref and ref[0] == bd.array and ref[1][:-1] == lead else None
        if m:
            t = m.group(1)
            return c_ast.ID(f"poly_win[{int(t) - 1 if t.isdigit() else t + ' - 1'}]")
        for attr in n.__slots__:
            child = getattr(n, attr, None)
            if isinstance(child, c_ast.Node):
                setattr(n, attr, go(child))
        return n
    return go(e)


def _across(p, bd: Banded, name: str) -> list[str]:
    """NAME_across's body: one block, each thread a group of consecutive chunks (see the module
    docstring); P, q a group's map, z (poly_q) a window."""
    t, wmax = bd.dtype, p.opt.scans.banded.order
    d, prev = bd.dist, cprint(p.r.node(bd.prev, p.names_for(bd.store.stmt.name)))
    m = lambda c, k, j: f"{name}_m[({c} * {wmax} + {k}) * {wmax} + {j}]"
    at = lambda buf, c, k: f"{name}_{buf}[{c} * {wmax} + {k}]"
    rows = lambda pad, body: [f"{pad}for (int poly_k = 0; poly_k < poly_w; poly_k++) {{", *(pad + "  " + x for x in body),
                              f"{pad}}}"]
    dot = lambda out, first, row, col, pad: [f"{pad}{t} poly_a = {first};",   # out = first + sum_j row(j) col(j)
                                             f"{pad}for (int poly_j = 0; poly_j < poly_w; poly_j++)",
                                             f"{pad}  poly_a += {row('poly_j')} * {col('poly_j')};", f"{pad}{out} = poly_a;"]
    return [f"  const int poly_w = {bd.order};", f"  const int poly_g = (int)threadIdx.x;",
              f"  const int poly_per = (poly_chunks + {ACROSS - 1}) / {ACROSS};",
              "  const int poly_lo = poly_g * poly_per < poly_chunks ? poly_g * poly_per : poly_chunks;",
              "  const int poly_hi = poly_lo + poly_per < poly_chunks ? poly_lo + poly_per : poly_chunks;",
              f"  {t} poly_p[{wmax * wmax}], poly_q[{wmax}], poly_t[{wmax * wmax}], poly_u[{wmax}];",
              "  /* 1. each thread composes its group's maps in order: (P, q) = (M_c P, M_c q + v_c) */",
              f"  for (int poly_k = 0; poly_k < poly_w * {wmax}; poly_k++)",
              f"    poly_p[poly_k] = poly_k / {wmax} == poly_k % {wmax} ? ({t})1 : ({t})0;",
              "  for (int poly_k = 0; poly_k < poly_w; poly_k++)", f"    poly_q[poly_k] = ({t})0;",
              "  for (int poly_c = poly_lo; poly_c < poly_hi; poly_c++) {",
              *rows("    ", ["for (int poly_i = 0; poly_i < poly_w; poly_i++) {",
                             *dot(f"poly_t[poly_k * {wmax} + poly_i]", f"({t})0", lambda j: m("poly_c", "poly_k", j),
                                  lambda j: f"poly_p[{j} * {wmax} + poly_i]", "  "), "}",
                             *dot("poly_u[poly_k]", at("v", "poly_c", "poly_k"),
                                  lambda j: m("poly_c", "poly_k", j), lambda j: f"poly_q[{j}]", "")]),
              f"    for (int poly_k = 0; poly_k < poly_w * {wmax}; poly_k++)",
              f"      poly_p[poly_k] = poly_t[poly_k];", "    for (int poly_k = 0; poly_k < poly_w; poly_k++)",
              "      poly_q[poly_k] = poly_u[poly_k];", "  }",
              f"  for (int poly_k = 0; poly_k < poly_w * {wmax}; poly_k++)",
              f"    {name}_gm[poly_g * {wmax * wmax} + poly_k] = poly_p[poly_k];",
              "  for (int poly_k = 0; poly_k < poly_w; poly_k++)", f"    {at('gv', 'poly_g', 'poly_k')} = poly_q[poly_k];",
              "  __syncthreads();",
              "  /* 2. thread 0: the window before the loop (X where the recurrence reads it), then group by group */",
              "  if (poly_g == 0) {", f"    const int {bd.loop.var} = {_start(bd)};",
              *rows("    ", [f"const int {d} = poly_k + 1;", f"poly_q[poly_k] = {prev};" if bd.reads_before == "1" else
                                 f"poly_q[poly_k] = ({bd.reads_before}) ? {prev} : ({t})0;"]),
              f"    for (int poly_h = 0; poly_h < {ACROSS}; poly_h++) {{",
              *rows("      ", [f"{at('gz', 'poly_h', 'poly_k')} = poly_q[poly_k];",
                               *dot("poly_t[poly_k]", at("gv", "poly_h", "poly_k"),
                                    lambda j: f"{name}_gm[poly_h * {wmax * wmax} + poly_k * {wmax} + {j}]",
                                    lambda j: f"poly_q[{j}]", "")]),
              "      for (int poly_k = 0; poly_k < poly_w; poly_k++)", "        poly_q[poly_k] = poly_t[poly_k];",
              "    }", "  }", "  __syncthreads();",
              "  /* 3. each thread carries its group's window through its chunks: z_{c+1} = M_c z_c + v_c */",
              "  for (int poly_k = 0; poly_k < poly_w; poly_k++)", f"    poly_q[poly_k] = {at('gz', 'poly_g', 'poly_k')};",
              "  for (int poly_c = poly_lo; poly_c < poly_hi; poly_c++) {",
              *rows("    ", [f"{at('state', 'poly_c', 'poly_k')} = poly_q[poly_k];",
                             *dot("poly_t[poly_k]", at("v", "poly_c", "poly_k"), lambda j: m("poly_c", "poly_k", j),
                                  lambda j: f"poly_q[{j}]", "")]),
              "    for (int poly_k = 0; poly_k < poly_w; poly_k++)", "      poly_q[poly_k] = poly_t[poly_k];", "  }"]


def kernels(p, launch, bd: Banded) -> tuple[str, list[str], str]:
    """The four kernels' source (p: the Printer), their arguments, and the `__device__` buffers."""
    name, t, wmax = launch.name, bd.dtype, p.opt.scans.banded.order
    cast = "" if t == bd.acc else f"({t})"
    target = cprint(p.r.node(bd.store.stmt.node.lvalue, p.names_for(bd.store.stmt.name)))
    shift = ["for (int poly_k = poly_w - 1; poly_k > 0; poly_k--)", "  poly_win[poly_k] = poly_win[poly_k - 1];",
             f"poly_win[0] = {cast}poly_v;"]
    chunk = ["  const int poly_c = (int)(blockIdx.x * blockDim.x + threadIdx.x);",
             "  if (poly_c >= poly_chunks)", "    return;", f"  const int poly_w = {bd.order};",
             "  const int poly_first = poly_c * poly_len;",
             "  const int poly_end = poly_count - poly_first < poly_len ? poly_count : poly_first + poly_len;",
             f"  {t} poly_win[{wmax}];   /* {bd.array}[i - 1], ..., {bd.array}[i - W] */"]
    transfer = [*chunk, "  for (int poly_r = 0; poly_r <= poly_w; poly_r++) {   /* 0: v; r: M's column r - 1 */",
                "    for (int poly_k = 0; poly_k < poly_w; poly_k++)",
                f"      poly_win[poly_k] = poly_k == poly_r - 1 ? ({t})1 : ({t})0;",
                "    if (poly_r == 0)",
                "      for (int poly_o = poly_first; poly_o < poly_end; poly_o++) {",
                *_step(p, bd, False, True, shift, "        "), "      }", "    else",
                "      for (int poly_o = poly_first; poly_o < poly_end; poly_o++) {",
                *_step(p, bd, True, True, shift, "        "), "      }",
                "    for (int poly_k = 0; poly_k < poly_w; poly_k++)", "      if (poly_r == 0)",
                f"        {name}_v[poly_c * {wmax} + poly_k] = poly_win[poly_k];", "      else",
                f"        {name}_m[(poly_c * {wmax} + poly_k) * {wmax} + poly_r - 1] = poly_win[poly_k];", "  }"]
    across = _across(p, bd, name)
    apply = [*chunk, "  for (int poly_k = 0; poly_k < poly_w; poly_k++)",
             f"    poly_win[poly_k] = {name}_state[poly_c * {wmax} + poly_k];",
             "  for (int poly_o = poly_first; poly_o < poly_end; poly_o++) {",
             *_step(p, bd, False, True, [f"{target} = {cast}poly_v;", *shift], "    "), "  }"]
    serial = ["  for (int poly_o = 0; poly_o < poly_count; poly_o++) {",
              *_step(p, bd, False, False, [f"{target} = {cast}poly_v;"], "    "), "  }"]
    args = p.kernel_args(launch, names_used("\n".join(transfer + across + apply + serial)))
    params = "".join(p.param_decl(x, launch) + ", " for x in args)
    head = "__global__ void"
    per_chunk = "int poly_count, int poly_len, int poly_chunks"
    src = [f"/* {describe(p, launch)} */",
           f"{head} __launch_bounds__({THREADS}) {name}_transfer({params}{per_chunk})", "{", *transfer, "}", "",
           f"{head} __launch_bounds__({ACROSS}) {name}_across({params}int poly_chunks)", "{", *across, "}", "",
           f"{head} __launch_bounds__({THREADS}) {name}_apply({params}{per_chunk})", "{", *apply, "}", "",
           f"{head} {name}_serial({params}int poly_count)   /* W above {wmax} */", "{", *serial, "}"]
    cap = p.opt.scans.banded.chunks
    decls = [f"__device__ {t} {name}_m[{cap * wmax * wmax}];   /* each chunk's M, row by row */",
             f"__device__ {t} {name}_v[{cap * wmax}];   /* each chunk's v */",
             f"__device__ {t} {name}_state[{cap * wmax}];   /* the window before each chunk */",
             f"__device__ {t} {name}_gm[{ACROSS * wmax * wmax}], {name}_gv[{ACROSS * wmax}];   /* each group's map */",
             f"__device__ {t} {name}_gz[{ACROSS * wmax}];   /* the window before each group */"]
    return "\n".join(src), args, "\n".join(decls)


def launch_code(p, launch, bd: Banded, args: list[str], indent: str) -> list[str]:
    """Host code: chunks of at least `scans.banded.chunk` elements, at most `scans.banded.chunks` of them;
    a W above `scans.banded.order` runs the loop on one thread."""
    (lows, highs), = p.an.model.box([bd.store.stmt.name], (bd.loop.var,), ())
    extent = extent_text(max_expr(highs), min_expr(lows)) if lows and highs else "0"
    call = "".join(a + ", " for a in args)
    cap, least = p.opt.scans.banded.chunks, p.opt.scans.banded.chunk
    line = lambda k, grid, threads, last: p.launch_line(f"{launch.name}_{k}", (grid, threads), f"{call}{last}", [])
    per_chunk = "poly_count, poly_len, poly_chunks"
    blocks = f"(poly_chunks + {THREADS - 1}) / {THREADS}"
    return [f"{indent}{{",
            f"{indent}  const int poly_count = {extent};   /* {bd.loop.var}: at most */",
            f"{indent}  if (({bd.order}) > {p.opt.scans.banded.order}) {{   /* wider than the windows */",
            f"{indent}    if (poly_count > 0)", f"{indent}      {line('serial', '1', '1', 'poly_count')}",
            f"{indent}  }} else if (poly_count > 0) {{",
            f"{indent}    int poly_len = (poly_count + {cap - 1}) / {cap};",
            f"{indent}    if (poly_len < {least})", f"{indent}      poly_len = {least};",
            f"{indent}    const int poly_chunks = (poly_count + poly_len - 1) / poly_len;",
            f"{indent}    {line('transfer', blocks, str(THREADS), per_chunk)}",
            f"{indent}    {line('across', '1', str(ACROSS), 'poly_chunks')}",
            f"{indent}    {line('apply', blocks, str(THREADS), per_chunk)}",
            f"{indent}  }}", f"{indent}}}"]


def describe(p, launch) -> str:
    """One sentence for the candidate's header."""
    bd = launch.banded
    return (f"{launch.name}: a linear recurrence of order {bd.order} over {bd.loop.var} as chunked transfer "
            f"maps: a thread per chunk of at least {p.opt.scans.banded.chunk} elements finds the affine map of its "
            f"window of the last {bd.order} values of {bd.array}, one block carries the window across the "
            f"chunks in a fixed order, then each chunk reruns from its window and writes {bd.array}; an order above "
            f"{p.opt.scans.banded.order} runs the loop on one thread.")
