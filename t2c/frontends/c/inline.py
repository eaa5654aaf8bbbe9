"""Helpers that take the kernel's arrays, written into the kernel where it calls them.

    inline_array_helpers(fn, functions) -> None      (rewrites fn's body in place)

The class: a function of the same file with a pointer parameter (`static double dot(const double
*a, const double *b, int n)`), calling no function of the file, whose only `return` is its last
statement and whose pointer parameters it only indexes (`a[k]`, `*a`); called once in a
statement of the kernel, not under `?:`, `&&` or `||`, with each pointer argument a pointer
parameter X of the kernel, whole or at an offset: `X`, `X + e`, `e + X` or `&X[e]` (a row,
`dot(&A[i * n], x, n)`), e arithmetic on names. The statement becomes a block: each scalar
parameter a local set to its argument (C passes a copy), the helper's body with its locals
renamed apart and `a[k]` read as `X[e + k]`, the returned value in a local, then the statement
reading that local where it made the call. The same statements run in the same order on the
same elements, and the model sees the kernel's loops around the helper's (a call passing arrays
is outside it). Anything else stays a call (helpers.py carries and checks it).
"""
from __future__ import annotations

import copy
import itertools

from pycparser import c_ast

from ...ir.csyntax import set_child, walk


def inline_array_helpers(fn: c_ast.FuncDef, functions: dict[str, c_ast.FuncDef], resolve=lambda t: t) -> None:
    """`resolve`: a type's name as the typedef it stands for (`real` -> `double`)."""
    pointers = {p.name: _element(p.type, resolve) for p in (fn.decl.type.args.params if fn.decl.type.args else ())
                if isinstance(p, c_ast.Decl) and isinstance(p.type, (c_ast.PtrDecl, c_ast.ArrayDecl))
                and isinstance(p.type.type, c_ast.TypeDecl)}
    inlinable = {name: f for name, f in functions.items() if f is not fn and _inlinable(f, functions)}
    counter = itertools.count()
    slots = [(n, attr) for n in walk(fn.body) for attr, child in n.children()
             if isinstance(n, c_ast.Compound) or attr in ("stmt", "iftrue", "iffalse")]
    for parent, attr in slots:                        # every statement's place
        stmt = dict(parent.children())[attr]
        calls = [c for c in _evaluated(stmt) if isinstance(c, c_ast.FuncCall)
                 and isinstance(c.name, c_ast.ID) and c.name.name in inlinable]
        if len(calls) == 1 and (body := _inlined(stmt, calls[0], inlinable[calls[0].name.name], pointers, resolve,
                                                 f"{calls[0].name.name}_{next(counter)}_")) is not None:
            set_child(parent, attr, c_ast.Compound(body + ([] if stmt is calls[0] else [stmt]), stmt.coord))


def _inlinable(f: c_ast.FuncDef, functions: dict) -> bool:
    params = f.decl.type.args.params if f.decl.type.args else []
    if not any(isinstance(p, c_ast.Decl) and isinstance(p.type, c_ast.PtrDecl) for p in params):
        return False
    if not all(isinstance(p, c_ast.Decl) and (isinstance(p.type, c_ast.TypeDecl) or isinstance(p.type, c_ast.PtrDecl)
                                              and isinstance(p.type.type, c_ast.TypeDecl)) for p in params):
        return False
    items = f.body.block_items or []
    returns = [n for n in walk(f.body) if isinstance(n, c_ast.Return)]
    void = isinstance(f.decl.type.type, c_ast.TypeDecl) and f.decl.type.type.type.names == ["void"]
    if returns != ([] if void else items[-1:]) or (returns and returns[0].expr is None):
        return False
    pointers = {p.name for p in params if isinstance(p.type, c_ast.PtrDecl)}
    used = [n for n in walk(f.body) if isinstance(n, c_ast.ID) and n.name in pointers]
    indexed = [n for n in walk(f.body) if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.ID)
               and n.name.name in pointers or isinstance(n, c_ast.UnaryOp) and n.op == "*"
               and isinstance(n.expr, c_ast.ID) and n.expr.name in pointers]
    calls_file = any(isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in functions
                     for n in walk(f.body))
    statics = any(isinstance(n, c_ast.Decl) and "static" in (n.storage or ()) for n in walk(f.body))
    return len(used) == len(indexed) and not calls_file and not statics


def _evaluated(stmt) -> list:
    """The nodes of a statement that run each time it does (not under ?:, &&, ||, nor in a
    nested statement)."""
    if isinstance(stmt, (c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch,
                         c_ast.TernaryOp)) or isinstance(stmt, c_ast.BinaryOp) and stmt.op in ("&&", "||"):
        return []
    return [stmt, *(n for _, child in stmt.children() for n in _evaluated(child))]


def _inlined(stmt, call: c_ast.FuncCall, f: c_ast.FuncDef, kernel_pointers: dict, resolve, prefix: str) -> list | None:
    """The statements that run the helper for this call, the call then naming its result (None
    where an argument is no whole or offset pointer parameter of the kernel of the parameter's
    element type, const where the kernel's is: helpers.py says why a call is refused)."""
    params = f.decl.type.args.params
    args = call.args.exprs if call.args else []
    if len(args) != len(params):
        return None
    body = copy.deepcopy(f.body)
    scalars = {p.name for p in params if not isinstance(p.type, c_ast.PtrDecl)}
    _prefixed(body, {n.name for n in walk(body) if isinstance(n, c_ast.Decl)} | scalars, prefix)
    setup, offsets = [], {}
    for p, arg in zip(params, args):
        if isinstance(p.type, c_ast.PtrDecl):
            if (target := _offset(arg, kernel_pointers)) is None:
                return None
            (ptype, pconst), (atype, aconst) = _element(p.type, resolve), kernel_pointers[target[0]]
            if ptype != atype or aconst and not pconst:
                return None
            offsets[p.name] = target
        else:
            decl = copy.deepcopy(p)
            decl.name = decl.type.declname = prefix + p.name
            decl.init = copy.deepcopy(arg)
            setup.append(decl)
    for n in list(walk(body)):
        for attr, child in n.children():
            if (x := _reindexed(child, offsets)) is not None:
                set_child(n, attr, x)
    items = body.block_items or []
    if items and isinstance(items[-1], c_ast.Return):
        result = c_ast.Decl(prefix + "result", [], [], [], [], copy.deepcopy(f.decl.type.type), items[-1].expr, None)
        result.type.declname = prefix + "result"
        items = [*items[:-1], result]
        parent, attr = next((n, a) for n in walk(stmt) for a, child in n.children() if child is call)
        set_child(parent, attr, c_ast.ID(prefix + "result", call.coord))
    return [*setup, *items]


def _element(t, resolve) -> tuple[str, bool]:
    """(element type, const) of a pointer or 1-d array declarator."""
    inner = t.type
    names_ = getattr(inner.type, "names", None)
    return (resolve(" ".join(names_)) if names_ else f"?{id(t)}"), "const" in inner.quals


def _prefixed(body, local: set[str], prefix: str) -> None:
    """The helper's locals and scalar parameters named apart from the kernel's, in place."""
    for n in walk(body):
        if isinstance(n, c_ast.ID) and n.name in local:
            n.name = prefix + n.name
        elif isinstance(n, c_ast.Decl) and n.name in local:
            n.name = prefix + n.name
            t = n.type
            while not isinstance(t, c_ast.TypeDecl):
                t = t.type
            t.declname = n.name


def _offset(arg, pointers: set[str]) -> tuple[str, c_ast.Node | None] | None:
    """(X, e) of `X`, `X + e`, `e + X`, `&X[e]` (e None for X whole), X a pointer parameter."""
    if isinstance(arg, c_ast.ID) and arg.name in pointers:
        return arg.name, None
    if isinstance(arg, c_ast.BinaryOp) and arg.op == "+":
        for x, e in ((arg.left, arg.right), (arg.right, arg.left)):
            if isinstance(x, c_ast.ID) and x.name in pointers and _pure(e):
                return x.name, e
    if isinstance(arg, c_ast.UnaryOp) and arg.op == "&" and isinstance(arg.expr, c_ast.ArrayRef) \
            and isinstance(arg.expr.name, c_ast.ID) and arg.expr.name.name in pointers and _pure(arg.expr.subscript):
        return arg.expr.name.name, arg.expr.subscript
    return None


def _pure(e) -> bool:
    return all(isinstance(n, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp)) for n in walk(e))


def _reindexed(node, offsets: dict):
    """`a[k]` as `X[e + k]`, `*a` as `X[e]` (X[k], X[0] for a whole X); None for anything else."""
    if isinstance(node, c_ast.ArrayRef) and isinstance(node.name, c_ast.ID) and node.name.name in offsets:
        x, e = offsets[node.name.name]
        index = node.subscript if e is None else c_ast.BinaryOp("+", copy.deepcopy(e), node.subscript)
        return c_ast.ArrayRef(c_ast.ID(x), index, node.coord)
    if isinstance(node, c_ast.UnaryOp) and node.op == "*" and isinstance(node.expr, c_ast.ID) \
            and node.expr.name in offsets:
        x, e = offsets[node.expr.name]
        return c_ast.ArrayRef(c_ast.ID(x), copy.deepcopy(e) if e is not None else c_ast.Constant("int", "0"), node.coord)
    return None
