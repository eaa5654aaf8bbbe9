"""Reductions: whole loops into scalars on a grid, rows by lanes, column sums, block sums.

    reduction_of(an, storage, launch) -> Reduction | None      a one-thread fold on a grid
    row_reduction_of(...) -> RowReduction | None               a row or column sum by lanes
    block_sum_of(an, storage, launch) -> BlockSum | None       a one-block loop's shared sum

Takes a launch whose loops (or rectangular nests, over their flat range) fold into accumulators
(sums, products, max, min, counts, arg-bests, least-index searches) and write no array. Gives
per-block partials that the last block combines in index order (a search also shares its best
index, so threads stop early, and walks in turns of several indices whose loads are issued
together). Sums are reordered (the tolerance's business) but fixed: the same bits every run.
Refuses (None) a fold reading another accumulator. docs/poly.md, "Reductions on a grid", "Lanes
per row".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...analysis.isl_bridge import always_within
from ...analysis.model import NotAffine, affine, base_and_subscripts, parse_expr
from ...ir.csyntax import array_name, conjuncts, cprint, renamed, walk as _walk
from .ctext import array_refs, extent_text, identifiers, max_expr, min_expr, names_used, rewrite
from .mapping import grid_axes

THREADS = 256

# operator -> (identity, C combine of a and b, C folding `total` into `acc` after its value `old`);
# imax/imin: an int's `T = (T >= e) ? T : e` (exact in any order, unlike a float's ternary and NaN)
_FOLD = "{acc} = {old} %s {total};"
OPS = {"+=": ("0", "{a} + {b}", _FOLD % "+"), "-=": ("0", "{a} + {b}", _FOLD % "+"),
       "*=": ("1", "{a} * {b}", _FOLD % "*"),
       "max": ("-INFINITY", "fmax({a}, {b})", "{acc} = fmax({old}, {total});"),
       "min": ("INFINITY", "fmin({a}, {b})", "{acc} = fmin({old}, {total});"),
       "imax": ("(-2147483647 - 1)", "max({a}, {b})", "{acc} = max({old}, {total});"),
       "imin": ("2147483647", "min({a}, {b})", "{acc} = min({old}, {total});")}
_CALL = {"max": "fmax", "min": "fmin", "imax": "max", "imin": "min"}     # the function of a max/min op


def combine(op: str, a: str, b: str) -> str:
    """C text combining two partial results of reduction `op`."""
    return OPS[op][1].format(a=a, b=b)


def join(op: str, acc: str, total: str, old: str = "") -> str:
    """C statement folding the combined `total` into the accumulator after its initial value
    (`old`: that value's C text when not `acc` itself, e.g. a register loaded earlier)."""
    return OPS[op][2].format(acc=acc, old=old or acc, total=total)


SENTINEL = "(-2147483647 - 1)"     # an arg-best's index before any element: no loop reaches it
_STRICT = {">": ">", ">=": ">", "<": "<", "<=": "<"}
_FLIP = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


@dataclass(frozen=True)
class Fold:
    """One statement of a reduction loop and how its results combine.

    kind `op`: `acc OP= e` in one of `_contribution`'s forms, or under an `if` without else
    (`if (a[i] > 0) c++;`): registers start at OPS[op]'s identity, partials combine by OPS.
    kind `best`: an arg-best, `if (E cmp m) { m = E; k = i; }` (value m and index k) or
    `if (V(i) cmp V(m)) m = i;` (index m, its value V recomputed): a (value, index) pair per
    thread; two pairs combine to the better value, ties to the index the loop keeps (the first
    for a strict comparison, the last otherwise), so any order of combining gives the loop's
    answer (for values without NaN).  Over a rectangular nest (`Reduction.flat`) the same, with
    any of the nest's variables kept: `if (E cmp m) { m = E; k1 = i1; ...; kd = id; }` or
    `if (V(i, j) cmp V(bi, bj)) { bi = i; bj = j; }`; the pair's index is the point's flat rank
    in the nest's order (`Reduction.nest`), the scalars are decoded from the winning rank.
    Either under a guard G reading none of the scalars it sets (`if (G && E cmp m)`, `if (E cmp m
    && G)`, `if (G) if (E cmp m)`, `_guarded_ifs`): the fold over the elements where G holds, so a
    thread takes a pair only there; none passing leaves every pair empty and the first values stand."""
    stmt: Stmt
    kind: str                   # "op" | "best"
    op: str                     # a key of OPS; for best, the comparison `E cmp value`
    acc: str                    # the accumulator (op) or the value (best: '' when recomputed)
    index: str = ""             # best over one loop: the index scalar
    value: object = None        # best with a recomputed value: V(i), a C node over the loop var(s)
    indices: tuple = ()         # best over a nest: (index scalar, its loop variable), in the statement's order
    guard: object = None        # best under a guard: G, a C node (op: the statement keeps its guard)
    core: object = None         # best under a guard: the arg-best `if (E cmp m) ...` without it

    @property
    def node(self) -> c_ast.If:
        """A best's arg-best `if`, without its guard."""
        return self.stmt.stmt.node if self.core is None else self.core


@dataclass
class Reduction:
    inits: list                 # Stmt: the accumulators' first values, run after the loop's partials
    loops: list                 # Loop: one or more loops of one header, run as one grid-stride loop
    folds: list                 # Fold, one per statement of the loops but the temporaries
    fins: list                  # Stmt: what reads the results
    webs: dict                  # scalar -> its web (a register's name in both kernels)
    dtypes: dict                # scalar -> its C type
    others: dict                # web -> C type: other locals of the inits, fins and temporaries (registers)
    temps: list = ()            # Stmt: the loops' temporaries (`temporaries`), each thread's in its iteration
    flat: tuple = ()            # a nest: (var, first value, extent) per loop, outermost first (`_flat_nest`);
                                # `loops` are then its innermost loops. Empty: one loop.
    nest: tuple = ()            # a nest's variables in the loops' order, which an arg-best's ties follow
    ahead: tuple = ()           # a nest's or a search's reads loaded first (`loads_first`): (U, ((ref's C text,
                                # C type), ...)), U points a turn; empty: one point per step of the walk, its
                                # loads where the body reads them
    quads: tuple = ()           # a nest's loaded reads by 16-byte accesses (`quad_reads`): (array, its
                                # last extent) per read of `ahead`, in order; empty: one load per point
    parts: int = 0              # the most blocks, each leaving a partial (`reductions.partials`), set by the plan


    @property
    def loop(self) -> Loop:
        return self.loops[0]

    @property
    def op(self) -> str:
        return ", ".join(dict.fromkeys(f.op if f.kind == "op" else f"arg-best {f.op}" for f in self.folds))


def reduction_of(an: Analysis, storage: dict, launch) -> Reduction | None:
    """The launch as a reduction, or None when it is not exactly that form: a one-thread launch
    of statements that set locals, loops of one header whose statements each fold into their own
    accumulators and write no array, then statements reading them.  The loops' temporaries
    (`temporaries`: locals of one iteration) run in each thread's iteration before its folds; they
    read no other local (a thread's accumulator is a partial, the statements before the loop run
    after it).  The loops may be perfect nests of one header over a rectangle (`_flat_nest`): the
    reduction then runs over the nest's flat range (`flat`), without searches; an arg-best there
    needs ascending loops (its ties follow the nest's order, `Fold`).  A nest and a one-loop search
    load their inbound reads first (`ahead`)."""
    body = launch.body
    tops = [n for n in body if isinstance(n, Loop)]
    if launch.grid or not tops or not all(isinstance(n, (Stmt, Loop)) for n in body):
        return None
    first, last = body.index(tops[0]), body.index(tops[-1])
    inits, fins = body[:first], body[last + 1:]
    head = lambda l: (l.var, l.lower, l.upper, l.step, l.init, l.cond, l.next)
    chains = [_chain(l) for l in tops]
    loops = [c[-1] for c in chains]
    if body[first:last + 1] != tops or len({tuple(map(head, c)) for c in chains}) != 1 or \
            not all(isinstance(n, Stmt) for l in loops for n in l.body):
        return None
    flat = _flat_nest(an, launch, chains[0]) if len(chains[0]) > 1 else ()
    if len(chains[0]) > 1 and not flat:
        return None
    nest = tuple(l.var for l in chains[0]) if flat else ()
    temps = [t for l in loops for t in temporaries(an, storage, l)[0]]
    folds = [fold_of(n, loops[0].var, nest) for l in loops for n in l.body if n not in temps]
    if not folds or None in folds or any(l.step != 1 for l in chains[0]) and any(f.kind == "best" for f in folds):
        return None             # (an arg-best's ties follow the loop's order; the other folds commute)
    accs = [a for f in folds for a in (f.acc, f.index, *(k for k, _ in f.indices)) if a]
    if len(set(accs)) != len(accs) or any(a not in an.program.locals for a in accs):
        return None
    held = {t.stmt.writes()[0].name for t in temps}     # each thread's own, in its iteration
    if any(r.name in an.program.locals and r.name not in held for t in temps for r in t.stmt.reads()):
        return None             # (the statements before the loop run after it, in the last block)
    webs, dtypes = {}, {}
    members = {n.stmt.name for n in inits + fins}
    for f in folds:
        st = f.stmt.stmt
        mine = {f.acc, f.index, *(k for k, _ in f.indices)} - {""}
        if any(w.name not in mine for w in st.writes()) or \
                any(r.name in an.program.locals and r.name not in mine | held for r in st.reads()) or \
                f.value is not None and held & identifiers(cprint(f.value)):
            return None         # (a recomputed best value is evaluated again in the last block)
        for a in mine:
            web = an.web_of.get((st.name, a))
            dtypes[a] = an.program.locals[a].dtype
            if web is None or storage.get(web) != "local" or \
                    not set(an.webs[web].statements) - {st.name} <= members:
                return None
            webs[a] = web
        if f.kind == "op":
            k, f = folds.index(f), typed(f, dtypes[f.acc])
            if f is None:
                return None
            folds[k] = f
        if f.kind == "op" and (dtypes[f.acc] not in ("float", "double", "int", "long", "unsigned", "unsigned long") or
                               dtypes[f.acc] in ("int", "long") and f.op not in ("+=", "-=", "imax", "imin") or
                               dtypes[f.acc] in ("unsigned", "unsigned long") and f.op not in ("+=", "-=")):
            return None
    for n in inits:
        w = n.stmt.writes()
        if n.stmt.conditional or len(w) != 1 or w[0].name not in an.program.locals or w[0].index:
            return None
    if any(w.name in accs for n in fins for w in n.stmt.writes()) or \
            not all(any(w.name == a for n in inits for w in n.stmt.writes()) for a in accs):
        return None
    others = {}                 # locals of the statements around the loop and of the temporaries: registers
    for t in temps:
        web = an.web_of[(t.stmt.name, t.stmt.writes()[0].name)]
        others[web] = an.program.locals[an.webs[web].scalar].dtype
    for n in inits + fins:
        for a in n.stmt.accesses:
            web = an.web_of.get((n.stmt.name, a.name))
            if a.name in an.program.locals and a.name not in accs:
                if web is None or storage.get(web) != "local" or not set(an.webs[web].statements) <= members:
                    return None
                others[web] = an.program.locals[a.name].dtype
    red = Reduction(inits, loops, folds, fins, webs, dtypes, others, temps, flat, nest)
    if flat and search_order(red):
        return None             # (a search stops at its loop's index)
    if not (flat or search_order(red)):
        return red
    red = replace(red, ahead=loads_first(an, launch, red))
    return replace(red, quads=quad_reads(an, red))


AHEAD = 4                       # points per turn of a thread's walk whose loads are issued together


def loads_first(an: Analysis, launch, red: Reduction) -> tuple:
    """(AHEAD, reads) for a whole-loop reduction over a rectangular nest's flat range
    (`Reduction.flat`) or a one-loop search (`search_order`): each thread loads its next AHEAD
    points' `reads` before the first of their bodies runs, so that many loads are in flight at
    once rather than one load, its wait and its compare per point (a search's compare also
    decides whether its next point runs).  A read qualifies when its array is one the launch
    never writes and each subscript is affine over the loop variables and the sizes and, isl
    says, within the array's extent at every point of the range (the rectangle; the search
    loop's bounds, which must name only sizes): loading it first makes it unconditional (`if
    (j > 0 && a[i][j - 1] ...)` reads a[i][-1] nowhere; loaded first it would; a search loads
    points past its hit).  () when no read qualifies."""
    prog = an.program
    arrays = {a.name: a for a in prog.kernel.arrays}
    written = {w.name for n in launch.body for s in ([n] if isinstance(n, Stmt) else n.statements())
               for w in s.stmt.writes()}
    if red.flat:
        nest = [v for v, _, _ in red.flat]
        box = [c for v, low, e in red.flat for c in (f"{low} <= {v}", f"{v} <= ({low}) + ({e}) - 1")]
    else:
        l = red.loop
        if identifiers(f"{l.lower} {l.upper}") - set(prog.sizes) or l.time or l.derived or l.geometric:
            return ()           # (a bound naming a host loop or a scalar: no range to prove reads inside)
        nest, box = [l.var], [f"{l.lower} <= {l.var}", f"{l.var} <= {l.upper}"]
    names = set(nest) | set(prog.sizes)

    def inside(ref) -> bool:
        base, subs = base_and_subscripts(ref)
        a = arrays.get(base.name) if isinstance(base, c_ast.ID) else None
        if a is None or a.name in written or a.name in prog.locals or len(subs) != len(a.shape):
            return False
        try:
            texts = [affine(s, names, "subscript") for s in subs]
        except NotAffine:
            return False
        return all(always_within(prog.sizes, prog.context, nest, box, t, "0", f"({e}) - 1")
                   for t, e in zip(texts, a.shape))

    reads = {}
    for n in (n for l in red.loops for n in l.body):
        for ref in array_refs(n.stmt.node):
            text = cprint(ref)
            if text not in reads and inside(ref):
                reads[text] = arrays[array_name(ref)].dtype
    return (AHEAD, tuple(reads.items())) if reads else ()


#: element types a 16-byte access moves QUAD of (quad_reads), as the vector type and its loads per quad
QUAD = 4
_QUAD_TYPES = {"float": ("float4", 1), "int": ("int4", 1), "unsigned": ("uint4", 1), "double": ("double2", 2)}


def quad_reads(an: Analysis, red: Reduction) -> tuple:
    """((array, last extent), ...) for a nest loading first (`Reduction.ahead`, a flat range of
    two or more loops, no search) whose every loaded read indexes its array's last dimension by
    the walk's fastest variable alone (`A[..][x]`, x in no other subscript, over the whole row:
    the array's last extent is the loop's) in a 4- or 8-byte type, walked in the nest's own order:
    such a nest may walk QUAD consecutive points at a time, each read moved by 16-byte
    accesses, where a run-time test finds the rows fit (`quad_loop`).  () otherwise."""
    if not red.flat or len(red.flat) < 2 or not red.ahead or search_order(red) or \
            tuple(v for v, _, _ in red.flat) != red.nest:
        return ()               # (a walk across the nest's order ranks each point for its ties: no gain measured)
    arrays = {a.name: a for a in an.program.kernel.arrays}
    x = red.flat[-1][0]
    out = []
    for text, dtype in red.ahead[1]:
        base, subs = base_and_subscripts(parse_expr(text))
        last = cprint(subs[-1]) if subs else ""
        if dtype not in _QUAD_TYPES or last != x or any(x in identifiers(cprint(s)) for s in subs[:-1]) or \
                "".join(arrays[base.name].shape[-1].split()) != "".join(red.flat[-1][2].split()):
            return ()           # (a part of the rows: its quads would need its start and the row to agree)
        out.append((base.name, arrays[base.name].shape[-1]))
    return tuple(out)


def _chain(loop: Loop) -> list[Loop]:
    """The loop and the loops nested alone in it: [i, j] of `for i { for j { ... } }`."""
    chain = [loop]
    while len(chain[-1].body) == 1 and isinstance(chain[-1].body[0], Loop):
        chain.append(chain[-1].body[0])
    return chain


def _flat_nest(an: Analysis, launch, chain: list[Loop]) -> tuple:
    """((var, first value, extent), ...) of a rectangular nest, slowest first: each loop's bounds
    name only sizes (no loop of the nest nor of the host around it), so the nest is one flat
    range of `product(extents)` indices, row-major; () when the nest is not that (a triangular
    nest, a wavefront's derived loop, a geometric counter).  The fastest is the loop a grid would
    put on x (`mapping.grid_axes`: the contiguous subscript of most accesses, so a warp's reads
    coalesce), the others keep the nest's order: the folds of a nest commute (an arg-best's
    pairs carry their rank in the nest's order, `Fold`; no search: `reduction_of`), so any order
    of its points gives the same result (a sum's up to the rounding a grid reduction has anyway)."""
    loops = {l.var for l in chain} | {l.var for l in launch.host_loops}
    if any(identifiers(f"{l.lower} {l.upper}") & loops or l.time or l.derived or l.geometric or abs(l.step) != 1
           for l in chain):
        return ()
    stmts = [n.stmt.name for n in chain[-1].body]
    x = next(v for v, axis in grid_axes(an, chain).items() if axis == "x")
    chain = [l for l in chain if l.var != x] + [l for l in chain if l.var == x]
    box = an.model.box(stmts, tuple(l.var for l in chain), tuple(l.var for l in launch.host_loops))
    if any(not lows or not highs for lows, highs in box):
        return ()
    return tuple((l.var, min_expr(lows), _extent_text(None, lows, highs)) for l, (lows, highs) in zip(chain, box))


def fold_of(n: Stmt, var: str, nest: tuple = ()) -> Fold | None:
    """The statement as a `Fold` of a loop over `var` (innermost of a flat `nest`'s variables), or None."""
    node = n.stmt.node
    inner = node
    if isinstance(node, c_ast.If) and node.iffalse is None:
        inner = node.iftrue
        if isinstance(inner, c_ast.Compound) and len(inner.block_items or []) == 1:
            inner = inner.block_items[0]
        sets = {w.name for w in n.stmt.writes()}
        plain, *guarded = [(g, c) for g, c in _guarded_ifs(node) if g is None or not identifiers(cprint(g)) & sets]
        best = _nest_best(node, nest) if nest else _best(node, var)
        if best:
            return Fold(n, "best", *best)
        big = next(filter(None, (_bigger(core) for _, core in [plain, *guarded])), None)
        if big:                 # (before a guarded arg-best: `if (P && i < m) m = i;` is a search's min)
            return Fold(n, "op", *big)
        for guard, core in guarded:
            best = _nest_best(core, nest) if nest else _best(core, var)
            if best:
                return Fold(n, "best", *best, guard=guard, core=core)
    if isinstance(inner, c_ast.UnaryOp) and inner.op in ("++", "p++", "--", "p--") and isinstance(inner.expr, c_ast.ID):
        return Fold(n, "op", "+=" if "+" in inner.op else "-=", inner.expr.name)
    if isinstance(inner, c_ast.Assignment) and isinstance(inner.lvalue, c_ast.ID):
        got = _contribution(inner, inner.lvalue.name)
        if got and (got[0] in OPS or got[0] in ("tmax", "tmin")) and not (inner is not node and got[0] not in ("+=", "-=")):
            return Fold(n, "op", got[0], inner.lvalue.name)
    return None


def temporaries(an: Analysis, storage: dict, loop: Loop) -> tuple[list, list]:
    """(temporaries, the others) of a loop's statements.  A temporary writes one local scalar
    whose value lives within one iteration of the loop: its web is private to the loop and no read
    of it sees a value from before the iteration's first write (isl says both), and only the
    loop's statements share it.  It may set it (`v = e;`: the spec's `where` before its fold,
    `acc_v = P ? j : c; acc = (acc_v < acc) ? acc_v : acc;`) or update it, under an `if` too (a
    one-hot pick, `t = 0.0; if (0 <= e && e < c) t += x[i][e];`).  Each thread (a grid
    reduction's) or lane (the row forms') runs the temporaries of its own iteration, in order,
    before its folds, like any register (the folds then are the loop's others)."""
    names = {n.stmt.name for n in loop.body if isinstance(n, Stmt)}
    temps, others = [], []
    for n in loop.body:
        web = _local_web(an, storage, n) if isinstance(n, Stmt) else None
        if web and loop.var in an.webs[web].private \
                and not an.webs[web].exposed and set(an.webs[web].statements) <= names:
            temps.append(n)
        else:
            others.append(n)
    return temps, others


def _local_web(an: Analysis, storage: dict, n: Stmt):
    """The web of the one local scalar the statement writes, when it writes exactly one and that
    web is stored as a register (`local`); else None."""
    w = n.stmt.writes()
    web = an.web_of.get((n.stmt.name, w[0].name)) if len(w) == 1 and not w[0].index else None
    return web if web is not None and storage.get(web) == "local" else None


def typed(f: Fold, dtype: str) -> Fold | None:
    """The fold for its accumulator's C type: an int's max and min (`fmax`, `(v < m) ? v : m`)
    are `imax`, `imin` (exact in any order); a float's ternary is refused (its NaN order)."""
    if f.kind == "op" and dtype in ("int", "long") and f.op in ("max", "min", "tmax", "tmin"):
        return replace(f, op="i" + f.op[-3:])
    return None if f.op in ("tmax", "tmin") else f


def _best(node: c_ast.If, var: str):
    """(cmp, value, index, V) of an arg-best `if` (see `Fold`), with `E cmp value`; None else."""
    c = node.cond
    if not (isinstance(c, c_ast.BinaryOp) and c.op in _FLIP):
        return None
    body = node.iftrue.block_items if isinstance(node.iftrue, c_ast.Compound) else [node.iftrue]
    sets = {}
    for b in body or []:
        if not (isinstance(b, c_ast.Assignment) and b.op == "=" and isinstance(b.lvalue, c_ast.ID)):
            return None
        sets[b.lvalue.name] = cprint(b.rvalue)
    l, r = cprint(c.left), cprint(c.right)
    if len(sets) == 1:                                  # if (V(i) cmp V(m)) m = i;
        (m, got), = sets.items()
        for e, other, op in ((c.left, r, c.op), (c.right, l, _FLIP[c.op])):
            if got == var and cprint(renamed(e, var, m)) == other and var in identifiers(cprint(e)) \
                    and m not in identifiers(cprint(e)):
                return op, "", m, e
        return None
    if len(sets) == 2:                                  # if (E cmp m) { m = E; k = i; }
        for e, m, op in ((l, r, c.op), (r, l, _FLIP[c.op])):
            k = next((k for k, v in sets.items() if v == var and k != m), None)
            if k and sets.get(m) == e and not identifiers(e) & {m, k}:
                return op, m, k, None
    return None


def _nest_best(node: c_ast.If, nest: tuple):
    """(cmp, value, "", V, ((index, var), ...)) of an arg-best `if` over a nest (see `Fold`): each
    index scalar takes a distinct loop variable of the nest; a recomputed V reads only the
    variables kept (its value at the best point is evaluated again).  None else."""
    c = node.cond
    body = node.iftrue.block_items if isinstance(node.iftrue, c_ast.Compound) else [node.iftrue]
    if not (isinstance(c, c_ast.BinaryOp) and c.op in _FLIP) or not body or not all(
            isinstance(b, c_ast.Assignment) and b.op == "=" and isinstance(b.lvalue, c_ast.ID) for b in body):
        return None
    sets = [(b.lvalue.name, cprint(b.rvalue)) for b in body]
    names = {k for k, _ in sets}
    if len(names) != len(sets):
        return None
    l, r = cprint(c.left), cprint(c.right)
    for e, m, op in ((l, r, c.op), (r, l, _FLIP[c.op])):          # if (E cmp m) { m = E; k = i; ... }
        keep = tuple((k, v) for k, v in sets if k != m)
        if (m, e) in sets and keep and _kept(keep, nest) and not identifiers(e) & names:
            return op, m, "", None, keep
    keep = tuple(sets)                                             # if (V(i, j) cmp V(bi, bj)) { bi = i; ... }
    if not _kept(keep, nest):
        return None
    for e, other, op in ((c.left, r, c.op), (c.right, l, _FLIP[c.op])):
        seen = identifiers(cprint(e))
        used, mine = seen & set(nest), e
        for k, v in keep:
            mine = renamed(mine, v, k)
        if cprint(mine) == other and not seen & names and used and used <= {v for _, v in keep}:
            return op, "", "", e, keep
    return None


def _kept(keep: tuple, nest: tuple) -> bool:
    """Whether each scalar of `keep` takes a distinct variable of the nest."""
    vs = [v for _, v in keep]
    return all(v in nest for v in vs) and len(set(vs)) == len(vs)


def _guarded_ifs(node: c_ast.If):
    """(guard, if) readings of an `if` without else: (None, node) first, then for each conjunct C
    of its condition, or of `if`s nested alone in it (`if (G) { if (C) S }`), (the others joined
    by && in order, `if (C) S`).  The caller takes one whose guard reads none of S's targets."""
    yield None, node
    terms, body = [], node
    while isinstance(body, c_ast.If) and body.iffalse is None:
        terms += conjuncts(body.cond)
        body = body.iftrue
        if isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1 \
                and isinstance(body.block_items[0], c_ast.If):
            body = body.block_items[0]
    for k, c in enumerate(terms):
        rest = terms[:k] + terms[k + 1:]
        if rest:
            guard = rest[0]
            for r in rest[1:]:
                guard = c_ast.BinaryOp("&&", guard, r)
            yield guard, c_ast.If(c, body, None)


def _bigger(node: c_ast.If):
    """("max" | "min", m) of `if (E > m) m = E;` and its mirrors (under a guard that does not read
    m, `fold_of`: a register starting at the identity takes the same elements); None else."""
    c, set_ = node.cond, node.iftrue
    if isinstance(set_, c_ast.Compound) and len(set_.block_items or []) == 1:
        set_ = set_.block_items[0]
    if not (isinstance(c, c_ast.BinaryOp) and c.op in _FLIP and isinstance(set_, c_ast.Assignment)
            and set_.op == "=" and isinstance(set_.lvalue, c_ast.ID)):
        return None
    m, e = set_.lvalue.name, cprint(set_.rvalue)
    for a, b, op in ((c.left, c.right, c.op), (c.right, c.left, _FLIP[c.op])):
        if cprint(a) == e and cprint(b) == m and m not in identifiers(e):
            return ("max" if op[0] == ">" else "min"), m
    return None



def kernels(p, launch, red: Reduction) -> tuple[list[str], str]:
    """The kernel's body (p: the Printer) and its `__device__` declarations (partials, ticket,
    a search's best).  Registers are the accumulators' webs; a recomputed best value gets
    `poly_v_<index>`."""
    name, loop, blocks = launch.name, red.loop, red.parts
    regs = []                   # (register, C type, identity)
    for f in red.folds:
        if f.kind == "op":
            regs.append((red.webs[f.acc], red.dtypes[f.acc], OPS[f.op][0]))
        else:
            v, k = _pair(red, f)
            regs += [(v, red.dtypes[f.acc] if f.acc else _value_type(p, f), "0"),
                     (k, red.dtypes[f.index] if f.index else "long long", SENTINEL)]
    one = len(regs) == 1
    bare = lambda r: r.removeprefix("poly_")
    shared = {r: "poly_red" if one else f"poly_red_{bare(r)}" for r, _, _ in regs}
    parts = {r: f"{name}_partials" if one else f"{name}_partials_{bare(r)}" for r, _, _ in regs}
    search = search_order(red)
    bests = {red.webs[f.acc]: f"{name}_best" if len(red.folds) == 1 else f"{name}_best_{bare(red.webs[f.acc])}"
             for f in red.folds} if search else {}
    start, cond, walk = loop.init.split("=", 1)[1].strip(), loop.cond, "+="
    if loop.step == -1 and search:      # the greatest index: each thread walks down from the top
        walk = "-="
    elif loop.step == -1:       # folds that commute: the same indices, ascending
        start, cond = loop.lower, f"{loop.var} <= {loop.upper}"
    if search:                  # a thread goes on while some search may still find a better index:
        past = "<" if search == "least" else ">"   # not past its own hit nor the grid's best so far
        open_ = [f"{loop.var} {past} {r} && {loop.var} {past} *{_watch(b, name)}" for r, b in bests.items()]
        cond += f" && {open_[0]}" if len(open_) == 1 else " && (" + " || ".join(f"({o})" for o in open_) + ")"
    start = "" if start == "0" and walk == "+=" else f"{start} {'-' if walk == '-=' else '+'} "
    body = _point(p, red, bests, search, lambda node: node, _rank(red) if red.flat else "")
    combine_ = []
    for f in red.folds:
        if f.kind == "op":
            r = red.webs[f.acc]
            a, b = f"{shared[r]}[threadIdx.x]", f"{shared[r]}[threadIdx.x + poly_s]"
            combine_.append(f"{a} = {combine(f.op, a, b)};")
        else:
            v, k = _pair(red, f)
            a = lambda r: f"{shared[r]}[threadIdx.x]"
            b = lambda r: f"{shared[r]}[threadIdx.x + poly_s]"
            combine_ += [f"if ({_better(f, b(v), b(k), a(v), a(k))}) {{",
                         f"  {a(v)} = {b(v)};", f"  {a(k)} = {b(k)};", "}"]
    if len(combine_) == 1:
        step = [f"    if (threadIdx.x < poly_s) {combine_[0]}"]
    else:
        step = ["    if (threadIdx.x < poly_s) {", *["      " + c for c in combine_], "    }"]
    tree = [*(f"  {shared[r]}[threadIdx.x] = {r};" for r, _, _ in regs), "  __syncthreads();",
            "  for (int poly_s = blockDim.x / 2; poly_s > 0; poly_s >>= 1) {", *step,
            "    __syncthreads();", "  }"]
    declare = [*(f"  __shared__ {t} {shared[r]}[{THREADS}];" for r, t, _ in regs),
               *(f"  {t} {r} = {ident};" for r, t, ident in regs)]
    seen = {r: "poly_seen" if one else f"poly_seen_{bare(r)}" for r, _, _ in regs}
    loop_ = [f"  int {loop.var};",
             f"  for ({loop.var} = {start}(int)(blockIdx.x * blockDim.x + threadIdx.x); {cond}; "
             f"{loop.var} {walk} (int)(gridDim.x * blockDim.x))", "  {", *body, "  }"]
    if red.flat and red.ahead:
        body_ = _point(p, red, bests, search, _registers(red), _rank(red, _COORD))
        loop_ = flat_loop(red.flat, body_, red.ahead[0], _loads(p, red))
        if red.quads:           # (the extents, declared first, are the last block's too)
            d = len(red.flat)
            loop_ = [*loop_[:d], f"  if ({_fit(p, red)}) {{   /* rows of whole quads, 16-byte aligned: {QUAD} points a load */",
                     *("    " + x for x in quad_loop(p, red, body_)), "  } else {", *("  " + x for x in loop_[d:]), "  }"]
    elif red.ahead:             # a search in turns of AHEAD indices
        loop_ = search_turns(red, _point(p, red, bests, search, _registers(red), ""), _loads(p, red, "    "),
                             start, walk, {r: _watch(b, name) for r, b in bests.items()}, search)
    elif red.flat:
        loop_ = flat_loop(red.flat, body)
    gather = []
    for f in red.folds:
        if f.kind == "op":
            r = red.webs[f.acc]
            gather.append(f"    {r} = {combine(f.op, r, f'{seen[r]}[poly_q]')};")
        else:
            v, k = _pair(red, f)
            gather += [f"    if ({_better(f, f'{seen[v]}[poly_q]', f'{seen[k]}[poly_q]', v, k)}) {{",
                       f"      {v} = {seen[v]}[poly_q];", f"      {k} = {seen[k]}[poly_q];", "    }"]
    if len(gather) > 1:
        gather = ["  {", *gather, "  }"]
    total = {r: "poly_total" if one else f"poly_total_{bare(r)}" for r, _, _ in regs}
    inits = [line for n in red.inits for line in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), "    ")]
    folded = []
    for f in red.folds:
        if f.kind == "op":
            r = red.webs[f.acc]
            folded.append(f"    {join(f.op, r, total[r])}")
            continue
        m, k = _pair(red, f)
        tv, tk = total[m], total[k]
        if f.acc:            # the loop's best pair is the next element after the first values
            sets = [f"{red.webs[s]} = {_decoded(red, var, tk)};" for s, var in f.indices] or [f"{k} = {tk};"]
            folded += [f"    if ({tk} != {SENTINEL} && {tv} {f.op} {m}) {{", f"      {m} = {tv};",
                       *("      " + x for x in sets), "    }"]
        elif f.indices:      # the statement again, at the best point's coordinates
            node = copy.deepcopy(f.node)
            node.cond = c_ast.BinaryOp("&&", c_ast.BinaryOp("!=", c_ast.ID(tk), c_ast.ID(SENTINEL)), node.cond)
            folded += ["    {", *(f"      const int {var} = {_decoded(red, var, tk)};" for _, var in f.indices),
                       *p.r.statement(node, p.names_for(f.stmt.stmt.name), "      "), "    }"]
        else:
            node = renamed(f.node, red.loop.var, tk)
            node.cond = c_ast.BinaryOp("&&", c_ast.BinaryOp("!=", c_ast.ID(tk), c_ast.ID(SENTINEL)), node.cond)
            folded += p.r.statement(node, p.names_for(f.stmt.stmt.name), "    ")
    ticket = f"{name}_ticket"
    keep = [f"    {parts[r]}[blockIdx.x] = {shared[r]}[0];" for r, _, _ in regs]
    # Each block's partial, then its ticket: the block that draws the last ticket sees every
    # partial (a fence on both sides of the ticket) and combines them in index order, whichever
    # block that is, so the bits do not depend on the order blocks finish in.
    last = ["  if (threadIdx.x == 0) {", *keep,
            "    __threadfence();   /* the partial is visible before the ticket counts it */",
            f"    poly_last = atomicAdd(&{ticket}, 1u) == gridDim.x - 1;",
            "    __threadfence();   /* and the other blocks' partials after their tickets */", "  }",
            "  __syncthreads();", "  if (!poly_last)", "    return;"]
    # for the next launch, every block having drawn its ticket (atomics: the other blocks' last
    # accesses were atomics that nothing orders before these)
    reset = [f"    atomicExch(&{ticket}, 0u);",
             *(f"    atomicExch(&{b}, {OPS[_index_op(search)][0]});" for b in bests.values())]
    final = [*(f"  {r} = {ident};" for r, _, ident in regs),
             *(f"  const volatile {t} *{seen[r]} = {parts[r]};" for r, t, _ in regs),
             "  for (int poly_q = threadIdx.x; poly_q < gridDim.x; poly_q += blockDim.x)",
             *gather, *tree, "  if (threadIdx.x == 0) {",
             *(f"    {t} {total[r]} = {shared[r]}[0];" for r, t, _ in regs), *inits, *folded,
             *(line for n in red.fins for line in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), "    ")),
             *reset, "  }"]
    watch = [f"  const volatile int *{_watch(b, name)} = &{b};   /* another thread's hit may stop this one */"
             for b in bests.values()]
    kernel = [*declare[:len(regs)], "  __shared__ bool poly_last;", *declare[len(regs):], *watch,
              *(f"  {t} {w};" for w, t in red.others.items()),
              *(f"  {red.dtypes[k]} {red.webs[k]};" for f in red.folds for k, _ in f.indices),   # (the last block's)
              *loop_, *tree, *last, *final]
    found = "least" if search == "least" else "greatest"
    decls = [*(f"__device__ {t} {parts[r]}[{blocks}];   /* one per block */" for r, t, _ in regs),
             f"__device__ unsigned {ticket} = 0u;   /* blocks done; the last one resets it */",
             *(f"__device__ int {b} = {OPS[_index_op(search)][0]};   /* the {found} index found so far; "
               "the last block resets it */" for b in bests.values())]
    return kernel, "\n".join(decls)


def _point(p, red: Reduction, bests: dict, search: str, read, rank: str) -> list[str]:
    """The loops' statements at one point (p: the Printer), as its thread folds them into its
    registers: `read` gives the statement's node as it reads (a nest's loaded registers:
    `_registers`), `rank` the point's flat rank in the nest's order (`_rank`)."""
    body = []
    fold = {f.stmt.stmt.name: f for f in red.folds}
    for n in (n for l in red.loops for n in l.body):       # in order: the temporaries before their folds
        if n.stmt.name not in fold:
            body += p.r.statement(read(n.stmt.node), p.names_for(n.stmt.name), "    ")
            continue
        f = fold[n.stmt.name]
        names = p.names_for(f.stmt.stmt.name)
        if f.kind == "op":
            node = read(f.stmt.stmt.node)
            if search:          # a hit also lowers (raises) the grid's best, which every thread reads
                node = _publishing(node, bests[red.webs[f.acc]], "atomicMin" if search == "least" else "atomicMax")
            body += p.r.statement(node, names, "    ")
            continue
        v, k = _pair(red, f)
        if f.indices:
            step = _nest_step(p, red, f, names, v, k, read, rank)
        elif f.acc:
            node = copy.deepcopy(read(f.node))
            node.cond = c_ast.BinaryOp("||", c_ast.BinaryOp("==", c_ast.ID(f.index), c_ast.ID(SENTINEL)), node.cond)
            step = p.r.statement(node, names, "")
        else:
            value = cprint(p.r.node(read(f.value), names))
            step = ["{", f"  {_value_type(p, f)} poly_v = {value};",
                    f"  if ({k} == {SENTINEL} || poly_v {f.op} {v}) {{", f"    {v} = poly_v;",
                    f"    {k} = {red.loop.var};", "  }", "}"]
        if f.guard is not None:     # the pair takes only the elements where the guard holds
            step = [f"if ({cprint(p.r.node(read(f.guard), names))}) {{", *("  " + x for x in step), "}"]
        body += ["    " + x for x in step]
    return body


def flat_loop(flat: tuple, body: list[str], ahead: int = 0, loads: tuple = ((), ())) -> list[str]:
    """A grid-stride loop over a rectangular nest's flat indices t (`Reduction.flat`), row-major:
    consecutive threads take consecutive innermost indices (coalesced).  Each thread splits its
    first t and the grid's stride into the nest's coordinates once (a division per loop), then
    steps by adding the stride's coordinates with one carry each (a coordinate plus a carry plus
    the stride's coordinate stays below twice the extent), so its indices are t, t + stride, ...
    in increasing order: a fixed order per thread, as the one-loop form.  With `ahead` (U,
    `Reduction.ahead`), each turn takes the next U points' coordinates (`_COORD`), then `loads`
    (`_loads`: registers, loads) at each of them in range, then `body` at each in turn: the same
    points in the same order."""
    d = len(flat)
    ext = [f"poly_e{k}" for k in range(d)]
    head, step = _walk_lines(ext, "index")
    lines = [f"  const int {ext[k]} = {e};   /* {v} */" for k, (v, _, e) in enumerate(flat)] + ["  " + x for x in head]
    if not ahead:
        return lines + [*_coords(flat, "poly_c{}", "      "), *("  " + line for line in body),
                        *("      " + x for x in step), "    }", "  }"]
    at = _COORD.format(0)
    unrolled = lambda what, lines: ["#pragma unroll", f"      for (int poly_u = 0; poly_u < {ahead}; poly_u++)",
                             f"        if ({at} < {ext[0]}) {{   /* {what} */",
                             *_coords(flat, _COORD, "          ", names_used("\n".join(lines)))]
    return lines + [f"      int {', '.join(_COORD.format(k).replace('[poly_u]', f'[{ahead}]') for k in range(d))};"
                    "   /* coordinates */",
                    "#pragma unroll",
                    f"      for (int poly_u = 0; poly_u < {ahead}; poly_u++) {{   /* the next {ahead} points */",
                    *(f"        {_COORD.format(k)} = poly_c{k};" for k in range(d)),
                    f"        if (poly_c0 < {ext[0]}) {{", *("          " + x for x in step), "        }", "      }",
                    *loads[0], *unrolled("their loads first, all in flight together", loads[1]), *loads[1], "        }",
                    *unrolled("then each point's folds, in order", body), *("      " + x for x in body), "        }",
                    "    }", "  }"]


_COORD = "poly_p{}[poly_u]"     # coordinate k of a turn's point poly_u (`flat_loop` with `ahead`)


def _walk_lines(ext: list[str], unit: str) -> tuple[list[str], list[str]]:
    """A thread's walk over a flat range of extents `ext` (C names, slowest first): the lines that
    split its first flat `unit` and the grid's stride into coordinates and open the walk's loop
    (`if (...) { ... while (...) {`, two braces for the caller to close), and the step's lines."""
    d = len(ext)
    head = [f"long long poly_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;   /* the first flat {unit} */",
            "long long poly_g = (long long)gridDim.x * blockDim.x;   /* the grid's stride */",
            f"int {', '.join(f'poly_c{k} = 0, poly_d{k} = 0' for k in range(d))};",
            f"if ({' && '.join(f'{e} > 0' for e in ext)}) {{"]
    for k in range(d - 1, 0, -1):
        head += [f"  poly_c{k} = (int)(poly_t % {ext[k]});", f"  poly_t /= {ext[k]};",
                 f"  poly_d{k} = (int)(poly_g % {ext[k]});", f"  poly_g /= {ext[k]};"]
    head += [f"  poly_c0 = (int)(poly_t < {ext[0]} ? poly_t : {ext[0]});",
             f"  poly_d0 = (int)(poly_g < {ext[0]} ? poly_g : {ext[0]});", f"  while (poly_c0 < {ext[0]}) {{"]
    step = []
    for k in range(d - 1, 0, -1):
        step += [f"poly_c{k} += poly_d{k};", f"if (poly_c{k} >= {ext[k]}) {{", f"  poly_c{k} -= {ext[k]};",
                 f"  poly_c{k - 1}++;", "}"]
    return head, step + ["poly_c0 += poly_d0;"]


def _fit(p, red: Reduction) -> str:
    """C text: whether this call's rows take `quad_loop`: the walk's fastest extent a multiple of
    QUAD, each quad-read array's rows a multiple of QUAD elements, its first point 16-byte aligned."""
    origin = {v: low for v, low, _ in red.flat}
    tests = [f"({red.flat[-1][2]}) % {QUAD} == 0"]
    for (text, _), (array, extent) in zip(red.ahead[1], red.quads):
        node = parse_expr(text)
        for v, low in origin.items():
            node = renamed(node, v, f"({low})")
        tests += [f"({extent}) % {QUAD} == 0", f"((unsigned long long)&{cprint(p.r.node(node, {}))} & 15u) == 0"]
    return " && ".join(dict.fromkeys(tests))


def quad_loop(p, red: Reduction, body: list[str]) -> list[str]:
    """`flat_loop` with `ahead` over quads (`Reduction.quads`), after flat_loop's extents (`poly_eK`),
    which it does not declare: the walk's fastest extent counted
    in QUADs of consecutive points; each turn takes the thread's next two quads, loads each
    loaded read of a quad by 16-byte accesses into the registers of its QUAD points, then runs
    `body` at each of the 2 * QUAD points in order.  A thread's points stay in increasing order
    of the walk (quad by quad, each in order), so its folds see them as `flat_loop`'s do."""
    flat, d, U = red.flat, len(red.flat), 2 * QUAD
    ext = [f"poly_e{k}" for k in range(d)]
    inner = [*ext[:-1], "poly_w"]               # the walk's extents, the fastest in quads
    head, step = _walk_lines(inner, "quad")
    lines = [f"const int poly_w = {ext[-1]} / {QUAD};   /* {flat[-1][0]}: quads of {QUAD} */", *head]
    at = lambda k, u: _COORD.format(k).replace("poly_u", u)
    lines += [f"    int {', '.join(_COORD.format(k).replace('[poly_u]', f'[{U}]') for k in range(d))};   /* coordinates */",
              "#pragma unroll", "    for (int poly_q = 0; poly_q < 2; poly_q++) {   /* the next 2 quads */",
              "#pragma unroll", f"      for (int poly_l = 0; poly_l < {QUAD}; poly_l++) {{",
              *(f"        {at(k, f'{QUAD} * poly_q + poly_l')} = poly_c{k};" for k in range(d - 1)),
              f"        {at(d - 1, f'{QUAD} * poly_q + poly_l')} = {QUAD} * poly_c{d - 1} + poly_l;", "      }",
              f"      if (poly_c0 < {ext[0]}) {{", *("        " + x for x in step), "      }", "    }"]
    regs = {text: f"poly_h{n}" for n, (text, _) in enumerate(red.ahead[1])}
    lines += [f"    {t} {regs[text]}[{U}];   /* {text} */" for text, t in red.ahead[1]]
    loads = []
    for text, t in red.ahead[1]:
        vec, n = _QUAD_TYPES[t]
        per = QUAD // n
        ref = cprint(p.r.node(parse_expr(text), {}))
        for m in range(n):
            v = f"poly_v{m}"
            loads += [f"const {vec} {v} = *((const {vec} *)&{ref}{f' + {m}' if m else ''});",
                      *(f"{regs[text]}[poly_u + {m * per + i}] = {v}.{'xyzw'[i]};" for i in range(per))]
    used = names_used("\n".join(loads))
    lines += ["#pragma unroll", "    for (int poly_q = 0; poly_q < 2; poly_q++)",
              f"      if ({at(0, f'{QUAD} * poly_q')} < {ext[0]}) {{   /* each quad's reads: 16-byte loads, all in flight */",
              f"        const int poly_u = {QUAD} * poly_q;",
              *_coords(flat, _COORD, "        ", used), "        {", *("          " + x for x in loads), "        }", "      }",
              "#pragma unroll", f"    for (int poly_u = 0; poly_u < {U}; poly_u++)",
              f"      if ({_COORD.format(0)} < {ext[0]}) {{   /* then each point's folds, in order */",
              *_coords(flat, _COORD, "        ", names_used("\n".join(body))), *("    " + x for x in body), "      }",
              "  }", "}"]
    return lines


def search_turns(red: Reduction, body: list[str], loads: tuple, start: str, walk: str, watch: dict,
                 search: str) -> list[str]:
    """A one-loop search's grid-stride loop in turns (`Reduction.ahead` without `flat`): the
    thread's indices are the one-index loop's (`start` + its thread index, then `walk` by the
    grid, while the loop's own condition holds), in its order (ascending for "least", descending
    for "greatest").  Each turn reads the grid's best (`watch`: a search's register -> its
    volatile view) once and runs only when its first index is not past the thread's own hit nor
    that best; it takes the next U indices into `_COORD` (one past the loop's end stays there),
    issues `loads` (`_loads`) at those within the loop, then runs `body` (`_point` over
    `_registers`) at each in order while it is not past the thread's own hit, as the one-index
    loop would have stopped.  At most U - 1 indices past a hit are loaded; the hit is the same."""
    U, loop, at = red.ahead[0], red.loop, "poly_next"
    past = "<" if search == "least" else ">"
    cond = lambda var: cprint(renamed(parse_expr(loop.cond), loop.var, var))
    either = lambda terms: terms[0] if len(terms) == 1 else "(" + " || ".join(f"({t})" for t in terms) + ")"
    turn = either([f"{at} {past} {r} && {at} {past} *{w}" for r, w in watch.items()])
    mine = either([f"{loop.var} {past} {r}" for r in watch])
    index = _coords(((loop.var, "0", ""),), _COORD, "      ")
    unrolled = lambda what: ["#pragma unroll", f"    for (int poly_u = 0; poly_u < {U}; poly_u++) {{   /* {what} */",
                             *index]
    return [f"  int {at} = {start}(int)(blockIdx.x * blockDim.x + threadIdx.x);   /* the thread's next {loop.var} */",
            f"  while ({cond(at)} && {turn}) {{   /* the grid's best: one read a turn */",
            f"    int {_COORD.format(0).replace('[poly_u]', f'[{U}]')};   /* the turn's indices */",
            "#pragma unroll", f"    for (int poly_u = 0; poly_u < {U}; poly_u++) {{   /* the loop's next {U} */",
            f"      {_COORD.format(0)} = {at};", f"      if ({cond(at)})",
            f"        {at} {walk} (int)(gridDim.x * blockDim.x);", "    }",
            *loads[0], *unrolled("their loads first, all in flight together"), f"      if ({loop.cond}) {{",
            *loads[1], "      }", "    }",
            *unrolled("then each index's body in order, up to the thread's own hit"),
            f"      if ({loop.cond} && {mine}) {{", *("    " + x for x in body), "      }", "    }", "  }"]


def _coords(flat: tuple, coord: str, indent: str, used=None) -> list[str]:
    """The point's loop variables from its coordinates (`coord`: C text of coordinate k, {} for k),
    those in `used` (None: all)."""
    return [f"{indent}const int {v} = {coord.format(k) if low == '0' else f'{low} + {coord.format(k)}'};"
            for k, (v, low, _) in enumerate(flat) if used is None or v in used]


def _registers(red: Reduction):
    """`_point`'s `read` for a nest loading first (`Reduction.ahead`): a copy of the node with
    each loaded read as its register `poly_hN[poly_u]`."""
    regs = {text: f"poly_h{n}" for n, (text, _) in enumerate(red.ahead[1])}

    def register(x):
        if isinstance(x, c_ast.ArrayRef) and cprint(x) in regs:
            return c_ast.ArrayRef(c_ast.ID(regs[cprint(x)]), c_ast.ID("poly_u"))
        return None
    return lambda node: node if node is None else rewrite(copy.deepcopy(node), register)


def _loads(p, red: Reduction, pad: str = "      ") -> tuple[list[str], list[str]]:
    """The declarations of the loaded reads' registers (`Reduction.ahead`), at `pad`, and their
    loads at a point, a level deeper."""
    U, reads = red.ahead
    return ([f"{pad}{t} poly_h{n}[{U}];   /* {text} */" for n, (text, t) in enumerate(reads)],
            [x for n, (text, _) in enumerate(reads) for x in p.r.statement(
                c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(f"poly_h{n}"), c_ast.ID("poly_u")), parse_expr(text)),
                {}, pad + "    ")])


def _pair(red: Reduction, f: Fold) -> tuple[str, str]:
    """The registers of an arg-best's (value, index): its scalars' webs, `poly_v_<index>` for a
    recomputed value, `poly_at_<first index>` for a nest's flat rank."""
    key = red.webs[f.index or f.indices[0][0]]
    return red.webs[f.acc] if f.acc else f"poly_v_{key}", red.webs[f.index] if f.index else f"poly_at_{key}"


def _nest_step(p, red: Reduction, f: Fold, names: dict, v: str, k: str, read, rank: str) -> list[str]:
    """A nest's arg-best in its thread (`flat_loop`'s body): the pair takes the point's value and
    flat rank in the nest's order (`_rank`) where the statement would take its coordinates.  A
    thread visits its points in the walk's order; where the walk's fastest loop is not the
    nest's innermost, a tie goes to the rank the loop keeps (`_better`), not to the later point.
    `read` and `rank`: `_point`'s."""
    node = read(f.node)
    if f.acc:
        sets = node.iftrue.block_items if isinstance(node.iftrue, c_ast.Compound) else [node.iftrue]
        value = cprint(p.r.node(next(b.rvalue for b in sets if b.lvalue.name == f.acc), names))
        left, right = (cprint(p.r.node(x, names)) for x in (node.cond.left, node.cond.right))
        op = node.cond.op
        head, tail, pad = [], [], ""
    else:
        value, left, op, right = "poly_v", "poly_v", f.op, v
        head, tail, pad = ["{", f"  {_value_type(p, f)} poly_v = {cprint(p.r.node(read(f.value), names))};"], ["}"], "  "
    across = tuple(x for x, _, _ in red.flat) != red.nest
    tie = "<" if f.op in (">", "<") else ">"
    if not f.acc:                # the value in a register: both taken by selects, no branch a point
        kt = red.dtypes.get(f.index, "long long") if f.index else "long long"
        take = f"({left} {_STRICT[op]} {right}) | (({left} == {right}) & (poly_k {tie} {k}))" if across else \
            f"({left} {op} {right})"
        return [*head, f"{pad}const {kt} poly_k = {rank};",
                f"{pad}const bool poly_take = ({k} == {SENTINEL}) | {take};",
                f"{pad}{v} = poly_take ? {value} : {v};", f"{pad}{k} = poly_take ? poly_k : {k};", *tail]
    take = f"{left} {op} {right}"
    if across:
        take = f"{left} {_STRICT[op]} {right} || ({left} == {right} && {rank} {tie} {k})"
    return [*head, f"{pad}if ({k} == {SENTINEL} || {take}) {{", f"{pad}  {v} = {value};", f"{pad}  {k} = {rank};",
            f"{pad}}}", *tail]


def _rank(red: Reduction, coord: str = "poly_c{}") -> str:
    """C text of the flat rank of `flat_loop`'s point in the nest's order (not the walk's, whose
    fastest loop may be another): its place in the sequence the loops visit.  `coord`: the C
    text of the point's coordinate k in the walk's order, with {} for k."""
    at = {v: k for k, (v, _, _) in enumerate(red.flat)}
    first, *rest = red.nest
    text = f"(long long){coord.format(at[first])}"
    for n, v in enumerate(rest):
        text = f"{text if n == 0 else f'({text})'} * poly_e{at[v]} + {coord.format(at[v])}"
    return text


def _decoded(red: Reduction, var: str, rank: str) -> str:
    """C text of loop variable `var` at flat rank `rank` (`_rank`): first value + (rank / stride) % extent."""
    at = {v: k for k, (v, _, _) in enumerate(red.flat)}
    after = red.nest[red.nest.index(var) + 1:]
    text = f"{rank} / ({' * '.join(f'(long long)poly_e{at[v]}' for v in after)})" if after else rank
    text = f"(int)({text} % poly_e{at[var]})" if var != red.nest[0] else f"(int)({text})"
    low = red.flat[at[var]][1]
    return text if low == "0" else f"{low} + {text}"


def search_order(red: Reduction) -> str:
    """"least" when every fold keeps the least index where something holds (`if (... && i < m)
    m = i;`, an ascending loop), "greatest" for the greatest (`i > m`, a descending loop), else "":
    a thread's later indices cannot improve on its own hit, nor on a hit another thread found."""
    for order, op, step in (("least", "imin", 1), ("greatest", "imax", -1)):
        if red.loop.step == step and all(_index_fold(f, red.loop.var, op) and red.dtypes[f.acc] == "int"
                                         for f in red.folds):
            return order
    return ""


def _watch(best: str, launch: str) -> str:
    """The kernel's volatile view of the `__device__` best `LAUNCH_best[_X]`: `poly_best[_X]`."""
    return "poly" + best.removeprefix(launch)


def _index_op(search: str) -> str:
    return "imin" if search == "least" else "imax"


def _index_fold(f: Fold, var: str, op: str) -> bool:
    """Whether f is `if (...) m = i;` folded by `op`."""
    node = f.stmt.stmt.node
    then = node.iftrue if isinstance(node, c_ast.If) else None
    if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
        then = then.block_items[0]
    return f.kind == "op" and f.op == op and isinstance(then, c_ast.Assignment) and cprint(then.rvalue) == var


def _publishing(node: c_ast.If, best: str, atomic: str) -> c_ast.If:
    """`if (C) m = i;` that also folds i into the `__device__` best: `{ m = i; atomicMin(&best, i); }`."""
    node = copy.deepcopy(node)
    then = node.iftrue.block_items[0] if isinstance(node.iftrue, c_ast.Compound) else node.iftrue
    call = c_ast.FuncCall(c_ast.ID(atomic), c_ast.ExprList([c_ast.UnaryOp("&", c_ast.ID(best)),
                                                            copy.deepcopy(then.rvalue)]))
    node.iftrue = c_ast.Compound([then, call])
    return node


def _value_type(p, f: Fold) -> str:
    """The C type of a recomputed best value: its array's element type (`x[k]`), else double."""
    names = [x.name for x in _walk(f.value) if isinstance(x, c_ast.ID)]
    return next((p.dtypes[n] for n in names if n in {a.name for a in p.k.arrays}), "double")


def _better(f: Fold, v2: str, k2: str, v1: str, k1: str) -> str:
    """C condition: pair 2 replaces pair 1 (see `Fold`)."""
    tie = "<" if f.op in (">", "<") else ">"
    return (f"{k2} != {SENTINEL} && ({k1} == {SENTINEL} || {v2} {_STRICT[f.op]} {v1} || "
            f"({v2} == {v1} && {k2} {tie} {k1}))")


def launch_code(p, launch, red: Reduction, args: list[str], indent: str) -> list[str]:
    """Host code: as many blocks as the loop needs, at most `reductions.partials`, at least one (the
    last block still runs INIT and OUT when the loop is empty)."""
    outer = tuple(l.var for l in launch.host_loops)
    call, most = ", ".join(args), red.parts
    if red.flat:                # a nest's flat range: as many blocks as it needs, at most `most`
        sizes = " * ".join(f"(long long)({e} > 0 ? {e} : 0)" for _, _, e in red.flat)
        head = [f"{indent}  const long long extent = {sizes};   /* {', '.join(v for v, _, _ in red.flat)} */",
                f"{indent}  int poly_parts = extent > {(most - 1) * THREADS} ? {most} : "
                f"extent > 0 ? (int)poly_blocks((int)extent, {THREADS}) : 1;"]
    else:
        (lows, highs), = p.an.model.box([red.folds[0].stmt.stmt.name], (red.loop.var,), outer)
        head = [f"{indent}  const int extent = {_extent_text(p, lows, highs)};   /* {red.loop.var} */",
                f"{indent}  int poly_parts = extent > 0 ? (int)poly_blocks(extent, {THREADS}) : 1;",
                f"{indent}  if (poly_parts > {most})", f"{indent}    poly_parts = {most};"]
    return [f"{indent}{{", *head,
            f"{indent}  {p.launch_line(launch.name, ('poly_parts', str(THREADS)), call, launch.host_loops)}",
            f"{indent}}}"]


def _extent_text(p, lows, highs) -> str:
    return extent_text(max_expr(highs), min_expr(lows)) if lows and highs else "0"


# -- a warp per row -------------------------------------------------------------------------

@dataclass
class Accumulator:
    """One reduction of a row loop: `target op= part` each iteration."""
    stmt: Stmt
    target: str                 # C text of the accumulator (`tmp[i]`, or a local scalar)
    dtype: str
    op: str                     # a key of OPS
    part: c_ast.Node            # the contribution of one iteration (`A[i][j] * x[j]`)
    decls: tuple = ()           # `const int j = wave + i;` an isl schedule put around the statement
                                # (none uses the loop's variable): the forms that take them print them first


@dataclass
class RowReduction:
    """A 1-d grid whose threads each reduce a loop over the contiguous subscript
    (`tmp[i] += A[i][j] * x[j]` for j; gesummv's two sums in one loop): one warp per grid
    index instead, its lanes striding the loop (consecutive lanes read consecutive
    elements), a shuffle tree per accumulator, and lane 0 running the statements around
    the loop with the totals folded in."""
    pre: list
    loop: Loop
    accs: list[Accumulator]
    post: list
    column: bool = False        # the loop walks down columns: 8 lanes per index (see column_kernel)
    temps: tuple = ()           # Stmt: the loop's temporaries, run by each lane before its folds (`temporaries`)
    search: bool = False        # the least j where P, else the loop's end (`_first_hit`): a lane stops at its hit
    lanes: int = 0              # lanes per row, set once by the plan (`row_lanes`; a data row's: options.reductions.rows.data_lanes)
    data: bool = False          # the loop's bounds are read from arrays (`data_row_of`): the one statement
                                # of `loop.body` is the analysis' opaque `for`, its body the fold
    lead: tuple = ()            # Stmt: of the statements before the loop, those it reads, run by every lane first (`_lead`)
    warps: bool = False         # also NAME_warps, a warp per row, for calls with rows enough to fill the device (`warp_rows`)

    @property
    def op(self) -> str:
        return ", ".join(dict.fromkeys(a.op for a in self.accs))


def row_reduction_of(an: Analysis, storage: dict, launch, data_lanes: int = 32) -> RowReduction | None:
    if len(launch.grid) != 1 or launch.grid[0].derived:
        return None
    loops = [n for n in launch.body if isinstance(n, Loop)]
    if not loops:
        return data_row_of(an, storage, launch, data_lanes)
    if len(loops) != 1:
        return None
    loop = loops[0]
    at = launch.body.index(loop)
    pre, post = launch.body[:at], launch.body[at + 1:]
    if loop.step != 1 or not loop.body or not all(isinstance(n, Stmt) for n in loop.body):
        return None
    temps, folds = temporaries(an, storage, loop)
    accs = [accumulator_of(an, storage, n, loop) for n in folds]
    if not accs or None in accs or len({a.target for a in accs}) != len(accs):
        return None
    if any(n.stmt.reads(a.stmt.stmt.writes()[0].name) for n in temps for a in accs):
        return None                          # the lanes run the temporaries before their folds
    lead, pre = _lead(an, storage, pre, accs, temps)
    if lead is None:
        return None
    names = {a.stmt.stmt.name for a in accs}
    # the loop carries nothing but these reductions (facts of the reference's loop, which
    # may have held more statements before distribution: a subset carries no more)
    if not any(f.var == loop.var and f.reduction and names <= set(f.statements) for f in an.loops):
        return None
    written = {w.name for a in accs for w in a.stmt.stmt.writes()}
    for a in accs:
        reads = {r.name for r in a.stmt.stmt.reads()} - {w.name for w in a.stmt.stmt.writes()}
        if reads & written:                  # one sum reads another's accumulator
            return None
    if not _pre_clear(an, pre, accs) or any(n.stmt.reads(w.name) for m in pre for w in m.stmt.writes() for n in temps):
        return None                          # lane 0 runs `pre` after the lanes' loop
    # Worth it only when the loop walks the row's contiguous subscript (a thread per row would
    # not coalesce); a loop down a column is coalesced across threads already, and a stream that
    # does not name the row (nbody's p[j][0], m[j]) is one address for all rows, a broadcast.
    cells = {(w.name, tuple(w.index)) for a in accs for w in a.stmt.stmt.writes()}
    streams = [x for n in [a.stmt for a in accs] + temps for x in n.stmt.accesses
               if x.index and (x.name, tuple(x.index)) not in cells]
    row = lambda x: any(launch.grid[0].var in identifiers(e) for e in x.index)
    along = sum(loop.var in identifiers(x.index[-1]) and row(x) for x in streams)
    across = sum(launch.grid[0].var in identifiers(x.index[-1]) and any(loop.var in identifiers(e) for e in x.index)
                 for x in streams)             # (a read that the loop does not move is one address per row)
    if along > across:
        return RowReduction(pre, loop, accs, post, temps=tuple(temps), search=_first_hit(loop, accs, temps),
                            lead=tuple(lead))
    # Down a column: the matrix reads (subscripts with both the index and the loop) all have
    # the index last, coalesced across threads already; split the loop among lanes instead.
    i = launch.grid[0].var
    matrix = [x for x in streams if any(i in identifiers(e) for e in x.index)
              and any(loop.var in identifiers(e) for e in x.index)]
    if matrix and all(i in identifiers(x.index[-1]) and loop.var not in identifiers(x.index[-1]) for x in matrix):
        return RowReduction(pre, loop, accs, post, column=True, temps=tuple(temps), lead=tuple(lead))
    return None


def data_row_of(an: Analysis, storage: dict, launch, lanes: int) -> RowReduction | None:
    """A row whose bounds are read from arrays the nest never writes (CSR: `for (k = row_ptr[i];
    k < row_ptr[i + 1]; k++) s += val[k] * x[col[k]];`, a graph's in-edges, a bag's members):
    the analysis keeps such a loop whole, one opaque statement run in order by each thread
    (model.opaque: its header reads `in` arrays only, its body writes local scalars only).  Its
    body one fold `s op= e` into a local scalar (no break, no other write), and some read walking
    the loop's contiguous range (`val[k]`): lanes stride it like an affine row, consecutive lanes
    reading consecutive elements, where a thread per row reads addresses a row apart.  `s`'s
    initial value and its uses after the loop stay with lane 0 (`pre`, `post`)."""
    at = [k for k, n in enumerate(launch.body) if isinstance(n.stmt.node, c_ast.For)]
    if len(at) != 1:
        return None
    stmt = launch.body[at[0]]
    f = stmt.stmt.node
    body = f.stmt.block_items if isinstance(f.stmt, c_ast.Compound) else [f.stmt]
    decl = f.init.decls[0] if isinstance(f.init, c_ast.DeclList) and len(f.init.decls) == 1 else None
    if decl is None or len(body or []) != 1 or not isinstance(body[0], c_ast.Assignment) or stmt.bind \
            or not (isinstance(f.next, c_ast.UnaryOp) and f.next.op in ("++", "p++") and cprint(f.next.expr) == decl.name) \
            or not (isinstance(f.cond, c_ast.BinaryOp) and f.cond.op == "<" and cprint(f.cond.left) == decl.name):
        return None
    var, node = decl.name, body[0]
    writes = stmt.stmt.writes()
    if len(writes) != 1 or writes[0].index or cprint(node.lvalue) != writes[0].name:
        return None
    web = an.web_of.get((stmt.stmt.name, writes[0].name))
    got = _contribution(node, writes[0].name, by_name=True)
    dtype = an.program.locals[writes[0].name].dtype if writes[0].name in an.program.locals else None
    if web is None or storage.get(web) != "local" or not got or got[0] not in OPS or dtype not in ("float", "double") \
            or any(isinstance(n, c_ast.Assignment) or isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")
                   for n in _walk(got[1])):
        return None
    if not any(isinstance(n, c_ast.ArrayRef) and identifiers(cprint(n.subscript)) == {var} for n in _walk(got[1])):
        return None                          # no read walks the row's range: nothing for lanes to coalesce
    init = cprint(decl.init)
    loop = Loop(var, init, cprint(f.cond.right) + " - 1", 1, [stmt], init=f"int {var} = {init}",
                cond=cprint(f.cond), next=f"{var}++")
    acc = Accumulator(stmt, writes[0].name, dtype, *got)
    pre, post = launch.body[:at[0]], launch.body[at[0] + 1:]
    if not _pre_clear(an, pre, [acc]):
        return None
    whole = lanes & (lanes - 1) == 0 and 2 <= lanes <= ROW_BLOCK    # a shuffle tree's, or whole warps of the block
    return RowReduction(pre, loop, [acc], post, data=True, lanes=lanes if whole else 32)


def accumulator_of(an: Analysis, storage: dict, acc: Stmt, loop: Loop) -> Accumulator | None:
    writes = acc.stmt.writes()
    if len(writes) != 1 or loop.var in " ".join(writes[0].index).replace("(", " ").split():
        return None
    w = writes[0]
    if w.index:
        dtype = next((a.dtype for a in an.program.kernel.arrays if a.name == w.name), None)
    else:
        web = an.web_of.get((acc.stmt.name, w.name))
        if web is None or storage.get(web) != "local":
            return None
        dtype = an.program.locals[w.name].dtype
    node, decls = acc.stmt.node, ()
    if isinstance(node, c_ast.Compound) and node.block_items and \
            all(isinstance(d, c_ast.Decl) for d in node.block_items[:-1]):
        decls, node = tuple(node.block_items[:-1]), node.block_items[-1]
        if any(loop.var in identifiers(cprint(d)) for d in decls):
            return None
    cond = None
    if acc.stmt.conditional:           # `if (P) s += e`: s += P ? e : 0, the fold's identity where not P
        node, cond = _guarded(node)
    if not isinstance(node, c_ast.Assignment):
        return None
    target = cprint(node.lvalue)
    got = _contribution(node, target)
    if got and got[0] in ("tmax", "tmin"):
        got = ("i" + got[0][1:], got[1]) if dtype == "int" else None
    elif dtype not in ("float", "double"):
        return None
    if got and cond is not None:
        if cond is False or target in identifiers(cprint(cond)) or got[0] not in OPS:
            return None
        got = (got[0], c_ast.TernaryOp(cond, got[1], parse_expr(OPS[got[0]][0])))
    return Accumulator(acc, target, dtype, *got, decls=decls) if got else None


def _guarded(node) -> tuple:
    """(the assignment, its condition) of `if (P) T op= e;` with no else, or (None, False)."""
    if not isinstance(node, c_ast.If) or node.iffalse is not None:
        return None, False
    body = node.iftrue
    if isinstance(body, c_ast.Compound):
        body = body.block_items[0] if body.block_items and len(body.block_items) == 1 else None
    return (body, node.cond) if isinstance(body, c_ast.Assignment) else (None, False)


def _lead(an: Analysis, storage: dict, pre: list, accs: list, temps: list) -> tuple[list | None, list]:
    """(lead, rest) of the statements before the loop: the lead is those whose values the loop
    reads (a one-hot pick of the row's label before its margins: `picked = x[i][label[i]]`),
    with the ones they read in turn, in order; every lane runs them before the loop, as the
    thread per row did. Each must write one local scalar and no accumulator, so that the lanes'
    copies race on nothing (else None). The rest is lane 0's after the loop (`_pre_clear`)."""
    totals = {a.stmt.stmt.writes()[0].name for a in accs}
    needed = {r.name for n in [a.stmt for a in accs] + list(temps) for r in n.stmt.reads()} - totals
    lead = []
    for n in reversed(pre):
        if any(w.name in needed for w in n.stmt.writes()):
            lead.insert(0, n)
            needed |= {r.name for r in n.stmt.reads()}
    if any(_local_web(an, storage, n) is None or n.stmt.writes()[0].name in totals for n in lead):
        return None, pre
    return lead, [n for n in pre if n not in lead]


def _pre_clear(an: Analysis, pre: list, accs: list) -> bool:
    """Whether lane 0 may run `pre` after the lanes' loop: no statement of it writes a scalar or
    array the loop reads, except an accumulator's own cell, which no other read of the loop
    reaches in the same iteration of the loops around (isl: gesummv's and nussinov's rows)."""
    cells = {}
    for a in accs:
        w = a.stmt.stmt.writes()[0]
        cells[w.name] = (a.stmt.stmt.name, tuple(w.index))   # a local scalar's cell is ()
    for n in pre:
        for w in n.stmt.writes():
            for a in accs:
                s = a.stmt.stmt
                reads = [r for r in s.reads() if r.name == w.name]
                if not reads:
                    continue
                if w.name not in cells or tuple(w.index) != cells[w.name][1]:
                    return False
                loops, names = set(an.model.specs[s.name].loops), identifiers(" ".join(w.index))
                if not names <= loops | {x.name for x in an.program.kernel.sizes}:
                    return False
                if any((n.bind or {}).get(v, v) != (a.stmt.bind or {}).get(v, v) for v in names):
                    return False               # the same iterator name, another loop of the schedule
                if any(tuple(r.index) != cells[w.name][1] and an.model.touches(s.name, tuple(r.index), tuple(w.index))
                       for r in reads):
                    return False
    return True


def _contribution(node, target: str, by_name: bool = False):
    """(OPS key, the other operand) of `T op= e`, `T = T + e`, `T = fmax(T, e)`, ...; None else.
    Whether `e` holds T is a test of text (`s` is then inside `src[e]`: refused); `by_name`: of
    the scalar T's name (data_row_of; the other forms' callers keep the text test, which holds
    kmeans_assign's `s` inside `pts` out of the sweep form for now)."""
    same = lambda n: cprint(n) == target
    inside = (lambda n: target in identifiers(cprint(n))) if by_name else (lambda n: target in cprint(n))
    rv = node.rvalue
    if node.op in ("+=", "-=", "*="):
        return (node.op, rv) if not inside(rv) else None
    if node.op != "=":
        return None
    if isinstance(rv, c_ast.BinaryOp) and rv.op in ("+", "*"):
        for a, b in ((rv.left, rv.right), (rv.right, rv.left)):
            if same(a) and not inside(b):
                return rv.op + "=", b
    if isinstance(rv, c_ast.TernaryOp) and isinstance(rv.cond, c_ast.BinaryOp) and \
            rv.cond.op in (">=", ">", "<=", "<"):
        l, r = rv.cond.left, rv.cond.right       # (T >= e) ? T : e, (e > T) ? e : T, ...
        for t, e, big in ((l, r, rv.cond.op[0] == ">"), (r, l, rv.cond.op[0] == "<")):
            if same(t) and not inside(e) and same(rv.iftrue) and cprint(rv.iffalse) == cprint(e):
                return ("tmax" if big else "tmin"), e
            if same(t) and not inside(e) and same(rv.iffalse) and cprint(rv.iftrue) == cprint(e):
                return ("tmin" if big else "tmax"), e
    if isinstance(rv, c_ast.FuncCall) and isinstance(rv.name, c_ast.ID) and rv.args and \
            rv.name.name in ("fmax", "fmaxf", "fmin", "fminf") and len(rv.args.exprs) == 2:
        for a, b in (rv.args.exprs, reversed(rv.args.exprs)):
            if same(a) and not inside(b):
                return ("max" if "max" in rv.name.name else "min"), b
    return None


def _first_hit(loop: Loop, accs: list, temps: list) -> bool:
    """Whether the loop's one fold is the least j where P holds, else the loop's end: `v = P ? j :
    END; m = min(m, v)` for `j < END` ascending.  A lane's later steps give larger j or END,
    so once its part is below its next j (a hit) the lane may stop."""
    if len(accs) != 1 or accs[0].op != "imin" or loop.step != 1 or not isinstance(accs[0].part, c_ast.ID):
        return False
    sets = [n.stmt.node for n in temps if n.stmt.writes()[0].name == accs[0].part.name]
    if len(sets) != 1 or not isinstance(sets[0], c_ast.Assignment) or sets[0].op != "=" \
            or not isinstance(sets[0].rvalue, c_ast.TernaryOp):
        return False                         # (the ternary is the temporary's only value)
    t = sets[0].rvalue
    return cprint(t.iftrue) == loop.var and loop.cond == f"{loop.var} < {cprint(t.iffalse)}"


def _temps(p, red: RowReduction, indent: str) -> list[str]:
    """The loop's temporaries, as each lane runs them before its folds."""
    return [x for n in red.temps for x in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), indent)]


def _leads(p, red: RowReduction, live: str | None) -> list[str]:
    """The lead statements (`RowReduction.lead`), as every lane of a live row runs them first."""
    pad = "    " if live else "  "
    lines = [x for n in red.lead for x in p.r.statement(n.stmt.node, p.names_for(n.stmt.name), pad)]
    return [f"  if ({live}) {{", *lines, "  }"] if live and lines else lines


def _decls(p, red: RowReduction, indent: str) -> list[str]:
    """The accumulators' schedule declarations (`const int j = wave + i;`), each once."""
    out = []
    for a in red.accs:
        for d in a.decls:
            out += [x for x in p.r.statement(d, p.names_for(a.stmt.stmt.name), indent) if x not in out]
    return out


def row_kernel(p, launch, red: RowReduction, start: str, guard: str, block: str = "blockIdx.x",
               threads: int = 0, width: int = 0) -> list[str]:
    """The body of a row-reduction kernel (p: the Printer): `reductions.rows.lanes` lanes per row (whole
    warps of a 256-thread block) stride the loop, a shuffle tree per warp, and with more than
    one warp per row the warps' parts added from shared memory in a fixed order; lane 0 runs
    the statements around the loop with the totals folded in.  `block` and `threads`: the
    block's index among the launch's and its threads (a merged launch's part: merge.py);
    `width`: lanes per row other than `row_lanes` (32: the NAME_warps kernel of `warp_rows`)."""
    i, loop = launch.grid[0].var, red.loop
    per = threads or "blockDim.x"
    threads = threads or ROW_BLOCK
    width = width or red.lanes
    wide = width > 32                    # several warps per row: they meet at a barrier
    taken = set(p.k.params) | set(p.an.program.locals) | {i, loop.var}
    fresh = lambda name: fresh_name(name, taken)     # bicg has an array s
    lane, offset, live, other = fresh("lane"), fresh("offset"), fresh("live"), fresh("other")
    n = len(red.accs)
    parts = [fresh("part")] if n == 1 else [fresh(f"part_{k + 1}") for k in range(n)]
    shared = [fresh("warps")] if n == 1 else [fresh(f"warps_{k + 1}") for k in range(n)]
    braced = lambda head, lines, pad: [head, *lines] if n == 1 else [head, pad + "{", *lines, pad + "}"]
    around = lambda nodes: [x for m in nodes for x in p.r.statement(m.stmt.node, p.names_for(m.stmt.name), "    ")]
    lo = loop.init.split("=", 1)[1].strip()
    declare, tree, store, gather, finish = [], [], [], [], []
    deep = wide or width < 32              # the lanes' loop sits under `if (live)`
    contribute = _temps(p, red, "      " if deep else "    ")
    for a, part, warps in zip(red.accs, parts, shared):
        names = p.names_for(a.stmt.stmt.name)
        if wide:
            declare.append(f"  __shared__ {a.dtype} {warps}[{threads // 32}];")
            store.append(f"    {warps}[threadIdx.x / 32] = {part};")
            gather.append(f"      {part} = " + combine(a.op, part, f"{warps}[threadIdx.x / 32 + {other}]") + ";")
        declare.append(f"  {a.dtype} {part} = {OPS[a.op][0]};")
        contribute += p.r.statement(fold_step(a, part), names, "      " if deep else "    ")
        tree.append(f"    {part} = " + combine(a.op, part, f"__shfl_down_sync(0xffffffffu, {part}, {offset})") + ";")
        target = p.r.statement(parse_target(a.target), names, "")[0].rstrip(";")
        finish.append("    " + join(a.op, target, part))
    stop = f" && {parts[0]} > {loop.var}" if red.search else ""      # a lane stops at its first hit
    walk = f"for ({loop.var} = {'' if lo == '0' else lo + ' + '}{lane}; {loop.cond}{stop}; {loop.var} += {width})"
    out = [f"  const int {i} = {start}(int)(({block} * {per} + threadIdx.x) / {width});",
           f"  const int {lane} = threadIdx.x % {width};"]
    if wide:
        out += [f"  const bool {live} = {guard};   /* no early return: the row's warps meet at a barrier */",
                *_decls(p, red, "  "), f"  int {loop.var};", *declare, *_leads(p, red, live),
                f"  if ({live})", "    " + walk, "    {", *contribute, "    }"]
    elif width < 32:
        out += [f"  const bool {live} = {guard};   /* no early return: the warp's rows shuffle together */",
                *_decls(p, red, "  "), f"  int {loop.var};", *declare, *_leads(p, red, live),
                f"  if ({live})", "    " + walk, "    {", *contribute, "    }"]
    else:
        out += [f"  if (!({guard}))", "    return;                        /* the whole warp: same row */",
                *_decls(p, red, "  "), f"  int {loop.var};", *declare, *_leads(p, red, None),
                "  " + walk, "  {", *contribute, "  }"]
    out += braced(f"  for (int {offset} = {min(width, 32) // 2}; {offset} > 0; {offset} >>= 1)", tree, "  ")
    if wide:
        out += [*braced("  if (threadIdx.x % 32 == 0)", store, "  "), "  __syncthreads();",
                f"  if ({live} && {lane} == 0) {{",
                *braced(f"    for (int {other} = 1; {other} < {width // 32}; {other}++)", gather, "    ")]
    else:
        out.append(f"  if ({live} && {lane} == 0) {{" if width < 32 else f"  if ({lane} == 0) {{")
    return out + [*around(red.pre), *finish, *around(red.post), "  }"]


ROW_BLOCK = 256                 # threads per block of a row-reduction launch
#: warps a multiprocessor holds of a call's rows, one each, before a warp per row beats `row_lanes` (`warp_rows`)
WARP_ROWS_PER_SM = 32


def warp_rows(p, launch) -> bool:
    """Whether a row reduction of several warps per row (`row_lanes` > 32) also gets NAME_warps, a
    warp per row, run by calls with at least WARP_ROWS_PER_SM rows per multiprocessor (the
    launch compares at run time).  Why: lanes per row exist to put enough loads in flight when
    rows are few (docs/poly.md, "Lanes per row"); with a warp's worth of rows for half of every
    multiprocessor's warp slots, one warp per row already fills the device, and it drops the
    shared-memory combine and the barrier that several warps per row pay on every row.  Exact
    as the wider kernel: the same loop split among lanes, combined by the same shuffle tree.
    Only a launch of its own at the top level (not merged, not under host loops or in a block):
    the choice is a host-side `if` around one launch."""
    r = launch.row
    return bool(r and not (r.column or r.data) and not launch.merged_threads and not launch.host_loops
                and not launch.in_block and r.lanes > 32)


def row_lanes(p, launch) -> int:
    """Lanes per row, which the plan sets once on the record (`RowReduction.lanes`): a data row's
    as found, `reductions.rows.lanes` (whole warps that divide the block) for a loop over whole rows,
    whose bounds name only sizes; a warp for a loop whose bounds move with the row or a host
    loop (nussinov's k from i + 1 to wave + i: short rows leave most of 128 lanes idle at
    the barrier; measured in docs/poly.md, "Lanes per row")."""
    if launch.row.lanes:
        return launch.row.lanes
    w, loop = p.opt.reductions.rows.lanes, launch.row.loop
    whole = identifiers(f"{loop.lower} {loop.upper}") <= {s.name for s in p.k.sizes}
    return w if whole and w % 32 == 0 and 32 <= w <= ROW_BLOCK and ROW_BLOCK % w == 0 else 32


def warps_name(launch) -> str:
    """The kernel of a warp per row beside a launch's wider one (`warp_rows`; phases.py's `RowPhases.warp`)."""
    return f"{launch.name}_warps"


def parse_target(text: str):
    return parse_expr(text)


# -- a column of lanes per index ------------------------------------------------------------

def column_kernel(p, launch, red: RowReduction, start: str, guard: str, block: str = "blockIdx.x",
                  threads: int = 0) -> list[str]:
    """The body of a kernel whose threads reduce a loop down a column (`y[j] += A[i][j] *
    tmp[i]` for i, j the grid index): a block takes `width` consecutive indices (threadIdx.x:
    reads coalesced across threads as they were) and `lanes` lanes (threadIdx.y) split the
    loop, so each thread's chain of dependent additions is that many times shorter and there
    are that many times more threads, and more blocks than with 32-wide blocks to spread over
    the SMs; lane 0 adds the lanes' parts in a fixed order from shared memory and finishes the
    index (options.reductions.rows.column_block).  `block`: the block's index among the launch's; with
    `threads` (a merged launch's part: merge.py) the block is one-dimensional and its thread
    takes index threadIdx.x % width and lane threadIdx.x / width."""
    j, loop = launch.grid[0].var, red.loop
    width, lanes_ = launch.block   # (indices, lanes): the plan's `reductions.rows.column_block`
    tx, ty = (f"threadIdx.x % {width}", f"threadIdx.x / {width}") if threads else ("threadIdx.x", "threadIdx.y")
    taken = set(p.k.params) | set(p.an.program.locals) | {j, loop.var}
    fresh = lambda name: fresh_name(name, taken)
    lane, live, other = fresh("lane"), fresh("live"), fresh("other")
    n = len(red.accs)
    parts = [fresh("part")] if n == 1 else [fresh(f"part_{k + 1}") for k in range(n)]
    shared = [fresh("lanes")] if n == 1 else [fresh(f"lanes_{k + 1}") for k in range(n)]
    around = lambda nodes: [x for m in nodes for x in p.r.statement(m.stmt.node, p.names_for(m.stmt.name), "    ")]
    lo = loop.init.split("=", 1)[1].strip()
    declare, store, gather, finish = [], [], [], []
    contribute = _temps(p, red, "      ")
    for a, part, lanes in zip(red.accs, parts, shared):
        names = p.names_for(a.stmt.stmt.name)
        step = fold_step(a, part)
        declare += [f"  __shared__ {a.dtype} {lanes}[{lanes_}][{width}];", f"  {a.dtype} {part} = {OPS[a.op][0]};"]
        contribute += p.r.statement(step, names, "      ")
        store.append(f"  {lanes}[{lane}][{tx}] = {part};")
        gather.append(f"      {part} = " + combine(a.op, part, f"{lanes}[{other}][{tx}]") + ";")
        target = p.r.statement(parse_target(a.target), names, "")[0].rstrip(";")
        finish.append("    " + join(a.op, target, part))
    first = f"{'' if lo == '0' else lo + ' + '}{lane}"
    return [f"  const int {j} = {start}(int)({block} * {width} + {tx});",
            f"  const int {lane} = {ty};                /* {lanes_} lanes split loop {loop.var} */",
            f"  const bool {live} = {guard};   /* no early return: the block meets at a barrier */",
            *_decls(p, red, "  "), f"  int {loop.var};", *declare, *_leads(p, red, live),
            f"  if ({live})", f"    for ({loop.var} = {first}; {loop.cond}; {loop.var} += {lanes_})",
            "    {", *contribute, "    }", *store, "  __syncthreads();",
            f"  if ({live} && {lane} == 0) {{",
            f"    for (int {other} = 1; {other} < {lanes_}; {other}++)",
            *(["    {"] + gather + ["    }"] if n > 1 else gather),
            *around(red.pre), *finish, *around(red.post), "  }"]


# -- a one-thread sum inside a one-block loop -------------------------------------------------

@dataclass
class BlockSum:
    """A one-thread launch `PRE; acc = INIT; for (i ...) acc op= e(i); FIN` inside a one-block
    loop (durbin's `sum` over i < k): the block's threads split the loop, each warp combines its
    parts by a shuffle tree, warp 0 the warps' (a fixed order, one barrier), and thread 0 runs
    PRE, INIT, the join and FIN.  The block's threads: a multiple of 32, at most 1024."""
    pre: list
    init: Stmt
    loop: Loop
    acc: Accumulator
    fin: list


def block_sum_of(an: Analysis, storage: dict, launch) -> BlockSum | None:
    body = launch.body
    loops = [n for n in body if isinstance(n, Loop)]
    if launch.grid or len(loops) != 1:
        return None
    loop = loops[0]
    at = body.index(loop)
    if at == 0 or loop.step != 1 or len(loop.body) != 1 or not isinstance(loop.body[0], Stmt):
        return None
    init, pre, fin = body[at - 1], body[:at - 1], body[at + 1:]
    acc = accumulator_of(an, storage, loop.body[0], loop)
    if acc is None or acc.stmt.stmt.writes()[0].index or acc.decls:
        return None                                  # an array cell: the row forms' business
    scalar = acc.stmt.stmt.writes()[0].name
    if not init.stmt.writes(scalar) or init.stmt.reads(scalar) or init.stmt.conditional:
        return None
    if any(n.stmt.reads(scalar) or n.stmt.writes(scalar) for n in pre):
        return None
    if not any(f.var == loop.var and f.reduction and acc.stmt.stmt.name in f.statements for f in an.loops):
        return None
    # thread 0 runs PRE after the threads' loop: it may not write what the loop reads
    reads = {a.name for a in acc.stmt.stmt.reads()} - {scalar}
    if any(w.name in reads for n in pre for w in n.stmt.writes()):
        return None
    return BlockSum(pre, init, loop, acc, fin)


def block_sum_function(p, launch, bs: BlockSum, params: str, locals_: list[str], every: bool = False) -> list[str]:
    """`NAME_block`, which every thread of the one block calls (it has barriers inside); with
    `every`, every warp adds the warps' parts by the same tree and every thread finishes with
    the same sum (its scalars are its own: oneblock.thread_scalars)."""
    a, loop = bs.acc, bs.loop
    taken = set(p.k.params) | set(p.an.program.locals) | {loop.var}
    fresh = lambda name: fresh_name(name, taken)
    part, lanes, off = fresh("part"), fresh("lanes"), fresh("off")
    names = p.names_for(a.stmt.stmt.name)
    step = fold_step(a, part)
    around = lambda nodes: [x for m in nodes for x in p.r.statement(m.stmt.node, p.names_for(m.stmt.name), "      ")]
    target = p.r.statement(parse_target(a.target), names, "")[0].rstrip(";")
    lo = loop.init.split("=", 1)[1].strip()
    warp = lambda indent: [f"{indent}for (int {off} = 16; {off} > 0; {off} >>= 1)",
                           f"{indent}  {part} = " + combine(a.op, part, f"__shfl_down_sync(0xffffffffu, {part}, {off})")
                           + ";"]
    finish = [*around(bs.pre), *around([bs.init]), "      " + join(a.op, target, part), *around(bs.fin)]
    if every:
        tail = ["  /* each warp's parts by a shuffle tree, then every warp adds the warps' by the same tree: "
                "one barrier, the same sum in every thread */",
                *warp("  "),
                "  if ((threadIdx.x & 31) == 0)", f"    {lanes}[threadIdx.x >> 5] = {part};", "  __syncthreads();",
                f"  {part} = (threadIdx.x & 31) < (blockDim.x >> 5) ? {lanes}[threadIdx.x & 31] : {OPS[a.op][0]};",
                *warp("  "), f"  {part} = __shfl_sync(0xffffffffu, {part}, 0);", "  {", *finish, "  }"]
    else:
        tail = ["  /* each warp's parts by a shuffle tree, then warp 0 adds the warps' (a fixed order): one barrier */",
                *warp("  "),
                "  if ((threadIdx.x & 31) == 0)", f"    {lanes}[threadIdx.x >> 5] = {part};", "  __syncthreads();",
                "  if (threadIdx.x < 32) {",
                f"    {part} = threadIdx.x < (blockDim.x >> 5) ? {lanes}[threadIdx.x] : {OPS[a.op][0]};",
                *warp("    "), "    if (threadIdx.x == 0) {", *finish, "    }", "  }"]
    return [f"static __device__ void {launch.name}_block({params})", "{",
            f"  __shared__ {a.dtype} {lanes}[32];   /* one part per warp */", f"  int {loop.var};", *locals_,
            f"  {a.dtype} {part} = {OPS[a.op][0]};",
            f"  for ({loop.var} = {'' if lo == '0' else lo + ' + '}(int)threadIdx.x; {loop.cond}; "
            f"{loop.var} += (int)blockDim.x)",
            *p.r.statement(step, names, "    "), *tail, "}"]


def fold_step(a: Accumulator, part: str) -> c_ast.Node:
    """One iteration's contribution folded into the partial `part` (`part += e`, `part = fmax(part, e)`)."""
    op = {"+=": "+=", "-=": "-=", "*=": "*="}.get(a.op)
    if op:
        return c_ast.Assignment(op, c_ast.ID(part), a.part)
    return c_ast.Assignment("=", c_ast.ID(part), c_ast.FuncCall(
        c_ast.ID(_CALL[a.op]), c_ast.ExprList([c_ast.ID(part), a.part])))


def fresh_name(name: str, taken: set[str]) -> str:
    """`name`, with underscores added until no name of the kernel is the same."""
    while name in taken:
        name += "_"
    return name
