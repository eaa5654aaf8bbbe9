"""First-order linear recurrences as parallel scans: block compositions, one block across, blocks apply.

    scan_of(analysis, launch) -> Scan | None

Takes a one-thread launch `PRE; for (i = lo; cond; i++) X[i] = A(i) * X[i - 1] + B(i);`, linear
in X[i - 1] by algebra on the C tree (a prefix sum), A and B reading no local and X only at X[i].
Gives `NAME_up` (each block composes its pairs (A, B)), `NAME_across` (one block runs PRE and
scans the compositions from X[lo - 1]) and `NAME_down` (each block applies them, writes X), at
most `scans.parts` blocks so `NAME_device` does not allocate. Floats reassociate in a fixed
order; integers (A = 1) add in unsigned, exact. Refuses (None) anything else. docs/poly.md, "Scans".
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir.csyntax import cprint, walk as _walk
from .ctext import WORD, extent_text, max_expr, min_expr, names_used

ONE = "1"                                    # the coefficient 1 of a sum, kept apart from C nodes
UNSIGNED = {"int": "unsigned", "long": "unsigned long"}
REAL_TYPES = ("float", "double")


@dataclass(frozen=True)
class Scan:
    """A launch's recurrence `target = a * prev + b` (see the module docstring)."""
    pre: tuple                  # Stmt: run before the loop, by thread 0 of NAME_across
    loop: Loop
    stmt: Stmt
    array: str                  # X
    dtype: str                  # X's element type
    target: c_ast.Node          # X[..., i]
    prev: c_ast.Node            # X[..., i - 1]
    a: object                   # A(i): a C node, or ONE (a sum: no products are formed)
    b: object                   # B(i): a C node, or None (0)

    @property
    def unit(self) -> bool:
        return self.a is ONE


def scan_of(an: Analysis, launch) -> Scan | None:
    """The launch as a scan, or None when it is not exactly that form."""
    return None if launch.grid else recurrence_of(an, launch)


def recurrence_of(an: Analysis, launch) -> Scan | None:
    """The recurrence (PRE, then the loop) each thread of the launch runs, or None when its body
    is not exactly that form; grid indices count as known like the sizes (rowscan.py)."""
    body, prog = launch.body, an.program
    if not body or not isinstance(body[-1], Loop) or not all(isinstance(n, Stmt) for n in body[:-1]):
        return None
    loop, pre = body[-1], tuple(body[:-1])
    if loop.step != 1 or loop.derived or loop.time or len(loop.body) != 1 or not isinstance(loop.body[0], Stmt):
        return None
    n = loop.body[0]
    st, node = n.stmt, n.stmt.node
    if n.at or n.bind or st.conditional or st.atomic or \
            not (isinstance(node, c_ast.Assignment) and node.op == "="):
        return None
    ref = array_ref(node.lvalue)
    arr = next((a for a in prog.kernel.arrays if ref and a.name == ref[0]), None)
    if arr is None or arr.dtype not in (*REAL_TYPES, *UNSIGNED):
        return None
    name, subs = ref
    if subs[-1] != loop.var or any(loop.var in WORD.findall(s) for s in subs[:-1]):
        return None
    reals = {a.name for a in prog.kernel.arrays if a.dtype in REAL_TYPES} | \
            {s.name for s in prog.kernel.scalars if s.dtype in REAL_TYPES}
    form = Form(name, subs, (*subs[:-1], f"{loop.var}-1"), not pre, arr.dtype, reals)
    lin = form.linear(node.rvalue)
    if lin is None or lin[0] is None or arr.dtype in UNSIGNED and lin[0] is not ONE:
        return None
    if any(r.name in prog.locals for r in st.reads()):
        return None
    known = set(prog.kernel.params) | {l.var for l in (*launch.host_loops, *launch.grid)} | {loop.var}
    if not set(WORD.findall(f"{loop.init} {loop.cond}")) <= known | {"int", "long"}:
        return None                                  # the kernels print its header as it is
    for p in pre:
        w = p.stmt.writes()
        if p.at or p.bind or not w or any(x.name != name for x in w) or \
                any(r.name in prog.locals for r in p.stmt.reads()):
            return None
    return Scan(pre, loop, n, name, arr.dtype, node.lvalue, form.prev, *lin)


def array_ref(node) -> tuple[str, tuple[str, ...]] | None:
    """(array, subscripts without spaces or parentheses) of `X[s]...[t]`, else None."""
    subs = []
    while isinstance(node, c_ast.ArrayRef):
        subs.append(re.sub(r"[\s()]", "", cprint(node.subscript)))
        node = node.name
    return (node.name, tuple(reversed(subs))) if isinstance(node, c_ast.ID) and subs else None


class _NotLinear(Exception):
    pass


class Form:
    """The algebra: an expression as (A, B) with value A * X[i - 1] + B (A: None for 0, ONE or a
    C node; B: None for 0 or a C node); `linear` gives None when the expression is not linear in
    X[i - 1] or reads X elsewhere (at X[i] itself only with `own`)."""

    def __init__(self, name, subs, prev, own, dtype, reals):
        self.name, self.subs, self.prev_subs, self.own, self.dtype, self.reals = name, subs, prev, own, dtype, reals
        self.prev = None                         # the X[i - 1] node found

    def linear(self, e):
        try:
            return self._go(e)
        except _NotLinear:
            return None

    def _go(self, e):
        if array_ref(e) == (self.name, self.prev_subs):
            self.prev = e
            return ONE, None
        if self._free(e):
            return None, e
        if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+"):
            a, b = self._go(e.expr)
            return (a, b) if e.op == "+" else (_neg(a), _neg(b))
        if not (isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*", "/")):
            raise _NotLinear
        if e.op in ("+", "-"):
            (la, lb), (ra, rb) = [(None, self._typed(e_)) if self._free(e_) else self._go(e_)
                                  for e_ in (e.left, e.right)]
            return _add(la, ra, e.op), _add(lb, rb, e.op)
        if self.dtype in UNSIGNED:              # an integer recurrence: sums only
            raise _NotLinear
        if self._free(e.right):                  # x * c, x / c
            (a, b), c = self._go(e.left), self._typed(e.right)
            return _op(e.op, a, c), _op(e.op, b, c)
        if e.op == "*" and self._free(e.left):   # c * x
            c, (a, b) = self._typed(e.left), self._go(e.right)
            return _op(e.op, c, a), _op(e.op, c, b)
        raise _NotLinear

    def _free(self, e) -> bool:
        """e reads X nowhere, or (own) only at X[i]."""
        ids = sum(isinstance(x, c_ast.ID) and x.name == self.name for x in _walk(e))
        own = sum(array_ref(x) == (self.name, self.subs) for x in _walk(e))
        return ids == 0 or self.own and ids == own

    def _typed(self, e):
        """e as an operand beside X[i - 1], which made the operation floating-point: cast to the
        element type when e's own type may be an integer (`(x[i-1] + n) / 2`); an integer
        recurrence refuses a floating operand (each step would truncate)."""
        if self.dtype in UNSIGNED:
            if _real(e, self.reals):
                raise _NotLinear
            return e
        if _real(e, self.reals):
            return e
        return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None,
                                                                         c_ast.IdentifierType([self.dtype]))), e)


def _real(e, reals: set[str]) -> bool:
    """e's value has a floating type, for the expressions poly sees (unsure: False)."""
    if isinstance(e, c_ast.Constant):
        return e.type in REAL_TYPES
    if isinstance(e, c_ast.ID):
        return e.name in reals
    if isinstance(e, c_ast.ArrayRef):
        return (array_ref(e) or ("",))[0] in reals
    if isinstance(e, c_ast.BinaryOp):
        return e.op in "+-*/" and (_real(e.left, reals) or _real(e.right, reals))
    if isinstance(e, c_ast.UnaryOp):
        return e.op in "+-" and _real(e.expr, reals)
    if isinstance(e, c_ast.Cast):
        return any(t in cprint(e.to_type) for t in REAL_TYPES)
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID):
        return e.name.name not in ("abs", "min", "max")
    return False


def _node(x):
    return c_ast.Constant("int", "1") if x is ONE else x


def _neg(x):
    return None if x is None else c_ast.UnaryOp("-", _node(x))


def _add(x, y, op: str):
    if y is None:
        return x
    if x is None:
        return y if op == "+" else _neg(y)
    return c_ast.BinaryOp(op, _node(x), _node(y))


def _minus_one(x) -> bool:
    return isinstance(x, c_ast.UnaryOp) and x.op == "-" and isinstance(x.expr, c_ast.Constant) and x.expr.value == "1"


def _op(op: str, x, y):
    """x op y, where one side is a coefficient (None: 0, ONE) and the other a C node."""
    if x is None or y is None:
        return None
    if op == "*" and (x is ONE or y is ONE):
        return y if x is ONE else x
    if op == "*" and (_minus_one(x) or _minus_one(y)):   # z * (y - x[i-1]): A is -z, not z * (-1)
        return _neg(y if _minus_one(x) else x)
    if x is ONE:                                   # 1 / c in floating point
        x = c_ast.Constant("double", "1.0")
    return c_ast.BinaryOp(op, _node(x), _node(y))


# -- printing ------------------------------------------------------------------------------

def _shape(p) -> tuple[int, int, int]:
    """(threads per block, pairs per thread, pairs per tile)."""
    threads, items = p.opt.scans.block
    return threads, items, threads * items


class Pairs:
    """The C text of a scan's (a, b) pairs, shared by its printers (here and rowscan.py): a pair is
    a tuple of C names, (b,) for a sum (its a is always 1), else (a, b); `v` the scan's value
    type, `value` an element's own pair, `start` the loop's first index."""

    def __init__(self, p, sc: Scan):
        self.unit, self.v = sc.unit, UNSIGNED.get(sc.dtype, sc.dtype)
        self.names = p.names_for(sc.stmt.stmt.name)
        self.expr = lambda node: cprint(p.r.node(node, self.names))
        b = self.expr(sc.b) if sc.b is not None else "0"
        self.value = self.pair(None if sc.unit else self.expr(sc.a), f"({self.v})({b})" if self.v != sc.dtype else b)
        start = sc.loop.init.split("=", 1)[1].strip()
        self.start = start if WORD.fullmatch(start) or start.isdigit() else f"({start})"
        self.cast = lambda t: f"({t})" if self.v != sc.dtype else ""    # between the element type and the scan's

    def pair(self, a, b) -> tuple:
        return (b,) if self.unit else (a, b)

    def then(self, l, r, out) -> list[str]:
        """out = l then r; b first: out may be r."""
        if self.unit:
            return [f"{out[0]} = {l[0]} + {r[0]};"]
        return [f"{out[1]} = {r[0]} * {l[1]} + {r[1]};", f"{out[0]} = {r[0]} * {l[0]};"]

    def apply(self, q, x) -> str:
        return f"{x} + {q[0]}" if self.unit else f"{q[0]} * {x} + {q[1]}"

    def at(self, arr, j) -> tuple:
        return self.pair(f"poly_{arr}a[{j}]", f"poly_{arr}b[{j}]")

    @staticmethod
    def sets(dst, src, pad) -> list[str]:
        return [f"{pad}{d} = {x};" for d, x in zip(dst, src)]


def kernels(p, launch, sc: Scan) -> tuple[str, list[str], str]:
    """The three kernels' source (p: the Printer), their arguments, and the `__device__` buffers
    (pairs: `Pairs`)."""
    name, var = launch.name, sc.loop.var
    threads, items, tile = _shape(p)
    q = Pairs(p, sc)
    v, names, expr, value, start, cast = q.v, q.names, q.expr, q.value, q.start, q.cast
    pair, then, apply, at, sets = q.pair, q.then, q.apply, q.at, q.sets
    ident, mine, excl, whole, g = (pair("1", "0"), pair("poly_ra", "poly_rb"), pair("poly_ea", "poly_eb"),
                                   pair("poly_wa", "poly_wb"), pair("poly_ga", "poly_gb"))
    cond, tid = sc.loop.cond, "(int)threadIdx.x"

    def load(source: list[str]) -> list[str]:
        """Each thread's ITEMS pairs of the tile at poly_t0 (consecutive threads, consecutive pairs)."""
        return [f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{",
                f"      const int poly_j = poly_k * {threads} + {tid};",
                "      const int poly_o = poly_t0 + poly_j;", *source,
                "      else {", *sets(at("", "poly_j"), ident, "        "), "      }", "    }", "    __syncthreads();"]
    elements = load([f"      const int {var} = {start} + poly_o;", f"      if (poly_o < poly_end && {cond}) {{",
                     *sets(at("", "poly_j"), value, "        "), "      }"])
    parts = load(["      if (poly_o < poly_parts) {",
                  *sets(at("", "poly_j"), pair(f"{name}_parts_a[poly_o]", f"{name}_parts_b[poly_o]"), "        "),
                  "      }"])
    scan_tile = lambda exclusive=True: [
        "    {   /* each thread composes its pairs in order, then a Hillis-Steele scan over the threads */",
        f"      {v} {', '.join(f'{r} = {q}' for r, q in zip(mine, at('', f'{tid} * {items}')))};",
        f"      for (int poly_k = 1; poly_k < {items}; poly_k++) {{",
        f"        const int poly_j = {tid} * {items} + poly_k;", *("        " + x for x in then(mine, at("", "poly_j"), mine)),
        "      }", *sets(at("s", tid), mine, "      "), "      __syncthreads();",
        f"      for (int poly_s = 1; poly_s < {threads}; poly_s <<= 1) {{",
        f"        if ({tid} >= poly_s) {{", *("          " + x for x in then(at("s", f"{tid} - poly_s"), mine, mine)),
        "        }", "        __syncthreads();", *sets(at("s", tid), mine, "        "), "        __syncthreads();",
        "      }", "    }",
        *(f"    {e} = {tid} > 0 ? {q} : {i};" for e, q, i in zip(excl, at("s", f"{tid} - 1"), ident) if exclusive),
        *sets(whole, at("s", threads - 1), "    "), "    __syncthreads();   /* before the pairs are overwritten */"]

    def run(store: list[str]) -> list[str]:
        """Each thread's x before its pairs, from poly_x (x before the tile), then through them."""
        return ["    {", f"      {v} poly_v = {tid} > 0 ? {apply(excl, 'poly_x')} : poly_x;",
                f"      for (int poly_k = 0; poly_k < {items}; poly_k++) {{",
                f"        const int poly_j = {tid} * {items} + poly_k;", *store, "      }", "    }",
                f"    poly_x = {apply(whole, 'poly_x')};"]
    advance = f"        poly_v = {apply(at('', 'poly_j'), 'poly_v')};"
    declare = lambda exclusive=True: [
        f"  __shared__ {v} {', '.join(x + f'[{tile}]' for x in pair('poly_a', 'poly_b'))};",
        f"  __shared__ {v} {', '.join(x + f'[{threads}]' for x in pair('poly_sa', 'poly_sb'))};",
        f"  {v} {', '.join((*excl, *whole) if exclusive else whole)};"]
    segment = ["  const int poly_first = (int)blockIdx.x * poly_seg;",
               "  const int poly_end = poly_count - poly_first < poly_seg ? poly_count : poly_first + poly_seg;",
               f"  for (int poly_t0 = poly_first; poly_t0 < poly_end; poly_t0 += {tile}) {{"]
    up = [*declare(False), f"  {v} {', '.join(f'{x} = {i}' for x, i in zip(g, ident))};   /* the tiles so far */",
          *segment, *elements, *scan_tile(False), *("    " + x for x in then(g, whole, g)), "  }",
          "  if (threadIdx.x == 0) {", *sets([f"{name}_parts_{x[-1]}[blockIdx.x]" for x in g], g, "    "), "  }"]
    pre = [x for s in sc.pre for x in p.r.statement(s.stmt.node, p.names_for(s.stmt.name), "    ")]
    across = [*declare(), f"  {v} poly_x;", *(["  if (threadIdx.x == 0) {", *pre, "  }", "  __syncthreads();"] if pre else []),
              "  if (poly_count <= 0)", "    return;", "  {", f"    const int {var} = {start};",
              f"    if (!({cond}))", "      return;                 /* an empty loop reads nothing */",
              f"    poly_x = {cast(v)}{expr(sc.prev)};", "  }",
              f"  for (int poly_t0 = 0; poly_t0 < poly_parts; poly_t0 += {tile}) {{", *parts, *scan_tile(),
              *run(["        if (poly_t0 + poly_j < poly_parts)", f"          {name}_carries[poly_t0 + poly_j] = poly_v;",
                    advance]), "    __syncthreads();", "  }"]
    store = p.r.statement(c_ast.Assignment("=", sc.target, c_ast.ID(f"{cast(sc.dtype)}poly_b[poly_j]")), names,
                          "        ")
    down = [*declare(), f"  {v} poly_x = {name}_carries[blockIdx.x];", *segment, *elements, *scan_tile(),
            *run([advance, "        poly_b[poly_j] = poly_v;"]), "    __syncthreads();",
            f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{",
            f"      const int poly_j = poly_k * {threads} + {tid};",
            f"      const int {var} = {start} + poly_t0 + poly_j;",
            f"      if (poly_t0 + poly_j < poly_end && {cond})", *store, "    }",
            "    __syncthreads();   /* before the next tile's pairs */", "  }"]
    args = p.kernel_args(launch, names_used("\n".join(up + across + down)))
    params = "".join(p.param_decl(x, launch) + ", " for x in args)
    head = f"__global__ void __launch_bounds__({threads}) {name}"
    own = {"up": f"{params}int poly_count, int poly_seg", "across": f"{params}int poly_count, int poly_parts",
           "down": f"{params}int poly_count, int poly_seg"}
    fn = lambda k, body: [f"{head}_{k}({own[k]})", "{", *p.waits(f"{name}_{k}", launch.host_loops, own[k]), *body, "}"]
    src = [f"/* {describe(p, launch)} */", *fn("up", up), "", *fn("across", across), "", *fn("down", down)]
    cap = p.opt.scans.parts
    decls = [f"__device__ {v} {name}_parts_{x[-1]}[{cap}];   /* each block's composition */" for x in g]
    decls.append(f"__device__ {v} {name}_carries[{cap}];   /* x before each block */")
    return "\n".join(src), args, "\n".join(decls)


def launch_code(p, launch, sc: Scan, args: list[str], indent: str) -> list[str]:
    """Host code: whole tiles per block, so that at most `scans.parts` blocks cover the loop;
    NAME_across always runs (it runs PRE)."""
    threads, _, tile = _shape(p)
    cap = p.opt.scans.parts
    outer = tuple(l.var for l in launch.host_loops)
    (lows, highs), = p.an.model.box([sc.stmt.stmt.name], (sc.loop.var,), outer)
    extent = extent_text(max_expr(highs), min_expr(lows)) if lows and highs else "0"
    call = "".join(a + ", " for a in args)
    line = lambda k, grid, last: p.launch_line(f"{launch.name}_{k}", (grid, str(threads)),
                                               f"{call}poly_count, {last}", launch.host_loops)
    return [f"{indent}{{",
            f"{indent}  const int poly_count = {extent};   /* {sc.loop.var}: at most */",
            f"{indent}  const int poly_tiles = poly_count > 0 ? (poly_count + {tile - 1}) / {tile} : 0;",
            f"{indent}  const int poly_seg = {tile} * ((poly_tiles + {cap - 1}) / {cap});   /* per block */",
            f"{indent}  const int poly_parts = poly_tiles > 0 ? (poly_count + poly_seg - 1) / poly_seg : 0;",
            f"{indent}  if (poly_parts > 0)", f"{indent}    {line('up', 'poly_parts', 'poly_seg')}",
            f"{indent}  {line('across', '1', 'poly_parts')}",
            f"{indent}  if (poly_parts > 0)", f"{indent}    {line('down', 'poly_parts', 'poly_seg')}",
            f"{indent}}}"]


def describe(p, launch) -> str:
    """One sentence for the candidate's header."""
    sc, (threads, items, _) = launch.scan, _shape(p)
    form = "a prefix sum" if sc.unit else "a first-order linear recurrence"
    pairs = "" if sc.unit else " of (a, b) pairs"
    return (f"{launch.name}: {form} over {sc.loop.var} as a parallel scan{pairs}: blocks of "
            f"{threads} threads ({items} elements each) compose their segments, one block scans the "
            f"blocks' compositions from {sc.array}'s value before the loop{' (after the statements before it)' if sc.pre else ''}, "
            f"then each block applies its prefix and writes its segment.")
