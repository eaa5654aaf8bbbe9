"""A search with an early exit, written as the index it finds.

    normalize_searches(fn) -> None   (rewrites fn in place, before the model)

Takes a reference function; rewrites each top-level `for (int i = lo; i < hi; i++) if (C) { x =
e; ...; break; }` (or descending), C and the e's changing nothing, as a loop that keeps the
least (greatest) index where C holds in a fresh local and, after it, the assignments at that
index: no exit, a reduction poly runs in parallel, the same result (C is evaluated at every
index, as the reference does when nothing is found). A search nested in another loop keeps its
exit. docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import walk as _walk
from .scalars import step_of, substitute

_NONE = {1: "2147483647", -1: "(-2147483647 - 1)"}    # no index found, for an ascending (descending) loop


def normalize_searches(fn: c_ast.FuncDef) -> None:
    items = fn.body.block_items or []
    taken = {x.name for x in _walk(fn) if isinstance(x, (c_ast.ID, c_ast.Decl))}
    out = []
    for n, item in enumerate(items):
        found = _search(item)
        if found is None or any(_uses(later, found[0]) for later in items[n + 1:]) \
                and not isinstance(item.init, c_ast.DeclList):
            out.append(item)
            continue
        hit = next(f"found_at{n or ''}" for n in range(len(taken) + 1) if f"found_at{n or ''}" not in taken)
        taken.add(hit)
        out += _rewritten(item, *found, hit)
    fn.body.block_items = out


def _search(f) -> tuple | None:
    """(var, step, C, assignments) of an early-exit search loop; None otherwise."""
    if not isinstance(f, c_ast.For) or (head := step_of(f)) is None:
        return None
    var, _, step = head
    body = f.stmt
    while isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
        body = body.block_items[0]
    if not (isinstance(body, c_ast.If) and body.iffalse is None):
        return None
    then = body.iftrue.block_items if isinstance(body.iftrue, c_ast.Compound) else [body.iftrue]
    then = then or []
    if not then or not isinstance(then[-1], c_ast.Break):
        return None
    sets = then[:-1]
    if not all(isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ID)
               and s.lvalue.name != var for s in sets):
        return None
    if not all(pure(x) for x in [body.cond] + [s.rvalue for s in sets]):
        return None
    return var, step, body.cond, sets


def pure(node) -> bool:
    """No assignment or increment (a call is a math function's: the model refuses others)."""
    for x in _walk(node):
        if isinstance(x, c_ast.Assignment) or isinstance(x, c_ast.UnaryOp) and x.op in ("++", "p++", "--", "p--"):
            return False
    return True


def _rewritten(f: c_ast.For, var, step, cond, sets, hit) -> list:
    none = c_ast.ID(_NONE[step])
    better = c_ast.BinaryOp("<" if step == 1 else ">", c_ast.ID(var), c_ast.ID(hit))
    loop = copy.copy(f)
    loop.stmt = c_ast.If(c_ast.BinaryOp("&&", copy.deepcopy(cond), better),
                         c_ast.Assignment("=", c_ast.ID(hit), c_ast.ID(var)), None, f.coord)
    decl = c_ast.Decl(hit, [], [], [], [], c_ast.TypeDecl(hit, [], None, c_ast.IdentifierType(["int"])),
                      none, None, coord=f.coord)
    after = c_ast.If(c_ast.BinaryOp("!=", c_ast.ID(hit), copy.deepcopy(none)),
                     c_ast.Compound([substitute(copy.deepcopy(s), var, c_ast.ID(hit)) for s in sets]), None, f.coord)
    return [decl, loop, after]


def _uses(node, name: str) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in _walk(node))
