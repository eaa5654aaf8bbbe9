"""Buffers exchanged by a pointer swap each step (ping-pong), as the two steps they alternate.

    alternated_steps(fn, pointers) -> None      (rewrites fn.body in place)

The class: the function's last statement is a counted loop `for (int t = LO; t < HI; t++)` whose
body ends by exchanging two pointer parameters X and Y (`T *tmp = X; X = Y; Y = tmp;`, tmp also
declared before the loop and used nowhere else), where the rest of the body B assigns none of t,
X, Y or the names of LO and HI, and cannot end a step early (break, continue, return): a stencil's
time loop over two buffers. Step t computes B with X and Y
exchanged when t - LO is odd, so the loop becomes

    for (int t = LO; t < HI - 1; t += 2) { {B} {B'} }      B': X and Y exchanged, t read as t + 1
    for (int t = LO + 2 * ((HI - LO) / 2); t < HI; t++) B  the last step of an odd count

the same statement instances in the same order on the same arrays; the exchange left after the
last step is unobservable (a parameter's value is the function's own). The model then sees two
statements per step over named arrays, as PolyBench's jacobi-2d writes them. Anything else is
left as written (pointers.exchanged still gives the buffers one extent).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...analysis.scalars import step_of as counted_header
from ...ir.csyntax import assigned, block_items, substitute, walk


def alternated_steps(fn: c_ast.FuncDef, pointers: set[str]) -> None:
    items = fn.body.block_items or []
    loop = items[-1] if items else None
    found = _swap_loop(loop, pointers) if isinstance(loop, c_ast.For) else None
    if found is None:
        return
    t, lo, hi, x, y, tmp = found
    body = block_items(loop.stmt)[:-3]
    declared_before = [s for s in items[:-1] if isinstance(s, c_ast.Decl) and s.name == tmp]
    inside = any(isinstance(s, c_ast.Decl) and s.name == tmp for s in block_items(loop.stmt))
    uses = sum(isinstance(n, c_ast.ID) and n.name == tmp for n in walk(fn.body))
    if uses != (1 if inside else 2) or not (inside or declared_before) \
            or any(s.init is not None for s in declared_before):
        return                                     # tmp used elsewhere: its value matters

    def step(shift, exchange: bool):
        names = {t: shift} if shift is not None else {}
        if exchange:
            names |= {x: c_ast.ID(y), y: c_ast.ID(x)}
        return c_ast.Compound([substitute(copy.deepcopy(s), names) for s in body])

    one = c_ast.Constant("int", "1")
    loop.cond = c_ast.BinaryOp("<", c_ast.ID(t), c_ast.BinaryOp("-", copy.deepcopy(hi), one))
    loop.next = c_ast.Assignment("+=", c_ast.ID(t), c_ast.Constant("int", "2"))
    loop.stmt = c_ast.Compound([step(None, False), step(c_ast.BinaryOp("+", c_ast.ID(t), one), True)])
    # the last step: none where HI - LO is even, or not positive (C's quotient rounds toward 0)
    zero = isinstance(lo, c_ast.Constant) and lo.value == "0"
    count = copy.deepcopy(hi) if zero else c_ast.BinaryOp("-", copy.deepcopy(hi), copy.deepcopy(lo))
    start = c_ast.BinaryOp("*", c_ast.Constant("int", "2"), c_ast.BinaryOp("/", count, c_ast.Constant("int", "2")))
    last = c_ast.For(copy.deepcopy(loop.init), c_ast.BinaryOp("<", c_ast.ID(t), copy.deepcopy(hi)),
                     c_ast.UnaryOp("p++", c_ast.ID(t)), c_ast.Compound(copy.deepcopy(body)), loop.coord)
    _set_start(last.init, start if zero else c_ast.BinaryOp("+", copy.deepcopy(lo), start))
    fn.body.block_items = [s for s in items if not any(s is d for d in declared_before)] + [last]


def _set_start(init, value) -> None:
    if isinstance(init, c_ast.DeclList):
        init.decls[0].init = value
    else:
        init.rvalue = value


def _swap_loop(loop: c_ast.For, pointers: set[str]):
    """(t, LO, HI, X, Y, tmp) of a loop of the class, else None."""
    header = counted_header(loop)
    if header is None or header[2] != 1:
        return None
    t, lo, _ = header
    cond = loop.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and isinstance(cond.left, c_ast.ID)
            and cond.left.name == t):
        return None
    items = block_items(loop.stmt)
    if len(items) < 4:
        return None
    save, first, second = items[-3:]
    tmp, x = _copy(save)
    if tmp is None or not all(isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ID)
                              and isinstance(s.rvalue, c_ast.ID) for s in (first, second)):
        return None
    y = first.rvalue.name
    if (first.lvalue.name, second.lvalue.name, second.rvalue.name) != (x, y, tmp) or x == y \
            or not {x, y} <= pointers:
        return None
    rest = c_ast.Compound(items[:-3])
    bounds = {n.name for n in walk(c_ast.ExprList([lo, cond.right])) if isinstance(n, c_ast.ID)}
    if assigned(rest) & ({t, x, y, tmp} | bounds) or any(
            isinstance(n, c_ast.Decl) and n.name in {t, x, y, tmp} for n in walk(rest)) or _leaves(rest):
        return None
    return t, lo, cond.right, x, y, tmp


def _leaves(node) -> bool:
    """Whether a step may end early: a return, or a break or continue of the time loop itself."""
    if isinstance(node, (c_ast.Return, c_ast.Goto, c_ast.Break, c_ast.Continue)):
        return True
    if isinstance(node, (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)):
        return any(isinstance(n, (c_ast.Return, c_ast.Goto)) for n in walk(node))
    return any(_leaves(kid) for _, kid in node.children())


def _copy(s) -> tuple[str | None, str | None]:
    """(tmp, X) of `T *tmp = X;` or `tmp = X;` (X a name), else (None, None)."""
    if isinstance(s, c_ast.Decl) and isinstance(s.type, c_ast.PtrDecl) and isinstance(s.init, c_ast.ID):
        return s.name, s.init.name
    if isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ID) \
            and isinstance(s.rvalue, c_ast.ID):
        return s.lvalue.name, s.rvalue.name
    return None, None
