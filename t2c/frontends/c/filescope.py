"""Arrays the kernel reads as file-scope variables, as parameters of its reference.

    file_scope_arrays(ast, fn) -> list[str]      (adds parameters to `fn` in place)

The class: a file-scope array `T a[N]...` (not const, no initializer, each extent a constant)
that the kernel names and does not declare itself, as the vectorizer suites write their loops
(`real_t a[LEN_1D]; void s000(void) { for (...) a[i] = b[i] + 1; }`).  Each becomes a parameter
declared as the variable is, after the function's own, in the file's order, so the reference
computes from its parameters alone; the IS marks it `file_scope`, and the drop-in reaches the
user's variable by its name (ir/abi.py).  File-scope scalars are refused as before.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import walk


def file_scope_arrays(ast: c_ast.FileAST, fn: c_ast.FuncDef) -> list[str]:
    args = fn.decl.type.args
    own = [p for p in (args.params if args else ()) if not (isinstance(p, c_ast.Typename) and p.name is None)]
    mine = {n.name for n in walk(fn.body) if isinstance(n, c_ast.Decl)} | {getattr(p, "name", None) for p in own}
    used = {n.name for n in walk(fn.body) if isinstance(n, c_ast.ID)} - mine
    found: dict[str, c_ast.Decl] = {}
    for e in ast.ext:
        if isinstance(e, c_ast.Decl) and e.name in used and e.name not in found and _plain_array(e):
            d = copy.deepcopy(e)
            d.storage, d.funcspec = [], []
            found[e.name] = d
    if found:
        fn.decl.type.args = c_ast.ParamList([*own, *found.values()], args.coord if args else fn.decl.coord)
    return list(found)


def _plain_array(d: c_ast.Decl) -> bool:
    """`T a[N][M]` with constant extents, no initializer, elements not const."""
    t = d.type
    if not isinstance(t, c_ast.ArrayDecl) or d.init is not None:
        return False
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None or not all(isinstance(n, (c_ast.Constant, c_ast.BinaryOp)) for n in walk(t.dim)):
            return False
        t = t.type
    return isinstance(t, c_ast.TypeDecl) and "const" not in t.quals and isinstance(t.type, c_ast.IdentifierType)
