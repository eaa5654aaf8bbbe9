"""File-scope constants, as the values they are.

    inline_constants(ast) -> None      (rewrites the file's function bodies in place)

The class: a file-scope scalar declared `const` (often `static const`) of an arithmetic type,
whose initializer is a constant expression (numbers, casts, arithmetic, other such constants):
`static const double EPS = 1e-9;`, `const int TILE = 32;`, as C code names its parameters; and a
file-scope enumerator, `enum { N = 256, M = N / 2 };`, as C code names its array bounds. Each use
in a function of the file (its parameters' bounds and its body) becomes the initializer, cast to
the declared type, `((double) 1e-9)`, or the enumerator's int value: the value the name has
everywhere, since a const object is never written (writing one through a cast is undefined) and
an enumerator is a constant. A function's parameter or local of the same name hides it there. A
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
        if isinstance(d, (c_ast.Decl, c_ast.Typedef)):
            _enumerators(d.type, values)
        if _constant(d, values):
            typ = copy.deepcopy(d.type)
            typ.declname, typ.quals = None, []
            cast = substitute(c_ast.Cast(c_ast.Typename(None, [], None, typ), copy.deepcopy(d.init)), values)
            value = _int(cast.expr) if typ.type.names == ["int"] else None  # an int's value, as an enumerator's
            values[d.name] = _constant_node(value) if value is not None else cast
    if not values:
        return
    for fn in (e for e in ast.ext if isinstance(e, c_ast.FuncDef)):
        hidden = {n.name for n in walk(fn) if isinstance(n, c_ast.Decl) and n.name}
        used = {k: v for k, v in values.items() if k not in hidden}
        if used:
            substitute(fn, used, keep=_written)


def _enumerators(typ, values: dict) -> None:
    """Each enumerator of an `enum {...}` (its values listed) that `typ` declares, into `values`:
    the int it is (C: the given value, else one more than the one before, else 0)."""
    while isinstance(typ, (c_ast.TypeDecl, c_ast.PtrDecl, c_ast.ArrayDecl)):
        typ = typ.type
    if not isinstance(typ, c_ast.Enum) or typ.values is None:
        return
    last = -1
    for e in typ.values.enumerators:
        value = _int(substitute(c_ast.UnaryOp("+", copy.deepcopy(e.value)), values)) if e.value is not None \
            else last + 1                            # (+E: substitute replaces children, E may be a name)
        if value is None:
            return                                   # not a constant t2c reads: the body check names it
        values[e.name] = _constant_node(value)
        last = value


def _constant_node(value: int) -> c_ast.Node:
    return c_ast.Constant("int", str(value)) if value >= 0 else c_ast.UnaryOp("-", c_ast.Constant("int", str(-value)))


_OPS = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__, "<<": int.__lshift__, ">>": int.__rshift__,
        "|": int.__or__, "&": int.__and__, "^": int.__xor__}


def _int(e) -> int | None:
    """The value of an integer constant expression (C's division truncates toward zero)."""
    if isinstance(e, c_ast.Constant) and e.type == "int":
        return int(e.value.rstrip("uUlL"), 0)
    if isinstance(e, c_ast.UnaryOp) and e.op in ("-", "+", "~") and (v := _int(e.expr)) is not None:
        return {"-": -v, "+": v, "~": ~v}[e.op]
    if isinstance(e, c_ast.BinaryOp) and (a := _int(e.left)) is not None and (b := _int(e.right)) is not None:
        if e.op in _OPS:
            return _OPS[e.op](a, b)
        if e.op in ("/", "%") and b:
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return q if e.op == "/" else a - b * q
    return None


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
