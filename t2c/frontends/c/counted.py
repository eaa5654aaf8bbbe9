"""Counted loops written as `while` loops, or counting down in their test, as the for loops they are.

    counted_loops(body) -> None      (rewrites `body` in place)

`while`: in one block, `v = E;` (or `T v = E;`), then at once `while (C) { S...; STEP; }`, C comparing
v with bounds the body does not assign (`i < n`, `i < n && i < m`), where STEP
is the body's last statement and adds a constant to v (`v++`, `--v`, `v += 4`), nothing else in
the body assigns v, and no `continue` of this loop skips STEP. It becomes `for (v = E; C; STEP)
{ S... }` (a declaration stays, without its initializer): the same statements in the same order,
and v ends where it did.

Counting down in the test: `for (T v = E; v-- > 0;) S` (or `v--`, `v-- != 0`, `0 < v--`), v declared
by the loop, or `T v = E;` then at once `while (v-- > 0) S` with v unread after the loop; S assigns
no v. It becomes `for (T v = E; v > 0; v--) S'`, S' reading v - 1 where S read v: S runs for E-1
down to 0 in the same order, where the post-decrement test (on an unsigned v, idiomatic) leaves
no bound the analysis can read. Anything else is left as written.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import assigned, block_items, conjuncts, is_name, names, substitute, walk
from .bounds import step_of

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def counted_loops(body: c_ast.Node) -> None:
    for n in list(walk(body)):
        if isinstance(n, c_ast.For) and isinstance(n.init, c_ast.DeclList) and len(n.init.decls) == 1:
            _count_down(n, n.init.decls[0].name)
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = _as_for(n.block_items)


def _as_for(items: list) -> list:
    out = list(items)
    for i in range(len(out) - 1):
        start, loop = out[i], out[i + 1]
        v, first_value = initialized(start) or (None, None)
        if v is None or not isinstance(loop, c_ast.While):
            continue
        if _post_decrement(loop.cond, v) and isinstance(start, c_ast.Decl) \
                and v not in names(*out[i + 2:]) and v not in assigned(loop.stmt):
            out[i] = None
            out[i + 1] = _count_down(c_ast.For(c_ast.DeclList([start], start.coord), loop.cond, None,
                                               loop.stmt, loop.coord), v)
            continue
        stmts = block_items(loop.stmt)
        step = stmts[-1] if stmts else None
        if step is None or step_of(step, v) is None or not _bounds(loop.cond, v, loop.stmt) \
                or v in assigned(c_ast.Compound(stmts[:-1])) or _continues(loop.stmt):
            continue
        first = c_ast.Assignment("=", c_ast.ID(v), copy.deepcopy(first_value), start.coord)
        out[i + 1] = c_ast.For(first, loop.cond, step, c_ast.Compound(stmts[:-1], loop.coord), loop.coord)
        if isinstance(start, c_ast.Decl):
            start.init = None                   # the loop sets it, right after
        else:
            out[i] = None
    return [s for s in out if s is not None]


def _count_down(loop: c_ast.For, v: str) -> c_ast.For:
    """`for (T v = E; v-- > 0;) S` as `for (T v = E; v > 0; v--) S[v := v - 1]` (else unchanged)."""
    if loop.next is not None or not _post_decrement(loop.cond, v) or v in assigned(loop.stmt) \
            or any(isinstance(n, c_ast.Decl) and n.name == v for n in walk(loop.stmt)):
        return loop
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


def _bounds(cond, v: str, body) -> bool:
    """Whether `cond` compares v with bounds the loop never changes (`v < n`, `v <= n && v < m`):
    a counted loop's test, not a data-dependent one that v only counts (`while (x > 1.0)`)."""
    return all(isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=", ">", ">=", "!=") and is_name(c.left, v)
               and not names(c.right) & (assigned(body) | assigned(c.right)) for c in conjuncts(cond))


def _continues(stmt) -> bool:
    """Whether a `continue` of this loop (not of a loop inside it) is under `stmt`."""
    if isinstance(stmt, c_ast.Continue):
        return True
    if isinstance(stmt, _LOOPS):
        return False
    return any(_continues(child) for _, child in stmt.children())


def initialized(s) -> tuple[str, c_ast.Node] | None:
    """(v, E) of `v = E;` or `T v = E;` (a plain variable), else None."""
    if isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ID):
        return s.lvalue.name, s.rvalue
    if isinstance(s, c_ast.Decl) and s.init is not None and isinstance(s.type, c_ast.TypeDecl):
        return s.name, s.init
    return None
