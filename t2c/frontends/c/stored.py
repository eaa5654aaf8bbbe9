"""A local stored into an array element, read after the store as that element, or as its own
definition where the store changes it.

    read_stored(body, types) -> None      (rewrites `body` in place)

The class: in one block, `A[e] = v;` (v a local scalar of A's element type, e's names never
assigned after it in the block), then statements that neither assign v nor write A (no store, no
call passing A, no `&v`), where v is read only by folds into other scalars (`acc += ...`,
`acc = acc * ...`): a value computed once, stored, and summed, as `y[i] = s; sum += s * s;` (a map
and its norm in one loop). Each such read of v becomes `A[e]`, the same value (the types match, so
the store rounds nothing). v's scalar web then ends at the store, so poly may split the loop there:
the map in parallel, the sum a grid reduction. Anything else is left as written (a read elsewhere
keeps its register).

Where the store is not v itself (`d[i] = (short)v;`, `y[i] = 2 * v;`), a local defined in the
block as `T v = E;`, E pure (names, constants, elements, casts and operators) and nothing it
reads assigned or written after it in the block, is read in those folds as `(T)(E)`: the same
value computed again, so the fold no longer waits on the map's statement either.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import array_name, assigned, names, substitute, walk


def read_stored(body: c_ast.Node, types: dict[str, str]) -> None:
    """`types`: each array's element type and each local's type (normalize.variable_types and
    the parameters)."""
    for n in list(walk(body)):
        if isinstance(n, c_ast.Compound) and n.block_items:
            _forwarded(n.block_items, types)
            _recomputed(n.block_items)


_PURE = (c_ast.ID, c_ast.Constant, c_ast.ArrayRef, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl,
         c_ast.IdentifierType, c_ast.BinaryOp, c_ast.TernaryOp)


def _recomputed(items: list) -> None:
    for k, s in enumerate(items):
        if not (isinstance(s, c_ast.Decl) and s.init is not None and isinstance(s.type, c_ast.TypeDecl)
                and isinstance(s.type.type, c_ast.IdentifierType)):
            continue
        v, e = s.name, s.init
        if not all(isinstance(x, _PURE) or isinstance(x, c_ast.UnaryOp) and x.op in ("-", "+", "!", "~")
                   for x in walk(e)):
            continue
        rest = c_ast.Compound(items[k + 1:])
        read = names(e)
        if v in assigned(rest) or read & assigned(rest) or any(_writes(rest, a) for a in read) \
                or any(isinstance(x, c_ast.Decl) and x.name in read | {v} for x in walk(rest)):
            continue
        folds = [f for f in _folds(rest) if any(isinstance(x, c_ast.ID) and x.name == v for x in walk(f.rvalue))]
        stored = any(isinstance(x, c_ast.Assignment) and x.op == "=" and array_name(x.lvalue) is not None
                     and not isinstance(x.lvalue, c_ast.ID) and v in names(x.rvalue) for x in walk(rest))
        if folds and stored:                          # a map beside the fold: the fold computes v again
            value = c_ast.Cast(c_ast.Typename(None, [], None, copy.deepcopy(s.type)), copy.deepcopy(e))
            value.to_type.type.declname = None
            for f in folds:                           # (substitute replaces children: a holder for `t += v`)
                holder = c_ast.ExprList([f.rvalue])
                substitute(holder, {v: value})
                f.rvalue = holder.exprs[0]


def _folds(node) -> list:
    return [n for n in walk(node) if isinstance(n, c_ast.Assignment) and n.op in ("+=", "-=", "*=")
            and isinstance(n.lvalue, c_ast.ID)]


def _forwarded(items: list, types: dict) -> None:
    for k, s in enumerate(items):
        if not (isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.rvalue, c_ast.ID)
                and isinstance(s.lvalue, c_ast.ArrayRef)):
            continue
        v, a = s.rvalue.name, array_name(s.lvalue)
        if a is None or types.get(v) is None or types.get(v) != types.get(a):
            continue
        rest = c_ast.Compound(items[k + 1:])
        if v in assigned(rest) or names(s.lvalue) - {a} & assigned(rest) or _writes(rest, a) \
                or any(isinstance(x, c_ast.Decl) and x.name in names(s.lvalue) | {v} for x in walk(rest)) \
                or not any(isinstance(x, c_ast.ID) and x.name == v for x in walk(rest)) \
                or not _folded_only(rest, v):
            continue
        substitute(rest, {v: copy.deepcopy(s.lvalue)})


def _folded_only(node, v: str) -> bool:
    """Whether every read of v under `node` is in the value of a compound assignment to a scalar."""
    folds = _folds(node)
    inside = {id(x) for f in folds for x in walk(f.rvalue)}
    return all(id(x) in inside for x in walk(node) if isinstance(x, c_ast.ID) and x.name == v)


def _writes(node, a: str) -> bool:
    """Whether `node` may write array a: a store to an element, or a call it is passed to."""
    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--") else None
        if target is not None and array_name(target) == a:
            return True
        if isinstance(n, c_ast.FuncCall) and any(isinstance(x, c_ast.ID) and x.name == a for x in walk(n)):
            return True
    return False
