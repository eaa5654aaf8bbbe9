"""Which integer outputs of a reference are rounded from floating point, and by how many units.

    rounded_units(kernel) -> {output: units (an int, or a size expression)}

Takes a kernel; gives each integer output whose value flows from a float-to-integer conversion
(a cast of a float expression, or one assigned to an integer element) the units it may differ
by: one per conversion, since a candidate may compute the float value in another legal way and
land across a rounding boundary, carried on through integer arithmetic as an error is (sums
add, factors multiply, accumulations multiply by their trip count). Where no bound follows it
stays one unit and a spec declares the bound. Comparisons and subscripts carry nothing.
docs/verification.md, "The tolerance model".
"""
from __future__ import annotations

from pycparser import c_ast

from ...ir import FLOAT_DTYPES, Kernel
from ...ir.csyntax import array_name, cprint, kernel_definition, names

_ARITH = {"+", "-", "*", "/", "%"}
_FLOAT_NAMES = {"float", "double"}


def rounded_units(k: Kernel) -> dict[str, int | str]:
    fn = kernel_definition(k.tree)
    types = {s.name: "int" for s in k.sizes} | {s.name: s.dtype for s in k.scalars} \
        | {a.name: a.dtype for a in k.arrays}
    parents: dict = {}
    assigns = []
    for node in _walk(fn, parents):
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.TypeDecl) \
                and isinstance(node.type.type, c_ast.IdentifierType):
            types[node.name] = " ".join(node.type.type.names)
        if isinstance(node, c_ast.Assignment):
            assigns.append(node)
        if isinstance(node, c_ast.Return) and node.expr is not None and k.returns is not None:
            assigns.append(c_ast.Assignment("=", c_ast.ID(k.returns.name), node.expr))
    floating = lambda t: any(w in _FLOAT_NAMES for w in t.split())
    sizes = {s.name for s in k.sizes}
    units: dict[str, int | str] = {}

    def ty(e) -> str:
        if isinstance(e, c_ast.Constant):
            return e.type
        if isinstance(e, c_ast.ID):
            return types.get(e.name, "int")
        if isinstance(e, c_ast.ArrayRef):
            return ty(e.name)
        if isinstance(e, c_ast.Cast):
            return " ".join(getattr(getattr(e.to_type.type, "type", None), "names", ["void *"]))
        if isinstance(e, c_ast.FuncCall):       # <math.h>: expf -> float, exp -> double, abs -> int
            name = e.name.name if isinstance(e.name, c_ast.ID) else ""
            if name in ("abs", "labs"):
                return "int"
            return "float" if name.endswith("f") and name not in ("erf", "modf") else "double"
        if isinstance(e, c_ast.BinaryOp):
            if e.op not in _ARITH:
                return "int"
            return next((t for t in (ty(e.left), ty(e.right)) if floating(t)), ty(e.left))
        if isinstance(e, c_ast.UnaryOp):
            return "int" if e.op == "!" else ty(e.expr)
        if isinstance(e, c_ast.TernaryOp):
            return next((t for t in (ty(e.iftrue), ty(e.iffalse)) if floating(t)), ty(e.iftrue))
        if isinstance(e, c_ast.Assignment):
            return ty(e.lvalue)
        return "int"

    def carried(e):
        """The units an integer value may be off by: 0 (exact), an int, a size expression,
        or ONE_AT_LEAST (rounded, no bound follows)."""
        if isinstance(e, c_ast.Cast):
            if floating(ty(e)):
                return 0
            return 1 if floating(ty(e.expr)) or carried(e.expr) else 0
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            return units.get(array_name(e), 0)
        if isinstance(e, c_ast.BinaryOp) and e.op in _ARITH:
            a, b = carried(e.left), carried(e.right)
            if not a and not b:
                return 0
            if e.op in ("+", "-"):
                return _plus(a, b)
            c = _constant(e.right if a else e.left)
            if e.op == "*" and c is not None and not (a and b):
                return _times(a or b, abs(c))
            if e.op == "/" and c and not b and isinstance(a, int):
                return -(-a // abs(c))
            return ONE_AT_LEAST
        if isinstance(e, c_ast.UnaryOp):
            return carried(e.expr) if e.op in ("-", "+") else 0
        if isinstance(e, c_ast.TernaryOp):
            a, b = carried(e.iftrue), carried(e.iffalse)
            return a if not b else b if not a else a if a == b else ONE_AT_LEAST
        return 0

    changed, rounds = True, 0
    while changed and rounds <= len(assigns):      # to a fixed point: locals feed outputs
        changed, rounds = False, rounds + 1
        for node in assigns:
            target = array_name(node.lvalue)
            if target is None or floating(ty(node.lvalue)):
                continue
            rvalue = node.rvalue
            u = 1 if floating(ty(rvalue)) else carried(rvalue)
            if u and node.op in ("+=", "-="):
                u = _times(u, _trips(node, target, parents, assigns, sizes))
            elif node.op not in ("=", "+=", "-="):
                u = ONE_AT_LEAST if u or units.get(target) else 0
            if u and _wider(u, units.get(target, 0)):
                units[target] = u
                changed = True
    return {x.name: (1 if u is ONE_AT_LEAST else u) for x in k.outputs
            if x.dtype not in FLOAT_DTYPES and (u := units.get(x.name))}


class _OneAtLeast(int):
    """Rounded, but no bound follows from the arithmetic: one unit unless declared."""


ONE_AT_LEAST = _OneAtLeast(1)


def _constant(e) -> int | None:
    if isinstance(e, c_ast.Constant) and e.type == "int":
        try:
            return int(e.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    if isinstance(e, c_ast.UnaryOp) and e.op == "-" and (c := _constant(e.expr)) is not None:
        return -c
    return None


def _plus(a, b):
    if a is ONE_AT_LEAST or b is ONE_AT_LEAST:
        return ONE_AT_LEAST
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return f"{a} + {b}" if a and b else (a or b)


def _times(a, factor):
    if a is ONE_AT_LEAST or factor is ONE_AT_LEAST or factor is None:
        return ONE_AT_LEAST
    if isinstance(a, int) and isinstance(factor, int):
        return a * factor
    return f"({a}) * ({factor})" if a != 1 else factor


def _wider(new, old) -> bool:
    """Does bound `new` replace `old`: a larger constant, or an expression over the sizes
    (a trip count) where a constant was."""
    if not old:
        return True
    if new == old or isinstance(old, str) and not isinstance(new, str):
        return False
    return isinstance(new, str) or new > old


def _trips(node, target, parents, assigns, sizes):
    """How often an accumulation `target += e` runs between two plain assignments of target:
    the product of the extents of the loops around it that hold no such assignment, each
    `hi - lo` bounded by sizes (a loop variable in a bound is replaced by its own loop's
    extreme on the side that makes the extent larger).  ONE_AT_LEAST where none follows."""
    resets = [a for a in assigns if a.op == "=" and array_name(a.lvalue) == target]
    loops, bounds = [], {}
    up = parents.get(node)
    while up is not None:
        if isinstance(up, (c_ast.While, c_ast.DoWhile)):
            return ONE_AT_LEAST
        if isinstance(up, c_ast.For):
            b = _loop_bounds(up)
            if b is None:
                return ONE_AT_LEAST
            bounds[b[0]] = b[1:]
            if not any(_inside(r, up, parents) for r in resets):
                loops.append(b)
        up = parents.get(up)
    factors = []
    for var, lo, hi in loops:
        lo_s, hi_s = _extreme(lo, bounds, sizes, low=True), _extreme(hi, bounds, sizes, low=False)
        if lo_s is None or hi_s is None:
            return ONE_AT_LEAST
        lo_c = cprint(lo_s)
        factors.append(cprint(hi_s) if lo_c == "0" else f"{cprint(hi_s)} - ({lo_c})")
    if not factors:
        return 1
    return " * ".join(f"({f})" for f in factors) if len(factors) > 1 else factors[0]


def _loop_bounds(loop):
    """(var, lo, hi) of `for (v = lo; v < hi; v++)`, else None."""
    init, cond, step = loop.init, loop.cond, loop.next
    if not (isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID)
            and isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and isinstance(cond.left, c_ast.ID)
            and cond.left.name == init.lvalue.name and isinstance(step, c_ast.UnaryOp)
            and step.op in ("p++", "++") and isinstance(step.expr, c_ast.ID)):
        return None
    return init.lvalue.name, init.rvalue, cond.right


def _extreme(e, bounds, sizes, low: bool):
    """A bound of `e` from below (low) or above over sizes and constants: each loop variable
    becomes its loop's least value (lo) or greatest (hi - 1), through + and - only (a
    subtrahend is bounded on the other side).  None where `e` is not of that form."""
    if isinstance(e, c_ast.Constant) or (isinstance(e, c_ast.ID) and e.name in sizes):
        return e
    if isinstance(e, c_ast.ID) and e.name in bounds:
        lo, hi = bounds[e.name]
        if low:
            return _extreme(lo, bounds, sizes, True)
        top = _extreme(hi, bounds, sizes, False)
        return None if top is None else c_ast.BinaryOp("-", top, c_ast.Constant("int", "1"))
    if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
        a = _extreme(e.left, bounds, sizes, low)
        b = _extreme(e.right, bounds, sizes, low if e.op == "+" else not low)
        return None if a is None or b is None else c_ast.BinaryOp(e.op, a, b)
    if isinstance(e, c_ast.BinaryOp) and e.op in ("*", "/") and names(e) <= sizes:
        return e                           # a size expression: no variable to move
    return None


def _inside(node, ancestor, parents) -> bool:
    while node is not None:
        if node is ancestor:
            return True
        node = parents.get(node)
    return False


def _walk(node, parents: dict):
    """Every node under `node` (itself included), recording each one's parent."""
    yield node
    for _, child in node.children():
        parents[child] = node
        yield from _walk(child, parents)
