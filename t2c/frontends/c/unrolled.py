"""Loops unrolled by hand, with their remainder loop, as the one loop they are.

    rolled_loops(body) -> None      (rewrites `body` in place)

The class: in one block, `v = E` (or `int v = E;`), then `for (; C1; v += U) B1` and
`for (; C2; v++) B2` (or `v += 1`, `++v`), where B1 is B2 written U times for v, v + 1, ...,
v + U - 1 (as the printed statements say), C1 holds exactly when C2 holds at v + U - 1 (both
read as integer polynomials: `v + 3 < n`, `v < n - 3`, `v + 4 <= n` against `v < n`), and
nothing else assigns v: C code unrolled for a CPU's pipelines. Both loops become
`for (v = E; C2; v++) B2` (`v = E` moved into it, a declaration kept without it): the same
statement instances in the same order, and v ends where it did. Anything else is left as written.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import assigned, block_items, cprint, initialized, substitute, walk
from ...ir.extents import NotPolynomial, Poly, to_poly
from .bounds import step_of


def rolled_loops(body: c_ast.Node) -> None:
    for n in list(walk(body)):
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = _rolled(n.block_items)


def _rolled(items: list) -> list:
    out = list(items)
    for i in range(len(out) - 2):
        start, first, rest = out[i:i + 3]
        v, first_value = (initialized(start) if first is not None else None) or (None, None)
        if v is None or not all(isinstance(f, c_ast.For) and f.init is None for f in (first, rest)):
            continue
        u = step_of(first.next, v)
        if u is None or u < 2 or step_of(rest.next, v) != 1 or v in assigned(first.stmt) | assigned(rest.stmt):
            continue
        b1, b2 = block_items(first.stmt), block_items(rest.stmt)
        copies = [cprint(_shifted(s, v, k)) for k in range(u) for s in b2]
        if not b2 or [cprint(s) for s in b1] != copies or not _holds_exactly(first.cond, rest.cond, v, u):
            continue
        rest.init = c_ast.Assignment("=", c_ast.ID(v), copy.deepcopy(first_value))
        out[i + 1] = None
        if isinstance(start, c_ast.Decl):
            start.init = None                   # the loop sets it, right after
        else:
            out[i] = None
    return [s for s in out if s is not None]


def _shifted(stmt, v: str, k: int):
    """A copy of `stmt` with v read as v + k."""
    plus = c_ast.BinaryOp("+", c_ast.ID(v), c_ast.Constant("int", str(k)))
    return substitute(copy.deepcopy(stmt), {v: plus} if k else {})


def _holds_exactly(c1, c2, v: str, u: int) -> bool:
    """C1 at v is C2 at v + u - 1, as `P >= 0` of integer polynomials."""
    p1, p2 = _nonnegative(c1), _nonnegative(c2)
    if p1 is None or p2 is None:
        return False
    return p1 == p2 - Poly.const(u - 1)


def _nonnegative(cond) -> Poly | None:
    """P with cond <=> P >= 0 (integers), for `a < b`, `a <= b`, `a > b`, `a >= b`."""
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=")):
        return None
    names = {n.name for n in walk(cond) if isinstance(n, c_ast.ID)}
    try:
        left, right = to_poly(cond.left, names), to_poly(cond.right, names)
    except NotPolynomial:
        return None
    diff = right - left if cond.op in ("<", "<=") else left - right
    return diff - Poly.const(1) if cond.op in ("<", ">") else diff
