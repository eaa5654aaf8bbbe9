"""Local pointers at a fixed offset into an array parameter, read as the array itself.

    fold_fixed_pointers(body, params) -> None      (rewrites `body` in place)

The class: a local `T *p = X + e;` (or `e + X`), `T *p = &X[e];` or `T *p = X;`, X a pointer or
1-d array parameter of element type T, or `T *p = &X[i][e];`, X a 2-d array parameter; declared
in a block with that initializer, and every later use `p[f]` or `*p` (so p is never assigned,
incremented, passed on, or has its address taken); every variable of `e` (and `i`) a parameter
never written, or the variable of a `for` enclosing the declaration that the loop's body never
writes: `e` cannot change while p lives.  Each `p[f]` becomes `X[(e) + (f)]`, `*p` becomes
`X[e]` (`X[i][...]` for the 2-d form) and the declaration goes, so the reference computes what
the user's function computes and the analysis sees plain subscripts of X (a write through p is
a write of X).  Anything else is left as written, for the checks and the analysis to refuse as
they did.
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import assigned, walk



def fold_fixed_pointers(body: c_ast.Compound, params: dict) -> None:
    """`params`: name -> normalize.Param."""
    _Folder(params, body).block(body, [])


def _declared(nodes) -> set[str]:
    return {n.name for s in nodes for n in walk(s) if isinstance(n, c_ast.Decl) and n.name}


def _loop_vars(f: c_ast.For) -> set[str]:
    init = f.init
    items = init.decls if isinstance(init, c_ast.DeclList) else \
        init.exprs if isinstance(init, c_ast.ExprList) else [init]
    return {x.name for x in items if isinstance(x, c_ast.Decl)} | \
        {x.lvalue.name for x in items if isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ID)}


def _pure(e) -> bool:
    """Names, constants and arithmetic on them: no reads, calls or side effects."""
    return all(isinstance(n, (c_ast.ID, c_ast.Constant, c_ast.BinaryOp, c_ast.Cast, c_ast.Typename,
                              c_ast.TypeDecl, c_ast.IdentifierType))
               or isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+") for n in walk(e))


def _deref_of(n, p: str) -> bool:
    """`n` is `p[f]` or `*p`."""
    if isinstance(n, c_ast.ArrayRef):
        return isinstance(n.name, c_ast.ID) and n.name.name == p
    return isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) and n.expr.name == p


class _Folder:
    def __init__(self, params, body):
        self.params, self.written, self.locals = params, assigned(body), _declared([body])

    def block(self, node, loops):
        """Fold the candidates of every block under `node`; `loops`: the enclosing `for`s."""
        if isinstance(node, c_ast.Compound):
            items = node.block_items or []
            folded = [k for k, item in enumerate(items)
                      if isinstance(item, c_ast.Decl) and self.fold(item, items[k + 1:], loops)]
            node.block_items = [s for k, s in enumerate(items) if k not in folded] or None
            for s in node.block_items or ():
                self.block(s, loops)
        elif isinstance(node, c_ast.For):
            self.block(node.stmt, loops + [node])
        elif node is not None:
            for _, kid in node.children():
                self.block(kid, loops)

    def fold(self, decl: c_ast.Decl, scope: list, loops) -> bool:
        """Rewrite the uses of `decl`'s pointer in `scope` when it is of the class; True if so."""
        base = self.base(decl)
        if base is None:
            return False
        array, subs = base                     # p is &array[subs...]; a last subscript None is 0
        p = decl.name
        uses = [n for s in scope for n in walk(s) if isinstance(n, c_ast.ID) and n.name == p]
        derefs = [n for s in scope for n in walk(s) if _deref_of(n, p)]
        if len(uses) != len(derefs) or any(_deref_of(s, p) for s in scope) or p in _declared(scope):
            return False                       # p used otherwise (moved, passed on), or shadowed
        if not all(self.fixed(n.name, loops) for e in subs if e is not None for n in walk(e)
                   if isinstance(n, c_ast.ID)):
            return False

        def ref(f):
            """`p[f]` (`*p`: f None) as a reference of the array: its last subscript is e + f."""
            e = copy.deepcopy(subs[-1])
            last = f if e is None else e if f is None else c_ast.BinaryOp("+", e, f)
            out = c_ast.ID(array)
            for s in subs[:-1]:
                out = c_ast.ArrayRef(out, copy.deepcopy(s))
            return c_ast.ArrayRef(out, c_ast.Constant("int", "0") if last is None else last, decl.coord)

        for s in scope:
            _rewrite(s, lambda n: (ref(n.subscript) if isinstance(n, c_ast.ArrayRef) else ref(None))
                     if _deref_of(n, p) else None)
        return True

    def fixed(self, name: str, loops) -> bool:
        """`name` keeps its value while a pointer declared inside `loops` lives: a parameter
        never written, or the variable of the innermost enclosing loop that has it, which
        that loop's body neither writes nor shadows."""
        if name in self.params:
            return self.params[name].kind in ("int", "scalar") and name not in self.written | self.locals
        loop = next((f for f in reversed(loops) if name in _loop_vars(f)), None)
        return loop is not None and name not in assigned(loop.stmt) | _declared([loop.stmt])

    def base(self, decl: c_ast.Decl):
        """(X, [subscripts]) when `decl` is `T *p = X + e`, `&X[e]`, `X` or `&X[i][e]` with X an
        array parameter of element type T (never assigned, never shadowed) and each subscript
        pure; None otherwise."""
        t, init = decl.type, decl.init
        if init is None or decl.storage or not isinstance(t, c_ast.PtrDecl) \
                or not isinstance(t.type, c_ast.TypeDecl) or not isinstance(t.type.type, c_ast.IdentifierType):
            return None
        if isinstance(init, c_ast.ID):
            array, subs = init.name, [None]
        elif isinstance(init, c_ast.BinaryOp) and init.op == "+":
            left_is = isinstance(init.left, c_ast.ID) and init.left.name in self.params
            x, e = (init.left, init.right) if left_is else (init.right, init.left)
            array, subs = (x.name if isinstance(x, c_ast.ID) else None), [e]
        elif isinstance(init, c_ast.UnaryOp) and init.op == "&" and isinstance(init.expr, c_ast.ArrayRef):
            subs, ref = [], init.expr
            while isinstance(ref, c_ast.ArrayRef):
                subs.insert(0, ref.subscript)
                ref = ref.name
            array = ref.name if isinstance(ref, c_ast.ID) else None
        else:
            return None
        param = self.params.get(array)
        if param is None or param.kind not in ("pointer", "array") or array in self.written | self.locals \
                or len(subs) != max(len(param.dims), 1) or len(subs) > 2 \
                or not all(_pure(e) for e in subs if e is not None) \
                or t.type.type.names != _element_names(param):
            return None
        return array, subs


def _element_names(param) -> list[str]:
    t = param.node.type
    while not isinstance(t, c_ast.TypeDecl):
        t = t.type
    return t.type.names


def _rewrite(node, pick):
    """Replace, in place, each node under `node` for which `pick` gives a replacement, and
    go on into the replacement (its subscript may hold another)."""
    for slot, kid in node.children():
        new = pick(kid)
        if new is None:
            new = kid
        _rewrite(new, pick)
        if "[" in slot:
            name, i = slot.rstrip("]").split("[")
            getattr(node, name)[int(i)] = new
        else:
            setattr(node, slot, new)


def exchanged(body: c_ast.Node, pointers: set[str]) -> dict[str, frozenset[str]]:
    """Pointers the kernel assigns to one another, as ping-pong buffers are written (`T *t = a;
    a = b; b = t;`, `T *src = work, *dst = u;`, `p = odd ? a : b`): each such name -> its class,
    the names whose arrays it may point at, for each class that holds a pointer parameter of
    `pointers`. Every array of a class is read and written through every name of it, so each
    gets the extent of all the class's subscripts (normalize)."""
    named = set(pointers) | {n.name for n in walk(body) if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.PtrDecl)}
    root = {}

    def find(x):
        while root.get(x, x) != x:
            x = root[x]
        return x

    for n in walk(body):
        target, value = (n.name, n.init) if isinstance(n, c_ast.Decl) else \
            (n.lvalue.name, n.rvalue) if isinstance(n, c_ast.Assignment) and n.op == "=" \
            and isinstance(n.lvalue, c_ast.ID) else (None, None)
        sources = [value] if isinstance(value, c_ast.ID) else \
            [value.iftrue, value.iffalse] if isinstance(value, c_ast.TernaryOp) else []
        for s in sources:
            if target in named and isinstance(s, c_ast.ID) and s.name in named:
                root[find(target)] = find(s.name)
    classes: dict[str, set[str]] = {}
    for x in named:
        classes.setdefault(find(x), set()).add(x)
    return {x: frozenset(c) for c in classes.values() if len(c) > 1 and c & pointers for x in c}
