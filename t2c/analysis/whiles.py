"""A counted while loop, written as the for loop it is.

    normalize_whiles(fn) -> None   (rewrites fn in place, before the model)

Takes a reference function; rewrites `v = lo; while (v < hi) { ...; v++; }` (or `int v = lo;`
just before it; any constant step `v += s`, `v = v + s`, `v--`, or a geometric one `v *= 2`, `v >>= 1`
(scalars.geometric_step), last in the body, and a condition
of comparisons of v, as a for header reads them) as `for (v = lo; v < hi; v++) { ...; }`, which
the model reads as any for loop. Only where that is the same loop: v is an integer local written
nowhere else in the body, no `continue` skips the step, and nothing outside the two statements
names v (the model refuses a loop variable read after its loop); anything else is left as written.
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

from pycparser import c_ast

from ..ir.csyntax import walk as _walk
from .scalars import constant_step, geometric_step, written_names


def normalize_whiles(fn: c_ast.FuncDef) -> None:
    for block in reversed([n for n in _walk(fn.body) if isinstance(n, c_ast.Compound)]):   # inner first
        items = block.block_items or []
        for p in range(len(items) - 1, 0, -1):
            if (f := _counted(fn, items[p - 1], items[p])) is not None:
                items[p - 1:p + 1] = [f]


def named_outside(root, skip, var: str) -> bool:
    """Whether `var` is named in `root` outside the nodes `skip` and the for loops over var (they
    set it before any use)."""
    if any(root is s for s in skip) or isinstance(root, c_ast.For) and _sets(root.init, var):
        return False
    if isinstance(root, c_ast.ID) and root.name == var:
        return True
    return any(named_outside(c, skip, var) for _, c in root.children())


def _counted(fn, first, loop) -> c_ast.For | None:
    """The for loop of `first; loop` when they are a counted while loop (module docstring)."""
    if not isinstance(loop, c_ast.While) or not isinstance(loop.stmt, c_ast.Compound):
        return None
    body = loop.stmt.block_items or []
    var = _var(first)
    decl = first if isinstance(first, c_ast.Decl) else next(
        (d for d in _walk(fn.body) if isinstance(d, c_ast.Decl) and d.name == var), None)
    if var is None or not _integer(decl) or not body or var in written_names(body[:-1]) or \
            constant_step(body[-1], var) in (None, 0) and geometric_step(body[-1], var) is None:
        return None
    if not all(isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=", ">", ">=") and _is(c.left, var)
               and not written_names([c.right]) for c in _conjuncts(loop.cond)):
        return None
    if any(isinstance(n, (c_ast.Continue, c_ast.Goto, c_ast.Label)) for n in _walk(loop.stmt)) \
            or named_outside(fn.body, (first, loop), var):
        return None
    init = c_ast.DeclList([first], first.coord) if isinstance(first, c_ast.Decl) else first
    loop.stmt.block_items = body[:-1]
    return c_ast.For(init, loop.cond, body[-1], loop.stmt, loop.coord)


def _var(first) -> str | None:
    """v of `v = lo;` or of `int v = lo;` (a scalar of a plain type)."""
    if isinstance(first, c_ast.Assignment) and first.op == "=" and isinstance(first.lvalue, c_ast.ID):
        return first.lvalue.name
    if isinstance(first, c_ast.Decl) and first.init is not None and not first.storage \
            and isinstance(first.type, c_ast.TypeDecl) and isinstance(first.type.type, c_ast.IdentifierType):
        return first.name
    return None


def _integer(decl) -> bool:
    """Whether `decl` declares an integer scalar (a parameter or a float counts as none)."""
    return isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.TypeDecl) \
        and isinstance(decl.type.type, c_ast.IdentifierType) \
        and not {"float", "double"} & set(decl.type.type.names)


def _sets(init, var: str) -> bool:
    return _var(init) == var or isinstance(init, c_ast.DeclList) and any(d.name == var for d in init.decls)


def _conjuncts(cond) -> list:
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
        return _conjuncts(cond.left) + _conjuncts(cond.right)
    return [cond]


def _is(node, var) -> bool:
    return isinstance(node, c_ast.ID) and node.name == var
