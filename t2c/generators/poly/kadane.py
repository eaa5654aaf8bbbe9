"""A maximum of running sums (Kadane's scan) as an ordered reduction of 4-tuples.

    running_max_of(analysis, storage, launch, shape, shared) -> RunningMax | None

Takes a one-thread launch `INITS; for (i = lo; cond; i++) { run = max(run + E, E); m = max(m,
run); } FINS` (ternaries, `fmax` or an `if`), run and m locals of one floating-point or integer
type (int and wider, signed or unsigned) that FINS only reads, E reading no local, cond holding on
a prefix of the loop's box (as an affine bound does).
Gives `NAME_part` (each block folds its contiguous range into a tuple: sum, best prefix, best
suffix, best; a tile of `shape` = (threads, elements per thread) at a time, E's values loaded
coalesced into shared memory, each thread folding its consecutive run, a warp's runs joined by
shuffles, the warps' in order) and `NAME_final` (one block combines the tuples in order, runs
INITS, joins the loop's start values, runs FINS). Elements past the range or failing cond are
never folded. The combine is associative, not commutative, and in a fixed order; floating sums
are reassociated within a sum's tolerance. The empty segment of floats is (0, -inf, -inf, -inf).
Integers have no such value (a sentinel such as INT64_MIN could be data, and overflows when added),
so there a tuple carries a flag, set once it holds an element: a thread starts its run from its
first element, and a join with an empty side keeps the other. Integer sums are exact, so the
result is the reference's bits wherever no sum of a contiguous run of E's values, nor run's start
value plus a prefix of them, overflows the type. Refuses (None) any other shape; for integers, a
run narrower than int (the reference adds in int, then narrows) or an E whose C type is floating,
unknown, or makes a signed run's `run + E` unsigned; and a tile that does not fit `shared` bytes
(the target's static shared memory). docs/poly.md, "Running maxima".
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
_INT = 4, True                  # (bytes, signed) of int, which narrower integers promote to
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
    dtype: str                  # run's and m's type, as declared
    webs: tuple                 # (run's web, m's web): their registers in the final kernel
    others: tuple               # (web, C type): other locals of INITS and FINS
    threads: int                # NAME_part's block: whole warps
    items: int                  # consecutive elements per thread in a tile
    flagged: bool = False       # integers: a tuple carries a flag (empty or not), no -inf identity


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
    if len(dtypes) != 1:
        return None
    dtype = dtypes.pop()
    if dtype not in _REAL and not _exact(dtype, value, prog, launch, loop):
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
    flagged = dtype not in _REAL
    if threads % 32 or not 32 <= threads <= 1024 or items < 1:
        return None
    tile_bytes = (_slots(dtype, threads * items) + 4 * threads // 32) * _bytes(dtype)
    if tile_bytes + 4 * flagged * threads // 32 > shared:          # the warps' flags: ints
        return None
    return RunningMax(inits, loop, step, keep, fins, run, m, value, dtype, tuple(webs),
                      tuple(others.items()), threads, items, flagged)


def _exact(dtype: str, value, prog, launch, loop) -> bool:
    """Whether run's integer type `dtype` and E's C type make the reference's steps Kadane's on
    integers: run at least an int, E's type known and integral, and run + E not unsigned where run
    is signed (then `run + E > E` would compare wrapped values). A wider common type (an int run,
    a long E) computes the same where the sums fit run's type."""
    mine = _int_type(dtype)
    types = {a.name: a.dtype for a in (*prog.kernel.arrays, *prog.kernel.scalars)}
    types.update({x: "int" for x in (*prog.kernel.params, *(l.var for l in launch.host_loops), loop.var)
                  if x not in types})                 # sizes and loop variables: the kernels' ints
    theirs = _type_of(value, types)
    return mine is not None and mine[0] >= 4 and theirs is not None and \
        (_common(mine, theirs)[1] or not mine[1])


def _int_type(t: str) -> tuple[int, bool] | None:
    """(bytes, signed) of a C integer type as written (`long long int`, `unsigned`); None for
    any other type. Sizes are LP64's, the targets' (nvcc and g++ on 64-bit Linux)."""
    words = t.split()
    if not words or set(words) - {"int", "long", "unsigned", "signed", "short", "char"} or \
            ("short" in words or "char" in words) and "long" in words:
        return None
    size = 1 if "char" in words else 2 if "short" in words else 8 if "long" in words else 4
    return size, "unsigned" not in words


def _common(a: tuple[int, bool], b: tuple[int, bool]) -> tuple[int, bool]:
    """C's usual arithmetic conversions of two integer types (bytes, signed), after promotion."""
    a, b = (max(x, _INT) if x[0] < 4 else x for x in (a, b))
    if a[1] == b[1]:
        return max(a[0], b[0]), a[1]
    signed, unsigned = (a, b) if a[1] else (b, a)
    return signed if signed[0] > unsigned[0] else (max(a[0], b[0]), False)


def _type_of(e, types: dict) -> tuple[int, bool] | None:
    """E's C type as (bytes, signed) where it is an integer type poly can tell (names typed by
    `types`, constants, casts, arithmetic, ternaries); None where floating or unsure."""
    if isinstance(e, c_ast.Constant):
        if e.type == "char":
            return _INT
        if e.type != "int":
            return None
        text = e.value.lower()
        digits = text.rstrip("ul")
        suffix, base = text[len(digits):], 16 if digits.startswith("0x") else 8 if digits[:1] == "0" else 10
        value = int(digits[2:] if base == 16 else digits, base)
        return next(((size, signed) for size in (4, 8) for signed in (True, False)   # C's first that holds it
                     if value < 2 ** (8 * size - signed) and not (signed and "u" in suffix or size == 4 and "l" in suffix
                                                                 or not signed and base == 10 and "u" not in suffix)),
                    None)
    while isinstance(e, c_ast.ArrayRef):
        e = e.name
    if isinstance(e, c_ast.ID):
        return _int_type(types.get(e.name, ""))
    if isinstance(e, c_ast.Cast):
        t = e.to_type.type
        return _int_type(" ".join(t.type.names)) if isinstance(t, c_ast.TypeDecl) and \
            isinstance(t.type, c_ast.IdentifierType) else None
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+", "~"):
        t = _type_of(e.expr, types)
        return t and _common(t, t)
    if isinstance(e, c_ast.BinaryOp) and e.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
        return _INT
    if isinstance(e, c_ast.BinaryOp) and e.op in ("<<", ">>"):
        t = _type_of(e.left, types)
        return t and _common(t, t)
    pair = (e.left, e.right) if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-", "*", "/", "%", "&", "|", "^") \
        else (e.iftrue, e.iffalse) if isinstance(e, c_ast.TernaryOp) else None
    got = pair and [_type_of(x, types) for x in pair]
    return _common(*got) if got and None not in got else None


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

def _bytes(dtype: str) -> int:
    return DTYPES[dtype][0] if dtype in _REAL else _int_type(dtype)[0]


def _shift(dtype: str) -> int:
    """A slot skipped after every 128 bytes of a tile in shared memory, so that a thread's
    consecutive elements (the fold's reads, a warp at a time) fall on other banks."""
    return 4 if _bytes(dtype) == 8 else 5


def _slots(dtype: str, tile: int) -> int:
    return tile + (tile >> _shift(dtype))


def _fmax(t: str) -> str:
    """The maximum of two values of type t: CUDA's `max` overloads for every integer type."""
    return "fmaxf" if t == "float" else "fmax" if t == "double" else "max"


def _fields(rm: RunningMax) -> tuple:
    return _FIELDS + ("n",) * rm.flagged


def _empty(t: str, names: tuple) -> str:
    """Declare the empty tuple `names`: (0, -inf, -inf, -inf) for floats; integers' fields are
    zeros never read, its flag (the fifth name) 0."""
    if len(names) == 4:
        return f"{t} {names[0]} = 0, {', '.join(x + ' = -INFINITY' for x in names[1:])};"
    return f"{t} {', '.join(x + ' = 0' for x in names[:4])}; int {names[4]} = 0;"


def _then(t: str, l: tuple, r: tuple, out: tuple) -> list[str]:
    """out = l then r (the tuples are C names in _FIELDS' order; out may be l). Flagged tuples
    (a fifth name) join only where r holds an element, and take r where l holds none."""
    (ls, lp, lf, lb), (rs, rp, rf, rb), mx = l[:4], r[:4], _fmax(t)
    both = [f"  const {t} poly_s = {ls} + {rs}, poly_p = {mx}({lp}, {ls} + {rp});",
            f"  const {t} poly_f = {mx}({rf}, {rs} + {lf}), poly_b = {mx}({mx}({lb}, {rb}), {lf} + {rp});",
            *(f"  {o} = poly_{x};" for o, x in zip(out, "spfb"))]
    if len(l) == 4:
        return ["{", *both, "}"]
    keep = [] if out == l else [f"  {o} = {x};" for o, x in zip(out, l)]
    return [f"if ({r[4]}) {{", f"  if ({l[4]}) {{", *("  " + x for x in both), "  } else {",
            *(f"    {o} = {x};" for o, x in zip(out[:4], r[:4])), "  }", f"  {out[4]} = 1;",
            *(["} else {", *keep, "}"] if keep else ["}"])]


def _fold(t: str, own: tuple, items: int) -> list[str]:
    """This thread's next value poly_x into its tuple own. Floats fold from the empty tuple;
    flagged integers start from their first value (poly_k == 0: the unrolled loop drops the test)."""
    mx = _fmax(t)
    step = [f"{own[0]} += poly_x;", f"{own[1]} = {mx}({own[1]}, {own[0]});",
            f"{own[2]} = {mx}({own[2]} + poly_x, poly_x);", f"{own[3]} = {mx}({own[3]}, {own[2]});"]
    if len(own) == 4:
        return ["      " + x for x in step]
    return ["      if (poly_k == 0) {   /* the run's first value: no identity */",
            f"        {' = '.join(own[:4])} = poly_x;", f"        {own[4]} = 1;", "      } else {",
            *("        " + x for x in step), "      }"]


def _part(rm: RunningMax, e: str, start: str, sh: tuple, mine: tuple, parts: tuple) -> list[str]:
    """NAME_part's body: its block's range [poly_first, poly_end) a tile at a time (module docstring).
    A thread's loads of a tile are all issued before its stores into shared memory (held in
    registers), so that they are in flight together. Two barriers a tile: after the stores, and
    after the fold and the warps' tuples (so every read of the tile and of the warps' tuples
    precedes the next tile's writes)."""
    t, var, cond, threads, items = rm.dtype, rm.loop.var, rm.loop.cond, rm.threads, rm.items
    tile, warps, shift = threads * items, threads // 32, _shift(t)
    slot = lambda j: f"{j} + ({j} >> {shift})"
    fields = _fields(rm)
    own, up = tuple(f"poly_t{x}" for x in "spfbn"[:len(fields)]), tuple(f"poly_u{x}" for x in "spfbn"[:len(fields)])
    ind = lambda lines, pad: [pad + x for x in lines]
    coalesced = lambda what, line: [
        "#pragma unroll", f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* {what} */",
        f"      const int poly_j = poly_k * {threads} + (int)threadIdx.x, poly_o = poly_t0 + poly_j;",
        f"      const int {var} = {start} + poly_o;", f"      if (poly_o < poly_end && ({cond}))", f"        {line}", "    }"]
    shuffle = lambda ty, pairs: f"      const {ty} " + ", ".join(
        f"{u} = __shfl_down_sync(0xffffffffu, {x}, poly_d)" for u, x in pairs) + ";"
    return [
        f"  __shared__ {t} poly_v[{_slots(t, tile)}];   /* a tile of E's values, a slot skipped after every 128 bytes */",
        f"  __shared__ {t} {', '.join(s + f'[{warps}]' for s in sh[:4])};   /* each warp's tuple of the tile */",
        *([f"  __shared__ int {sh[4]}[{warps}];"] if rm.flagged else []),
        "  const int poly_lane = (int)threadIdx.x & 31, poly_warp = (int)threadIdx.x >> 5;",
        f"  {_empty(t, mine)}   /* the block's tuple, in every thread alike */",
        "  const int poly_first = (int)blockIdx.x * poly_seg;",
        "  const int poly_end = poly_count - poly_first < poly_seg ? poly_count : poly_first + poly_seg;",
        f"  for (int poly_t0 = poly_first; poly_t0 < poly_end; poly_t0 += {tile}) {{",
        "    {", f"      const int {var} = {start} + poly_t0;", f"      if (!({cond}))",
        "        break;                 /* the loop ended before this tile: every thread alike */", "    }",
        f"    {t} poly_r[{items}];", *coalesced("the tile's values, coalesced, all loads first",
                                             f"poly_r[poly_k] = ({t})({e});"),
        *coalesced("into the tile", f"poly_v[{slot('poly_j')}] = poly_r[poly_k];"),
        "    __syncthreads();   /* the tile loaded */",
        f"    {_empty(t, own)}",
        "#pragma unroll",
        f"    for (int poly_k = 0; poly_k < {items}; poly_k++) {{   /* this thread's consecutive values, in order */",
        f"      const int poly_j = (int)threadIdx.x * {items} + poly_k, poly_o = poly_t0 + poly_j;",
        f"      const int {var} = {start} + poly_o;",
        f"      if (!(poly_o < poly_end && ({cond})))",
        "        break;                 /* past the range or the loop's end: not folded */",
        f"      const {t} poly_x = poly_v[{slot('poly_j')}];", *_fold(t, own, items), "    }",
        "    for (int poly_d = 1; poly_d < 32; poly_d <<= 1) {   /* the warp's runs: lane l then lane l + d */",
        shuffle(t, zip(up[:4], own[:4])), *([shuffle("int", [(up[4], own[4])])] if rm.flagged else []),
        "      if ((poly_lane & (2 * poly_d - 1)) == 0)", *ind(_then(t, own, up, own), "        "), "    }",
        "    if (poly_lane == 0) {", *(f"      {s}[poly_warp] = {x};" for s, x in zip(sh, own)), "    }",
        "    __syncthreads();   /* the tile read, the warps' tuples written: the next tile may load */",
        f"    for (int poly_w = 0; poly_w < {warps}; poly_w++)   /* the block's tuple then each warp's, in order */",
        *ind(_then(t, mine, tuple(f"{s}[poly_w]" for s in sh), mine), "    "), "  }",
        "  if (threadIdx.x == 0) {", *(f"    {a}[blockIdx.x] = {x};" for a, x in zip(parts, mine)), "  }"]


def kernels(p, launch, rm: RunningMax) -> tuple[str, list[str], str]:
    """The two kernels' source (p: the Printer), their arguments and the `__device__` tuples."""
    name, t = launch.name, rm.dtype
    fields = _fields(rm)
    mine = tuple(f"poly_{x}" for x in fields)
    sh = tuple(f"poly_{x}s" for x in fields)
    parts = tuple(f"{name}_parts_{x}" for x in fields)
    at = lambda arrs, j: tuple(f"{a}[{j}]" for a in arrs)
    ind = lambda lines, pad: [pad + x for x in lines]
    start = rm.loop.init.split("=", 1)[1].strip()
    start = start if WORD.fullmatch(start) or start.isdigit() else f"({start})"
    e = cprint(p.r.node(rm.value, p.names_for(rm.step.stmt.name)))
    part = _part(rm, e, start, sh, mine, parts)
    declare = [f"  __shared__ {t} {', '.join(s + f'[{THREADS}]' for s in sh[:4])};",
               *([f"  __shared__ int {sh[4]}[{THREADS}];"] if rm.flagged else []), f"  {_empty(t, mine)}"]
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
    join = [f"{m} = {mx}({m}, {mx}({sh[3]}[0], {run} + {sh[1]}[0]));", f"{run} = {mx}({sh[2]}[0], {run} + {sh[0]}[0]);"]
    join = [f"if ({sh[4]}[0]) {{   /* an empty loop leaves them as they are */", *("  " + x for x in join), "}"] \
        if rm.flagged else join
    final = [*declare, f"  {t} {run}, {m};", *(f"  {ty} {w};" for w, ty in rm.others),
             *chunk, "  for (int poly_q = poly_lo; poly_q < poly_hi; poly_q++)",
             *ind(_then(t, mine, at(parts, "poly_q"), mine), "  "), *tree,
             "  if (threadIdx.x == 0) {   /* the loop's tuple after the values before it */", *around(rm.inits),
             *ind(join, "    "), *around(rm.fins), "  }"]
    args = p.kernel_args(launch, names_used("\n".join(part + final)))
    params = "".join(p.param_decl(x, launch) + ", " for x in args)
    own = {"part": f"{params}int poly_count, int poly_seg", "final": f"{params}int poly_parts"}
    fn = lambda k, threads, body: [f"__global__ void __launch_bounds__({threads}) {name}_{k}({own[k]})", "{",
                                   *p.waits(f"{name}_{k}", launch.host_loops, own[k]), *body, "}"]
    src = [f"/* {describe(p, launch)} */", *fn("part", rm.threads, part), "", *fn("final", THREADS, final)]
    cap = p.opt.scans.parts
    decls = "\n".join(f"__device__ {t} {a}[{cap}];   /* each block's {x} */"
                      for a, x in zip(parts, ("sum", "best prefix", "best suffix", "best")))
    if rm.flagged:
        decls += f"\n__device__ int {parts[4]}[{cap}];   /* whether each block folded a value */"
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
            f"{rm.run} and {rm.best}'s values before the loop." +
            (" Integers: exact sums, and a flag marks a tuple that holds no element." if rm.flagged else ""))
