"""Loop bounds written as a minimum (a maximum), as the conjunction they are; and `!=` tests.

    split_min_bounds(body) -> None      (rewrites `body` in place)
    unequal_bounds(body) -> None        (likewise)
    offset_bounds(body) -> None         (likewise)
    whole_tiles(fn, ints) -> [condition]   (likewise; the conditions it assumes)
    whole_steps(fn, ints) -> [condition]   (likewise)

The class: a for loop whose condition compares its variable with a minimum spelled as the
conditional expression a `MIN` macro gives, `v < ((a) < (b) ? (a) : (b))` (any of `<`, `<=` in
the test, either operand order: `a > b ? b : a`), as hand-tiled loops bound their last tile
(`for (i = ii; i < MIN(ii + T, n); i++)`); descending, `v > MAX(a, b)`. Each such comparison
becomes `v < a && v < b`, nested minima in turn: the same loop, since v < min(a, b) exactly when
v < a and v < b, and a, b change nothing (no call, assignment or increment: they are evaluated
as often as the test is, where the reference evaluated one of them). The model reads a
conjunction as the loop's bounds (docs/poly.md) and the extents its sizes-only bound
(extents.loop_range). Anything else is left as written.

`unequal_bounds`: a for loop that steps its variable by one and tests it with `!=` (`for (i = 0;
i != n; ++i)`, as iterator-style code writes it) tests `i < n` (`i > n` stepping down) instead,
when the body assigns neither the variable nor a name of the bound: from where the loop starts
to its bound the two tests agree at every step, and past it the `!=` loop would wrap around,
which no kernel means.

`offset_bounds`: a for loop tested with its variable plus or minus an offset, `i + k <= n` (a
window of k that must fit, as convolutions and sliding sums write it), `i + 1 < n`, `i - 1 < m`,
tests `i <= n - k` (`i < n - 1`, `i < m + 1`): over the integers the same test, where the offset
names nothing the body assigns and no name of the test is unsigned (`n - k` would wrap); the
model and the extents read a bound on the variable alone.
"""
from __future__ import annotations

import copy
import itertools
import re

from pycparser import c_ast

from ...ir.csyntax import assigned, cprint, is_name, names, walk

_SMALLER = {"<": True, "<=": True, ">": False, ">=": False}   # test op -> `a OP b ? a : b` is min


def split_min_bounds(body: c_ast.Node) -> None:
    for n in walk(body):
        if isinstance(n, c_ast.For) and n.cond is not None:
            n.cond = _split(n.cond)


def _split(cond):
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
        return c_ast.BinaryOp("&&", _split(cond.left), _split(cond.right), cond.coord)
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _SMALLER and isinstance(cond.left, c_ast.ID)):
        return cond
    pair = _extreme(cond.right, minimum=_SMALLER[cond.op])
    if pair is None:
        return cond
    a, b = (_split(c_ast.BinaryOp(cond.op, cond.left, x, cond.coord)) for x in pair)
    return c_ast.BinaryOp("&&", a, b, cond.coord)


def _extreme(node, minimum: bool):
    """(a, b) of `a < b ? a : b` (the minimum; with `minimum` False the maximum), else None."""
    if not isinstance(node, c_ast.TernaryOp) or not isinstance(node.cond, c_ast.BinaryOp) \
            or node.cond.op not in _SMALLER or not _pure(node):
        return None
    a, b = node.cond.left, node.cond.right
    same = lambda x, y: cprint(x) == cprint(y)
    first_is_smaller = _SMALLER[node.cond.op]        # a < b: a is the smaller when the test holds
    if same(node.iftrue, a) and same(node.iffalse, b):
        picks_smaller = first_is_smaller
    elif same(node.iftrue, b) and same(node.iffalse, a):
        picks_smaller = not first_is_smaller
    else:
        return None
    return (a, b) if picks_smaller == minimum else None


def _pure(node) -> bool:
    return not any(isinstance(n, (c_ast.FuncCall, c_ast.Assignment)) or isinstance(n, c_ast.UnaryOp)
                   and n.op in ("++", "--", "p++", "p--") for n in walk(node))


def unequal_bounds(body: c_ast.Node) -> None:
    for n in walk(body):
        if isinstance(n, c_ast.For) and isinstance(n.cond, c_ast.BinaryOp) and n.cond.op == "!=":
            var, bound = (n.cond.left, n.cond.right) if isinstance(n.cond.left, c_ast.ID) else \
                (n.cond.right, n.cond.left)
            op = {1: "<", -1: ">"}.get(step_of(n.next, var.name)) if isinstance(var, c_ast.ID) else None
            written = assigned(n.stmt) if op else set()
            if op and var.name not in written and _pure(bound) and not written & {
                    x.name for x in walk(bound) if isinstance(x, c_ast.ID)}:
                n.cond = c_ast.BinaryOp(op, var, bound, n.cond.coord)


def step_of(step, name: str) -> int | None:
    """The constant a for loop's step adds to `name` (`i++`: 1, `--i`: -1, `i += 4`: 4), else None."""
    if isinstance(step, c_ast.UnaryOp) and step.op in ("++", "p++", "--", "p--") and isinstance(step.expr, c_ast.ID) \
            and step.expr.name == name:
        return 1 if "+" in step.op else -1
    if isinstance(step, c_ast.Assignment) and step.op in ("+=", "-=") and isinstance(step.lvalue, c_ast.ID) \
            and step.lvalue.name == name and isinstance(step.rvalue, c_ast.Constant) and step.rvalue.type == "int":
        k = int(step.rvalue.value.rstrip("uUlL"), 0)
        return k if step.op == "+=" else -k
    return None


def offset_bounds(body: c_ast.Node, unsigned=frozenset()) -> None:
    """`unsigned`: the names declared unsigned (where `n - k` wraps, the test is no longer the same)."""
    for n in walk(body):
        if isinstance(n, c_ast.For) and n.cond is not None and (var := _loop_var(n.init)) \
                and not names(n.cond) & set(unsigned):
            n.cond = _moved(n.cond, var, assigned(n.stmt))


def _moved(cond, var: str, written: set):
    """`var + e OP b` as `var OP b - e` (and `e + var`, `var - e`); conjunctions term by term."""
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
        return c_ast.BinaryOp("&&", _moved(cond.left, var, written), _moved(cond.right, var, written), cond.coord)
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _SMALLER and isinstance(cond.left, c_ast.BinaryOp)
            and cond.left.op in ("+", "-")):
        return cond
    left = cond.left
    if is_name(left.left, var):
        offset, undo = left.right, "-" if left.op == "+" else "+"
    elif left.op == "+" and is_name(left.right, var):
        offset, undo = left.left, "-"
    else:
        return cond
    if var in names(offset) or names(offset) & written or not _pure(offset) or not _pure(cond.right):
        return cond
    return c_ast.BinaryOp(cond.op, c_ast.ID(var), c_ast.BinaryOp(undo, cond.right, offset), cond.coord)


def whole_tiles(fn: c_ast.FuncDef, ints: set[str]) -> list:
    """Point loops `for (i = ii; i < ii + T; i++)` of a tile loop `for (ii = L; ii < U; ii += T)`
    with no guard for a last, partial tile: such code assumes the tiles fill [L, U). Where L and U
    read only the integer parameters `ints` that nothing assigns, each such test becomes `i < ii + T
    && i < U`, the same test wherever T divides U - L, and that condition, `(U - L) % T == 0`, is
    returned for the kernel's constraints (the verifier draws sizes that meet it). A bound that
    stops before a partial tile (`ii < n - (T - 1)`, a remainder loop after) assumes nothing."""
    fixed = ints - assigned(fn.body)
    out = []
    for tile in walk(fn.body):
        if (stepped := _stepped(tile, fixed)) is None:
            continue
        var, size, start, c = stepped
        taken = False
        for point in walk(tile.stmt):
            if not isinstance(point, c_ast.For) or not (i := _loop_var(point.init)) or step_of(point.next, i) != 1:
                continue
            first = point.init.rvalue if isinstance(point.init, c_ast.Assignment) else point.init.decls[0].init
            t = point.cond
            if is_name(first, var) and isinstance(t, c_ast.BinaryOp) and t.op == "<" and is_name(t.left, i) \
                    and isinstance(t.right, c_ast.BinaryOp) and t.right.op == "+" and any(
                        is_name(a, var) and isinstance(b, c_ast.Constant) and b.value == str(size)
                        for a, b in ((t.right.left, t.right.right), (t.right.right, t.right.left))):
                point.cond = c_ast.BinaryOp("&&", t, c_ast.BinaryOp("<", c_ast.ID(i), copy.deepcopy(c.right)), t.coord)
                taken = True
        if taken:
            out += _whole(start, c.right, size)
    return out


def whole_steps(fn: c_ast.FuncDef, ints: set[str]) -> list:
    """A loop `for (i = L; i < U; i += S)` whose body indexes arrays at i + 1 .. i + (S - 1) and no
    further (unrolled or register-blocked by hand, no remainder loop): such code is right only
    where S divides U - L (else its last step reaches past U). Where L and U read only the integer
    parameters `ints` that nothing assigns, the test becomes `i < U - (S - 1)`, the same steps
    there, and `(U - L) % S == 0` is returned for the kernel's constraints; so the extents are U,
    not U + S - 1. A step whose offsets stop short of S - 1 assumes nothing (`x[i]` of even i),
    nor one whose body tests the variable (`i + 1 < n ? i + 1 : i`: the code minds the edge)."""
    fixed = ints - assigned(fn.body)
    out = []
    for loop in walk(fn.body):
        if (stepped := _stepped(loop, fixed)) is None or stepped[0] in assigned(loop.stmt):
            continue
        var, size, start, c = stepped
        offsets = {_offset(x, var) for ref in walk(loop.stmt) if isinstance(ref, c_ast.ArrayRef)
                   for x in walk(ref.subscript)} - {None}
        guarded = any(isinstance(x, (c_ast.If, c_ast.TernaryOp)) and var in names(x.cond) for x in walk(loop.stmt))
        if not offsets or max(offsets) != size - 1 or guarded:
            continue                               # (a test on the variable: the code minds the edge)
        out += _whole(start, c.right, size)
        loop.cond = c_ast.BinaryOp("<", c.left, c_ast.BinaryOp("-", copy.deepcopy(c.right),
                                                                c_ast.Constant("int", str(size - 1))), c.coord)
    return out


def _stepped(loop, fixed: set[str]):
    """(variable, step S >= 2, start L, test `v < U`) of `for (v = L; v < U; v += S)` whose L and U
    read only the names `fixed` and no call, and whose U does not already stop before a partial
    step (`_whole_by_bound`); None for any other loop."""
    if not isinstance(loop, c_ast.For) or not (var := _loop_var(loop.init)) or loop.stmt is None:
        return None
    size, c = step_of(loop.next, var), loop.cond
    if size is None or size < 2 or not (isinstance(c, c_ast.BinaryOp) and c.op == "<" and is_name(c.left, var)):
        return None
    start = loop.init.rvalue if isinstance(loop.init, c_ast.Assignment) else loop.init.decls[0].init
    if not names(start) | names(c.right) <= fixed or not _pure(start) or not _pure(c.right) \
            or _whole_by_bound(c.right, size):
        return None
    return var, size, start, c


def _whole(start, bound, size: int) -> list:
    """[`(U - L) % S == 0`], or [] where S always divides U - L."""
    span = bound if isinstance(start, c_ast.Constant) and start.value == "0" else \
        c_ast.BinaryOp("-", copy.deepcopy(bound), copy.deepcopy(start))
    if _always_divides(span, size):
        return []
    return [c_ast.BinaryOp("==", c_ast.BinaryOp("%", copy.deepcopy(span), c_ast.Constant("int", str(size))),
                           c_ast.Constant("int", "0"))]


def _always_divides(span, size: int) -> bool:
    """Whether `size` divides the span at every value of its names (`2 * n` by 2): tried at each
    value 1 to 7 of up to three names."""
    text, free = re.sub(r"(?<!/)/(?!/)", "//", cprint(span)), sorted(names(span))
    if len(free) > 3:
        return False
    try:
        return all(eval(text, {"__builtins__": {}}, dict(zip(free, vs))) % size == 0
                   for vs in itertools.product(range(1, 8), repeat=len(free)))
    except (ArithmeticError, NameError, SyntaxError, TypeError):
        return False


def _offset(node, var: str) -> int | None:
    """c of `var + c` (`c + var`), c a positive literal; None for anything else."""
    if isinstance(node, c_ast.BinaryOp) and node.op == "+":
        for a, b in ((node.left, node.right), (node.right, node.left)):
            if is_name(a, var) and isinstance(b, c_ast.Constant) and b.type == "int" and b.value.isdigit():
                return int(b.value)
    return None


def _whole_by_bound(bound, size: int) -> bool:
    """Whether a tile loop's bound already stops before a partial tile: `n - (T - 1)`, `n - T + 1`
    (the whole tiles, a remainder loop after them)."""
    const = lambda n, v: isinstance(n, c_ast.Constant) and n.value == str(v)
    b = bound
    return isinstance(b, c_ast.BinaryOp) and (b.op == "-" and const(b.right, size - 1) or b.op == "+" and const(
        b.right, 1) and isinstance(b.left, c_ast.BinaryOp) and b.left.op == "-" and const(b.left.right, size))


def _loop_var(init) -> str | None:
    """The variable a for header starts: `i = e` or `int i = e`."""
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None
