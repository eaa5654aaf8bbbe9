"""The variables of a reference function, by C scope, for the model that knows them by name.

    separate_reused_names(fn) -> None;  data_sources(body) -> {local: why}

`separate_reused_names` renames, in place, declarations that reuse a name for another kind of
variable (a loop's `int b` and another loop's `int b = data[i] % nb;`) or that shadow a variable
still in scope (an inner loop's `int i` inside a loop over i), and locals whose device
copy's name would clash with a C type (`t`: `dev_t`); declarations of one kind keep sharing their
name, as the model expects. `data_sources` gives the locals whose value depends on data read
from an array: a subscript through one is as data-dependent as one reading the array itself.
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast, c_generator

from ..ir.csyntax import walk as _walk


#: Local names whose device copy `dev_NAME` (a `__device__` variable of the candidate) would be a
#: type of the C headers a candidate includes (<sys/types.h>'s dev_t): such a local gets a fresh name.
DEVICE_CLASHES = frozenset({"t"})


@dataclass
class _Var:
    kind: tuple                                   # ("loop",) | ("local", type text)
    decl: c_ast.Decl
    uses: list = field(default_factory=list)      # the ID nodes that name it
    shadows: bool = False                         # declared while an outer variable of its name is in scope


def separate_reused_names(fn: c_ast.FuncDef) -> None:
    found: list[_Var] = []
    _bind_block(fn.body.block_items or [], {}, found)
    taken = {n.name for n in _walk(fn) if isinstance(n, c_ast.ID)} | {v.decl.name for v in found}
    by_name: dict[str, list[_Var]] = {}
    for v in found:
        by_name.setdefault(v.decl.name, []).append(v)
    for name, vars_ in by_name.items():
        fresh = {vars_[0].kind: name}             # the first kind in source order keeps the name
        if name in DEVICE_CLASHES:
            fresh = {("loop",): name}             # loop variables keep it; a local is printed dev_NAME
        for v in vars_:
            if v.shadows:                         # an inner loop's `int i` inside a loop over i
                k = 1
                while f"{name}_{k}" in taken:
                    k += 1
                taken.add(f"{name}_{k}")
                _rename(v, f"{name}_{k}")
                continue
            if v.kind not in fresh:
                k = 1
                while f"{name}_{k}" in taken:
                    k += 1
                fresh[v.kind] = f"{name}_{k}"
                taken.add(fresh[v.kind])
            _rename(v, fresh[v.kind])


def _bind_block(items, env: dict, found: list) -> None:
    env = dict(env)                               # a block's declarations end with it
    for item in items:
        if isinstance(item, c_ast.Decl):
            if item.init is not None:
                _bind(item.init, env, found)
            env[item.name] = _Var(("local", _type_text(item.type)), item, shadows=item.name in env)
            found.append(env[item.name])
        else:
            _bind(item, env, found)


def _bind(node, env: dict, found: list) -> None:
    if isinstance(node, c_ast.Compound):
        _bind_block(node.block_items or [], env, found)
    elif isinstance(node, c_ast.For):
        env = dict(env)                           # `for (int i ...)` declares i for the loop only
        init = node.init
        if isinstance(init, c_ast.DeclList):
            for d in init.decls:
                if d.init is not None:
                    _bind(d.init, env, found)
                env[d.name] = _Var(("loop",), d, shadows=d.name in env)
                found.append(env[d.name])
        elif init is not None:
            _bind(init, env, found)
            if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID) \
                    and init.lvalue.name in env:
                env[init.lvalue.name].kind = ("loop",)
        for part in (node.cond, node.next, node.stmt):
            if part is not None:
                _bind(part, env, found)
    elif isinstance(node, c_ast.ID):
        if node.name in env:
            env[node.name].uses.append(node)
    else:
        for _, child in node.children():
            _bind(child, env, found)


def _type_text(t) -> str:
    dims = []
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(_text(t.dim))
        t = t.type
    names = t.type.names if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) else ["?"]
    return " ".join(names) + "".join(f"[{d}]" for d in dims)


def _rename(v: _Var, name: str) -> None:
    if v.decl.name == name:
        return
    v.decl.name = name
    t = v.decl.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    t.declname = name
    for use in v.uses:
        use.name = name


def data_sources(body) -> dict[str, str]:
    """Local name -> an array its value comes from, for the locals whose value depends on data."""
    found: dict[str, str] = {}
    while True:                                   # to a fixed point: a local from a local from data
        before = dict(found)
        _assignments(body, None, found)
        if found == before:
            return found


def reads_data(node, found: dict[str, str]) -> str | None:
    """An array whose values `node`'s value depends on (read directly or through a local), or None."""
    for n in _walk(node):
        if isinstance(n, c_ast.ArrayRef):
            base = n
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            return base.name if isinstance(base, c_ast.ID) else "memory"
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID):
            return n.expr.name
        if isinstance(n, c_ast.ID) and n.name in found:
            return found[n.name]
    return None


def _assignments(node, control: str | None, found: dict) -> None:
    """Record in `found` the locals this code assigns from data (or under a condition on data)."""
    def record(target, value):
        if isinstance(target, c_ast.ID) and target.name not in found:
            source = control or (reads_data(value, found) if value is not None else None)
            if source:
                found[target.name] = source

    if isinstance(node, c_ast.If):
        inner = control or reads_data(node.cond, found)
        for branch in (node.iftrue, node.iffalse):
            if branch is not None:
                _assignments(branch, inner, found)
        return
    if isinstance(node, c_ast.Decl) and node.init is not None:
        record(c_ast.ID(node.name), node.init)
    elif isinstance(node, c_ast.Assignment):
        record(node.lvalue, node.rvalue if node.op == "=" else c_ast.BinaryOp("+", node.lvalue, node.rvalue))
    for _, child in node.children():
        _assignments(child, control, found)


def _text(node) -> str:
    return c_generator.CGenerator().visit(node) if node is not None else ""
