"""A one-hot selection, written as the element it selects.

    normalize_selections(fn, sizes, within) -> None   (rewrites fn in place, before the model)

Rewrites an innermost `for (j = lo; j < hi; j++)` (or descending) whose body is one update of a
local at the index equal to e, `acc += (j == e) ? f(j) : 0;` (`e == j`, `-=`) or `if (j == e) x
OP= f(j);` (any assignment), as `if (lo <= e && e < hi) x OP= f(e);`.  Exact because j takes
each value once, so the update runs at most once, at j == e: e and j are signed integers (no
unsigned or float comparison), e reads neither j nor what the loop writes, f is pure and was
only ever evaluated at j == e (skipped elements, NaN or not, were never read).  The ternary's
zeros at the other indices change nothing: x - 0 is x, x + 0 is x but for -0.0, so a floating
`+=` needs x set to a literal just before the loop; an integer x takes integer zeros only; f(e)
is cast where the zero's type is the wider.  Where e reads memory and isl cannot prove the loop
runs, the guard also holds its first test.  Anything else stays.  docs/poly.md, "The model and
its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import conjuncts, is_name, walk as _walk
from ..ir.extents import loop_range
from .scalars import step_of, substitute
from .searches import pure

# C's integer types that compare by value with an int index (the usual conversions keep them
# signed), and the floating types, by rank for the usual arithmetic conversions.
_SIGNED = {"int": "int", "signed": "int", "signed int": "int", "short": "int", "short int": "int",
           "signed short": "int", "char": "int", "signed char": "int", "long": "long",
           "long int": "long", "signed long": "long", "long long": "long", "long long int": "long"}
_RANK = {"int": 0, "long": 1, "float": 2, "double": 3}


def normalize_selections(fn: c_ast.FuncDef, sizes: set[str], within) -> None:
    """Rewrite fn's one-hot selection loops (module docstring).  `within(loops, domain, expr,
    low, high)` proves low <= expr <= high over the loops' domain (isl_bridge.always_within)."""
    _Pass(fn, set(sizes), within).block(fn.body, [])


class _Pass:
    def __init__(self, fn, sizes, within):
        self.fn, self.sizes, self.within = fn, sizes, within
        params = fn.decl.type.args.params if fn.decl.type.args else []
        self.params = {getattr(p, "name", None) for p in params}
        self.types: dict[str, set] = {}         # name -> the types its declarations give (element types)
        for d in list(params) + [x for x in _walk(fn.body) if isinstance(x, c_ast.Decl)]:
            if isinstance(d, c_ast.Decl):
                self.types.setdefault(d.name, set()).add(_base_type(d.type))
        self.scalars = {x.name for x in _walk(fn.body) if isinstance(x, c_ast.Decl)
                        and isinstance(x.type, c_ast.TypeDecl)} - self.params

    def block(self, node, loops: list) -> None:
        """Rewrite the loops of a Compound's items; `loops` the enclosing (var, lowest, highest)
        ranges, None for one that loop_range cannot read."""
        items = node.block_items or []
        for k, item in enumerate(items):
            items[k] = self.node(item, loops, items[k - 1] if k else None)

    def node(self, item, loops, before):
        if isinstance(item, c_ast.Compound):
            self.block(item, loops)
        elif isinstance(item, c_ast.If):
            item.iftrue = self.node(item.iftrue, loops, None)
            if item.iffalse is not None:
                item.iffalse = self.node(item.iffalse, loops, None)
        elif isinstance(item, c_ast.For) and item.stmt is not None:
            known = self.sizes | {l[0] for l in loops if l}
            rng = loop_range(item, known) if all(loops) else None
            if not any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in _walk(item.stmt)):
                return self.selection(item, loops, rng, before) or item
            item.stmt = self.node(item.stmt, loops + [rng], None)
        return item

    # -- the one idiom -----------------------------------------------------------------------
    def selection(self, f: c_ast.For, loops, rng, before) -> c_ast.If | None:
        """The `if` that replaces f, a one-hot selection loop; None for any other loop."""
        head = step_of(f)
        body = _only(f.stmt)
        if head is None or body is None:
            return None
        var, first, step = head
        if isinstance(body, c_ast.If) and body.iffalse is None and isinstance(update := _only(body.iftrue), c_ast.Assignment):
            e, zero = _index(body.cond, var), None
            value = update.rvalue
        elif isinstance(body, c_ast.Assignment) and body.op in ("+=", "-=") and isinstance(body.rvalue, c_ast.TernaryOp):
            update = body
            e, value, zero = _index(body.rvalue.cond, var), body.rvalue.iftrue, body.rvalue.iffalse
            if not _is_zero(zero):
                return None
        else:
            return None
        x = update.lvalue.name if isinstance(update.lvalue, c_ast.ID) else None
        if e is None or x is None or x not in self.scalars or x == var \
                or self.int_type(e) is None or not self.int_var(var) or not pure(e) or not pure(value) \
                or {var, x} & _names(e) or x in _names(first) or not self.loop_only(var):
            return None
        tests = conjuncts(f.cond)
        if not all(isinstance(t, c_ast.BinaryOp) and t.op in ((("<", "<=") if step == 1 else (">", ">=")))
                   and is_name(t.left, var) and not {var, x} & _names(t.right) for t in tests):
            return None
        if zero is not None and (value := self.zeros_added(x, value, zero, update.op, before)) is None:
            return None
        at = lambda node: substitute(copy.deepcopy(node), var, e)
        start = c_ast.BinaryOp("<=", *((copy.deepcopy(first), e) if step == 1 else (e, copy.deepcopy(first))))
        guard = [start] + [at(t) for t in tests]
        if _reads_memory(e) and not self.runs(loops, rng):
            guard = [substitute(copy.deepcopy(t), var, first) for t in tests] + guard
        cond = guard[0]
        for g in guard[1:]:
            cond = c_ast.BinaryOp("&&", cond, g)
        then = c_ast.Assignment(update.op, c_ast.ID(x), at(value), update.coord)
        return c_ast.If(copy.deepcopy(cond), then, None, f.coord)

    def zeros_added(self, x: str, value, zero, op: str, before):
        """f, cast to the ternary's type where the zero is the wider, when `x op= (j == e) ? f :
        zero` at every other index leaves x as it was; None otherwise.  An integer x takes integer
        zeros only (`m += 0.0f` rounds m through float); a floating `+=` needs x set to a literal
        just before the loop (x + 0 is x but for -0.0, x - 0 always is)."""
        mine, wide, acc = self.num_type(value), _num_type(zero, {}), self.num_type(c_ast.ID(x))
        ternary = mine if wide == "int" else max(mine, wide, key=_RANK.get) if mine else None
        if acc is None or ternary is None or acc in ("int", "long") and ternary not in ("int", "long") \
                or acc in ("float", "double") and op == "+=" and not _literal_set(before, x):
            return None
        if ternary == mine:
            return value
        return c_ast.Cast(c_ast.Typename(None, [], None, c_ast.TypeDecl(None, [], None, c_ast.IdentifierType([ternary]))),
                          value)

    def runs(self, loops, rng) -> bool:
        """Whether isl proves the loop runs at least once wherever the loops around it run."""
        if rng is None or None in loops:
            return False
        _, lowest, highest = rng
        domain = [c for v, lo, hi in loops for c in (f"{lo.to_c()} <= {v}", f"{v} <= {hi.to_c()}")]
        return self.within([l[0] for l in loops], domain, lowest.to_c(), lowest.to_c(), highest.to_c())

    def loop_only(self, var: str) -> bool:
        """Whether every reference of var is inside a loop over var (its value after one is
        never read), so the loop may go."""
        inside = sum(sum(is_name(n, var) for n in _walk(x)) for x in _walk(self.fn.body)
                     if isinstance(x, c_ast.For) and (h := step_of(x)) and h[0] == var)
        return inside == sum(is_name(n, var) for n in _walk(self.fn.body))

    # -- types ---------------------------------------------------------------------------------
    def int_var(self, name) -> bool:
        return len(self.types.get(name, ())) == 1 and next(iter(self.types[name])) in _SIGNED

    def int_type(self, node) -> str | None:
        t = self.num_type(node)
        return t if t in ("int", "long") else None

    def num_type(self, node) -> str | None:
        one = {n: next(iter(ts)) for n, ts in self.types.items() if len(ts) == 1}
        return _num_type(node, one)


def _num_type(node, types: dict) -> str | None:
    """C's type of an arithmetic expression (int, long, float, double), None where unknown or
    unsigned: constants, names, subscripts, casts, unary and binary arithmetic, ternaries."""
    if isinstance(node, c_ast.Constant):
        v = node.value.lower()
        if node.type in ("int", "char"):
            return None if "u" in v else "long" if "l" in v else "int"
        return "float" if v.endswith("f") else None if v.endswith("l") else "double" if node.type == "double" else None
    if isinstance(node, (c_ast.ID, c_ast.ArrayRef)):
        while isinstance(node, c_ast.ArrayRef):
            node = node.name
        t = types.get(node.name) if isinstance(node, c_ast.ID) else None
        return _SIGNED.get(t) or (t if t in ("float", "double") else None)
    if isinstance(node, c_ast.Cast):
        t = " ".join(node.to_type.type.type.names) if isinstance(node.to_type.type, c_ast.TypeDecl) \
            and isinstance(node.to_type.type.type, c_ast.IdentifierType) else None
        return _SIGNED.get(t) or (t if t in ("float", "double") else None)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        return _num_type(node.expr, types)
    parts = (node.left, node.right) if isinstance(node, c_ast.BinaryOp) and node.op in "+-*/%" else \
        (node.iftrue, node.iffalse) if isinstance(node, c_ast.TernaryOp) else ()
    got = [_num_type(p, types) for p in parts]
    return max(got, key=_RANK.get) if got and None not in got else None


def _base_type(t) -> str:
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t = t.type
    return " ".join(t.type.names) if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) else "?"


def _only(node):
    """The one statement of node (through blocks of one item); None for an empty block."""
    while isinstance(node, c_ast.Compound):
        if len(node.block_items or []) != 1:
            return None
        node = node.block_items[0]
    return node


def _index(cond, var: str):
    """e of `var == e` or `e == var`; None otherwise."""
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "==":
        if is_name(cond.left, var):
            return cond.right
        if is_name(cond.right, var):
            return cond.left
    return None


def _is_zero(node) -> bool:
    """Whether node is a literal zero: `0`, `0.0`, `0.0f`, `0e0`, ..."""
    if not isinstance(node, c_ast.Constant) or node.type not in ("int", "float", "double"):
        return False
    v = node.value.lower().rstrip("ulf") if node.type == "int" else node.value.lower().rstrip("lf")
    try:
        return (int(v, 0) if node.type == "int" else float(v)) == 0
    except ValueError:
        return False


def _literal_set(item, x: str) -> bool:
    """Whether item sets x to a literal (`x = 0.0;`, `double x = 0;`): never -0.0."""
    if isinstance(item, c_ast.Decl) and item.name == x:
        return isinstance(item.init, c_ast.Constant)
    return isinstance(item, c_ast.Assignment) and item.op == "=" and is_name(item.lvalue, x) \
        and isinstance(item.rvalue, c_ast.Constant)


def _reads_memory(node) -> bool:
    return any(isinstance(n, c_ast.ArrayRef) or isinstance(n, c_ast.UnaryOp) and n.op == "*" for n in _walk(node))



def _names(node) -> set[str]:
    return {n.name for n in _walk(node) if isinstance(n, c_ast.ID)} if node is not None else set()

