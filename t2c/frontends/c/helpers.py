"""The file's own functions that a kernel calls: carried into its reference.

    carried(ast, fn, typedefs, enums) -> [Helper] (static C text and signature each, callee first)

Takes the translation unit and the kernel's definition; gives the file's functions the kernel
calls, directly or through one another, each printed as `static` C with plain types, with what
it does through each pointer parameter (`HelperParam.reads`, `.writes`: the kernel's intents
count them). Its body is checked like a kernel's (normalize.BodyCheck). A construct is carried
where the sequential host reference stays a function of the kernel's inputs, refused where not:

- scalar parameters: carried (a pure function: poly calls it like a math function);
- pointer and array parameters: carried; a call passes a whole array of the caller by name, of
  the same element type and rank (const stays const), and the helper indexes it (no pointer
  arithmetic, no local pointers); a write through one writes the caller's array. Poly runs a
  kernel that makes such a call in one thread (the accesses are outside its model); llm and
  hybrid can parallelize it against the same reference;
- a `static` local never written: carried (a table, fixed by its initializer); one written:
  refused (it keeps state from one call to the next, as a written global would);
- a function calling itself: carried when a parameter bounds the depth (an int parameter it never
  assigns, passed as `d - k`, or `d / k`, `d >> k` where d >= 1, on every recursive call, each
  reached only under a test bounding d below: `if (d <= 0) return ...;`); refused otherwise, and
  mutual recursion always (no bound is proven through several functions);
- refused: I/O and process calls, globals, calls neither defined in the file nor math, a pointer
  return, variadic and K&R definitions.
Refusals are UnsupportedC at `file:line:col`. docs/annotations.md, "Helper functions".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from ...errors import UserError
from ...ir.csyntax import array_name, cprint, walk as _walk
from .normalize import (TYPE_NAMES, BodyCheck, MATH_FUNCTIONS, Param, base_type, declared_const, fail, local_names,
                        read_param, resolve_typedefs, resolved, strip_pragmas, unsigned_names)


@dataclass(frozen=True)
class HelperParam:
    name: str
    dtype: str
    rank: int = 0             # 0: a scalar; 1: a pointer or 1-d array; k: a k-d array
    const: bool = False       # its elements are declared const
    reads: bool = False       # elements are read through it (by the helper or the helpers it passes it to)
    writes: bool = False      # elements are written through it


@dataclass(frozen=True)
class Helper:
    name: str
    text: str                 # its C definition, `static`, as the reference carries it
    params: tuple[HelperParam, ...] = ()


def defined_functions(ast: c_ast.FileAST) -> dict[str, c_ast.FuncDef]:
    return {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}


def _callee(call: c_ast.FuncCall) -> str | None:
    return call.name.name if isinstance(call.name, c_ast.ID) else None


def carried(ast: c_ast.FileAST, fn: c_ast.FuncDef, typedefs: dict, enums: set[str]) -> list[Helper]:
    """The helpers `fn` calls, transitively, callee first, checked (see the module docstring);
    the calls `fn` makes to them are checked too."""
    funcs = defined_functions(ast)
    order, state = [], {fn.decl.name: "open"}

    def visit(f: c_ast.FuncDef, path: list[str]):
        for call in (n for n in _walk(f.body) if isinstance(n, c_ast.FuncCall)):
            name = _callee(call)
            if name in MATH_FUNCTIONS or (len(path) > 1 and name == path[-1]):
                continue                                    # a helper calling itself: _checked bounds it
            if state.get(name) == "open":
                cycle = path[path.index(name):] + [name]
                fail(call, f"recursive call to '{name}'" + (f" ({' -> '.join(cycle)})" if len(cycle) > 2 else ""),
                     "write the recursion as a loop, or move it into a helper the kernel calls (a helper may call "
                     "itself with a bounded depth)" if name == path[0]
                     else "write the recursion as a loop, or as one helper that calls itself with a depth "
                     "parameter it decreases (t2c proves no bound through several functions)")
            if name not in funcs or name == "main":
                continue                                    # BodyCheck refuses it where it is
            if state.get(name) is None:
                state[name] = "open"
                visit(funcs[name], path + [name])
                state[name] = "done"
                order.append(funcs[name])

    visit(fn, [fn.decl.name])
    done: dict[str, Helper] = {}
    for f in order:
        done[f.decl.name] = _checked(f, typedefs, enums, done)
    if done:
        _check_calls(fn.body, fn.decl.name, _kernel_arrays(fn, typedefs) | _local_arrays(fn.body, typedefs),
                     done, _statics(fn.body))
    return list(done.values())


def _checked(f: c_ast.FuncDef, typedefs: dict, enums: set[str], done: dict[str, Helper]) -> Helper:
    """One helper, checked, with its parameters' effects; printed `static` with its parameter
    and return types resolved."""
    f = copy.deepcopy(f)
    name = f.decl.name
    params, sig = {}, []
    for p in f.decl.type.args.params if f.decl.type.args else ():
        if isinstance(p, c_ast.EllipsisParam):
            fail(p, f"helper '{name}' is variadic", "give it a fixed parameter list")
        if isinstance(p, c_ast.Typename) and p.name is None:
            continue                                        # f(void)
        if isinstance(p, c_ast.ID):
            fail(p, f"helper '{name}' has K&R-style parameters", "write a prototype: double f(double x)")
        one = _param(p, name, typedefs)
        sig.append(one)
        params[p.name] = Param(p.name, one.dtype, "scalar" if not one.rank else
                               "pointer" if one.rank == 1 else "array", node=p)
    _extents_name_params(f, name, params)
    ret = f.decl.type.type
    if not isinstance(ret, c_ast.TypeDecl):
        fail(f.decl, f"helper '{name}' returns a pointer", "return a scalar, or write through a pointer parameter")
    if ret.type.names != ["void"]:
        ret.type = c_ast.IdentifierType(base_type(ret.type, typedefs, f.decl).split())
    recursive = any(isinstance(n, c_ast.FuncCall) and _callee(n) == name for n in _walk(f.body))
    if recursive:
        _bounded_recursion(f, typedefs)
    pointers = {p for p, q in params.items() if q.kind != "scalar"}
    for d in _walk(f.body):
        if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.PtrDecl):
            fail(d, f"helper '{name}' declares the local pointer '{d.name}'",
                 "index its pointer parameters instead (v[i + k])")
    _pointers_only_indexed(f.body, pointers, name)
    callable_ = done | ({name: Helper(name, "", tuple(sig))} if recursive else {})
    BodyCheck(name, params, local_names(f.body), enums, callable_, unsigned_names(f, typedefs)).visit(f.body)
    while True:                                             # a call to itself passes effects back: to a fixed point
        touched = _touches(f.body, pointers, callable_)
        sig = [replace(s, reads=touched[s.name][0], writes=touched[s.name][1]) if s.rank else s for s in sig]
        if not recursive or tuple(sig) == callable_[name].params:
            break
        callable_ = done | {name: Helper(name, "", tuple(sig))}
    arrays = {s.name: (s.dtype, s.rank, s.const) for s in sig if s.rank} | _local_arrays(f.body, typedefs)
    _check_calls(f.body, name, arrays, callable_, _statics(f.body))
    f.decl.storage, f.decl.funcspec = ["static"], []
    f.body = strip_pragmas(resolve_typedefs(f.body, typedefs))
    return Helper(name, cprint(f).strip() + "\n", tuple(sig))


def _param(p: c_ast.Decl, helper: str, typedefs: dict) -> HelperParam:
    """A helper's parameter: a scalar, or a pointer or array (`T *v`, `const T v[]`, `T a[n][m]`:
    the first extent may be left out, as C allows) of a scalar type. Its type is written
    resolved (no typedef names), like the body's."""
    t, rank = p.type, 0
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None and rank:
            fail(p, f"parameter '{p.name}' of helper '{helper}' leaves out an inner extent",
                 "give every extent after the first, e.g. double a[][m]")
        rank, t = rank + 1, t.type
    if isinstance(t, c_ast.PtrDecl):
        if rank or not isinstance(t.type, c_ast.TypeDecl):
            what = "function pointer" if isinstance(t.type, c_ast.FuncDecl) else "pointer to a pointer or to an array"
            fail(p, f"parameter '{p.name}' of helper '{helper}' is a {what}",
                 "pass arrays as flat pointers (double *v) or C99 arrays (double a[n][m])")
        rank, t = 1, t.type
    if isinstance(t, c_ast.FuncDecl):
        fail(p, f"parameter '{p.name}' of helper '{helper}' is a function", "call the function by its name instead")
    if not (isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType)):
        base_type(getattr(t, "type", t), typedefs, p)        # its message: structs and unions are refused
    dtype = base_type(t.type, typedefs, p)
    t.type = c_ast.IdentifierType(dtype.split())
    return HelperParam(p.name, dtype, rank, bool(rank) and declared_const(p))


def _extents_name_params(f: c_ast.FuncDef, helper: str, params: dict) -> None:
    """An array parameter's extents (`double a[n][m]`) name the helper's own parameters only."""
    for p in f.decl.type.args.params if f.decl.type.args else ():
        t = getattr(p, "type", None)
        while isinstance(t, c_ast.ArrayDecl):
            for n in _walk(t.dim) if t.dim is not None else ():
                if isinstance(n, c_ast.ID) and n.name not in params:
                    fail(n, f"an extent of '{p.name}' in helper '{helper}' names '{n.name}', which is not one "
                         "of its parameters", "pass the extent as a parameter")
            t = t.type


def _pointers_only_indexed(body, pointers: set[str], helper: str) -> None:
    """A pointer or array parameter appears only indexed (`v[i]`, `*v`) or passed on whole to a
    call; anything else (`v + 1`, `v = w`, a cast) is pointer arithmetic, refused."""
    def visit(node, parent):
        for slot, child in node.children():
            if isinstance(child, c_ast.ID) and child.name in pointers:
                ok = (isinstance(node, c_ast.ArrayRef) and slot == "name") \
                    or (isinstance(node, c_ast.UnaryOp) and node.op == "*") \
                    or (isinstance(node, c_ast.ExprList) and isinstance(parent, c_ast.FuncCall))
                if not ok:
                    fail(child, f"helper '{helper}' uses its pointer parameter '{child.name}' in "
                         f"`{cprint(node)}`: t2c reads a pointer only indexed",
                         "index it instead: v[i + k], not *(v + k)")
            visit(child, node)
    visit(body, None)


def _touches(body, names: set[str], helpers: dict[str, Helper]) -> dict[str, tuple[bool, bool]]:
    """(read, written) for each of `names` (the caller's arrays): its subscripts and derefs, and
    what the helpers it is passed to do through it."""
    out = {n: [False, False] for n in names}

    def visit(node, lvalue=False, reads_too=False):
        if isinstance(node, c_ast.Assignment):
            visit(node.lvalue, True, node.op != "=")
            visit(node.rvalue)
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            visit(node.expr, True, True)
        elif isinstance(node, (c_ast.ArrayRef, c_ast.UnaryOp)) and array_name(node) in out \
                and (isinstance(node, c_ast.ArrayRef) or node.op == "*"):
            mark = out[array_name(node)]
            mark[0] |= (not lvalue) or reads_too
            mark[1] |= lvalue
            while isinstance(node, c_ast.ArrayRef):
                visit(node.subscript)
                node = node.name
        elif isinstance(node, c_ast.FuncCall) and _callee(node) in helpers:
            for arg, p in zip(node.args.exprs if node.args else (), helpers[_callee(node)].params):
                if p.rank and isinstance(arg, c_ast.ID) and arg.name in out:
                    out[arg.name][0] |= p.reads
                    out[arg.name][1] |= p.writes
                else:
                    visit(arg)
        else:
            for _, child in node.children():
                visit(child)
    visit(body)
    return {n: (r, w) for n, (r, w) in out.items()}


def _kernel_arrays(fn: c_ast.FuncDef, typedefs: dict) -> dict[str, tuple[str, int, bool]]:
    """The kernel's array and pointer parameters as the reference declares them: (element type,
    rank: 1 for a flat pointer, whatever its annotated shape; const). A parameter t2c refuses is
    left to normalize's message."""
    out = {}
    for d in fn.decl.type.args.params if fn.decl.type.args else ():
        if not isinstance(d, c_ast.Decl):
            continue
        try:
            p = read_param(d, typedefs)
        except UserError:
            continue
        if p.kind in ("array", "pointer"):
            out[p.name] = (p.dtype, len(p.dims) if p.kind == "array" else 1, declared_const(d))
    return out


def _local_arrays(body, typedefs: dict) -> dict[str, tuple[str, int, bool]]:
    """The local arrays of a body: (element type, rank, const)."""
    out = {}
    for d in _walk(body):
        if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.ArrayDecl):
            t, rank = d.type, 0
            while isinstance(t, c_ast.ArrayDecl):
                rank, t = rank + 1, t.type
            if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
                written = resolved(" ".join(t.type.names), typedefs)
                out[d.name] = (TYPE_NAMES.get(written, written), rank, declared_const(d))
    return out


def _statics(body) -> set[str]:
    return {d.name for d in _walk(body) if isinstance(d, c_ast.Decl) and "static" in (d.storage or ())}


def _check_calls(body, caller: str, arrays: dict, helpers: dict[str, Helper], statics: set[str]) -> None:
    """Each call to a helper passes one argument per parameter; a pointer or array parameter
    gets a whole array of the caller (`arrays`: name -> element type, rank, const) by name, of
    its element type and rank, const only where the parameter is const, and never a static local
    the helper writes; a scalar parameter gets no array."""
    form = lambda r: "a flat array" if r == 1 else f"a {r}-d array"
    for call in (n for n in _walk(body) if isinstance(n, c_ast.FuncCall) and _callee(n) in helpers):
        h = helpers[_callee(call)]
        args = call.args.exprs if call.args else []
        if len(args) != len(h.params):
            fail(call, f"the call to '{h.name}' passes {len(args)} argument(s); '{h.name}' takes {len(h.params)}",
                 "pass one argument per parameter")
        for arg, p in zip(args, h.params):
            bare = arg.name if isinstance(arg, c_ast.ID) and arg.name in arrays else None
            if not p.rank:
                if bare:
                    fail(arg, f"'{caller}' passes the array '{bare}' to '{h.name}', whose parameter '{p.name}' is "
                         "a scalar", f"pass one element ({bare}[i]), or declare '{p.name}' a pointer")
                continue
            if bare is None:
                a = next((n.name for n in _walk(arg) if isinstance(n, c_ast.ID) and n.name in arrays), "a")
                fail(arg, f"'{caller}' passes `{cprint(arg)}` to the pointer parameter '{p.name}' of '{h.name}': "
                     "t2c passes a helper whole arrays, by name",
                     f"pass the array whole and the index as an argument of its own ({a}, i), not &{a}[i] or {a} + i")
            dtype, rank, const = arrays[bare]
            if dtype != p.dtype or rank != p.rank:
                fail(arg, f"'{caller}' passes '{bare}' ({form(rank)} of {dtype}) to '{p.name}' of '{h.name}' "
                     f"({form(p.rank)} of {p.dtype})",
                     "declare the parameter as the array is declared: a flat pointer (T *v) for a flat "
                     "array, T a[n][m] for a 2-d one, and the same element type")
            if const and not p.const:
                fail(arg, f"'{caller}' passes the const array '{bare}' to '{p.name}' of '{h.name}', which is not const",
                     f"declare it const {p.dtype} *{p.name}" + (" and do not write through it" if p.writes else ""))
            if bare in statics and p.writes:
                fail(arg, f"'{caller}' passes its static local '{bare}' to '{h.name}', which writes it: it would keep "
                     "state from one call to the next, so the result would depend on the calls before this one",
                     "make it an ordinary local")


# -- recursion with a bound ------------------------------------------------------------------

_SIGNED = {"int", "long", "short", "char"}


def _bounded_recursion(f: c_ast.FuncDef, typedefs: dict) -> None:
    """Refuses a helper that calls itself unless an int parameter bounds the depth (the module
    docstring): `d` never assigned, every recursive call passing `d - k` (k >= 1), or `d / k`
    (k >= 2) or `d >> k` (k >= 1) where the call is reached only for d >= 1, and every call
    reached only under tests that bound d below. The depth is then at most d's first value less
    that bound, plus one."""
    name = f.decl.name
    args = [p for p in (f.decl.type.args.params if f.decl.type.args else ()) if isinstance(p, c_ast.Decl)]
    assigned = {n.lvalue.name for n in _walk(f.body) if isinstance(n, c_ast.Assignment)
                and isinstance(n.lvalue, c_ast.ID)} | \
        {n.expr.name for n in _walk(f.body) if isinstance(n, c_ast.UnaryOp)
         and n.op in ("++", "--", "p++", "p--") and isinstance(n.expr, c_ast.ID)}
    shadowed = local_names(f.body)
    depth = {p.name: i for i, p in enumerate(args) if isinstance(p.type, c_ast.TypeDecl)
             and isinstance(p.type.type, c_ast.IdentifierType)
             and resolved(" ".join(p.type.type.names), typedefs).split()[-1] in _SIGNED
             and "unsigned" not in resolved(" ".join(p.type.type.names), typedefs).split()
             and p.name not in assigned | shadowed}
    sites: list = []
    _guarded(f.body, {}, set(depth), name, sites)

    def bounded_by(d, call, low):
        given = call.args.exprs if call.args else []
        return depth[d] < len(given) and _decreases(given[depth[d]], d, low.get(d))
    if any(all(bounded_by(d, c, low) for c, low in sites) for d in depth):
        return
    call = next((c for c, low in sites if not any(bounded_by(d, c, low) for d in depth)), sites[0][0])
    fail(call, f"recursive call to '{name}' without a bound t2c can see: no int parameter that '{name}' never "
         "assigns is decreased on every recursive call (d - 1, d / 2) under a test that stops it (d > 0)",
         f"give '{name}' a depth parameter and return before the recursive calls when it runs out "
         "(if (depth <= 0) return ...;), or write the recursion as a loop")


def _guarded(node, low: dict, ints: set[str], name: str, sites: list) -> None:
    """Each call to `name` under `node`, with the lower bounds on `ints` that hold where it is
    reached: from the tests of the ifs, ?: and &&/|| around it, and from an earlier
    `if (test) return ...;` of its block."""
    if node is None:
        return
    if isinstance(node, c_ast.Compound):
        for item in node.block_items or ():
            _guarded(item, low, ints, name, sites)
            if isinstance(item, c_ast.If):
                if _exits(item.iftrue) and not (item.iffalse is not None and _exits(item.iffalse)):
                    low = _join(low, _lows(item.cond, False, ints))
                elif item.iffalse is not None and _exits(item.iffalse) and not _exits(item.iftrue):
                    low = _join(low, _lows(item.cond, True, ints))
        return
    if isinstance(node, (c_ast.If, c_ast.TernaryOp)):
        _guarded(node.cond, low, ints, name, sites)
        _guarded(node.iftrue, _join(low, _lows(node.cond, True, ints)), ints, name, sites)
        _guarded(node.iffalse, _join(low, _lows(node.cond, False, ints)), ints, name, sites)
        return
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        _guarded(node.left, low, ints, name, sites)
        _guarded(node.right, _join(low, _lows(node.left, node.op == "&&", ints)), ints, name, sites)
        return
    if isinstance(node, c_ast.FuncCall) and _callee(node) == name:
        sites.append((node, low))
    for _, child in node.children():
        _guarded(child, low, ints, name, sites)


def _exits(s) -> bool:
    """Whether the statement always leaves the function."""
    if isinstance(s, c_ast.Return):
        return True
    if isinstance(s, c_ast.Compound):
        return bool(s.block_items) and _exits(s.block_items[-1])
    if isinstance(s, c_ast.If):
        return s.iffalse is not None and _exits(s.iftrue) and _exits(s.iffalse)
    return False


def _join(a: dict, b: dict) -> dict:
    return {k: max(a.get(k, v), b.get(k, v)) for k, v in (a | b).items()} if b else a


_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_NEGATE = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def _lows(cond, truth: bool, ints: set[str]) -> dict[str, int]:
    """Lower bounds on `ints` that hold where `cond` has the value `truth`."""
    if isinstance(cond, c_ast.UnaryOp) and cond.op == "!":
        return _lows(cond.expr, not truth, ints)
    if not isinstance(cond, c_ast.BinaryOp):
        return {}
    if cond.op in ("&&", "||"):
        both = (cond.op == "&&") == truth                  # a && b true, a || b false: each side
        return _join(_lows(cond.left, truth, ints), _lows(cond.right, truth, ints)) if both else {}
    if cond.op not in _MIRROR:
        return {}
    op, var, k = cond.op, cond.left, _int_constant(cond.right)
    if not (isinstance(var, c_ast.ID) and var.name in ints and k is not None):
        op, var, k = _MIRROR[cond.op], cond.right, _int_constant(cond.left)
        if not (isinstance(var, c_ast.ID) and var.name in ints and k is not None):
            return {}
    op = op if truth else _NEGATE[op]
    return {var.name: k + 1} if op == ">" else {var.name: k} if op == ">=" else {}


def _int_constant(node) -> int | None:
    if isinstance(node, c_ast.UnaryOp) and node.op == "-":
        v = _int_constant(node.expr)
        return None if v is None else -v
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long", "long int", "char") \
            or isinstance(node, c_ast.Constant) and node.type.endswith("int"):
        try:
            return int(node.value.rstrip("uUlL"), 0)
        except ValueError:
            return None
    return None


def _decreases(arg, d: str, low: int | None) -> bool:
    """Whether `arg` is `d - k` (k >= 1), or `d / k` (k >= 2) or `d >> k` (k >= 1) where d >= 1:
    less than d wherever d >= low."""
    if low is None or not (isinstance(arg, c_ast.BinaryOp) and isinstance(arg.left, c_ast.ID)
                           and arg.left.name == d):
        return False
    k = _int_constant(arg.right)
    if k is None:
        return False
    return (arg.op == "-" and k >= 1) or (low >= 1 and ((arg.op == "/" and k >= 2) or (arg.op == ">>" and k >= 1)))
