"""A maximum of running sums (Kadane's scan) as an ordered reduction of 4-tuples.

    running_max_of(analysis, storage, launch, shape, shared) -> RunningMax | None

Takes a one-thread launch `INITS; for (i = lo; cond; i++) { run = max(run + E, E); m = max(m,
run); } FINS` (ternaries, `fmax` or an `if`), run and m floating-point locals that FINS only
reads, E reading no local, cond holding on a prefix of the loop's box (as an affine bound does).
Gives `NAME_part` (each block folds its contiguous range into a tuple: sum, best prefix, best
suffix, best; a tile of `shape` = (threads, elements per thread) at a time, E's values loaded
coalesced into shared memory, each thread folding its consecutive run, a warp's runs joined by
shuffles, the warps' in order) and `NAME_final` (one block combines the tuples in order, runs
INITS, joins the loop's start values, runs FINS). Elements past the range or failing cond are
never folded. The combine is associative, not commutative, and in a fixed order; sums are
reassociated within a sum's tolerance. Refuses (None) any other shape, or a tile that does not
fit `shared` bytes (the target's static shared memory). docs/poly.md, "Running maxima".
"""
from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir.csyntax import cprint, names
from ...ir.kernel import DTYPES
from .ctext import WORD, extent_text, max_expr, min_expr, names_used

THREADS = 256                   # NAME_final's block (and the host's elements per part at least)
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
    threads: int                # NAME_part's block: whole warps
    items: int                  # consecutive elements per thread in a tile


def running_max_of(an: Analysis, storage: dict, launch, shape: tuple[int, int], shared: int) -> RunningMax | None:
    """The launch as a maximum of running sums, its part kernel in tiles of `shape` (threads,
    elements per thread), or None when it is not exactly that form or the tile does not fit."""
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
    threads, items = shape
    dtype = dtypes.pop()
    if threads % 32 or not 32 <= threads <= 1024 or items < 1 or \
            (_slots(dtype, threads * items) + 4 * threads // 32) * DTYPES[dtype][0] > shared:
        return None
    return RunningMax(inits, loop, step, keep, fins, run, m, value, dtype, tuple(webs),
                      tuple(others.items()), threads, items)


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

def _shift(dtype: str) -> int:
    """A slot skipped after every 128 bytes of a tile in shared memory, so that a thread's
    consecutive elements (the fold's reads, a warp at a time) fall on other banks."""
    return 4 if DTYPES[dtype][0] == 8 else 5


def _slots(dtype: str, tile: int) -> int:
    return tile + (tile >> _shift(dtype))


def _fmax(t: str) -> str:
    return "fmaxf" if t == "float" else "fmax"


def _then(t: str, l: tuple, r: tuple, out: tuple) -> list[str]:
    """out = l then r (the tuples are C names in _FIELDS' order; out may be l)."""
    (ls, lp, lf, lb), (rs, rp, rf, rb), mx = l, r, _fmax(t)
    return ["{", f"  const {t} poly_s = {ls} + {rs}, poly_p = {mx}({lp}, {ls} + {rp});",
            f"  const {t} poly_f = {mx}({rf}, {rs} + {lf}), poly_b = {mx}({mx}({lb}, {rb}), {lf} + {rp});",
            *(f"  {o} = poly_{x};" for o, x in zip(out, "spfb")), "}"]


def _part(rm: RunningMax, e: str, start: str, sh: tuple, mine: tuple, parts: tuple) -> list[str]:
    """NAME_part's body: its block's range [poly_first, poly_end) a tile at a time (module docstring).
    A thread's loads of a tile are all issued before its stores into shared memory (held in
    registers), so that they are in flight together. Two barriers a tile: after the stores, and
    after the fold and the warps' tuples (so every read of the tile and of the warps' tuples
    precedes the next tile's writes)."""
    t, var, cond, threads, items = rm.dtype, rm.loop.var, rm.loop.cond, rm.threads, rm.items
    tile, warps, mx, shift = threads * items, threads // 32, _fmax(t), _shift(t)
    slot = lambda j: f"{j} + ({j} >> {shift})"
    own, up = ("poly_ts", "poly_tp", "poly_tf", "poly_tb"), ("poly_us", "poly_up", "poly_uf", "poly_ub")
    ind = lambda lines, pad: [pad + x for x in lines]
    coalesced = lambda what, line: [
        "#pragma unroll", f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* {what} */",
        f"      const int poly_j = poly_k * {threads} + (int)threadIdx.x, poly_o = poly_t0 + poly_j;",
        f"      const int {var} = {start} + poly_o;", f"      if (poly_o < poly_end && ({cond}))", f"        {line}", "    }"]
    return [
        f"  __shared__ {t} poly_v[{_slots(t, tile)}];   /* a tile of E's values, a slot skipped after every 128 bytes */",
        f"  __shared__ {t} {', '.join(s + f'[{warps}]' for s in sh)};   /* each warp's tuple of the tile */",
        "  const int poly_lane = (int)threadIdx.x & 31, poly_warp = (int)threadIdx.x >> 5;",
        f"  {t} {mine[0]} = 0, {', '.join(x + ' = -INFINITY' for x in mine[1:])};   /* the block's tuple, in every thread alike */",
        "  const int poly_first = (int)blockIdx.x * poly_seg;",
        "  const int poly_end = poly_count - poly_first < poly_seg ? poly_count : poly_first + poly_seg;",
        f"  for (int poly_t0 = poly_first; poly_t0 < poly_end; poly_t0 += {tile}) {{",
        "    {", f"      const int {var} = {start} + poly_t0;", f"      if (!({cond}))",
        "        break;                 /* the loop ended before this tile: every thread alike */", "    }",
        f"    {t} poly_r[{items}];", *coalesced("the tile's values, coalesced, all loads first",
                                             f"poly_r[poly_k] = ({t})({e});"),
        *coalesced("into the tile", f"poly_v[{slot('poly_j')}] = poly_r[poly_k];"),
        "    __syncthreads();   /* the tile loaded */",
        f"    {t} {own[0]} = 0, {', '.join(x + ' = -INFINITY' for x in own[1:])};",
        "#pragma unroll",
        f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* this thread's consecutive values, in order */",
        f"      const int poly_j = (int)threadIdx.x * {items} + poly_k, poly_o = poly_t0 + poly_j;",
        f"      const int {var} = {start} + poly_o;",
        f"      if (!(poly_o < poly_end && ({cond})))",
        "        break;                 /* past the range or the loop's end: not folded */",
        f"      const {t} poly_x = poly_v[{slot('poly_j')}];",
        f"      {own[0]} += poly_x;", f"      {own[1]} = {mx}({own[1]}, {own[0]});",
        f"      {own[2]} = {mx}({own[2]} + poly_x, poly_x);", f"      {own[3]} = {mx}({own[3]}, {own[2]});", "    }",
        "    for (int poly_d = 1; poly_d < 32; poly_d <<= 1) {   /* the warp's runs: lane l then lane l + d */",
        f"      const {t} " + ", ".join(f"{u} = __shfl_down_sync(0xffffffffu, {x}, poly_d)" for u, x in zip(up, own)) + ";",
        "      if ((poly_lane & (2 * poly_d - 1)) == 0)", *ind(_then(t, own, up, own), "        "), "    }",
        "    if (poly_lane == 0) {", *(f"      {s}[poly_warp] = {x};" for s, x in zip(sh, own)), "    }",
        "    __syncthreads();   /* the tile read, the warps' tuples written: the next tile may load */",
        f"    for (int poly_w = 0; poly_w < {warps}; poly_w++)   /* the block's tuple then each warp's, in order */",
        *ind(_then(t, mine, tuple(f"{s}[poly_w]" for s in sh), mine), "    "), "  }",
        "  if (threadIdx.x == 0) {", *(f"    {a}[blockIdx.x] = {x};" for a, x in zip(parts, mine)), "  }"]


def kernels(p, launch, rm: RunningMax) -> tuple[str, list[str], str]:
    """The two kernels' source (p: the Printer), their arguments and the `__device__` tuples."""
    name, t = launch.name, rm.dtype
    mine = tuple(f"poly_{x}" for x in _FIELDS)
    sh = tuple(f"poly_{x}s" for x in _FIELDS)
    parts = tuple(f"{name}_parts_{x}" for x in _FIELDS)
    at = lambda arrs, j: tuple(f"{a}[{j}]" for a in arrs)
    ind = lambda lines, pad: [pad + x for x in lines]
    start = rm.loop.init.split("=", 1)[1].strip()
    start = start if WORD.fullmatch(start) or start.isdigit() else f"({start})"
    e = cprint(p.r.node(rm.value, p.names_for(rm.step.stmt.name)))
    part = _part(rm, e, start, sh, mine, parts)
    declare = [f"  __shared__ {t} {', '.join(s + f'[{THREADS}]' for s in sh)};",
               f"  {t} {mine[0]} = 0, {', '.join(x + ' = -INFINITY' for x in mine[1:])};"]
    chunk = ["  const int poly_len = poly_parts - 0;",
             f"  const int poly_chunk = (poly_len + {THREADS - 1}) / {THREADS};",
             "  const int poly_lo = 0 + (int)threadIdx.x * poly_chunk;",
             "  const int poly_hi = poly_lo + poly_chunk < poly_parts ? poly_lo + poly_chunk : poly_parts;"]
    tree = [*(f"  {s}[threadIdx.x] = {x};" for s, x in zip(sh, mine)), "  __syncthreads();",
            f"  for (int poly_w = 1; poly_w < {THREADS}; poly_w <<= 1) {{   /* adjacent segments, in order */",
            "    if (threadIdx.x % (2 * poly_w) == 0)",
            *ind(_then(t, at(sh, "threadIdx.x"), at(sh, "threadIdx.x + poly_w"), at(sh, "threadIdx.x")), "      "),
            "    __syncthreads();", "  }"]
    run, m = rm.webs
    mx = _fmax(t)
    around = lambda nodes: [x for n in nodes for x in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), "    ")]
    final = [*declare, f"  {t} {run}, {m};", *(f"  {ty} {w};" for w, ty in rm.others),
             *chunk, "  for (int poly_q = poly_lo; poly_q < poly_hi; poly_q++)",
             *ind(_then(t, mine, at(parts, "poly_q"), mine), "  "), *tree,
             "  if (threadIdx.x == 0) {   /* the loop's tuple after the values before it */", *around(rm.inits),
             f"    {m} = {mx}({m}, {mx}({sh[3]}[0], {run} + {sh[1]}[0]));",
             f"    {run} = {mx}({sh[2]}[0], {run} + {sh[0]}[0]);", *around(rm.fins), "  }"]
    args = p.kernel_args(launch, names_used("\n".join(part + final)))
    params = "".join(p.param_decl(x, launch) + ", " for x in args)
    own = {"part": f"{params}int poly_count, int poly_seg", "final": f"{params}int poly_parts"}
    fn = lambda k, threads, body: [f"__global__ void __launch_bounds__({threads}) {name}_{k}({own[k]})", "{",
                                   *p.waits(f"{name}_{k}", launch.host_loops, own[k]), *body, "}"]
    src = [f"/* {describe(p, launch)} */", *fn("part", rm.threads, part), "", *fn("final", THREADS, final)]
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
    line = lambda k, grid, threads, last: p.launch_line(f"{launch.name}_{k}", (grid, str(threads)), f"{call}{last}",
                                                        launch.host_loops)
    return [f"{indent}{{",
            f"{indent}  const int poly_count = {extent};   /* {rm.loop.var}: at most */",
            f"{indent}  int poly_parts = poly_count > 0 ? (poly_count + {THREADS - 1}) / {THREADS} : 0;",
            f"{indent}  if (poly_parts > {cap})", f"{indent}    poly_parts = {cap};",
            f"{indent}  const int poly_seg = poly_parts > 0 ? (poly_count + poly_parts - 1) / poly_parts : 0;",
            f"{indent}  if (poly_parts > 0)",
            f"{indent}    {line('part', 'poly_parts', rm.threads, 'poly_count, poly_seg')}",
            f"{indent}  {line('final', '1', THREADS, 'poly_parts')}", f"{indent}}}"]


def describe(p, launch) -> str:
    """One sentence for the candidate's header."""
    rm = launch.running_max
    return (f"{launch.name}: a maximum of running sums (Kadane) over {rm.loop.var} as an ordered reduction of "
            f"(sum, best prefix, best suffix, best) tuples: blocks of {rm.threads} threads walk their range in "
            f"tiles of {rm.threads * rm.items} elements loaded coalesced, each thread folds {rm.items} consecutive "
            f"ones, adjacent threads and warps combine in order, then one block combines the blocks' and folds in "
            f"{rm.run} and {rm.best}'s values before the loop.")
