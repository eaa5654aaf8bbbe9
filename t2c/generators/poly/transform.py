"""Loop-tree transformations of the poly generator: distribute, permute, fuse, wavefront.

Each pass takes the `Analysis` and a loop tree (`Loop` and `Stmt` nodes over the reference's
statements) and gives a new tree, never editing its input. A pass only proposes: every candidate
tree is checked against the exact dependences (`Analysis.legal`) and dropped when it would
reorder a dependent pair, so a heuristic can make code slower but never wrong. Scalar webs add a
rule isl cannot see: a pass may not split a privatized web across nests nor move a loop the web
is not private to outside one it is. docs/poly.md, "Loop passes".
"""
from __future__ import annotations

import dataclasses
import re

from ...analysis import Analysis, Loop, Stmt
from .ctext import parens

_WORD = re.compile(r"[A-Za-z_]\w*")


def _stmts(nodes) -> list[str]:
    out = []
    for n in nodes:
        out.extend([n.stmt.name] if isinstance(n, Stmt) else [s.stmt.name for s in n.statements()])
    return out


def replaced(tree, old, new_nodes, moved: dict | None = None) -> list:
    """The tree with node `old` replaced by the list `new_nodes` (identity match).

    Ancestors of `old` are rebuilt; `moved` (when given) records id(ancestor) -> rebuilt."""
    out = []
    for n in tree:
        if n is old:
            out.extend(new_nodes)
        elif isinstance(n, Loop):
            body = replaced(n.body, old, new_nodes, moved)
            if all(a is b for a, b in zip(body, n.body)) and len(body) == len(n.body):
                out.append(n)
            else:
                new = dataclasses.replace(n, body=body)
                if moved is not None:
                    moved[id(n)] = new
                out.append(new)
        else:
            out.append(n)
    return out


def depth_of(tree, loop, depth=0):
    for n in tree:
        if n is loop:
            return depth
        if isinstance(n, Loop):
            d = depth_of(n.body, loop, depth + 1)
            if d is not None:
                return d
    return None


def parallel(an: Analysis, tree, loop) -> bool:
    return not an.carries(tree, loop, depth_of(tree, loop))


def _webs_split(an: Analysis, left, right) -> bool:
    """Whether some scalar web has statements on both sides."""
    lw = {w for s in left for (st, _), w in an.web_of.items() if st == s}
    rw = {w for s in right for (st, _), w in an.web_of.items() if st == s}
    return bool(lw & rw)


# -- distribution ----------------------------------------------------------------------------

def distribute(an: Analysis, tree: list, sink: bool = True) -> list:
    """Split every loop over its body wherever that is legal (inner loops first), so
    that each statement group can get the loop order and mapping that suits it; `sink`:
    after moving items no cut could separate to the end of their loop (_sink)."""
    def loops_postorder(nodes):
        for n in nodes:
            if isinstance(n, Loop):
                yield from loops_postorder(n.body)
                yield n
    moved: dict[int, Loop] = {}
    for loop in list(loops_postorder(tree)):
        while id(loop) in moved:                 # rebuilt when a loop inside it was split
            loop = moved[id(loop)]
        tree = _split(an, tree, loop, moved, sink)
    return tree


def _split(an, tree, loop: Loop, moved, sink=True) -> list:
    if depth_of(tree, loop) is None:
        return tree
    if sink:
        tree, loop = _sink(an, tree, loop, moved)
    parts, start = [], 0
    body = loop.body
    current = loop
    for cut in range(1, len(body)):
        left, right = body[start:cut], body[cut:]
        if _webs_split(an, _stmts(left), _stmts(right)):
            continue
        a = dataclasses.replace(loop, body=list(left))
        b = dataclasses.replace(loop, body=list(right))
        trial = replaced(tree, current, [a, b], moved)
        if an.legal(trial):
            parts.append(a)
            tree, current, start = trial, b, cut
    return tree


def _sink(an, tree, loop: Loop, moved) -> tuple[list, Loop]:
    """The loop with each item of its body that no cut could separate, because a scalar web
    has statements before and after it that it does not share, moved to the end of the body
    where the dependences allow: in symm, `C[k][j] += alpha * B[i][j] * A[i][k]` sits inside
    the `temp2` web of its (i, j) and updates rows that later iterations of i never touch, so
    it can run after the web and then in a nest of its own, ordered by (k, j).  Only where
    the loop can then be split there: elsewhere the order stays the reference's."""
    for item in list(loop.body[:-1]):
        pos = next(n for n, x in enumerate(loop.body) if x is item)
        before, mine, after = _stmts(loop.body[:pos]), _stmts([item]), _stmts(loop.body[pos + 1:])
        if _webs_split(an, mine, before + after) or not _webs_split(an, before, after):
            continue
        rest = [x for x in loop.body if x is not item]
        new = dataclasses.replace(loop, body=rest + [item])
        trial = replaced(tree, loop, [new], moved)
        split = [dataclasses.replace(loop, body=rest), dataclasses.replace(loop, body=[item])]
        if an.legal(trial) and an.legal(replaced(tree, loop, split)):    # only where it then splits off
            tree, loop = trial, new
    return tree, loop


# -- permutation -----------------------------------------------------------------------------

def band_of(loop: Loop) -> list[Loop]:
    band = [loop]
    while len(band[-1].body) == 1 and isinstance(band[-1].body[0], Loop):
        band.append(band[-1].body[0])
    return band


def _rebuild(order: list[Loop], inner: list) -> Loop:
    body = inner
    for l in reversed(order):
        body = [dataclasses.replace(l, body=body)]
    return body[0]


def _bound_names(loop: Loop) -> set[str]:
    return set(_WORD.findall(loop.lower + " " + loop.upper + " " + loop.init + " " + loop.cond))


def webs_ok(an: Analysis, tree) -> bool:
    """Privatized webs keep their private loops outermost among their statements' loops."""
    paths = {}

    def go(nodes, path):
        for n in nodes:
            if isinstance(n, Stmt):
                paths[n.stmt.name] = path
            else:
                go(n.body, path + [n.var])
    go(tree, [])
    for w in an.webs.values():
        for s in w.statements:
            if set(paths[s][:len(w.private)]) != set(w.private):
                return False
    return True


def permute(an: Analysis, tree: list) -> list:
    """Reorder each perfectly nested band so that parallel loops come first (they
    become grid dimensions); keep the original order where nothing is gained."""
    result = tree
    # Walk bands from the outside in; after a band is reordered its innermost body is visited.
    stack = [n for n in result if isinstance(n, Loop)]
    while stack:
        loop = stack.pop(0)
        if depth_of(result, loop) is None:
            continue
        result, new_loop = _permute_band(an, result, loop)
        inner = band_of(new_loop)[-1].body
        stack.extend(n for n in inner if isinstance(n, Loop))
    return result


#: The deepest band whose orders are searched: the search tries O(depth^2) orders, each an isl
#: legality check over every loop of the band; deeper bands keep the source's order.
MAX_PERMUTED_BAND = 8


def _permute_band(an, tree, loop):
    band = band_of(loop)
    if len(band) == 1 or len(band) > MAX_PERMUTED_BAND:
        return tree, loop
    inner = band[-1].body
    placed: list[Loop] = []
    remaining = list(band)
    current_tree, current = tree, loop
    while remaining:
        choice = None
        fallback = None
        for cand in remaining:
            order = placed + [cand] + [l for l in remaining if l is not cand]
            new = reordered(an, tree, loop, order, inner)
            if new is None:
                continue
            trial = replaced(current_tree, current, [new])
            if not (an.legal(trial) and webs_ok(an, trial)):
                continue
            if fallback is None:
                fallback = (cand, trial, new)
            node = _nth(new, len(placed))
            if parallel(an, trial, node):
                choice = (cand, trial, new)
                break
        if choice is None:
            choice = fallback
        if choice is None:                      # nothing legal to place here: keep the rest
            break
        cand, current_tree, current = choice
        placed.append(cand)
        remaining.remove(cand)
    return current_tree, current


def reordered(an, tree, band: Loop, order: list[Loop], inner: list) -> Loop | None:
    """The band's loops nested in `order` around `inner`; a loop whose bounds name a loop
    now inside it gets bounds from the statements' domains (isl: symm's `for i; for k < i`
    becomes `for k; for i > k`).  None when that does not give one affine bound per side."""
    later = lambda n: {l.var for l in order[n + 1:]}
    if not any(_bound_names(l) & later(n) for n, l in enumerate(order)):
        return _rebuild(order, inner)
    outer = _enclosing(tree, band)
    if outer is None or any(l.step != 1 or l.time or l.derived or l.geometric for l in outer + order):
        return None                      # (a geometric counter's header is not its model bounds)
    stmts = [s.stmt.name for s in _rebuild(order, inner).statements()]
    bounds = an.model.band_bounds(stmts, tuple(l.var for l in outer), tuple(l.var for l in order))
    if bounds is None:
        return None
    loops = [dataclasses.replace(l, lower=lo, upper=hi, init=f"{l.var} = {lo}", cond=f"{l.var} <= {hi}",
                                 next=f"{l.var}++") for l, (lo, hi) in zip(order, bounds)]
    return _rebuild(loops, inner)


def _enclosing(tree, target, path=()) -> list[Loop] | None:
    """The loops around `target` in `tree`, outermost first (None: not in it)."""
    for n in tree:
        if n is target:
            return list(path)
        if isinstance(n, Loop):
            found = _enclosing(n.body, target, (*path, n))
            if found is not None:
                return found
    return None


def _nth(loop: Loop, n: int) -> Loop:
    for _ in range(n):
        loop = loop.body[0]
    return loop


# -- fusion ----------------------------------------------------------------------------------

def grid_depth(an, tree, loop, limit=3) -> int:
    """How many perfectly nested parallel loops start at `loop`."""
    n = 0
    for l in band_of(loop)[:limit]:
        if not parallel(an, tree, l):
            break
        n += 1
    return n


def _same_header(a: Loop, b: Loop) -> bool:
    """Whether two loops run the same values: the same bounds, and geometric counters (whose model
    bounds hold values they never take) the same start and factor."""
    values = lambda g: g and (g.start, g.factor, g.grows)
    return (a.var, a.lower, a.upper, a.step, values(a.geometric)) == \
        (b.var, b.lower, b.upper, b.step, values(b.geometric))


_WORDS = re.compile(r"[A-Za-z_]\w*")


def fuse(an: Analysis, tree: list) -> list:
    """Fuse adjacent parallel nests with the same loop headers when the fused nest is
    legal and keeps at least the grid dimensions of both (fewer launches, data reuse
    in registers)."""
    return _fuse_in(an, tree, None)


def _fuse_in(an, tree, parent):
    nodes = tree if parent is None else parent.body
    i = 0
    while i + 1 < len(nodes):
        a, b = nodes[i], nodes[i + 1]
        if isinstance(a, Loop) and isinstance(b, Loop) and _same_header(a, b):
            da, db = grid_depth(an, tree, a), grid_depth(an, tree, b)
            if da and db and not (da == db == 1 and _crossing(a, b)):
                fused = dataclasses.replace(a, body=_fuse_bodies(a.body + b.body))
                trial = replaced(replaced(tree, b, []), a, [fused])
                if an.legal(trial) and webs_ok(an, trial) and \
                        grid_depth(an, trial, fused) >= max(da, db):
                    tree = trial
                    nodes = tree if parent is None else _find_parent_body(tree, fused, nodes)
                    continue
        i += 1
    # recurse into loops (identity may have changed: walk the current tree)
    for n in list(nodes):
        if isinstance(n, Loop):
            tree = _fuse_in(an, tree, n)
    return tree


def fused_pair(an: Analysis, tree: list, a: Loop, b: Loop) -> tuple[list, Loop] | None:
    """(the tree, the joined nest) with adjacent nests a and b of one header as one nest, b's
    body after a's (no inner loops merged); None where that breaks a dependence or a web's
    private loops (lower.row_joined decides whether the joined nest is worth it)."""
    if not _same_header(a, b):
        return None
    fused = dataclasses.replace(a, body=a.body + b.body)
    trial = replaced(replaced(tree, b, []), a, [fused])
    return (trial, fused) if an.legal(trial) and webs_ok(an, trial) else None


def _crossing(a: Loop, b: Loop) -> bool:
    """Whether two 1-d nests' loops inside a thread walk a matrix in crossing directions
    (mvt: `x1[i] += A[i][j] * y1[j]` along rows, `x2[i] += A[j][i] * y2[j]` down columns):
    fused, one loop would do both, and one of the two walks could not be coalesced."""
    da, db = _directions(a), _directions(b)
    return bool(da and db and da != db)


def _directions(nest: Loop) -> set[str]:
    """"row" / "column" for each matrix access of the statements in the loops inside `nest`
    whose subscripts use both `nest`'s variable and the inner loop's: which one is last."""
    out = set()
    for inner in (n for n in nest.body if isinstance(n, Loop)):
        for st in inner.statements():
            for acc in st.stmt.accesses:
                words = [set(_WORDS.findall(e)) for e in acc.index]
                if len(words) < 2 or not any(nest.var in w for w in words) or \
                        not any(inner.var in w for w in words):
                    continue
                last = words[-1]
                if inner.var in last and nest.var not in last:
                    out.add("row")
                elif nest.var in last and inner.var not in last:
                    out.add("column")
    return out


def _find_parent_body(tree, child, default):
    for n in tree:
        if isinstance(n, Loop):
            if any(c is child for c in n.body):
                return n.body
            r = _find_parent_body(n.body, child, None)
            if r is not None:
                return r
    return default


def _fuse_bodies(body: list) -> list:
    """Merge adjacent loops with equal headers inside a freshly fused body (greedy; the
    caller checks legality of the whole)."""
    out = []
    for n in body:
        if out and isinstance(n, Loop) and isinstance(out[-1], Loop) and _same_header(out[-1], n):
            out[-1] = dataclasses.replace(out[-1], body=_fuse_bodies(out[-1].body + n.body))
        else:
            out.append(n)
    return out


# -- wavefronts ------------------------------------------------------------------------------

WAVE = "wave"


def wavefront(an: Analysis, tree: list) -> list:
    """Skew a band of two carried loops (a, b) whose body is statements only into a
    host loop over the wave `c*a + b` and a parallel loop over `a` (b = wave - c*a),
    for the smallest c in 1..2 that is legal and makes `a` parallel (seidel-2d: c = 2).
    Both loops must step by +1 and b's bounds must not depend on a.  A band inside a parallel
    loop runs in one thread whatever its order: it is left as it is."""
    def candidates(nodes):
        for n in nodes:
            if isinstance(n, Loop) and not parallel(an, tree, n):
                yield from candidates(n.body)
                if len(n.body) == 1 and isinstance(n.body[0], Loop) and \
                        all(isinstance(x, Stmt) for x in n.body[0].body):
                    yield n
    for a in list(candidates(tree)):
        b = a.body[0]
        if a.step != 1 or b.step != 1 or a.var in _bound_names(b) or a.time or b.time:
            continue
        if WAVE in _bound_names(a) | _bound_names(b):
            continue
        if "," in a.lower + a.upper + b.lower + b.upper:     # a conjunction's min/max: no C text
            continue
        if parallel(an, tree, a) or parallel(an, tree, b):
            continue
        for c in (1, 2):
            inner = dataclasses.replace(
                a, body=list(b.body),
                derived=((b.var, f"{WAVE} - {c} * {a.var}" if c > 1 else f"{WAVE} - {a.var}",
                          f"{b.var} >= {b.lower} && {b.var} <= {b.upper}"),))
            lo = f"{c} * {parens(a.lower)} + {parens(b.lower)}" if c > 1 else f"{parens(a.lower)} + {parens(b.lower)}"
            hi = f"{c} * {parens(a.upper)} + {parens(b.upper)}" if c > 1 else f"{parens(a.upper)} + {parens(b.upper)}"
            wave = Loop(WAVE, lo, hi, 1, [inner], f"{WAVE} = {lo}", f"{WAVE} <= {hi}", f"{WAVE}++",
                        time=f"{c} * {a.var} + {b.var}" if c > 1 else f"{a.var} + {b.var}")
            trial = replaced(tree, a, [wave])
            if an.legal(trial) and webs_ok(an, trial) and parallel(an, trial, inner):
                tree = trial
                break
    return tree




def sink_inits(an: Analysis, tree: list) -> list:
    """Each run of top-level statements that set local scalars from no array (`sum = 0;`) moved
    down past the loops that touch none of its locals and no local of another item (maps over
    arrays, their temporaries their own), to just before the loop accumulating into one of its
    locals, where that is legal: the initial values then run beside their reduction loop (one
    launch, the reduction form), not alone in a one-thread launch before the maps between
    (`sum = 0; for (i) y[i] = ...; for (i) sum += y[i];`, or that loop distributed from one that
    also wrote y). A group of reductions stays together, and a scalar only read (a constant) stays.
    Inside a loop (a time loop's sums) the forms that take a row's or a step's sums do so already."""
    local = an.program.locals
    setting = lambda n: isinstance(n, Stmt) and n.stmt.writes() and \
        all(a.name in local and not a.index for a in n.stmt.accesses)
    at = 0
    while at < len(tree):
        end = at
        while end < len(tree) and setting(tree[end]):
            end += 1
        if end == at:
            at += 1
            continue
        sets = {w.name for n in tree[at:end] for w in n.stmt.writes()}
        use = end
        while use < len(tree) and isinstance(tree[use], Loop) and not sets & _names(tree[use]) \
                and not any(_names(tree[use]) & _names(n) & set(local) for n in tree if n is not tree[use]):
            use += 1
        trial = tree[:at] + tree[end:use] + tree[at:end] + tree[use:]
        accumulates = use < len(tree) and isinstance(tree[use], Loop) and \
            sets & {w.name for s in tree[use].statements() for w in s.stmt.writes()}
        if use > end and accumulates and an.legal(trial):
            tree = trial
        at = use
    return tree


def _names(node) -> set[str]:
    """The arrays and locals a tree item's statements access."""
    stmts = node.statements() if isinstance(node, Loop) else [node]
    return {a.name for s in stmts for a in s.stmt.accesses}
