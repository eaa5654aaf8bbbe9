"""A maximum of running sums (Kadane's scan) as an ordered reduction of 4-tuples.

    running_max_of(analysis, storage, launch) -> RunningMax | None

Takes a one-thread launch `INITS; for (i = lo; cond; i++) { run = max(run + E, E); m = max(m,
run); } FINS` (ternaries, `fmax` or an `if`), run and m floating-point locals that FINS only
reads, E reading no local. Gives `NAME_part` (each block folds its range into a tuple: sum,
best prefix, best suffix, best) and `NAME_final` (one block combines the tuples in order, runs
INITS, joins the loop's start values, runs FINS). The combine is associative, not commutative,
and in a fixed order; sums are reassociated within a sum's tolerance. Refuses (None) any other
shape. docs/poly.md, "Running maxima".
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir.csyntax import cprint, names
from .ctext import WORD, extent_text, max_expr, min_expr, names_used

THREADS = 256
_REAL = ("float", "double")
_BIG = {">": True, ">=": True, "<": False, "<=": False}
_FIELDS = ("sum", "pre", "suf", "best")


@dataclass(frozen=True)
class RunningMax:
    """A launch's maximum of running sums (see the module docstring)."""
    inits: tuple                # Stmt: set run and m (and other locals) before the loop
    loop: Loop
    step: Stmt                  # run = max(run + E, E)
    keep: Stmt                  # m = max(m, run)
    fins: tuple                 # Stmt: read the results
    run: str
    best: str                   # m
    value: c_ast.Node           # E
    dtype: str                  # run's and m's type
    webs: tuple                 # (run's web, m's web): their registers in the final kernel
    others: tuple               # (web, C type): other locals of INITS and FINS


def running_max_of(an: Analysis, storage: dict, launch) -> RunningMax | None:
    """The launch as a maximum of running sums, or None when it is not exactly that form."""
    body, prog = launch.body, an.program
    loops = [n for n in body if isinstance(n, Loop)]
    if launch.grid or len(loops) != 1 or not all(isinstance(n, (Stmt, Loop)) for n in body):
        return None
    loop = loops[0]
    at = body.index(loop)
    inits, fins = tuple(body[:at]), tuple(body[at + 1:])
    if loop.step != 1 or loop.derived or loop.time or len(loop.body) != 2 or \
            not all(isinstance(n, Stmt) and not n.at and not n.bind and not n.stmt.atomic for n in loop.body):
        return None
    step, keep = loop.body
    got = _step(step.stmt.node)
    if got is None or step.stmt.conditional:
        return None
    run, value = got
    m = _keep(keep.stmt.node, run)
    if m is None or m == run or {run, m} & names(value):
        return None
    if any(r.name in prog.locals and r.name != run for r in step.stmt.reads()) or \
            any(w.name != run for w in step.stmt.writes()) or \
            {r.name for r in keep.stmt.reads()} != {run, m} or any(w.name != m for w in keep.stmt.writes()):
        return None
    dtypes = {prog.locals[x].dtype if x in prog.locals else "" for x in (run, m)}
    if len(dtypes) != 1 or not dtypes <= set(_REAL):
        return None
    members = {n.stmt.name for n in inits + fins}
    webs = []
    for st, x in ((step, run), (keep, m)):
        web = an.web_of.get((st.stmt.name, x))
        if web is None or storage.get(web) != "local" or \
                not set(an.webs[web].statements) <= members | {step.stmt.name, keep.stmt.name}:
            return None
        webs.append(web)
    for n in inits:
        w = n.stmt.writes()
        if n.stmt.conditional or len(w) != 1 or w[0].name not in prog.locals or w[0].index:
            return None
    if not all(any(w.name == x for n in inits for w in n.stmt.writes()) for x in (run, m)) or \
            any(w.name in (run, m) for n in fins for w in n.stmt.writes()):
        return None
    known = set(prog.kernel.params) | {l.var for l in launch.host_loops} | {loop.var}
    if not set(WORD.findall(f"{loop.init} {loop.cond}")) <= known | {"int", "long"}:
        return None                                  # the kernels print its header as it is
    others = {}
    for n in inits + fins:
        for a in n.stmt.accesses:
            if a.name in prog.locals and a.name not in (run, m):
                web = an.web_of.get((n.stmt.name, a.name))
                if web is None or storage.get(web) != "local" or not set(an.webs[web].statements) <= members:
                    return None
                others[web] = prog.locals[a.name].dtype
    return RunningMax(inits, loop, step, keep, fins, run, m, value, dtypes.pop(), tuple(webs),
                      tuple(others.items()))


def _max_of(e) -> tuple | None:
    """The two operands of a maximum: `x > y ? x : y`, `x < y ? y : x` (or >=, <=), `fmax(x, y)`."""
    if isinstance(e, c_ast.TernaryOp) and isinstance(e.cond, c_ast.BinaryOp) and e.cond.op in _BIG:
        x, y = (e.cond.left, e.cond.right) if _BIG[e.cond.op] else (e.cond.right, e.cond.left)
        if cprint(e.iftrue) == cprint(x) and cprint(e.iffalse) == cprint(y):
            return x, y
    if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) and e.name.name in ("fmax", "fmaxf") \
            and e.args and len(e.args.exprs) == 2:
        return tuple(e.args.exprs)
    return None


def _step(node) -> tuple[str, c_ast.Node] | None:
    """(run, E) of `run = max(run + E, E)` in either order (and `E + run`), else None."""
    if not (isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID)):
        return None
    run, pair = node.lvalue.name, _max_of(node.rvalue)
    for s, e in (pair, pair[::-1]) if pair else ():
        if isinstance(s, c_ast.BinaryOp) and s.op == "+":
            for a, b in ((s.left, s.right), (s.right, s.left)):
                if isinstance(a, c_ast.ID) and a.name == run and cprint(b) == cprint(e):
                    return run, e
    return None


def _keep(node, run: str) -> str | None:
    """m of `if (run > m) m = run;` (its mirrors, >=) or `m = max(m, run)`, else None."""
    ids = lambda *xs: [x.name if isinstance(x, c_ast.ID) else None for x in xs]
    if isinstance(node, c_ast.If) and node.iffalse is None and isinstance(node.cond, c_ast.BinaryOp) \
            and node.cond.op in _BIG:
        then = node.iftrue
        if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
            then = then.block_items[0]
        if not (isinstance(then, c_ast.Assignment) and then.op == "=" and ids(then.lvalue, then.rvalue)[1] == run):
            return None
        m = ids(then.lvalue)[0]
        big, small = ids(node.cond.left, node.cond.right)[::1 if _BIG[node.cond.op] else -1]
        return m if (big, small) == (run, m) else None
    if isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID):
        pair = _max_of(node.rvalue)
        m = node.lvalue.name
        return m if pair and sorted(ids(*pair), key=str) == sorted([m, run], key=str) else None
    return None


# -- printing ------------------------------------------------------------------------------

def _then(t: str, l: tuple, r: tuple, out: tuple) -> list[str]:
    """out = l then r (the tuples are C names in _FIELDS' order; out may be l)."""
    (ls, lp, lf, lb), (rs, rp, rf, rb) = l, r
    return ["{", f"  const {t} poly_s = {ls} + {rs}, poly_p = fmax({lp}, {ls} + {rp});",
            f"  const {t} poly_f = fmax({rf}, {rs} + {lf}), poly_b = fmax(fmax({lb}, {rb}), {lf} + {rp});",
            *(f"  {o} = poly_{x};" for o, x in zip(out, "spfb")), "}"]


def kernels(p, launch, rm: RunningMax) -> tuple[str, list[str], str]:
    """The two kernels' source (p: the Printer), their arguments and the `__device__` tuples."""
    name, t, var = launch.name, rm.dtype, rm.loop.var
    mine = tuple(f"poly_{x}" for x in _FIELDS)
    sh = tuple(f"poly_{x}s" for x in _FIELDS)
    parts = tuple(f"{name}_parts_{x}" for x in _FIELDS)
    at = lambda arrs, j: tuple(f"{a}[{j}]" for a in arrs)
    ind = lambda lines, pad: [pad + x for x in lines]
    start = rm.loop.init.split("=", 1)[1].strip()
    start = start if WORD.fullmatch(start) or start.isdigit() else f"({start})"
    e = cprint(p.r.node(rm.value, p.names_for(rm.step.stmt.name)))
    declare = [f"  __shared__ {t} {', '.join(s + f'[{THREADS}]' for s in sh)};",
               f"  {t} {mine[0]} = 0, {', '.join(x + ' = -INFINITY' for x in mine[1:])};"]
    chunk = lambda first, end: [f"  const int poly_len = {end} - {first};",
                                f"  const int poly_chunk = (poly_len + {THREADS - 1}) / {THREADS};",
                                f"  const int poly_lo = {first} + (int)threadIdx.x * poly_chunk;",
                                f"  const int poly_hi = poly_lo + poly_chunk < {end} ? poly_lo + poly_chunk : {end};"]
    tree = [*(f"  {s}[threadIdx.x] = {x};" for s, x in zip(sh, mine)), "  __syncthreads();",
            f"  for (int poly_w = 1; poly_w < {THREADS}; poly_w <<= 1) {{   /* adjacent segments, in order */",
            "    if (threadIdx.x % (2 * poly_w) == 0)",
            *ind(_then(t, at(sh, "threadIdx.x"), at(sh, "threadIdx.x + poly_w"), at(sh, "threadIdx.x")), "      "),
            "    __syncthreads();", "  }"]
    part = [*declare, "  const int poly_first = (int)blockIdx.x * poly_seg;",
            "  const int poly_end = poly_count - poly_first < poly_seg ? poly_count : poly_first + poly_seg;",
            *chunk("poly_first", "poly_end"),
            "  for (int poly_o = poly_lo; poly_o < poly_hi; poly_o++) {   /* Kadane's loop, and the sums */",
            f"    const int {var} = {start} + poly_o;", f"    if (!({rm.loop.cond}))", "      break;",
            f"    const {t} poly_e = ({t})({e});",
            f"    {mine[0]} += poly_e;", f"    {mine[1]} = fmax({mine[1]}, {mine[0]});",
            f"    {mine[2]} = fmax({mine[2]} + poly_e, poly_e);", f"    {mine[3]} = fmax({mine[3]}, {mine[2]});", "  }",
            *tree, "  if (threadIdx.x == 0) {", *(f"    {a}[blockIdx.x] = {s}[0];" for a, s in zip(parts, sh)), "  }"]
    run, m = rm.webs
    around = lambda nodes: [x for n in nodes for x in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), "    ")]
    final = [*declare, f"  {t} {run}, {m};", *(f"  {ty} {w};" for w, ty in rm.others),
             *chunk("0", "poly_parts"), "  for (int poly_q = poly_lo; poly_q < poly_hi; poly_q++)",
             *ind(_then(t, mine, at(parts, "poly_q"), mine), "  "), *tree,
             "  if (threadIdx.x == 0) {   /* the loop's tuple after the values before it */", *around(rm.inits),
             f"    {m} = fmax({m}, fmax({sh[3]}[0], {run} + {sh[1]}[0]));",
             f"    {run} = fmax({sh[2]}[0], {run} + {sh[0]}[0]);", *around(rm.fins), "  }"]
    args = p.kernel_args(launch, names_used("\n".join(part + final)))
    params = "".join(p.param_decl(x, launch) + ", " for x in args)
    head = f"__global__ void __launch_bounds__({THREADS}) {name}"
    own = {"part": f"{params}int poly_count, int poly_seg", "final": f"{params}int poly_parts"}
    fn = lambda k, body: [f"{head}_{k}({own[k]})", "{", *p.waits(f"{name}_{k}", launch.host_loops, own[k]), *body, "}"]
    src = [f"/* {describe(p, launch)} */", *fn("part", part), "", *fn("final", final)]
    cap = p.opt.scans.parts
    decls = "\n".join(f"__device__ {t} {a}[{cap}];   /* each block's {x} */"
                      for a, x in zip(parts, ("sum", "best prefix", "best suffix", "best")))
    return "\n".join(src), args, decls


def launch_code(p, launch, rm: RunningMax, args: list[str], indent: str) -> list[str]:
    """Host code: a block per THREADS iterations, at most `scans.parts` (contiguous ranges);
    NAME_final always runs (it runs INITS and FINS)."""
    cap = p.opt.scans.parts
    outer = tuple(l.var for l in launch.host_loops)
    (lows, highs), = p.an.model.box([rm.step.stmt.name], (rm.loop.var,), outer)
    extent = extent_text(max_expr(highs), min_expr(lows)) if lows and highs else "0"
    call = "".join(a + ", " for a in args)
    line = lambda k, grid, last: p.launch_line(f"{launch.name}_{k}", (grid, str(THREADS)), f"{call}{last}",
                                               launch.host_loops)
    return [f"{indent}{{",
            f"{indent}  const int poly_count = {extent};   /* {rm.loop.var}: at most */",
            f"{indent}  int poly_parts = poly_count > 0 ? (poly_count + {THREADS - 1}) / {THREADS} : 0;",
            f"{indent}  if (poly_parts > {cap})", f"{indent}    poly_parts = {cap};",
            f"{indent}  const int poly_seg = poly_parts > 0 ? (poly_count + poly_parts - 1) / poly_parts : 0;",
            f"{indent}  if (poly_parts > 0)", f"{indent}    {line('part', 'poly_parts', 'poly_count, poly_seg')}",
            f"{indent}  {line('final', '1', 'poly_parts')}", f"{indent}}}"]


def describe(p, launch) -> str:
    """One sentence for the candidate's header."""
    rm = launch.running_max
    return (f"{launch.name}: a maximum of running sums (Kadane) over {rm.loop.var} as an ordered reduction of "
            f"(sum, best prefix, best suffix, best) tuples: blocks of {THREADS} threads fold contiguous chunks "
            f"and combine adjacent ones in order, then one block combines the blocks' and folds in "
            f"{rm.run} and {rm.best}'s values before the loop.")
