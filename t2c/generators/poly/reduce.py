"""Whole-loop reductions into one scalar: partial results on a grid, one block combines them.

A one-thread launch of the form

    acc = INIT;  for (i ...) acc OP= expr(i);  OUT = f(acc);

(a sum, product, max or min that the dependence analysis shows the loop carries nothing
else than; `acc` a floating-point scalar no other statement uses) becomes two kernels:

- `NAME_partial`: a grid-stride loop over i, each thread accumulating from the
  operator's identity, then a shared-memory tree in each block, whose result goes to
  `NAME_partials[blockIdx.x]` (a fixed `__device__` array of `options.reduction_blocks`:
  `NAME_device` may not allocate);
- `NAME_final`: one block combines the partials the same way, then its first thread
  runs INIT, folds the total in (`acc = acc + total`, `fmax(acc, total)`, ...) and
  runs OUT.

The order of the accumulation changes (a tree instead of a chain), which the tolerance
model allows for reductions; the partials are combined in a fixed order, so a candidate
gives the same bits on every run.
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt

THREADS = 256

# operator -> (identity, C combine of a and b, how the total joins the initial value)
OPS = {"+=": ("0", "{a} + {b}", "+"), "-=": ("0", "{a} + {b}", "+"), "*=": ("1", "{a} * {b}", "*"),
       "max": ("-INFINITY", "fmax({a}, {b})", "max"), "min": ("INFINITY", "fmin({a}, {b})", "min")}


@dataclass
class Reduction:
    init: Stmt
    loop: Loop
    acc: Stmt
    fin: Stmt
    scalar: str                 # the accumulator's C name in the reference
    web: str
    dtype: str
    op: str                     # a key of OPS

    def combine(self, a: str, b: str) -> str:
        return OPS[self.op][1].format(a=a, b=b)

    def join(self, acc: str, total: str) -> str:
        how = OPS[self.op][2]
        return f"{acc} = {acc} {how} {total};" if how in "+*" else \
            f"{acc} = f{how}({acc}, {total});"


def reduction_of(an: Analysis, storage: dict, launch) -> Reduction | None:
    """The launch as a reduction, or None when it is not exactly that form."""
    if launch.grid or len(launch.body) != 3:
        return None
    init, loop, fin = launch.body
    if not (isinstance(init, Stmt) and isinstance(loop, Loop) and isinstance(fin, Stmt)) or \
            loop.step != 1 or len(loop.body) != 1 or not isinstance(loop.body[0], Stmt):
        return None
    acc = loop.body[0]
    writes = acc.stmt.writes()
    if len(writes) != 1 or writes[0].index or writes[0].name not in an.program.locals:
        return None
    scalar = writes[0].name
    web = an.web_of.get((acc.stmt.name, scalar))
    dtype = an.program.locals[scalar].dtype
    if web is None or storage.get(web) != "local" or dtype not in ("float", "double") or \
            set(an.webs[web].statements) != {init.stmt.name, acc.stmt.name, fin.stmt.name}:
        return None
    if init.stmt.reads(scalar) or not init.stmt.writes(scalar) or fin.stmt.writes(scalar) \
            or not fin.stmt.reads(scalar) or init.stmt.conditional or fin.stmt.conditional:
        return None
    if not any(f.var == loop.var and f.reduction and f.statements == (acc.stmt.name,)
               for f in an.loops):
        return None
    op = _operator(acc.stmt.node, scalar)
    return Reduction(init, loop, acc, fin, scalar, web, dtype, op) if op else None


def _operator(node, scalar: str) -> str | None:
    """`acc += e`, `acc -= e`, `acc *= e`, `acc = acc + e`, `acc = fmaxf(acc, e)`, ... -> OPS key."""
    if not isinstance(node, c_ast.Assignment) or not _is(node.lvalue, scalar):
        return None
    rv = node.rvalue
    if node.op in ("+=", "-=", "*="):
        return node.op if not _uses(rv, scalar) else None
    if node.op != "=":
        return None
    if isinstance(rv, c_ast.BinaryOp) and rv.op in ("+", "*"):
        if _is(rv.left, scalar) and not _uses(rv.right, scalar) or \
                _is(rv.right, scalar) and not _uses(rv.left, scalar):
            return rv.op + "="
    if isinstance(rv, c_ast.FuncCall) and isinstance(rv.name, c_ast.ID) and rv.args and \
            rv.name.name in ("fmax", "fmaxf", "fmin", "fminf") and len(rv.args.exprs) == 2:
        a, b = rv.args.exprs
        if _is(a, scalar) and not _uses(b, scalar) or _is(b, scalar) and not _uses(a, scalar):
            return "max" if "max" in rv.name.name else "min"
    return None


def _is(node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _uses(node, name: str) -> bool:
    return _is(node, name) or any(_uses(kid, name) for _, kid in node.children())


def kernels(p, launch, red: Reduction) -> tuple[list[str], str]:
    """The two kernels' source (p: the Printer) and the `__device__` partials declaration."""
    t, name = red.dtype, launch.name
    acc = red.web                                        # a thread-local register in both kernels
    ident = OPS[red.op][0]
    body = p.r.statement(red.acc.stmt.node, p.names_for(red.acc.stmt.name), "    ")
    loop = red.loop
    start = loop.init.split("=", 1)[1].strip()
    start = "" if start == "0" else f"{start} + "
    tree = [f"  red[threadIdx.x] = {acc};", "  __syncthreads();",
            "  for (int s = blockDim.x / 2; s > 0; s >>= 1) {",
            f"    if (threadIdx.x < s) red[threadIdx.x] = {red.combine('red[threadIdx.x]', 'red[threadIdx.x + s]')};",
            "    __syncthreads();", "  }"]
    partial = [f"  __shared__ {t} red[{THREADS}];", f"  {t} {acc} = {ident};", f"  int {loop.var};",
               f"  for ({loop.var} = {start}(int)(blockIdx.x * blockDim.x + threadIdx.x); {loop.cond}; "
               f"{loop.var} += (int)(gridDim.x * blockDim.x))", "  {", *body, "  }", *tree,
               f"  if (threadIdx.x == 0) {name}_partials[blockIdx.x] = red[0];"]
    final = [f"  __shared__ {t} red[{THREADS}];", f"  {t} {acc} = {ident};",
             "  for (int q = threadIdx.x; q < parts; q += blockDim.x)",
             f"    {acc} = {red.combine(acc, f'{name}_partials[q]')};", *tree,
             "  if (threadIdx.x == 0) {", f"    {t} total = red[0];",
             *p.r.statement(red.init.stmt.node, p.names_for(red.init.stmt.name), "    "),
             f"    {red.join(acc, 'total')}",
             *p.r.statement(red.fin.stmt.node, p.names_for(red.fin.stmt.name), "    "), "  }"]
    return [partial, final], f"__device__ {t} {name}_partials[{p.opt.reduction_blocks}];   /* one per block */"


def launch_code(p, launch, red: Reduction, args: list[str], indent: str) -> list[str]:
    """Host code: as many blocks as the loop needs, at most `reduction_blocks`, at least one (the
    final kernel still runs INIT and OUT when the loop is empty)."""
    outer = tuple(l.var for l in launch.host_loops)
    (lows, highs), = p.an.model.box([red.acc.stmt.name], (red.loop.var,), outer)
    extent = _extent_text(p, lows, highs)
    call = ", ".join(args)
    return [f"{indent}{{",
            f"{indent}  const int extent = {extent};   /* {red.loop.var} */",
            f"{indent}  int parts = extent > 0 ? (int)poly_blocks(extent, {THREADS}) : 1;",
            f"{indent}  if (parts > {p.opt.reduction_blocks})", f"{indent}    parts = {p.opt.reduction_blocks};",
            f"{indent}  {launch.name}_partial<<<parts, {THREADS}>>>({call});",
            f"{indent}  {launch.name}_final<<<1, {THREADS}>>>({call}{', ' if call else ''}parts);",
            f"{indent}}}"]


def _extent_text(p, lows, highs) -> str:
    from .cuda import _extent, _max, _min
    return _extent(_max(highs), _min(lows)) if lows and highs else "0"
