"""Stream compaction as a parallel scan: block counts, one block across, blocks scatter.

    compaction_of(kernel) -> Compaction | None;  candidate(kernel, compaction, options, why)

Takes a reference the model refused whose top level is `HEAD; for (int i = lo; i < hi; i++)
if (P(i)) { X[k] = E(i); k++; } TAIL;`, k an int of HEAD, P and the values reading no stored
array and no k. Gives `NAME_head`, `NAME_up` (counts per block), `NAME_across` (their scan from
k), `NAME_down` (each kept element at its position) and `NAME_tail`: the same elements in the
same order, exact. Refuses (None: one thread) a local array before the loop, a name declared
again in a nested scope, a loop variable read after it. docs/poly.md, "Outside the model:
stream compaction".
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...analysis.scalars import assignment
from ...analysis.scopes import DEVICE_CLASHES
from ...ir import Kernel, abi
from ...ir.csyntax import cprint, is_name, kernel_definition, names as ids, walk as _walk
from .cuda import Renderer, device_result, helper_note, own_helpers, short_name
from .options import PolyOptions


@dataclass(frozen=True)
class Compaction:
    """The top-level loop `for (i = lo; i < hi; i++) if (P) X[k++] = E;` and what surrounds it."""
    head: tuple                 # C items before the loop (one thread)
    tail: tuple                 # C items after it (one thread)
    shared: tuple               # (name, type) of HEAD's top-level scalars: `__device__` variables
    var: str                    # i
    lo: c_ast.Node
    count: c_ast.Node           # hi - lo (+ 1 for `<=`): the loop's length when positive
    keep: c_ast.Node            # P
    stores: tuple               # ((X, E), ...): each kept element's values, in the loop's order
    counter: str                # k


def compaction_of(k: Kernel) -> Compaction | None:
    """The reference's first top-level compaction loop, or None when it has none of that form."""
    fn = kernel_definition(k.tree)
    items = fn.body.block_items or []
    params, arrays = set(k.params), {a.name for a in k.arrays}
    for n, loop in enumerate(items):
        found = _loop(loop, params - arrays, arrays)
        if found is None:
            continue
        var, lo, count, keep, stores, counter = found
        head, tail = items[:n], items[n + 1:]
        decls = [d for d in head if isinstance(d, c_ast.Decl)]
        if any(not _scalar(d) for d in decls):
            return None
        shared = tuple((d.name, " ".join(d.type.type.names)) for d in decls)
        names = dict(shared)
        every = [x.name for x in _walk(fn.body) if isinstance(x, c_ast.Decl)]
        if names.get(counter) != "int" or any(every.count(x) > 1 for x in names) or \
                any(f"dev_{x}" in params | set(every) for x in names) or set(names) & DEVICE_CLASHES:
            return None
        values = [keep, *(e for _, e in stores)]
        readable = params - {x for x, _ in stores} | set(names) - {counter} | {var} | _called(*values)
        if not set().union(*map(ids, values)) <= readable or not all(map(_pure, values)):
            return None
        if var in names and any(var in ids(t) for t in tail):
            return None                      # its value after the loop is not kept
        returns = [x for x in _walk(fn.body) if isinstance(x, c_ast.Return)]
        if returns and (len(returns) > 1 or returns[0] is not items[-1] or not tail):
            return None                      # the tail's last item only: a return prints as dev_return = ...
        return Compaction(tuple(head), tuple(tail), shared, var, lo, count, keep, stores, counter)
    return None


def _loop(f, values: set[str], arrays: set[str]) -> tuple | None:
    """(i, lo, count, P, ((X, E), ...), k) of `for (i = lo; i < hi; i++) if (P) { X[k] = E; k++; }`."""
    if not isinstance(f, c_ast.For) or f.init is None or f.cond is None or f.next is None:
        return None
    init = f.init.decls[0] if isinstance(f.init, c_ast.DeclList) and len(f.init.decls) == 1 else f.init
    if (got := assignment(init)) is None:
        return None
    var, lo = got
    c = f.cond
    if not (isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=") and is_name(c.left, var) and _step(f.next, var)):
        return None
    if not ids(lo) | ids(c.right) <= values:
        return None                          # the host computes the loop's length
    count = c_ast.BinaryOp("-", c.right, lo)
    if c.op == "<=":
        count = c_ast.BinaryOp("+", count, c_ast.Constant("int", "1"))
    body = _only(f.stmt)
    if not (isinstance(body, c_ast.If) and body.iffalse is None):
        return None
    then = (body.iftrue.block_items or []) if isinstance(body.iftrue, c_ast.Compound) else [body.iftrue]
    stores = [_store(s) for s in then]
    if len(then) == 1 and stores[0] and isinstance(sub := stores[0][0], c_ast.UnaryOp) and sub.op == "p++" \
            and isinstance(sub.expr, c_ast.ID):
        counter = sub.expr.name              # X[k++] = E
    elif len(then) >= 2 and all(stores[:-1]) and isinstance(sub := stores[0][0], c_ast.ID) \
            and all(is_name(s[0], sub.name) for s in stores[:-1]) and _step(then[-1], sub.name):
        counter, stores = sub.name, stores[:-1]   # X[k] = E; Y[k] = F; ...; k++
    else:
        return None
    targets = [x for _, x, _ in stores]
    if counter == var or not set(targets) <= arrays or len(set(targets)) < len(targets):
        return None
    return var, lo, count, body.cond, tuple((x, e) for _, x, e in stores), counter


def _store(s) -> tuple | None:
    """(subscript, X, E) of `X[subscript] = E`, or None."""
    if isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ArrayRef) \
            and isinstance(s.lvalue.name, c_ast.ID):
        return s.lvalue.subscript, s.lvalue.name.name, s.rvalue
    return None


def _only(s):
    while isinstance(s, c_ast.Compound) and len(s.block_items or []) == 1:
        s = s.block_items[0]
    return s




def _step(s, name: str) -> bool:
    """`name++`, `++name`, `name += 1` or `name = name + 1`."""
    one = lambda e: isinstance(e, c_ast.Constant) and e.value == "1"
    return isinstance(s, c_ast.UnaryOp) and s.op in ("p++", "++") and is_name(s.expr, name) or \
        isinstance(s, c_ast.Assignment) and is_name(s.lvalue, name) and (
            s.op == "+=" and one(s.rvalue) or s.op == "=" and isinstance(s.rvalue, c_ast.BinaryOp)
            and s.rvalue.op == "+" and is_name(s.rvalue.left, name) and one(s.rvalue.right))


def _scalar(d: c_ast.Decl) -> bool:
    return isinstance(d.type, c_ast.TypeDecl) and isinstance(d.type.type, c_ast.IdentifierType)


def _called(*nodes) -> set[str]:
    return {x.name.name for n in nodes for x in _walk(n) if isinstance(x, c_ast.FuncCall) and isinstance(x.name, c_ast.ID)}


def _pure(node) -> bool:
    """No assignment or increment (a call is a math function's or the reference's pure helper's)."""
    return not any(isinstance(x, c_ast.Assignment) or isinstance(x, c_ast.UnaryOp)
                   and x.op in ("++", "p++", "--", "p--") for x in _walk(node))


# -- printing ------------------------------------------------------------------------------

def candidate(k: Kernel, c: Compaction, opt: PolyOptions, reason: str) -> str:
    """The `.cu` text: head, the three scan kernels, tail, NAME_device and the drop-in NAME."""
    name, (threads, items), cap = short_name(k), opt.scans.block, opt.scans.parts
    tile = threads * items
    r = Renderer(k, {})
    names = {x: f"dev_{x}" for x, _ in c.shared}
    inner = {x: y for x, y in names.items() if x != c.var}    # the loop's own i is not HEAD's
    text = lambda node, extra=None: cprint(r.node(node, {**inner, **(extra or {})}))
    params = abi.param_list(k)
    tid, var, keep = "(int)threadIdx.x", c.var, text(c.keep)
    store = [text(c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(x), c_ast.ID(c.counter)), e),
                  {c.counter: "poly_p"}) + ";" for x, e in c.stores]
    at = f"const int {var} = {text(c_ast.BinaryOp('+', c.lo, c_ast.ID('poly_o')))};"
    segment = ["  const int poly_first = (int)blockIdx.x * poly_seg;",
               "  const int poly_end = poly_count - poly_first < poly_seg ? poly_count : poly_first + poly_seg;"]
    scan = [f"    poly_s[{tid}] = poly_n;", "    __syncthreads();",
            f"    for (int poly_d = 1; poly_d < {threads}; poly_d <<= 1) {{   /* Hillis-Steele: inclusive sums */",
            f"      const int poly_v = {tid} >= poly_d ? poly_s[{tid} - poly_d] : 0;",
            "      __syncthreads();", f"      poly_s[{tid}] += poly_v;", "      __syncthreads();", "    }"]
    up = [f"  __shared__ int poly_s[{threads}];", *segment, "  int poly_n = 0;",
          f"  for (int poly_o = poly_first + {tid}; poly_o < poly_end; poly_o += {threads}) {{",
          f"    {at}", f"    if ({keep})", "      poly_n++;", "  }",
          f"  poly_s[{tid}] = poly_n;", "  __syncthreads();",
          f"  for (int poly_d = {threads // 2}; poly_d > 0; poly_d >>= 1) {{",
          f"    if ({tid} < poly_d)", f"      poly_s[{tid}] += poly_s[{tid} + poly_d];", "    __syncthreads();", "  }",
          "  if (threadIdx.x == 0)", f"    {name}_parts[blockIdx.x] = poly_s[0];"]
    across = [f"  __shared__ int poly_s[{threads}];", f"  int poly_x = dev_{c.counter};   /* k before the loop */",
              f"  for (int poly_t0 = 0; poly_t0 < poly_parts; poly_t0 += {threads}) {{",
              f"    const int poly_n = poly_t0 + {tid} < poly_parts ? {name}_parts[poly_t0 + {tid}] : 0;", *scan,
              f"    if (poly_t0 + {tid} < poly_parts)",
              f"      {name}_carries[poly_t0 + {tid}] = poly_x + poly_s[{tid}] - poly_n;",
              f"    poly_x += poly_s[{threads - 1}];", "    __syncthreads();   /* before the next counts */", "  }",
              "  if (threadIdx.x == 0)", f"    dev_{c.counter} = poly_x;   /* k after the loop */"]
    each = lambda body: [f"    for (int poly_j = 0; poly_j < {items}; poly_j++) {{",
                         f"      const int poly_o = poly_t0 + {tid} * {items} + poly_j;",
                         "      if (poly_o < poly_end) {", f"        {at}", f"        if ({keep})", *body, "      }",
                         "    }"]
    down = [f"  __shared__ int poly_s[{threads}];", *segment, f"  int poly_x = {name}_carries[blockIdx.x];",
            f"  for (int poly_t0 = poly_first; poly_t0 < poly_end; poly_t0 += {tile}) {{",
            "    int poly_n = 0;   /* this thread's consecutive elements kept */", *each(["          poly_n++;"]),
            *scan, "    int poly_p = poly_x + poly_s[threadIdx.x] - poly_n;   /* its first position */",
            *each(["        {", *(f"          {line}" for line in store), "          poly_p++;", "        }"]),
            f"    poly_x += poly_s[{threads - 1}];", "    __syncthreads();   /* before the next tile's counts */", "  }"]

    def one_thread(part):
        lines = []
        for item in part:
            if isinstance(item, c_ast.Decl) and item.name in names:
                if item.init is not None:
                    lines += r.statement(c_ast.Assignment("=", c_ast.ID(item.name), item.init), names, "  ")
            else:
                lines += r.statement(item, names, "  ")
        return lines
    head, tail = one_thread(c.head), one_thread(c.tail)
    head_ = f"__global__ void __launch_bounds__({threads}) {name}"
    out = [f"// t2c poly candidate for {k.name} (generated by `t2c gen`; do not edit).", "//",
           f"// Mapping: {describe(k, c, opt)}",
           f"//   the rest of the reference runs in one GPU thread, in order; why: {reason}",
           *("// " + line for line in helper_note(k)), "",
           "#include <cuda_runtime.h>", "#include <math.h>", *abi.headers(k), ""]
    out += [line for f in own_helpers(k) for line in (f, "")]
    out += [f"__device__ {t} dev_{x};" for x, t in c.shared]
    out += [f"__device__ int {name}_parts[{cap}];   /* each block's count of kept elements */",
            f"__device__ int {name}_carries[{cap}];   /* the position of each block's first one */"]
    if k.returns:
        out.append(f"__device__ {k.returns.dtype} dev_return;")
    out += ["", f"__global__ void {name}_head({params})", "{", *head, "}", "",
            f"{head_}_up({params}, int poly_count, int poly_seg)", "{", *up, "}", "",
            f"{head_}_across(int poly_parts)", "{", *across, "}", "",
            f"{head_}_down({params}, int poly_count, int poly_seg)", "{", *down, "}", "",
            f"__global__ void {name}_tail({params})", "{", *tail, "}", "",
            abi.head(k, "_device"), "{"]
    args = abi.call_args(k)
    out += [f"  {name}_head<<<1, 1>>>({args});", "  {",
            f"    const int poly_count = {text(c.count)};   /* {var}'s iterations, when positive */",
            f"    const int poly_tiles = poly_count > 0 ? (poly_count + {tile - 1}) / {tile} : 0;",
            f"    const int poly_seg = {tile} * ((poly_tiles + {cap - 1}) / {cap});   /* per block */",
            "    const int poly_parts = poly_tiles > 0 ? (poly_count + poly_seg - 1) / poly_seg : 0;",
            "    if (poly_parts > 0) {",
            f"      {name}_up<<<poly_parts, {threads}>>>({args}, poly_count, poly_seg);",
            f"      {name}_across<<<1, {threads}>>>(poly_parts);",
            f"      {name}_down<<<poly_parts, {threads}>>>({args}, poly_count, poly_seg);", "    }", "  }",
            f"  {name}_tail<<<1, 1>>>({args});"]
    out += [*device_result(k), "}", "", *abi.dropin(k)]
    return "\n".join(out) + "\n"


def describe(k: Kernel, c: Compaction, opt: PolyOptions) -> str:
    """One sentence for the candidate's header."""
    threads, items = opt.scans.block
    kept = ", ".join(f"{x}[{c.counter}]" for x, _ in c.stores)
    return (f"the loop over {c.var} keeping {kept} = ... ({c.counter}++) where its condition holds is a "
            f"stream compaction: blocks of {threads} threads ({items} elements each) count their kept elements, "
            f"one block scans the counts from {c.counter}'s value before the loop, then each block writes its "
            f"kept elements at their positions, in order.")
