"""Integer locals that name an index expression, read as that expression.

    inline_index_names(body, types) -> None      (rewrites `body` in place)

The class: `T v = E;` in a block, T an integer type, E arithmetic on names and integer constants
(no array read, call or side effect), as code that computes a flat index once writes it
(`int idx = i * m + j; C[idx] = A[idx] + B[j * n + i];`) or a size derived once (`int total = n * m;`); v never assigned nor its address taken
nor declared again, and no name of E assigned or declared anew (shadowed) in the statements after the declaration
in that block. Every later read of v in the block becomes (T)(E), the cast left out where E's names all
have type T, and the declaration goes: E has the same value wherever v was read, so the
reference computes what the user's function computes, and the analysis sees the subscripts
themselves. Earlier locals of the class are read into later ones' E first
(`int row = i * n; int idx = row + j;`). Anything else is left as written.
"""
from __future__ import annotations

from pycparser import c_ast

from ...ir.csyntax import assigned, cprint, names, substitute, walk

_INTEGER = {"int", "long", "unsigned", "short", "char", "signed", "size_t", "ptrdiff_t"}


def inline_index_names(body: c_ast.Node, types: dict[str, str]) -> None:
    """`types`: each parameter's and local's type as the reference declares it (`long`, `int`)."""
    for n in list(walk(body)):
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = _inlined(n.block_items, types)


def _inlined(items: list, types: dict) -> list:
    out = list(items)
    for i, s in enumerate(out):
        if not (isinstance(s, c_ast.Decl) and isinstance(s.type, c_ast.TypeDecl) and s.init is not None
                and isinstance(s.type.type, c_ast.IdentifierType) and set(s.type.type.names) <= _INTEGER
                and _arithmetic(s.init)):
            continue
        rest = c_ast.Compound([x for x in out[i + 1:] if x is not None])
        if s.name in assigned(rest) or names(s.init) & assigned(rest) or any(
                isinstance(n, c_ast.Decl) and n.name in names(s.init) | {s.name} for n in walk(rest)):
            continue
        typ = " ".join(s.type.type.names)
        value = s.init if all(types.get(x) == typ for x in names(s.init)) else \
            c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(typ.split()))),
                       s.init)
        substitute(rest, {s.name: value})
        out[i] = None
    return [s for s in out if s is not None]


def _arithmetic(e) -> bool:
    """Names, integer constants and integer arithmetic on them, and the minimum or maximum of two
    such (`MIN(ii + B, n)`, a tile's end): nothing read, called or written."""
    minmax = {id(n.cond) for n in walk(e) if isinstance(n, c_ast.TernaryOp) and _min_or_max(n)}
    return all(isinstance(n, (c_ast.ID, c_ast.Cast, c_ast.Typename, c_ast.TypeDecl, c_ast.IdentifierType))
               or isinstance(n, c_ast.Constant) and n.type in ("int", "long", "unsigned int")
               or isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-", "*", "/", "%", "<<", ">>")
               or isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+")
               or isinstance(n, c_ast.TernaryOp) and _min_or_max(n) or id(n) in minmax for n in walk(e))


def _min_or_max(t: c_ast.TernaryOp) -> bool:
    """`a < b ? a : b` and its kin: the branches are the two sides of the comparison."""
    c = t.cond
    return isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=", ">", ">=") and \
        {cprint(t.iftrue), cprint(t.iffalse)} == {cprint(c.left), cprint(c.right)}
