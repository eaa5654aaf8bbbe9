"""Shared-memory staging of a register tile's operands (the gemm family's nests).

    plan(context, launch) -> {id(loop): Staged} | None

Takes a tiled launch; gives, per accumulator loop, the largest subtrees that read memory and
depend on the loop index and at most one grid index (gemm's row operand `alpha * A[i][k]`,
column operand `B[k][j]`), which the block loads into shared memory a tile of k at a time.
Exact: the same operations on the same operands, in the subtree's own type, each point's terms
in the reference's k order (float partials, `partial_type`, are the one exception). Refuses
(None) subscripts other than bare indices, a subtree reading both grid indices, tiles past the
shared memory. `mma_pairs` and `raw_read` say what tensor.py takes. docs/poly.md, "Staged tiles".
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

from pycparser import c_ast

from ...analysis import Loop
from ...analysis.model import base_and_subscripts, parse_expr
from ...ir.csyntax import array_name, cprint
from .ctext import WORD, array_refs, at, int_value, max_expr, min_expr, replace_refs

#: k values per shared tile, the first whose arrays fit (doubles: 32 x (36 + 132) x 8 bytes = 42 KiB;
#: the deeper tile was the faster on the tensor cores: reports/h200-polybench-large-5/)
DEPTHS = (32, 16)
SIZE = {"double": 8, "float": 4}
#: loop bounds whose extremes over a block's rows are at its first and last row: sums of
#: names and integers, each name times at most an integer (no min, max, division)
_SUMS = re.compile(r"[\w\s+*()-]*")
_RANK = {"char": 0, "short": 0, "int": 0, "long": 1, "float": 2, "double": 3}


@dataclass
class Operand:
    kind: str                  # "row" (y and k) or "col" (x and k)
    node: c_ast.Node           # the subtree, in the reference's names
    name: str                  # its shared array
    k_fastest: bool            # the last subscript holds k: consecutive threads load consecutive k
    dtype: str                 # its shared array's element type: the subtree's own (SIZE)


@dataclass
class Staged:
    dtype: str
    low: str                   # the loop's first k (C)
    end: str                   # one past its last k (C)
    node: c_ast.Node           # the statement with the accumulator in place and operands replaced
    operands: list[Operand] = field(default_factory=list)
    depth: int = 0             # k values per shared tile (DEPTHS, or the stage_depth option)
    moving: tuple | None = None   # (kind, grid index, first k, end, the index's own (lower, upper)
                                  # or None) of a loop whose bounds move with that kind's grid
                                  # index: C text (`plan`)
    ring: tuple | None = None     # (tiles, depth) of its ring copied ahead asynchronously (tensor.ring)
    raws: dict | None = None      # ... operand -> the element it scales (raw_read)
    partial: str | None = None    # the type each tile's terms are first summed in (partial_type)


def plan(p, launch) -> dict | None:
    """Staging for every accumulator loop of a tiled 2-d launch, or None (see the module doc)."""
    y, x = launch.rows_cols()
    out, count = {}, 0
    for n in launch.body:
        if not isinstance(n, Loop):
            continue
        parts = p.accumulator_parts(n, scalars=True)
        m = re.fullmatch(rf"\s*{n.var}\s*(<=|<)\s*(.+?)\s*", n.cond)
        if parts is None or parts[0] not in SIZE or n.step != 1 or not m:
            return None
        dtype, acc = parts[0], parts[1]
        node = copy.deepcopy(n.body[0].stmt.node)
        node = replace_refs(node, cprint(node.lvalue), acc)
        grid, allowed = {y.var, x.var}, {y.var, x.var, n.var}
        types = {s.name: s.dtype for s in p.k.scalars} | {a.name: a.dtype for a in p.k.arrays}
        s = Staged(dtype, n.init.split("=", 1)[1].strip(),
                   m[2] if m[1] == "<" else f"({m[2]}) + 1", node)
        moves = grid & set(WORD.findall(f"{s.low} {s.end}"))
        if moves:
            if not p.opt.tiles.staging.hulls or len(moves) > 1 or not _SUMS.fullmatch(f"{s.low} {s.end}"):
                return None
            g = y if moves == {y.var} else x
            s.moving = ("row" if g is y else "col", g.var, s.low, s.end,
                        (g.lower, g.upper) if _SUMS.fullmatch(f"{g.lower} {g.upper}") else None)
            s.low, s.end = "poly_lo", "poly_hi"      # the block's hull (cuda.Printer.staged_loop)
        bad = []

        def visit(t):
            nonlocal count
            v = _ids(t)
            if _reads(t) and acc not in v and not (grid <= v) \
                    and _type(t, types) in SIZE:
                if not _safe(t, allowed):
                    bad.append(t)
                    return t
                kind = "col" if x.var in v else "row"
                last = t
                while not isinstance(last, c_ast.ArrayRef):
                    last = next(c for _, c in last.children() if _reads(c))
                s.operands.append(Operand(kind, t, f"poly_stage{count}", n.var in _ids(last.subscript), _type(t, types)))
                count += 1
                return c_ast.ID(s.operands[-1].name)
            for attr in [a for a in t.__slots__ if a not in ("coord", "__weakref__")]:
                kid = getattr(t, attr, None)
                if isinstance(kid, c_ast.Node) and not (isinstance(t, c_ast.ArrayRef) and attr == "name"):
                    setattr(t, attr, visit(kid))
            return t
        node.rvalue = visit(node.rvalue)
        if bad or not s.operands or _reads(node.rvalue):
            return None
        kinds = {op.name: op.kind for op in s.operands}
        if s.moving and not all(any(isinstance(f, c_ast.ID) and kinds.get(f.name) == s.moving[0] for f in t)
                                for t in _products(s) or [[]]):
            return None            # a term that the moving side's zeroed operand would not zero
        if p.opt.tiles.staging.float_partials:
            s.partial = partial_type(p, launch, s, types)
        out[id(n)] = s
    for d in (p.opt.tiles.staging.depth,) if p.opt.tiles.staging.depth else DEPTHS:
        if sum(d * max(pitch(span(launch, op), m) for m in (False, True))
               * SIZE[op.dtype] for s in out.values() for op in s.operands) <= p.target.shared_static:
            for s in out.values():
                s.depth = d
            return out or None
    return None                        # more than a block's static shared memory: not staged


def in_extents(p, ref, here: dict) -> list[str]:
    """C conditions that every subscript of `ref` (its names as in `here`) lies within its
    array's extent."""
    out = []
    for sub, ext in zip(base_and_subscripts(ref)[1], p.r.shapes.get(array_name(ref), ())):
        sub = cprint(p.r.node(sub, here))
        out += [f"{sub} >= 0", f"{sub} < {ext}"]
    return out


def hull(p, launch, s: Staged, box) -> list[str]:
    """C lines declaring `poly_lo` and `poly_hi`, the loop values some point of the block
    takes, for a loop whose bounds move with a grid index (`s.moving`): affine bounds take
    their extremes over the block's rows (or columns) at its first and last one in the
    launch's box.  Each point of the block then adds the products of the whole hull, those
    outside its own bounds with its side's operand staged as 0 (`mask`)."""
    kind, g, low, end, _ = s.moving
    lows, highs = dict(zip((l.var for l in launch.grid), box))[g]
    n = span(launch, next(op for op in s.operands if op.kind == kind))
    first, last = [f"{g}_base", min_expr(lows)], [f"{g}_base + {n - 1}", max_expr(highs)]
    loop = next(l for l in launch.grid if l.var == g)
    if _SUMS.fullmatch(f"{loop.lower} {loop.upper}"):       # the box may be wider than the loop
        first, last = [*first, loop.lower], [*last, loop.upper]
    return [f"const int poly_g0 = {max_expr(first)}, poly_g1 = {min_expr(last)};   /* the block's first and last {g} */",
            f"const int poly_lo = poly_min({at(low, g, 'poly_g0')}, {at(low, g, 'poly_g1')}), "
            f"poly_hi = poly_max({at(end, g, 'poly_g0')}, {at(end, g, 'poly_g1')});   /* its points' {kind} bounds' hull */"]


def heavier(launch) -> set[str]:
    """Grid indices along which a loop with moving bounds gets longer (symm's k < i grows with
    i): the GPU starts blocks in order of their index, so the launch numbers those blocks from
    the far end, and the longest start first instead of making the last wave's tail."""
    out = set()
    for s in (launch.staged or {}).values():
        if s.moving:
            _, g, low, end, _ = s.moving
            length = parse_expr(f"({end}) - ({low})")       # the loop's length, the other names at 1000
            try:
                if int_value(length, {g: 1}, 1000) > int_value(length, {g: 0}, 1000):   # affine (plan's
                    out.add(g)                                                      # _SUMS): its slope
            except ValueError:      # not a sum of integers and names: keep the order
                pass
    return out


def mask(p, s: Staged, op: Operand, here: dict) -> str:
    """` && ...`: for a loop whose bounds move (`s.moving`), the condition under which `op`'s
    staged element (its grid index and the loop's named as in `here`) is one the reference
    reads: on the moving side, the point's own range of the loop and its grid loop's bounds;
    on both, every subscript within its array's extent (the hull may pass the reference's
    range of the other side).  '' for other loops."""
    if not s.moving:
        return ""
    kind, g, low, end, own = s.moving
    out = []
    if op.kind == kind:
        v = here[g] if WORD.fullmatch(here[g]) else f"({here[g]})"
        out = [f"poly_k >= {at(low, g, here[g])}", f"poly_k < {at(end, g, here[g])}",
               *([f"{v} >= {own[0]} && {v} <= {own[1]}"] if own else [])]
    for ref in array_refs(op.node):
        out += in_extents(p, ref, here)
    return "".join(f" && {c}" for c in dict.fromkeys(out))


def span(launch, op: Operand) -> int:
    """The grid values of the block's points an operand's shared tile holds, per loop value."""
    (bx, by), (rows, cols) = launch.block[:2], launch.tile
    return by * rows if op.kind == "row" else bx * cols


def slot(op: Operand, depth: int, n: int) -> tuple[str, str]:
    """C text of element `poly_e`'s loop and grid offsets in a tile of `depth` x `n` values:
    consecutive threads on the operand's contiguous index (k when `k_fastest`)."""
    if op.k_fastest:
        return f"poly_e % {depth}", f"poly_e / {depth}"
    return f"poly_e / {n}", f"poly_e % {n}"


def pitch(n: int, mma: bool) -> int:
    """The length of a shared array's row of n values: one more than n, so that threads that
    store down a column hit distinct banks; for tensor-core fragment loads (a half-warp reads
    4 rows of the tile, 4 values from each) the first from n that is 4 or 12 modulo 16 doubles,
    so that they do too (rows of 8 k: 12, not 20)."""
    return n + min((4 - n) % 16, (12 - n) % 16) if mma else n + 1


def mma_pairs(s: Staged) -> list[tuple[str, str]] | None:
    """(row operand, column operand) of each product `s`'s statement adds to its accumulator
    (see the module doc), or None when the statement is anything else or not in double."""
    if s.dtype != "double" or any(op.dtype != "double" for op in s.operands):
        return None
    kinds = {op.name: op.kind for op in s.operands}
    pairs = []
    for factors in _products(s) or []:
        names = sorted((kinds.get(f.name, ""), f.name) for f in factors if isinstance(f, c_ast.ID))
        if len(factors) != 2 or [k for k, _ in names] != ["col", "row"]:
            return None
        pairs.append((names[1][1], names[0][1]))
    return pairs or None


def partial_type(p, launch, s: Staged, types: dict) -> str | None:
    """'float' where a staged loop adds only float terms to a double accumulator (specs' float
    sums, `double acc; acc += S0 * S1` over float operands) and the launch stores only float
    arrays: each tile's terms then add up in float, which the accumulator adds once per tile (one
    conversion to double per tile, not per term).  The long sum stays in double; a tile's sum of
    `depth` float terms is within the float outputs' bound (docs/verification.md), which a
    double output's would not be.  None elsewhere (the reference's own operations)."""
    node = s.node
    if s.dtype != "double" or _products(s) is None:
        return None
    typed = types | {op.name: op.dtype for op in s.operands}
    terms = [t for t in _terms(node.rvalue) if not (isinstance(t, c_ast.ID) and t.name == node.lvalue.name)]
    stored = {a.name for st in launch.statements() for a in p.an.program.statement(st).writes() if a.index}
    if all(_type(t, typed) == "float" for t in terms) and stored and all(types.get(a) == "float" for a in stored):
        return "float"
    return None


def _products(s: Staged) -> list[list] | None:
    """The factors of each term `s`'s statement adds to its accumulator (`acc += S0 * S1 +
    S2`: [[S0, S1], [S2]]); None when the statement is not such a sum."""
    node = s.node
    if not isinstance(node.lvalue, c_ast.ID):
        return None
    terms = _terms(node.rvalue)
    if node.op == "=":
        own = [t for t in terms if isinstance(t, c_ast.ID) and t.name == node.lvalue.name]
        if len(own) != 1:
            return None
        terms.remove(own[0])
    elif node.op != "+=":
        return None
    factors = lambda t: factors(t.left) + factors(t.right) if isinstance(t, c_ast.BinaryOp) and t.op == "*" else [t]
    return [factors(t) for t in terms] or None


def raw_read(op: Operand, allowed: set[str], types: dict) -> c_ast.ArrayRef | None:
    """The one array element in double that `op` scales (`A[i][k]`, `alpha * A[i][k]`: the
    element times factors that read no memory and no loop or grid index), which an
    asynchronous copy can stage as it is; None for any other operand."""
    t = op.node
    while isinstance(t, c_ast.BinaryOp) and t.op == "*":
        inner = [c for c in (t.left, t.right) if _reads(c)]
        rest = [c for c in (t.left, t.right) if not _reads(c)]
        if len(inner) != 1 or any(_ids(c) & allowed for c in rest):
            return None
        t = inner[0]
    return t if isinstance(t, c_ast.ArrayRef) and _type(t, types) == "double" else None


def _terms(t) -> list:
    """The addends of a sum (a tree of binary +)."""
    if isinstance(t, c_ast.BinaryOp) and t.op == "+":
        return _terms(t.left) + _terms(t.right)
    return [t]


def _ids(t) -> set[str]:
    """Identifiers `t` reads as values (not the names of the arrays it indexes)."""
    if isinstance(t, c_ast.ID):
        return {t.name}
    if isinstance(t, c_ast.ArrayRef):
        return _ids(t.subscript) | (_ids(t.name) if isinstance(t.name, c_ast.ArrayRef) else set())
    return {v for _, c in t.children() for v in _ids(c)}


def _reads(t) -> bool:
    return isinstance(t, c_ast.ArrayRef) or any(_reads(c) for _, c in t.children())


def _safe(t, allowed: set[str]) -> bool:
    """Pure arithmetic whose subscripts are bare indices or free of them."""
    if isinstance(t, (c_ast.FuncCall, c_ast.Assignment)) or \
            isinstance(t, c_ast.UnaryOp) and t.op in ("++", "--", "p++", "p--", "&", "*"):
        return False
    if isinstance(t, c_ast.ArrayRef):
        sub = t.subscript
        if not (isinstance(sub, c_ast.ID) and sub.name in allowed or not (_ids(sub) & allowed)):
            return False
        return _safe(t.name, allowed) if isinstance(t.name, c_ast.ArrayRef) else _safe(sub, allowed)
    return all(_safe(c, allowed) for _, c in t.children())


def _type(t, types: dict) -> str | None:
    """C's type of an arithmetic expression over these scalars and arrays (None: unknown)."""
    if isinstance(t, c_ast.Constant):
        if t.type in ("int", "char"):
            return "int"
        return "float" if t.value.lower().endswith("f") else "double"
    if isinstance(t, c_ast.ID):
        return types.get(t.name, "int")
    if isinstance(t, c_ast.ArrayRef):
        base = t
        while isinstance(base, c_ast.ArrayRef):
            base = base.name
        return types.get(base.name) if isinstance(base, c_ast.ID) else None
    if isinstance(t, c_ast.UnaryOp) and t.op in ("-", "+"):
        return _type(t.expr, types)
    if isinstance(t, c_ast.Cast):
        return cprint(t.to_type).strip() or None
    if isinstance(t, c_ast.BinaryOp) and t.op in "+-*/":
        a, b = _type(t.left, types), _type(t.right, types)
        if a not in _RANK or b not in _RANK:
            return None
        return max(a, b, key=lambda n: _RANK[n]) if max(_RANK[a], _RANK[b]) >= 2 else "int"
    return None
