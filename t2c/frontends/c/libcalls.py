"""`memset` and `memcpy` over whole elements of a kernel's arrays, as the loops they are; and
`assert`, as the precondition it states.

    memory_calls_as_loops(body, params, resolve) -> None      (rewrites `body` in place)
    preconditions(body) -> [condition]                        (likewise)

The class: a statement `memset(P, 0, E)` or `memcpy(P, Q, E)` where P and Q point into pointer or
array parameters (`a`, `a + e`, `&a[e]`) and E counts whole elements of P's type (`count *
sizeof(T)`, either order, T the element type, `*a` or `a[0]`), as C code zeroes an accumulator
or copies an input before its loops. Each becomes `for (int mem_iK = 0; mem_iK < count; mem_iK++)
P[mem_iK] = 0;` (`= Q[mem_iK]`; K the first number no name of the function has): the same
stores, since zero bytes are the value 0 of every integer and IEEE type and a copy between
distinct arrays is element by element. A memset of another byte value is taken for byte arrays
only (`char` types). Anything else stays a call, which the body check refuses at its line.

A scratch array allocated and freed in one block, `T *w = (T *)malloc(count * sizeof(T));` (or
`calloc(count, sizeof(T))`, `sizeof *w`) with `free(w);` later in the block and w never assigned,
is the local array it is used as, `T w[count];` (calloc's zeros stored by a loop); the free and
any test of w against NULL go (a local array is never NULL): `scratch_as_arrays`.

`assert(E);` goes, as a build with NDEBUG has it, and E is returned: where it compares the sizes
alone (`assert(n > 0 && lda >= m)`), the frontend keeps it as a constraint, so the verifier draws
only sizes the function admits; an assertion on the data (`assert(x[i] >= 0)`) leaves the
domains as they are.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import counted_for, cprint, unused_name, walk

_BYTES = {"char", "signed char", "unsigned char"}


def memory_calls_as_loops(body: c_ast.Compound, params: dict, resolve) -> None:
    """`params`: name -> normalize.Param; `resolve`: a type's names -> the C type they mean
    (typedefs followed)."""
    taken = {x.name for x in walk(body) if isinstance(x, (c_ast.ID, c_ast.Decl)) and x.name} | set(params)
    count = (f"mem_i{i}" for i in range(10**6) if f"mem_i{i}" not in taken)
    for n in walk(body):
        for attr in ("block_items", "stmt", "iftrue", "iffalse"):
            held = getattr(n, attr, None)
            if isinstance(held, list):
                setattr(n, attr, [_loop(s, params, resolve, count) or s for s in held])
            elif held is not None:
                setattr(n, attr, _loop(held, params, resolve, count) or held)


def _loop(stmt, params: dict, resolve, count) -> c_ast.For | None:
    if not (isinstance(stmt, c_ast.FuncCall) and isinstance(stmt.name, c_ast.ID)
            and stmt.name.name in ("memset", "memcpy") and stmt.args and len(stmt.args.exprs) == 3):
        return None
    dst, value, size = stmt.args.exprs
    target = _into(dst, params)
    if target is None:
        return None
    name, offset = target
    dtype = params[name].dtype
    source = _into(value, params) if stmt.name.name == "memcpy" else None
    elements = _elements(size, {name, source[0] if source else name}, dtype, resolve)
    if elements is None:
        return None
    k = next(count)
    at = lambda base, off: c_ast.ArrayRef(c_ast.ID(base), c_ast.ID(k) if off is None else
                                          c_ast.BinaryOp("+", copy.deepcopy(off), c_ast.ID(k)))
    if stmt.name.name == "memset":
        if not (isinstance(value, c_ast.Constant) and value.value in ("0", "0x0", "'\\0'")) and dtype not in _BYTES:
            return None
        stored = c_ast.Assignment("=", at(name, offset), copy.deepcopy(value))
    else:
        if source is None or params[source[0]].dtype != dtype:
            return None
        stored = c_ast.Assignment("=", at(name, offset), at(*source))
    return counted_for(k, c_ast.Constant("int", "0"), elements, stored, coord=stmt.coord)


def _into(e, params: dict) -> tuple[str, c_ast.Node | None] | None:
    """(array parameter, element offset or None) of `a`, `a + e`, `e + a` or `&a[e]`."""
    array = lambda x: isinstance(x, c_ast.ID) and x.name in params and params[x.name].kind in ("pointer", "array") \
        and len(params[x.name].dims) <= 1
    if array(e):
        return e.name, None
    if isinstance(e, c_ast.BinaryOp) and e.op == "+":
        for a, off in ((e.left, e.right), (e.right, e.left)):
            if array(a):
                return a.name, off
    if isinstance(e, c_ast.UnaryOp) and e.op == "&" and isinstance(e.expr, c_ast.ArrayRef) and array(e.expr.name):
        return e.expr.name.name, e.expr.subscript
    return None


def _elements(size, names: set[str], dtype: str, resolve) -> c_ast.Node | None:
    """`count` of `count * sizeof(T)` or `sizeof(T) * count` when T is the arrays' element."""
    if not (isinstance(size, c_ast.BinaryOp) and size.op == "*"):
        return None
    for unit, count in ((size.right, size.left), (size.left, size.right)):
        if _is_element_size(unit, names, dtype, resolve) and not any(
                isinstance(x, c_ast.UnaryOp) and x.op == "sizeof" for x in walk(count)):
            return copy.deepcopy(count)
    return None


def _is_element_size(unit, names: set[str], dtype: str, resolve) -> bool:
    if not (isinstance(unit, c_ast.UnaryOp) and unit.op == "sizeof"):
        return False
    e = unit.expr
    if isinstance(e, c_ast.Typename):
        t = e.type
        return isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
            " ".join(sorted(resolve(" ".join(t.type.names)).split())) == " ".join(sorted(dtype.split()))
    return cprint(e) in {f for n in names for f in (f"*{n}", f"{n}[0]")}


def scratch_as_arrays(body: c_ast.Node, resolve) -> None:
    """`resolve`: a type's names -> the C type they mean (typedefs followed)."""
    for block in [n for n in walk(body) if isinstance(n, c_ast.Compound) and n.block_items]:
        for k, d in enumerate(list(block.block_items)):
            found = _allocation(d, resolve)
            if found is None:
                continue
            count, zero = found
            rest = block.block_items[k + 1:]
            frees = [s for s in rest if _call_on(s, "free", d.name)]
            if len(frees) != 1 or any(isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ID)
                                      and x.lvalue.name == d.name for s in rest for x in walk(s)) \
                    or sum(_call_on(x, "free", d.name) for s in rest for x in walk(s)) != 1:
                continue
            element = d.type.type
            array = c_ast.Decl(d.name, [], [], [], [], c_ast.ArrayDecl(
                c_ast.TypeDecl(d.name, [], None, copy.deepcopy(element.type)), count, []), None, None, coord=d.coord)
            z = unused_name(body, "mem_z")
            zero_all = c_ast.Assignment("=", c_ast.ArrayRef(c_ast.ID(d.name), c_ast.ID(z)), c_ast.Constant("int", "0"))
            zeroes = [counted_for(z, c_ast.Constant("int", "0"), copy.deepcopy(count), zero_all, "long")] if zero else []
            kept = [s for s in rest if s is not frees[0] and not _null_test(s, d.name)]
            block.block_items[k:] = [array, *zeroes, *kept]
            return scratch_as_arrays(body, resolve)      # the block changed: again, for the next one


def _allocation(d, resolve):
    """(count, zeroed) of `T *w = [(T *)] malloc(count * sizeof(T))` or `calloc(count, sizeof(T))`."""
    if not (isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.PtrDecl) and isinstance(d.type.type, c_ast.TypeDecl)
            and isinstance(d.type.type.type, c_ast.IdentifierType) and d.init is not None):
        return None
    call = d.init.expr if isinstance(d.init, c_ast.Cast) else d.init
    if not (isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID) and call.args is not None):
        return None
    dtype = resolve(" ".join(d.type.type.type.names))
    args = call.args.exprs
    if call.name.name == "malloc" and len(args) == 1:
        count = _elements(args[0], {d.name}, dtype, resolve)
        return (count, False) if count is not None else None
    if call.name.name == "calloc" and len(args) == 2:
        for count, unit in (args, args[::-1]):
            if _is_element_size(unit, {d.name}, dtype, resolve):
                return copy.deepcopy(count), True
    return None


def _call_on(s, name: str, p: str) -> bool:
    """`s` is the call `name(p)`."""
    return isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) and s.name.name == name \
        and s.args is not None and [cprint(a) for a in s.args.exprs] == [p]


def _null_test(s, p: str) -> bool:
    """`if (!p) ...`, `if (p == NULL) ...` or `if (p == 0) ...`, without an else."""
    if not isinstance(s, c_ast.If) or s.iffalse is not None:
        return False
    return cprint(s.cond) in {f"!{p}", f"{p} == NULL", f"NULL == {p}", f"{p} == 0", f"0 == {p}",
                              f"{p} == ((void *) 0)", f"((void *) 0) == {p}", f"!({p})"}


def preconditions(body: c_ast.Node) -> list:
    """The conditions of the `assert(E);` statements, each statement removed."""
    found = []

    def drop(stmt):
        if isinstance(stmt, c_ast.FuncCall) and isinstance(stmt.name, c_ast.ID) and stmt.name.name == "assert" \
                and stmt.args is not None and len(stmt.args.exprs) == 1:
            found.append(stmt.args.exprs[0])
            return True
        return False
    for n in walk(body):
        if isinstance(n, c_ast.Compound) and n.block_items:
            n.block_items = [s for s in n.block_items if not drop(s)] or None
        for attr in ("stmt", "iftrue", "iffalse"):
            if drop(getattr(n, attr, None)):
                setattr(n, attr, c_ast.Compound(None))
    return found
