"""A for loop stepping several counters with the comma operator, written over one of them.

    normalize_commas(fn) -> None   (rewrites fn in place, before the model)

The class: a header that sets and steps several integer counters at once, `for (i = 0, j = n - 1;
i < j; i++, j--)` (a reversal's two ends), `for (i = 0, k = 0; i < n; i++, k += 2)` (a pack
into every other element), declared in the header or before it.  Each counter c starts at c0,
affine in names the loop never writes, and steps by a constant s_c; the loop's own counter i is
the first whose step divides every other's, and at every iteration each other counter is c0 +
(s_c / s_i) * (i - i0), written where the body reads it.  Each comparison of the condition that
names another counter, affine once they are substituted, becomes a bound on i alone: a*i <= e
(strict: e - 1) is `i < (e + a) / a` for a > 0 (`i < n / 2` for the reversal: C's division is
the floor the model reads where the numerator is never negative, and the model refuses it
elsewhere), `i >= (a - 1 - e) / -a` for a < 0.  Only where every counter is a signed integer
local that nothing but the header writes, i's start names no other counter, and nothing outside
the loop names another counter (its value after the loop is not the model's); anything else is
left as written (the model refuses the header).  docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import conjuncts, parse_c, walk as _walk
from ..ir.extents import Poly
from .scalars import SIGNED_TYPES, affine_poly, constant_step, poly_text, substitute, written_names
from .whiles import named_outside


def normalize_commas(fn: c_ast.FuncDef) -> None:
    for f in [n for n in _walk(fn.body) if isinstance(n, c_ast.For)]:
        _rewrite(fn, f)


def _rewrite(fn, f: c_ast.For) -> None:
    starts = _starts(f.init)
    nexts = f.next.exprs if isinstance(f.next, c_ast.ExprList) else []
    steps = {_stepped(e): constant_step(e, _stepped(e)) if _stepped(e) else None for e in nexts}
    if starts is None or len(starts) < 2 or set(steps) != set(starts) or len(nexts) != len(steps) \
            or not all(steps.values()):
        return
    names = list(starts)
    i = next((v for v in names if all(steps[c] % steps[v] == 0 for c in names)), None)
    others = [c for c in names if c != i]
    body = [f.stmt] if f.stmt is not None else []
    if i is None or set(names) & (written_names(body) | _names(starts[i])) or not all(_signed(fn, c) for c in names) \
            or any(named_outside(fn.body, (f,), c) for c in others):
        return
    values = {}                                        # counter -> its start, over the names before it
    for c in names:
        node = starts[c]
        for d in values:
            node = substitute(copy.deepcopy(node), d, values[d])
        p = affine_poly(node, _names(node))
        if p is None or p.vars() & (written_names(body) | set(names)):
            return
        values[c] = p
    i0 = values[i]
    at = {c: values[c] + Poly.const(steps[c] // steps[i]) * (Poly.var(i) - i0) for c in others}
    conds = conjuncts(f.cond) if f.cond is not None else []
    bounds = [_bound(c, i, at) for c in conds]
    if None in bounds:
        return
    f.cond = _and(bounds, f.cond.coord) if bounds else None
    f.next = next(e for e in f.next.exprs if _stepped(e) == i)
    if isinstance(f.init, c_ast.DeclList):
        f.init = c_ast.DeclList([d for d in f.init.decls if d.name == i], f.init.coord)
    else:
        f.init = next(e for e in f.init.exprs if _stepped(e) == i)
    for c in others:
        f.stmt = substitute(f.stmt, c, at[c]) if f.stmt is not None else None


def _starts(init) -> dict | None:
    """counter -> its start expression, in order, for `a = e, b = f` or `int a = e, b = f`."""
    if isinstance(init, c_ast.DeclList) and all(d.init is not None for d in init.decls):
        pairs = [(d.name, d.init) for d in init.decls]
    elif isinstance(init, c_ast.ExprList) and all(
            isinstance(e, c_ast.Assignment) and e.op == "=" and isinstance(e.lvalue, c_ast.ID) for e in init.exprs):
        pairs = [(e.lvalue.name, e.rvalue) for e in init.exprs]
    else:
        return None
    return dict(pairs) if len(dict(pairs)) == len(pairs) else None


def _stepped(e) -> str | None:
    target = e.expr if isinstance(e, c_ast.UnaryOp) else e.lvalue if isinstance(e, c_ast.Assignment) else None
    return target.name if isinstance(target, c_ast.ID) else None


def _signed(fn, name) -> bool:
    """Whether `name` is a local (here or in the header) that every declaration makes a signed
    integer."""
    decls = [d for d in _walk(fn.body) if isinstance(d, c_ast.Decl) and d.name == name]
    params = fn.decl.type.args.params if fn.decl.type.args else []
    return bool(decls) and name not in {getattr(p, "name", None) for p in params} and all(
        isinstance(d.type, c_ast.TypeDecl) and isinstance(d.type.type, c_ast.IdentifierType)
        and tuple(d.type.type.names) in SIGNED_TYPES and not d.storage for d in decls)


def _names(node) -> set[str]:
    return {x.name for x in _walk(node) if isinstance(x, c_ast.ID)}


def _bound(cond, i, at):
    """`cond` as a bound on i alone (module docstring): the comparison as written where it names
    no other counter; None where it is no affine comparison."""
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=")):
        return None
    if not _names(cond) & set(at):
        return cond
    sides = []
    for side in (cond.left, cond.right):
        for c in at:
            side = substitute(copy.deepcopy(side), c, at[c])
        sides.append(affine_poly(side, _names(side)))
    if None in sides:
        return None
    d = sides[0] - sides[1] if cond.op in ("<", "<=") else sides[1] - sides[0]    # d < 0 (<= 0)
    a, rest = d.split(i)
    if a.vars() or not a.terms:
        return None
    a = a.terms[()]
    e = -rest - Poly.const(1 if "=" not in cond.op else 0)          # a*i <= e
    if a > 0:
        text = f"{i} < {poly_text(e + Poly.const(a))}" if a == 1 else f"{i} < ({poly_text(e + Poly.const(a))}) / {a}"
    else:
        text = f"{i} >= {poly_text(-e)}" if a == -1 else f"{i} >= ({poly_text(Poly.const(-a - 1) - e)}) / {-a}"
    node = parse_c(f"int t2c_probe(void) {{ return {text}; }}", "<bound>").ext[0].body.block_items[0].expr
    for n in _walk(node):
        n.coord = cond.coord
    return node



def _and(parts, coord):
    out = parts[0]
    for p in parts[1:]:
        out = c_ast.BinaryOp("&&", out, p, coord)
    return out
