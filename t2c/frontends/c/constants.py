"""File-scope constants, as the values they are.

    inline_constants(ast) -> None      (rewrites the file's function bodies in place)

The class: a file-scope scalar declared `const` (often `static const`) of an arithmetic type,
whose initializer is a constant expression (numbers, casts, arithmetic, other such constants):
`static const double EPS = 1e-9;`, `const int TILE = 32;`, as C code names its parameters. Each use
in a function of the file becomes the initializer, cast to the declared type, `((double) 1e-9)`:
the value the name has everywhere, since a const object is never written (writing one through a
cast is undefined). A function's parameter or local of the same name hides the constant there. A
global that is not such a constant (written, a pointer, an array, an initializer that reads
memory or calls) is left as it is, and the body check refuses its use at the line.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import substitute, walk

_PURE = (c_ast.Constant, c_ast.ID, c_ast.BinaryOp, c_ast.UnaryOp, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl,
         c_ast.IdentifierType, c_ast.TernaryOp)


def inline_constants(ast: c_ast.FileAST) -> None:
    values: dict[str, c_ast.Node] = {}
    for d in ast.ext:
        if _constant(d, values):
            typ = copy.deepcopy(d.type)
            typ.declname, typ.quals = None, []
            values[d.name] = substitute(c_ast.Cast(c_ast.Typename(None, [], None, typ), copy.deepcopy(d.init)), values)
    if not values:
        return
    for fn in (e for e in ast.ext if isinstance(e, c_ast.FuncDef)):
        hidden = {n.name for n in walk(fn) if isinstance(n, c_ast.Decl) and n.name}
        used = {k: v for k, v in values.items() if k not in hidden}
        if used:
            substitute(fn.body, used, keep=_written)


def _constant(d, values: dict) -> bool:
    return isinstance(d, c_ast.Decl) and "const" in d.quals and isinstance(d.type, c_ast.TypeDecl) \
        and isinstance(d.type.type, c_ast.IdentifierType) and d.init is not None and "extern" not in d.storage \
        and all(isinstance(n, _PURE) and (not isinstance(n, c_ast.ID) or n.name in values)
                and not (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&", "*"))
                for n in walk(d.init))


def _written(parent, child) -> bool:
    """Assigned or its address taken: the body check says so, with the constant's name."""
    return isinstance(parent, c_ast.Assignment) and parent.lvalue is child or \
        isinstance(parent, c_ast.UnaryOp) and parent.op in ("++", "--", "p++", "p--", "&")
