"""Arrays of structs whose fields share one scalar type, read as flat arrays of that type.

    flat_structs(ast, fn, typedefs) -> list[str]      (rewrites `fn` in place)

The class: a pointer parameter to a struct (`const body *b`, `struct cplx *c`, `pixel img[]`)
whose fields are all of one scalar type T, each a scalar or a fixed 1-d array (`double x, y, z,
m;`, `float re, im;`, `double pos[3];`), so that the struct holds F elements of T with no padding
(C aligns a struct of Ts as T).  Element i's field f is then element `i*F + offset(f)` of a flat
array of T, which is what the reference reads and the drop-in copies: `b[i].x` becomes
`b[(i) * F + 0]`, `b->m` and `(*b).m` `b[3]`, `b[i].pos[k]` `b[(i) * F + 4 + (k)]`; a local
pointer to the same struct type (`const pixel *p = &img[e];`) becomes a pointer to T at `&img[(e)
* F]` (pointers.py then folds it), a step of one such pointer (`p++`, `p += e`) moves F
elements a struct, and a struct local of scalar fields is one local per field (`cd t = z[i];`
is `double t_re = z[i * 2], t_im = z[i * 2 + 1];`, `out[i] = t;` one store per field).  The parameter is declared `T *` (const kept); a linker sees the same symbol
and pointer, so a program that declares the user's struct prototype links the drop-in unchanged.
Anything else that names such a pointer (an element used whole, `body t = b[i];`, a pointer
passed on) is refused at its line; so are structs of mixed types, nested structs and unions, and
structs passed by value (normalize's messages).
"""
from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import NamedTuple

from pycparser import c_ast

from ...errors import UnsupportedC
from ...ir.csyntax import set_child, walk


class Layout(NamedTuple):
    dtype: str                       # T, as the file writes it after typedefs
    width: int                       # F: elements of T a struct holds
    fields: dict                     # name -> (offset, count; 0 for a scalar field)


def flat_structs(ast: c_ast.FileAST, fn: c_ast.FuncDef, typedefs: dict) -> list[str]:
    layouts = _layouts(ast, typedefs)
    args = fn.decl.type.args
    pointers: dict[str, Layout] = {}
    for d in (args.params if args else ()):
        if isinstance(d, c_ast.Decl) and (layout := _pointee(d, layouts, typedefs)):
            _retype(d, layout)
            pointers[d.name] = layout
    params = list(pointers)
    values: dict[str, tuple[Layout, str]] = {}
    taken = {n.name for n in walk(fn) if isinstance(n, (c_ast.ID, c_ast.Decl)) and n.name}
    for d in [n for n in walk(fn.body) if isinstance(n, c_ast.Decl)]:
        if (layout := _pointee(d, layouts, typedefs)) and isinstance(d.type, c_ast.PtrDecl):
            _retype(d, layout)
            pointers[d.name] = layout
        elif isinstance(layout := layouts.get(_value_type(d, typedefs, layouts)), Layout) \
                and all(not count for _, count in layout.fields.values()):
            stem = d.name
            while any(f"{stem}_{f}" in taken for f in layout.fields):
                stem += "_"
            values[d.name] = (layout, stem)
    if pointers or values:
        fn.body = _Flatten(pointers, values).expr(fn.body)
    return params


def _value_type(d: c_ast.Decl, typedefs, layouts) -> str | None:
    """The struct type name a local `d` holds by value (`cd t;`, `struct cplx t;`), else None."""
    return _key(d.type.type, typedefs, layouts) if isinstance(d.type, c_ast.TypeDecl) else None


def _key(inner, typedefs, layouts) -> str | None:
    """The name `layouts` knows a type node by (`struct cplx`, a typedef's, through typedefs)."""
    key = f"struct {inner.name}" if isinstance(inner, c_ast.Struct) else \
        " ".join(inner.names) if isinstance(inner, c_ast.IdentifierType) else None
    while key not in layouts and key in typedefs:
        key = typedefs[key]
    return key


def _layouts(ast, typedefs) -> dict[str, Layout | str]:
    """Each struct type the file defines, by the names it goes by (`struct cplx`, a typedef's),
    -> its Layout, or why it has none."""
    named: dict[str, c_ast.Struct] = {}
    for n in walk(ast):
        if isinstance(n, c_ast.Struct) and n.name and n.decls is not None:
            named[f"struct {n.name}"] = n
    for e in ast.ext:
        if isinstance(e, c_ast.Typedef) and isinstance(e.type, c_ast.TypeDecl) and isinstance(e.type.type, c_ast.Struct):
            s = e.type.type
            named[e.name] = s if s.decls is not None else named.get(f"struct {s.name}")
    return {name: _layout(s, typedefs) for name, s in named.items() if s is not None}


def _layout(s: c_ast.Struct, typedefs) -> Layout | str:
    from .normalize import TYPE_NAMES, resolved
    if _aligned(s):
        return "its declaration sets an alignment or packing, which moves its fields"
    fields, dtype, width = {}, None, 0
    for d in s.decls:
        t, count = d.type, 0
        if isinstance(t, c_ast.ArrayDecl) and isinstance(t.dim, c_ast.Constant) and t.dim.type == "int":
            t, count = t.type, int(t.dim.value.rstrip("uUlL"), 0)
        if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)) or d.bitsize is not None:
            return f"its field '{d.name}' is no scalar of a plain type nor a fixed array of one"
        mine = TYPE_NAMES.get(resolved(" ".join(t.type.names), typedefs))
        if mine is None or dtype not in (None, mine):
            return f"its fields are of different types ({dtype}, {' '.join(t.type.names)})" if mine else \
                f"its field '{d.name}' has the type '{' '.join(t.type.names)}'"
        fields[d.name], dtype, width = (width, count), mine, width + max(count, 1)
    return Layout(dtype, width, fields) if fields else "it has no fields"


def _aligned(s: c_ast.Struct) -> bool:
    """Whether the struct's source lines (its first to one past its last field's) name an
    alignment or packing, which the preprocessor's `__attribute__(x)=` would hide."""
    first, last = s.coord, (s.decls[-1].coord if s.decls else s.coord)
    try:
        lines = Path(first.file).read_text(errors="replace").splitlines()[first.line - 1:last.line + 1]
    except (OSError, TypeError, AttributeError):
        return False
    return re.search(r"\b(aligned|packed|_Alignas|alignas)\b|#\s*pragma\s+pack", "\n".join(lines)) is not None


def _pointee(d: c_ast.Decl, layouts, typedefs) -> Layout | None:
    """The layout of the struct `d` points at (`T *p`, `T p[]`, `T p[n]`), None for any other
    declaration; refuses a pointer to a struct that has none."""
    t = d.type
    if not isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)) or not isinstance(t.type, c_ast.TypeDecl):
        return None
    key = _key(t.type.type, typedefs, layouts)
    layout = layouts.get(key)
    if isinstance(layout, str):
        raise UnsupportedC(f"'{d.name}' points at the struct '{key}', and {layout}", file=d.coord.file,
                           line=d.coord.line, col=d.coord.column,
                           hint="t2c reads arrays of structs whose fields share one type (double x, y, z;); "
                                "pass each field as its own array otherwise")
    return layout


def _retype(d: c_ast.Decl, layout: Layout) -> None:
    """`const body *b` -> `const double *b` (`body b[]` too); `body b[N]` -> `double b[N * F]`."""
    old = d.type.type
    element = c_ast.TypeDecl(d.name, list(old.quals), None, c_ast.IdentifierType(layout.dtype.split()))
    dim = d.type.dim if isinstance(d.type, c_ast.ArrayDecl) else None
    d.type = c_ast.PtrDecl([], element) if dim is None else c_ast.ArrayDecl(element, _int(
        int(dim.value.rstrip("uUlL"), 0) * layout.width) if isinstance(dim, c_ast.Constant) else _times(dim, layout.width), [])


def _int(v: int) -> c_ast.Constant:
    return c_ast.Constant("int", str(v))


def _plus(a, b):
    return b if isinstance(a, c_ast.Constant) and a.value == "0" else \
        a if isinstance(b, c_ast.Constant) and b.value == "0" else c_ast.BinaryOp("+", a, b)


def _times(e, width: int):
    return e if width == 1 else c_ast.BinaryOp("*", e, _int(width))


class _Flatten:
    """`pointers`: name -> the layout it points at; `values`: a struct local held by value ->
    (its layout, the stem of the scalar locals that hold its fields: `t` holds `t_re`, `t_im`)."""

    def __init__(self, pointers: dict[str, Layout], values: dict | None = None):
        self.pointers, self.values = pointers, values or {}

    def whole(self, e, layout: Layout):
        """Each field of struct value `e` as an expression, by field name: `z[i]`, `*p`, `p->...`,
        a struct local, `{a, b}`; None where `e` is none of these."""
        if isinstance(e, c_ast.ArrayRef) and self.mine(e.name) is layout:
            at = _times(self.expr(e.subscript), layout.width)
            return {f: c_ast.ArrayRef(c_ast.ID(e.name.name), _plus(copy.deepcopy(at), _int(o)))
                    for f, (o, _) in layout.fields.items()}
        if isinstance(e, c_ast.UnaryOp) and e.op == "*" and self.mine(e.expr) is layout:
            return {f: c_ast.ArrayRef(c_ast.ID(e.expr.name), _int(o)) for f, (o, _) in layout.fields.items()}
        if isinstance(e, c_ast.ID) and e.name in self.values and self.values[e.name][0] is layout:
            return {f: c_ast.ID(f"{self.values[e.name][1]}_{f}") for f in layout.fields}
        if isinstance(e, c_ast.InitList) and len(e.exprs) == len(layout.fields):
            return {f: self.expr(x) for f, x in zip(layout.fields, e.exprs)}
        return None

    def block(self, items: list) -> list:
        """A block's statements, each declaration of a struct local as one scalar local per field
        and each assignment of a whole struct (`t = z[i];`, `z[i] = t;`) as one per field."""
        out = []
        for s in items:
            if isinstance(s, c_ast.Decl) and s.name in self.values:
                layout, stem = self.values[s.name]
                parts = self.whole(s.init, layout) if s.init is not None else {}
                if parts is None:
                    self.refuse(s, f"the struct '{s.name}' starts as a value t2c does not read field by field")
                out += [c_ast.Decl(f"{stem}_{f}", [], [], [], [], c_ast.TypeDecl(f"{stem}_{f}", [], None,
                        c_ast.IdentifierType(layout.dtype.split())), parts.get(f), None, coord=s.coord)
                        for f in layout.fields]
            elif isinstance(s, c_ast.Assignment) and s.op == "=" and (layout := self.struct_of(s.lvalue)):
                left, right = self.whole(s.lvalue, layout), self.whole(s.rvalue, layout)
                if left is None or right is None:
                    self.refuse(s, "a whole struct is assigned from or to what t2c does not read field by field")
                out += [c_ast.Assignment("=", left[f], right[f], s.coord) for f in layout.fields]
            else:
                out.append(self.expr(s))
        return out

    def struct_of(self, e) -> Layout | None:
        """The layout of what `e` holds where it is a whole struct of ours (`z[i]`, `*p`, a local)."""
        if isinstance(e, c_ast.ArrayRef) and (layout := self.mine(e.name)) or \
                isinstance(e, c_ast.UnaryOp) and e.op == "*" and (layout := self.mine(e.expr)):
            return layout
        return self.values[e.name][0] if isinstance(e, c_ast.ID) and e.name in self.values else None

    def mine(self, n) -> Layout | None:
        return self.pointers.get(n.name) if isinstance(n, c_ast.ID) else None

    def field(self, ref: c_ast.StructRef):
        """(pointer name, its layout, flat index of the field's first element, field count) of
        `X[e].f`, `X->f` or `(*X).f`; None where `ref` reads no field of ours."""
        base = ref.name
        if ref.type == "." and isinstance(base, c_ast.ArrayRef) and (layout := self.mine(base.name)):
            at = _times(self.expr(base.subscript), layout.width)
            x = base.name.name
        elif ref.type == "->" and (layout := self.mine(base)) or ref.type == "." and isinstance(base, c_ast.UnaryOp) \
                and base.op == "*" and (layout := self.mine(base.expr)):
            at, x = _int(0), (base if ref.type == "->" else base.expr).name
        else:
            return None
        if ref.field.name not in layout.fields:
            self.refuse(ref, f"'{ref.field.name}' is no field of what '{x}' points at")
        offset, count = layout.fields[ref.field.name]
        return x, layout, _plus(at, _int(offset)), count

    def expr(self, n):
        """`n` with every use of our pointers flattened (children rewritten in place)."""
        if isinstance(n, c_ast.Compound):
            n.block_items = self.block(n.block_items or []) or None
            return n
        if isinstance(n, c_ast.StructRef) and n.type == "." and isinstance(n.name, c_ast.ID) and n.name.name in self.values:
            layout, stem = self.values[n.name.name]
            if n.field.name not in layout.fields:
                self.refuse(n, f"'{n.field.name}' is no field of '{n.name.name}'")
            return c_ast.ID(f"{stem}_{n.field.name}", n.coord)
        if isinstance(n, c_ast.Assignment) and n.op == "=" and self.struct_of(n.lvalue):
            return c_ast.Compound(self.block([n]), n.coord)          # `for (...) out[i] = a[i];`
        if isinstance(n, c_ast.ID) and n.name in self.values:
            self.refuse(n, f"the struct '{n.name}' is used whole here; t2c reads struct locals field by field")
        if isinstance(n, c_ast.ArrayRef) and isinstance(n.name, c_ast.StructRef) and (f := self.field(n.name)) and f[3]:
            return c_ast.ArrayRef(c_ast.ID(f[0]), _plus(f[2], self.expr(n.subscript)), n.coord)
        if isinstance(n, c_ast.StructRef) and (f := self.field(n)):
            if f[3]:
                self.refuse(n, f"the array field '{n.field.name}' is used whole")
            return c_ast.ArrayRef(c_ast.ID(f[0]), f[2], n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op == "&" and isinstance(n.expr, c_ast.ArrayRef) \
                and (layout := self.mine(n.expr.name)):
            return c_ast.UnaryOp("&", c_ast.ArrayRef(c_ast.ID(n.expr.name.name),
                                                     _times(self.expr(n.expr.subscript), layout.width)), n.coord)
        if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-") and (layout := self.mine(n.left)):
            return c_ast.BinaryOp(n.op, c_ast.ID(n.left.name), _times(self.expr(n.right), layout.width), n.coord)
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "p++", "--", "p--") and (layout := self.mine(n.expr)):
            op = "+=" if "+" in n.op else "-="
            return c_ast.Assignment(op, c_ast.ID(n.expr.name), _int(layout.width), n.coord)
        if isinstance(n, c_ast.Assignment) and n.op in ("+=", "-=") and (layout := self.mine(n.lvalue)):
            return c_ast.Assignment(n.op, c_ast.ID(n.lvalue.name), _times(self.expr(n.rvalue), layout.width), n.coord)
        if isinstance(n, c_ast.Decl) and n.name in self.pointers:
            if n.init is not None:
                n.init = self.expr(n.init)
            return n
        if self.mine(n):
            self.refuse(n, f"'{n.name}' points at structs and is used here other than through a field "
                           f"({n.name}[i].f, {n.name}->f)")
        for name, child in n.children():
            set_child(n, name, self.expr(child))
        return n

    @staticmethod
    def refuse(n, message: str):
        coord = n.coord
        raise UnsupportedC(message, file=coord.file if coord else None, line=coord.line if coord else None,
                           col=coord.column if coord else None,
                           hint="read and write an array of structs one field at a time (b[i].x = ...), "
                                "and step a pointer to one by whole structs (p++, p += k)")
