"""Loops counting down in their test, as the for loops they are.

    count_down_loops(body) -> None      (rewrites `body` in place)

The class: `for (T v = E; v-- > 0;) S` (or `v--`, `v-- != 0`, `0 < v--`), v declared by the loop;
or `T v = E;` then at once `while (v-- > 0) S`, v unread after the loop: the idiom that walks an
unsigned index down to 0 (`for (size_t i = n; i-- > 0;)`). Where S assigns no v, either becomes
`for (T v = E; v > 0; v--) S'`, S' reading v - 1 where S read v: S runs for E-1 down to 0 in the
same order, where the post-decrement test leaves no bound the analysis can read. A top-level
`while (n-- > 0) S` (or `while (n--)`) on a name that S never names and nothing after the loop
reads (`while (n--) *y++ += a * *x++;`) runs S n times whatever its order: `for (int c = 0; c < n;
c++) S`, c a fresh name (walks.py then reads the pointers' steps). Counted while
and do-while loops and comma headers are the analysis's (analysis/whiles.py, commas.py), which
the frontend runs first. Anything else is left as written.
"""
from __future__ import annotations

from pycparser import c_ast

from ...ir.csyntax import assigned, counted_for, initialized, names, substitute, unused_name, walk


def count_down_loops(body: c_ast.Node) -> None:
    _times_loops(body)
    for n in list(walk(body)):
        if isinstance(n, c_ast.For) and isinstance(n.init, c_ast.DeclList) and len(n.init.decls) == 1:
            _count_down(n, n.init.decls[0].name)
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = _while_count_down(n.block_items)


def _while_count_down(items: list) -> list:
    out = list(items)
    for i in range(len(out) - 1):
        start, loop = out[i], out[i + 1]
        v = (initialized(start) or (None,))[0]
        if v is not None and isinstance(start, c_ast.Decl) and isinstance(loop, c_ast.While) \
                and _post_decrement(loop.cond, v) and v not in names(*out[i + 2:]):
            header = c_ast.For(c_ast.DeclList([start], start.coord), loop.cond, None, loop.stmt, loop.coord)
            if _count_down(header, v) is not None:
                out[i], out[i + 1] = None, header
    return [s for s in out if s is not None]


def _times_loops(body: c_ast.Compound) -> None:
    items = body.block_items or []
    for k, loop in enumerate(items):
        v = _decremented(loop.cond) if isinstance(loop, c_ast.While) else None
        if v is None or v in names(loop.stmt, *items[k + 1:]):
            continue
        items[k] = counted_for(unused_name(body, "cnt"), c_ast.Constant("int", "0"), c_ast.ID(v), loop.stmt,
                               coord=loop.coord)


def _decremented(cond) -> str | None:
    """v of a `v--`-style test (_post_decrement)."""
    found = [n.expr.name for n in walk(cond) if isinstance(n, c_ast.UnaryOp) and n.op == "p--"
             and isinstance(n.expr, c_ast.ID)] if cond is not None else []
    return found[0] if len(found) == 1 and _post_decrement(cond, found[0]) else None


def _count_down(loop: c_ast.For, v: str) -> c_ast.For | None:
    """`for (T v = E; v-- > 0;) S` as `for (T v = E; v > 0; v--) S[v := v - 1]`, in place; None
    (unchanged) where it is not one."""
    if loop.next is not None or not _post_decrement(loop.cond, v) or v in assigned(loop.stmt) \
            or any(isinstance(n, c_ast.Decl) and n.name == v for n in walk(loop.stmt)):
        return None
    loop.cond = c_ast.BinaryOp(">", c_ast.ID(v), c_ast.Constant("int", "0"), loop.cond.coord)
    loop.next = c_ast.UnaryOp("p--", c_ast.ID(v), loop.coord)
    less = c_ast.BinaryOp("-", c_ast.ID(v), c_ast.Constant("int", "1"))
    loop.stmt = substitute(loop.stmt, {v: less})
    return loop


def _post_decrement(cond, v: str) -> bool:
    """`v--`, `v-- > 0`, `v-- != 0` or `0 < v--`: true while v was positive, v one less after."""
    def is_dec(n):
        return isinstance(n, c_ast.UnaryOp) and n.op == "p--" and isinstance(n.expr, c_ast.ID) and n.expr.name == v

    def zero(n):
        return isinstance(n, c_ast.Constant) and n.type == "int" and n.value.rstrip("uUlL") == "0"
    if is_dec(cond):
        return True
    return isinstance(cond, c_ast.BinaryOp) and (
        cond.op in (">", "!=") and is_dec(cond.left) and zero(cond.right)
        or cond.op == "<" and zero(cond.left) and is_dec(cond.right))
