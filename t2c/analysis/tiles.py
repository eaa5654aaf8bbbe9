"""Hand-tiled (strip-mined) loop nests, as the untiled nest the model reads.

    untile(fn, lines) -> [Tiling]   (rewrites fn in place, before the model)

The class: loops strip-mined by hand for a CPU cache. A tile loop `for (ii = L; ii < U; ii += T)`
(T a literal above 1) and, inside it, its point loop `for (i = ii; i < MIN(ii + T, U); i++)` (the
frontend's bounds.py has made the minimum, whether a macro, a `?:` or a conjunction, `i < ii + T
&& i < U`, either order; `i < ii + T` alone where L and U are literals T divides the span of).
Tile and point loops form one perfect chain, each loop's body exactly the next loop, until every
tile loop met its point loop (`ii, jj, i, j` of a tiled transpose, `ii, jj, kk, i, j, k` of a tiled
matrix product, `ii, i, jj, j` too), a point loop's body maybe declarations first (`double a =
A[i][k];` that read nothing the nest writes and call nothing: the same value in every tile); what
lies inside the last point loop is anything without a break, return or goto that writes no point
variable. A tile variable is named nowhere but in its
header and its point loop's (in the chain or after it), and L, U are written nowhere in the chain.

The rewrite drops the tile loops and gives each point loop the full range `for (i = L; i < U; i++)`,
the point loops in their order: the same instances in another order. So it is only half the
decision: `untiling.build_program` keeps it where the tiled order respects every dependence of
the untiled nest (exact through isl), and otherwise models the nest as written, saying why in
`Program.notes`. The host reference stays the user's C.
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ..ir.csyntax import conjuncts, cprint, is_name
from ..ir.csyntax import walk as _walk
from .scalars import constant_step, written_names
from .whiles import named_outside


@dataclass(frozen=True)
class Tiling:
    """One untiled chain: its loops' variables as written (`ii, jj, i, j`), its strip-mined pairs
    (tile variable, point variable, T) in tile order, its point loops (their For nodes, rewritten,
    outermost first) and the line of its outermost tile loop."""
    order: tuple[str, ...]
    pairs: tuple[tuple[str, str, int], ...]
    points: tuple[c_ast.For, ...]
    line: int


def untile(fn: c_ast.FuncDef, lines=None) -> list[Tiling]:
    """Module docstring; the chains rewritten, outer first: those whose outermost tile loop is on
    a line in `lines` (None: all)."""
    found: list[Tiling] = []
    _visit(fn, fn.body, found, lines)
    gone = {t for f in found for t, _, _ in f.pairs}
    for t in gone:                      # `int ii;` declared apart, now named nowhere
        if not any(isinstance(n, c_ast.ID) and n.name == t for n in _walk(fn.body)):
            _drop_decls(fn.body, t)
    return found


@dataclass
class _Tile:
    var: str
    start: c_ast.Node
    end: c_ast.Node
    size: int
    loop: c_ast.For
    point: c_ast.For | None = None
    prefix: tuple = ()               # declarations in the point loop's body before the chain's next loop


def _visit(fn, node, found, lines) -> None:
    for attr in ("block_items", "stmt", "iftrue", "iffalse"):
        child = getattr(node, attr, None)
        items = child if isinstance(child, list) else [child] if child is not None else []
        for k, item in enumerate(items):
            wanted = isinstance(item, c_ast.For) and (lines is None or item.coord.line in lines)
            chain = _chain(fn, item) if wanted else None
            if chain is not None:
                item = _rewrite(chain, found)
                if isinstance(child, list):
                    child[k] = item
                else:
                    setattr(node, attr, item)
            if isinstance(item, c_ast.Node):
                _visit(fn, item, found, lines)


def _chain(fn, f: c_ast.For) -> list | None:
    """The chain's loops as `_Tile`s and point For nodes, outermost first, where f heads one."""
    tiles: dict[str, _Tile] = {}
    chain, node, declared = [], f, []
    while True:
        if (t := _tile(node)) is not None and t.var not in tiles:
            tiles[t.var] = t
            chain.append(t)
        elif (t := _point_of(node, tiles)) is not None:
            t.point = node
            chain.append(node)
        else:
            return None
        if all(t.point is not None for t in tiles.values()):
            break
        inside, prefix = _loop_after(node.stmt)
        if inside is None or prefix and not isinstance(chain[-1], c_ast.For):
            return None                            # declarations only before a point loop's next loop
        if prefix:
            t.prefix = tuple(prefix)
            declared += prefix
        node = inside
    inner = chain[-1].stmt
    if inner is None or any(isinstance(n, (c_ast.Break, c_ast.Return, c_ast.Goto, c_ast.Label))
                            for n in _walk(inner)) \
            or {_var(x.init) for x in chain if isinstance(x, c_ast.For)} & written_names([inner]):
        return None
    loops = {x.var if isinstance(x, _Tile) else _var(x.init) for x in chain}
    if declared and (_names(*declared) & written_names([f]) - {d.name for d in declared} - loops
                     or any(isinstance(n, c_ast.FuncCall) for d in declared for n in _walk(d))):
        return None                                # a declaration whose value the nest may change
    for t in tiles.values():
        allowed = {id(x) for x in _walk(t.loop.init)} | {id(x) for x in _walk(t.loop.cond)} | \
            {id(x) for x in _walk(t.loop.next)} | {id(x) for x in _walk(t.point.init)} | \
            {id(x) for x in _walk(t.point.cond)}
        if any(isinstance(n, c_ast.ID) and n.name == t.var and id(n) not in allowed for n in _walk(f)) \
                or named_outside(fn.body, (f,), t.var) \
                or _names(t.start, t.end) & written_names([t.loop.stmt]):
            return None
    return chain


def _rewrite(chain: list, found: list) -> c_ast.For:
    """The point loops of `chain` over their full ranges, nested in their order."""
    tiles = [x for x in chain if isinstance(x, _Tile)]
    points = [x for x in chain if isinstance(x, c_ast.For)]
    of = {id(t.point): t for t in tiles}
    for p, nxt in zip(points, points[1:] + [None]):
        t, var = of[id(p)], _var(p.init)
        start = copy.deepcopy(t.start)
        if isinstance(p.init, c_ast.Assignment):
            p.init.rvalue = start
        else:
            p.init.decls[0].init = start
        p.cond = c_ast.BinaryOp("<", c_ast.ID(var, p.cond.coord), copy.deepcopy(t.end), p.cond.coord)
        if nxt is not None:
            p.stmt = c_ast.Compound([*t.prefix, nxt], p.stmt.coord) if t.prefix else nxt
    order = tuple(x.var if isinstance(x, _Tile) else _var(x.init) for x in chain)
    found.append(Tiling(order, tuple((t.var, _var(t.point.init), t.size) for t in tiles), tuple(points),
                        chain[0].loop.coord.line))
    return points[0]


def _tile(f) -> _Tile | None:
    """`for (ii = L; ii < U; ii += T)`, T a literal above 1."""
    if not isinstance(f, c_ast.For) or f.stmt is None or (var := _var(f.init)) is None:
        return None
    step = constant_step(f.next, var) if f.next is not None else None
    c = f.cond
    if step is None or step < 2 or not (isinstance(c, c_ast.BinaryOp) and c.op == "<" and is_name(c.left, var)):
        return None
    return _Tile(var, _start(f.init), c.right, step, f)


def _point_of(f, tiles: dict[str, _Tile]) -> _Tile | None:
    """The tile of `for (i = ii; i < ii + T && i < U; i++)` among `tiles` (module docstring)."""
    if not isinstance(f, c_ast.For) or (var := _var(f.init)) is None or f.next is None \
            or constant_step(f.next, var) != 1 or not isinstance(start := _start(f.init), c_ast.ID):
        return None
    t = tiles.get(start.name)
    if t is None or t.point is not None or var in tiles:
        return None
    parts = conjuncts(f.cond)
    if not all(isinstance(c, c_ast.BinaryOp) and c.op == "<" and is_name(c.left, var) for c in parts):
        return None
    ends = [_ends_tile(c.right, t) for c in parts]
    rest = [cprint(c.right) for c, e in zip(parts, ends) if not e]
    if ends.count(True) != 1 or rest not in ([cprint(t.end)], []):
        return None
    return t if rest or _divides(t) else None


def _divides(t: _Tile) -> bool:
    """Whether the last tile is whole: L and U literals, T dividing U - L."""
    lo, hi = (int(x.value) if isinstance(x, c_ast.Constant) and x.value.isdigit() else None
              for x in (t.start, t.end))
    return lo is not None and hi is not None and (hi - lo) % t.size == 0


def _ends_tile(node, t: _Tile) -> bool:
    """Whether node is `ii + T` (or `T + ii`) of tile t."""
    if not (isinstance(node, c_ast.BinaryOp) and node.op == "+"):
        return False
    pair = (node.left, node.right)
    return any(is_name(a, t.var) and isinstance(b, c_ast.Constant) and b.value == str(t.size)
               for a, b in (pair, pair[::-1]))


def _loop_after(stmt) -> tuple[c_ast.For | None, list]:
    """The loop a body is, after declarations with initializers (`double a = A[i][k];` hoisted
    out of the next loop): (that loop, the declarations); (None, []) for any other body."""
    items = stmt.block_items or [] if isinstance(stmt, c_ast.Compound) else [stmt]
    *prefix, last = items or [None]
    if not isinstance(last, c_ast.For) or not all(isinstance(d, c_ast.Decl) and d.init is not None
                                                   and not isinstance(d.type, c_ast.ArrayDecl) for d in prefix):
        return None, []
    return last, prefix


def _var(init) -> str | None:
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].name
    return None


def _start(init):
    return init.rvalue if isinstance(init, c_ast.Assignment) else init.decls[0].init


def _drop_decls(node, var: str) -> None:
    for n in _walk(node):
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = [d for d in n.block_items
                             if not (isinstance(d, c_ast.Decl) and d.name == var and d.init is None)]


def _names(*nodes) -> set[str]:
    return {n.name for x in nodes for n in _walk(x) if isinstance(n, c_ast.ID)}




