"""The file's own functions that a kernel calls: carried into its reference.

    carried(ast, fn, typedefs, enums) -> [Helper] (static C text each, callee first)

Takes the translation unit and the kernel's definition; gives the file's functions the kernel
calls, directly or through one another, each printed as `static` C with plain types. A helper
takes scalars and returns a scalar or nothing, its body checked like a kernel's
(normalize.BodyCheck), so it is a pure function generators may call anywhere. Refuses
(UnsupportedC, `file:line:col`) recursion, I/O and other calls neither defined in the file nor
math, globals, static locals, pointer or array parameters, a pointer return.
docs/annotations.md, "Helper functions".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...ir.csyntax import cprint, walk as _walk
from .normalize import (BodyCheck, MATH_FUNCTIONS, Param, base_type, fail, local_names, resolve_typedefs,
                        strip_pragmas, unsigned_names)

@dataclass(frozen=True)
class Helper:
    name: str
    text: str                 # its C definition, `static`, as the reference carries it


def defined_functions(ast: c_ast.FileAST) -> dict[str, c_ast.FuncDef]:
    return {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}


def carried(ast: c_ast.FileAST, fn: c_ast.FuncDef, typedefs: dict, enums: set[str]) -> list[Helper]:
    """C text of the helpers `fn` calls, transitively, callee first (see the module docstring)."""
    funcs = defined_functions(ast)
    order, state = [], {fn.decl.name: "open"}

    def visit(f: c_ast.FuncDef, path: list[str]):
        for call in (n for n in _walk(f.body) if isinstance(n, c_ast.FuncCall)):
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            if name in MATH_FUNCTIONS:
                continue
            if state.get(name) == "open":
                cycle = path[path.index(name):] + [name]
                fail(call, f"recursive call to '{name}'" + (f" ({' -> '.join(cycle)})" if len(cycle) > 2 else ""),
                     "write the recursion as a loop (t2c carries helpers without recursion)")
            if name not in funcs or name == "main":
                continue                                    # BodyCheck refuses it where it is
            if state.get(name) is None:
                state[name] = "open"
                visit(funcs[name], path + [name])
                state[name] = "done"
                order.append(funcs[name])

    visit(fn, [fn.decl.name])
    names = {f.decl.name for f in order}
    return [Helper(f.decl.name, _checked(f, typedefs, enums, names)) for f in order]


def _checked(f: c_ast.FuncDef, typedefs: dict, enums: set[str], helpers: set[str]) -> str:
    """One helper, checked, printed `static` with its parameter and return types resolved."""
    f = copy.deepcopy(f)
    name = f.decl.name
    params = {}
    for p in f.decl.type.args.params if f.decl.type.args else ():
        if isinstance(p, c_ast.EllipsisParam):
            fail(p, f"helper '{name}' is variadic", "give it a fixed parameter list")
        if isinstance(p, c_ast.Typename) and p.name is None:
            continue                                        # f(void)
        if isinstance(p, c_ast.ID):
            fail(p, f"helper '{name}' has K&R-style parameters", "write a prototype: double f(double x)")
        if not (isinstance(p.type, c_ast.TypeDecl) and isinstance(p.type.type, c_ast.IdentifierType)):
            fail(p, f"helper '{name}' takes the pointer or array '{p.name}'; t2c carries helpers of scalars only",
                 "pass it the elements it needs as scalars, or inline it into the kernel")
        p.type.type = c_ast.IdentifierType(base_type(p.type.type, typedefs, p).split())
        params[p.name] = Param(p.name, "", "scalar", node=p)
    ret = f.decl.type.type
    if not isinstance(ret, c_ast.TypeDecl):
        fail(f.decl, f"helper '{name}' returns a pointer", "return a scalar, or inline it into the kernel")
    if ret.type.names != ["void"]:
        ret.type = c_ast.IdentifierType(base_type(ret.type, typedefs, f.decl).split())
    for d in _walk(f.body):
        if isinstance(d, c_ast.Decl) and "static" in (d.storage or ()):
            fail(d, f"static local '{d.name}' in helper '{name}' keeps state from one call to the next",
                 "make it an ordinary local")
    BodyCheck(name, params, local_names(f.body), enums, helpers, unsigned_names(f, typedefs)).visit(f.body)
    f.decl.storage, f.decl.funcspec = ["static"], []
    f.body = strip_pragmas(resolve_typedefs(f.body, typedefs))
    return cprint(f).strip() + "\n"
