"""Pointer parameters walked with `*p++` through a loop nest, read as the subscripts they reach.

    walked_pointers(body, pointers) -> None      (rewrites `body` in place)

The class: every use of pointer parameter p is `*p++`, each in its own statement of the innermost
loop's body (not under `?:`, `&&` or `||`, nor in a nested block), in a nest of for loops
`for (v = lo; v < hi; v++)` (or `<=`) that no loop encloses, each inner loop a statement of its
parent's body, no bound reading a variable of the nest or a name the nest assigns, and no
`continue`: `for (i...) for (j...) *y++ = a * *x++;` as C written for a CPU walks its arrays.
With k uses per innermost iteration, the u-th use (from 0, in order) reads element
k * (the iteration's position in the nest, row-major) + u, which is what p had advanced to:
`*p++` becomes `p[k * ((i - lo_i) * (hi_j - lo_j) + (j - lo_j)) + u]`. p is not used after the
nest, so where it ends does not matter. Anything else is left as written (refused as before).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import assigned, block_items, names, set_child, walk

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def walked_pointers(body: c_ast.Compound, pointers: set[str]) -> None:
    for p in sorted(pointers):
        uses = [n for n in walk(body) if _walk_of(n, p)]
        if uses and len(uses) == sum(isinstance(n, c_ast.ID) and n.name == p for n in walk(body)):
            _rewrite(body, p, uses)


def _walk_of(n, p: str) -> bool:
    """`n` is `*p++`."""
    return isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.UnaryOp) \
        and n.expr.op == "p++" and isinstance(n.expr.expr, c_ast.ID) and n.expr.expr.name == p


def _rewrite(body, p: str, uses: list) -> None:
    nest = _nest(body, uses[0])
    if not nest:
        return
    stmts = block_items(nest[-1].stmt)
    holders = [next((s for s in stmts if any(x is u for x in walk(s))), None) for u in uses]
    if None in holders or len({id(h) for h in holders}) != len(uses) or any(_hidden(h, u) for h, u in zip(holders, uses)):
        return
    ranges = [_range(f) for f in nest]
    written = assigned(nest[0])
    loop_vars = {r[0] for r in ranges if r}
    if None in ranges or any(names(lo, hi) & (written | loop_vars) for _, lo, hi in ranges) \
            or any(isinstance(n, c_ast.Continue) for f in nest for n in walk(f.stmt)):
        return
    for outer, inner in zip(nest, nest[1:]):
        if not any(s is inner for s in block_items(outer.stmt)):
            return
    position = None
    for v, lo, hi in ranges:                          # row-major: ((i - lo_i) * N_j + (j - lo_j)) ...
        here = _bin("-", c_ast.ID(v), lo)
        position = here if position is None else _bin("+", _bin("*", position, _span(lo, hi)), here)
    for u, use in enumerate(uses):                    # in source order, one per statement
        index = _bin("+", _bin("*", c_ast.Constant("int", str(len(uses))), position), c_ast.Constant("int", str(u)))
        _replace(nest[-1], use, c_ast.ArrayRef(c_ast.ID(p), index, use.coord))


def _nest(body, use) -> list | None:
    """The for loops enclosing `use`, outermost first, when no other loop does."""
    path = _path(body, use)
    loops = [n for n in path if isinstance(n, _LOOPS)]
    return loops if loops and all(isinstance(f, c_ast.For) for f in loops) else None


def _path(root, target) -> list:
    if root is target:
        return [root]
    for _, child in root.children():
        if (found := _path(child, target)):
            return [root, *found]
    return []


def _hidden(stmt, use) -> bool:
    """Whether `use` may not run each time `stmt` does (under ?:, &&, ||, a branch or a loop)."""
    path = _path(stmt, use)
    return any(isinstance(n, (c_ast.TernaryOp, c_ast.If, c_ast.Switch, c_ast.Compound, *_LOOPS))
               or isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||") for n in path[:-1])


def _range(f: c_ast.For):
    """(v, lo, hi) of `for (v = lo; v < hi; v++)`, hi one past the last (`<= h`: h + 1), else None."""
    init = f.init.decls[0] if isinstance(f.init, c_ast.DeclList) and len(f.init.decls) == 1 else f.init
    v, lo = (init.name, init.init) if isinstance(init, c_ast.Decl) else \
        (init.lvalue.name, init.rvalue) if isinstance(init, c_ast.Assignment) and init.op == "=" \
        and isinstance(init.lvalue, c_ast.ID) else (None, None)
    c, step = f.cond, f.next
    if v is None or lo is None or not (isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=")
                                        and isinstance(c.left, c_ast.ID) and c.left.name == v):
        return None
    if not (isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++") and isinstance(step.expr, c_ast.ID)
            and step.expr.name == v) or v in assigned(f.stmt):
        return None
    hi = c.right if c.op == "<" else _bin("+", c.right, c_ast.Constant("int", "1"))
    return v, lo, hi


def _span(lo, hi):
    """hi - lo, folded where lo is a constant and hi a name plus one (`j = 1; j <= m`: m)."""
    def split(e):
        if isinstance(e, c_ast.Constant) and e.type == "int":
            return None, int(e.value.rstrip("uUlL"), 0)
        if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-") and isinstance(e.right, c_ast.Constant) \
                and e.right.type == "int":
            return e.left, int(e.right.value.rstrip("uUlL"), 0) * (1 if e.op == "+" else -1)
        return e, 0
    (h, hc), (l, lc) = split(hi), split(lo)
    if l is not None or h is None:
        return _bin("-", hi, lo)
    c = hc - lc
    return _bin("+" if c >= 0 else "-", h, c_ast.Constant("int", str(abs(c))))


def _bin(op, a, b):
    """`a op b`, without the `- 0`, `+ 0` and `1 *` a loop from 0 or one use per iteration gives."""
    if op in ("+", "-") and _is(b, "0"):
        return copy.deepcopy(a)
    if op == "*" and _is(a, "1"):
        return copy.deepcopy(b)
    return c_ast.BinaryOp(op, copy.deepcopy(a), copy.deepcopy(b))


def _is(node, value: str) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == value


def _replace(root, old, new) -> None:
    for parent in walk(root):
        for name, child in parent.children():
            if child is old:
                set_child(parent, name, new)
                return
