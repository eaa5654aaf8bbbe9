"""Which integer outputs of a reference are rounded from floating point: their tolerance.

`rounded_outputs(kernel)` gives the integer outputs whose value flows from a float-to-integer
conversion: an explicit cast of a float expression (`(int)(x * 0.5f)`), or an assignment of a
float expression to an integer element (`img[i] = 0.3f * r + ...`), carried on through integer
arithmetic, integer locals and other outputs.  A candidate may compute the float value before
the conversion in another legal way (FMA contraction, another order) and land on the other side
of a rounding boundary, so such an output may differ by one unit; an output computed by integer
arithmetic alone must match exactly.

A value chosen by comparing floats (an argmax, a threshold, `a < b ? i : j`) is not rounded:
the comparison picks one of exact values, and one unit off is a different answer.  Subscripts
carry nothing either (reading at a rounded index is a read, not a rounding).
"""
from __future__ import annotations

from pycparser import c_ast

from ...ir import FLOAT_DTYPES, Kernel
from .normalize import array_name

_ARITH = {"+", "-", "*", "/", "%"}
_FLOAT_NAMES = {"float", "double"}


def rounded_outputs(k: Kernel) -> set[str]:
    from . import kernel_definition, parse_c
    fn = kernel_definition(parse_c(k.reference, f"{k.name}.c"))
    types = {s.name: "int" for s in k.sizes} | {s.name: s.dtype for s in k.scalars} \
        | {a.name: a.dtype for a in k.arrays}
    assigns = []
    for node in _walk(fn):
        if isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.TypeDecl) \
                and isinstance(node.type.type, c_ast.IdentifierType):
            types[node.name] = " ".join(node.type.type.names)
        if isinstance(node, c_ast.Assignment):
            assigns.append((node.lvalue, node.rvalue))
        if isinstance(node, c_ast.Return) and node.expr is not None and k.returns is not None:
            assigns.append((c_ast.ID(k.returns.name), node.expr))
    floating = lambda t: any(w in _FLOAT_NAMES for w in t.split())
    rounded: set[str] = set()

    def ty(e) -> str:
        if isinstance(e, c_ast.Constant):
            return e.type
        if isinstance(e, c_ast.ID):
            return types.get(e.name, "int")
        if isinstance(e, c_ast.ArrayRef):
            return ty(e.name)
        if isinstance(e, c_ast.Cast):
            return " ".join(getattr(getattr(e.to_type.type, "type", None), "names", ["void *"]))
        if isinstance(e, c_ast.FuncCall):       # <math.h>: expf -> float, exp -> double, abs -> int
            name = e.name.name if isinstance(e.name, c_ast.ID) else ""
            if name in ("abs", "labs"):
                return "int"
            return "float" if name.endswith("f") and name not in ("erf", "modf") else "double"
        if isinstance(e, c_ast.BinaryOp):
            if e.op not in _ARITH:
                return "int"
            return next((t for t in (ty(e.left), ty(e.right)) if floating(t)), ty(e.left))
        if isinstance(e, c_ast.UnaryOp):
            return "int" if e.op == "!" else ty(e.expr)
        if isinstance(e, c_ast.TernaryOp):
            return next((t for t in (ty(e.iftrue), ty(e.iffalse)) if floating(t)), ty(e.iftrue))
        if isinstance(e, c_ast.Assignment):
            return ty(e.lvalue)
        return "int"

    def carries(e) -> bool:
        """An integer value that a float-to-integer conversion fed."""
        if isinstance(e, c_ast.Cast):
            return not floating(ty(e)) and (floating(ty(e.expr)) or carries(e.expr))
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            return array_name(e) in rounded
        if isinstance(e, c_ast.BinaryOp):
            return e.op in _ARITH and (carries(e.left) or carries(e.right))
        if isinstance(e, c_ast.UnaryOp):
            return e.op in ("-", "+") and carries(e.expr)
        if isinstance(e, c_ast.TernaryOp):
            return carries(e.iftrue) or carries(e.iffalse)
        return False

    changed = True
    while changed:                                 # to a fixed point: locals feed outputs
        changed = False
        for lvalue, rvalue in assigns:
            target = array_name(lvalue)
            if target in rounded or target is None or floating(ty(lvalue)):
                continue
            if floating(ty(rvalue)) or carries(rvalue):
                rounded.add(target)
                changed = True
    return {x.name for x in k.outputs if x.dtype not in FLOAT_DTYPES and x.name in rounded}


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)
