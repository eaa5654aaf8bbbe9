"""Integer locals whose value at each use is affine in the loops, written as that value.

    normalize_scalars(fn, sizes, within) -> None   (rewrites fn in place, before the model)

Takes a reference function; rewrites an index temporary (`int r = i + di - 2;`), an induction
scalar (`k += c` once per iteration) and a wrap-around variable (`v = f(i)` last in the body:
the first iteration peeled where the loop provably runs once) as the affine values the model
knows. Each matches only exactly: a signed integer local, affine values without casts or
divisions, every reference inside the rewritten region, no exit that could skip a step; anything
else is left as written. docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import is_name, parse_c, walk as _walk
from ..ir.extents import NotPolynomial, Poly, loop_range, to_poly

SIGNED_TYPES = {("int",), ("long",), ("long", "int"), ("long", "long"), ("signed", "int"), ("signed",)}
_EXITS = (c_ast.Break, c_ast.Continue, c_ast.Return, c_ast.Goto, c_ast.Label)


def normalize_scalars(fn: c_ast.FuncDef, sizes: set[str], within) -> None:
    """Rewrite fn's affine integer locals (module docstring).  `within(loops, domain, expr,
    low, high)` proves low <= expr <= high over the loops' domain (isl_bridge.always_within)."""
    if not any(isinstance(n, (c_ast.Goto, c_ast.Label, c_ast.Switch)) for n in _walk(fn.body)):
        _Pass(fn, set(sizes), within).block(fn.body, [])      # (a jump could skip a definition)


class _Pass:
    def __init__(self, fn, sizes, within):
        self.fn, self.sizes, self.within = fn, sizes, within
        self.decls: dict[str, list] = {}
        for d in _walk(fn.body):
            if isinstance(d, c_ast.Decl):
                self.decls.setdefault(d.name, []).append(d)
        params = fn.decl.type.args.params if fn.decl.type.args else []
        self.params = {getattr(p, "name", None) for p in params}

    # -- the walk --------------------------------------------------------------------------
    def block(self, node, loops: list) -> None:
        """Rewrite the items of a Compound (then its inner blocks), `loops` the enclosing
        (var, lowest, highest) ranges, None for a loop this pass cannot read."""
        if not isinstance(node, c_ast.Compound):
            return self.inner(node, loops)
        for item in node.block_items or []:       # inner blocks first: a peeled copy is then final
            self.inner(item, loops)
        items = node.block_items or []
        p = 0
        while p < len(items):
            if self.temporary(items, p, loops) or self.induction(items, p, loops) \
                    or self.wrap_around(items, p, loops):
                p = 0                               # a declaration before p may have gone
            else:
                p += 1

    def inner(self, node, loops) -> None:
        if isinstance(node, c_ast.Compound):
            self.block(node, loops)
        elif isinstance(node, c_ast.For):
            known = self.sizes | {l[0] for l in loops if l}
            rng = loop_range(node, known) if all(loops) else None
            self.block(node.stmt, loops + [rng])
        elif isinstance(node, c_ast.If):
            for branch in (node.iftrue, node.iffalse):
                if branch is not None:
                    self.inner(branch, loops)
        elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
            self.inner(node.stmt, loops + [None])

    # -- the three idioms ------------------------------------------------------------------
    def temporary(self, items, p, loops) -> bool:
        """items[p] defines r once for the function; every use follows it in this block."""
        d = self.definition(items[p], loops)
        if d is None:
            return False
        name, value = d
        rhs = items[p].init if isinstance(items[p], c_ast.Decl) else items[p].rvalue
        rest = items[p + 1:]
        if self.writes(name) != 1 or len(_refs(self.fn.body, name)) != len(_refs_in(rest, name)) + self.own(items[p]) \
                or written_names(rest) & value.vars():
            return False
        items[p + 1:] = [substitute(it, name, rhs) for it in rest]       # as written: `i + di - 2`
        self.drop(items, p, name)
        return True

    def induction(self, items, p, loops) -> bool:
        """items[p] sets k = c0; the loop after it steps k by a constant once at its top level."""
        found = self.loop_after(items, p, loops)
        if found is None:
            return False
        name, c0, q, f, var, start, step, body = found
        steps = [j for j, it in enumerate(body) if _refs_in([it], name) and constant_step(it, name) is not None]
        if len(steps) != 1 or self.writes(name) != 2:
            return False
        w = steps[0]
        c = Poly.const(constant_step(body[w], name))
        t = (Poly.var(var) - start) * Poly.const(step)        # the iteration's number
        before, after = c0 + c * t, c0 + c * (t + Poly.const(1))
        body[:] = [substitute(it, name, before) for it in body[:w]] + [substitute(it, name, after) for it in body[w + 1:]]
        self.drop(items, p, name)
        return True

    def wrap_around(self, items, p, loops) -> bool:
        """items[p] sets v = e0; the loop after it ends with v = f(i): peel its first iteration."""
        found = self.loop_after(items, p, loops)
        if found is None:
            return False
        name, e0, q, f, var, start, step, body = found
        last = body[-1] if body else None
        if not (isinstance(last, c_ast.Assignment) and last.op == "=" and is_name(last.lvalue, name)) \
                or self.writes(name) != 2 or len(_refs(last.rvalue, name)):
            return False
        scope = self.sizes | {l[0] for l in loops if l} | {var}
        value = affine_poly(last.rvalue, scope)
        rng = loop_range(f, scope - {var})
        if value is None or value.vars() & written_names(body[:-1]) or rng is None or None in loops:
            return False
        _, lowest, highest = rng
        domain = [c for v, lo, hi in loops for c in (f"{lo.to_c()} <= {v}", f"{v} <= {hi.to_c()}")]
        if not self.within([l[0] for l in loops], domain, lowest.to_c(), lowest.to_c(), highest.to_c()):
            return False                                      # it may run no iteration: nothing to peel
        first = [substitute(substitute(copy.deepcopy(it), name, e0), var, start) for it in body[:-1]]
        previous = value.substitute(var, Poly.var(var) - Poly.const(step))
        _set_start(f, start + Poly.const(step))
        body[:] = [substitute(it, name, previous) for it in body[:-1]]
        items[q:q] = [c_ast.Compound(first, f.coord)]
        self.drop(items, p, name)
        return True

    # -- what the idioms share -------------------------------------------------------------
    def definition(self, item, loops):
        """(name, value) when item sets a signed integer local to an affine value."""
        if (got := assignment(item)) is None:
            return None
        name, rhs = got
        ds = self.decls.get(name, [])
        d = ds[0] if len(ds) == 1 else None
        if name in self.params or d is None or not isinstance(d.type, c_ast.TypeDecl) \
                or not isinstance(d.type.type, c_ast.IdentifierType) \
                or tuple(d.type.type.names) not in SIGNED_TYPES or d.quals or d.storage:
            return None
        value = affine_poly(rhs, self.sizes | {l[0] for l in loops if l})
        return None if value is None else (name, value)

    def loop_after(self, items, p, loops):
        """For items[p] setting k = c0 and the next item that names k a for loop holding every
        other reference of k in its body: (k, c0, that item's index, the loop, its variable,
        start, step, the body's items); None otherwise."""
        d = self.definition(items[p], loops)
        if d is None:
            return None
        name, c0 = d
        q = next((j for j in range(p + 1, len(items)) if _refs_in([items[j]], name)), None)
        if q is None or not isinstance(items[q], c_ast.For):
            return None
        f = items[q]
        header = step_of(f)
        if header is None or not isinstance(f.stmt, c_ast.Compound) or written_names(items[p + 1:q + 1]) & c0.vars():
            return None
        var, first, step = header
        start = affine_poly(first, self.sizes | {l[0] for l in loops if l})
        body = f.stmt.block_items or []
        if start is None or len(_refs(self.fn.body, name)) != len(_refs_in(body, name)) + self.own(items[p]) \
                or any(isinstance(n, _EXITS) for n in _walk(f.stmt)) or var in written_names(body):
            return None
        return name, c0, q, f, var, start, step, body

    def writes(self, name) -> int:
        n = 0
        for x in _walk(self.fn.body):
            if isinstance(x, c_ast.Decl) and x.name == name and x.init is not None:
                n += 1
            elif isinstance(x, c_ast.Assignment) and is_name(x.lvalue, name):
                n += 1
            elif isinstance(x, c_ast.UnaryOp) and x.op in ("++", "--", "p++", "p--", "&") and is_name(x.expr, name):
                n += 1
        return n

    @staticmethod
    def own(item) -> int:
        return 1 if isinstance(item, c_ast.Assignment) else 0    # its lvalue is a reference

    def drop(self, items, p, name) -> None:
        """Remove the definition items[p] and the scalar's declaration, now dead."""
        del items[p]
        d = self.decls.pop(name)[0]
        for x in _walk(self.fn.body):
            if isinstance(x, c_ast.Compound) and x.block_items:
                x.block_items[:] = [it for it in x.block_items if it is not d]


# -- expressions -----------------------------------------------------------------------------

def affine_poly(node, names: set[str]) -> Poly | None:
    """node as a polynomial of degree <= 1 over names; None for anything else."""
    if any(isinstance(n, c_ast.Cast) or isinstance(n, c_ast.Constant) and
           (n.type != "int" or not n.value.isdigit()) for n in _walk(node)):
        return None
    try:
        p = to_poly(node, names)
    except NotPolynomial:
        return None
    return p if all(len(m) <= 1 for m in p.terms) else None


def assignment(item) -> tuple[str, c_ast.Node] | None:
    """(name, value) of `T name = value` or `name = value`; None for anything else."""
    if isinstance(item, c_ast.Decl) and item.init is not None:
        return item.name, item.init
    if isinstance(item, c_ast.Assignment) and item.op == "=" and isinstance(item.lvalue, c_ast.ID):
        return item.lvalue.name, item.rvalue
    return None


def constant_step(item, name) -> int | None:
    """c when item is `name += c` (or ++, --, -= c, name = name + c), c an integer constant."""
    if isinstance(item, c_ast.UnaryOp) and is_name(item.expr, name):
        return {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(item.op)
    if not (isinstance(item, c_ast.Assignment) and is_name(item.lvalue, name)):
        return None
    if item.op in ("+=", "-="):
        c = affine_poly(item.rvalue, set())
        return None if c is None else (1 if item.op == "+=" else -1) * c.terms.get((), 0)
    if item.op == "=":
        c = affine_poly(item.rvalue, {name})
        if c is not None and c.terms.get((name,)) == 1 and len(c.vars()) == 1:
            return c.terms.get((), 0)
    return None


def geometric_step(item, name) -> tuple[int, bool] | None:
    """(c, whether it grows) when item multiplies or divides `name` by a constant c >= 2: `name *= c`,
    `name <<= k` (c = 2^k), `name = name * c` (`c * name`), `name /= c`, `name >>= k`, `name = name / c`,
    `name = name >> k`; None for any other."""
    ops = {"*=": "*", "<<=": "<<", "/=": "/", ">>=": ">>"}
    if not (isinstance(item, c_ast.Assignment) and is_name(item.lvalue, name)):
        return None
    if item.op in ops:
        op, c = ops[item.op], item.rvalue
    elif item.op == "=" and isinstance(item.rvalue, c_ast.BinaryOp) and item.rvalue.op in ops.values() \
            and (is_name(item.rvalue.left, name) or item.rvalue.op == "*" and is_name(item.rvalue.right, name)):
        op = item.rvalue.op
        c = item.rvalue.right if is_name(item.rvalue.left, name) else item.rvalue.left
    else:
        return None
    if not (isinstance(c, c_ast.Constant) and c.type == "int" and c.value.rstrip("uUlL").isdigit()):
        return None
    value = int(c.value.rstrip("uUlL"))
    factor = value if op in "*/" else 2 ** value
    return (factor, op in ("*", "<<")) if factor >= 2 else None


def step_of(f: c_ast.For):
    """(var, start expression, +1 | -1) of a header stepping its variable by one."""
    init, nxt = f.init, f.next
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var, first = init.decls[0].name, init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, first = init.lvalue.name, init.rvalue
    else:
        return None
    if isinstance(nxt, c_ast.UnaryOp) and is_name(nxt.expr, var) and nxt.op in ("++", "p++", "--", "p--"):
        return var, first, 1 if "++" in nxt.op else -1
    if isinstance(nxt, c_ast.Assignment) and is_name(nxt.lvalue, var) and nxt.op in ("+=", "-=") \
            and isinstance(nxt.rvalue, c_ast.Constant) and nxt.rvalue.value == "1":
        return var, first, 1 if nxt.op == "+=" else -1
    return None


def _set_start(f: c_ast.For, start: Poly) -> None:
    expr = _expr(start, f.coord)
    if isinstance(f.init, c_ast.DeclList):
        f.init.decls[0].init = expr
    else:
        f.init.rvalue = expr


def poly_text(p: Poly) -> str:
    """C text of p, positive terms first: the model's isl text cannot read `(-2) * i`."""
    terms = sorted(p.terms.items(), key=lambda t: (t[1] < 0, -len(t[0]), t[0]))
    out = ""
    for m, c in terms:
        factor = " * ".join(([str(abs(c))] if abs(c) != 1 or not m else []) + list(m))
        out += f" {'-' if c < 0 else '+'} {factor}" if out else (f"-({factor})" if c < 0 and " " in factor else
                                                       f"-{factor}" if c < 0 else factor)
    return out or "0"


def _expr(p: Poly, coord) -> c_ast.Node:
    ast = parse_c(f"int t2c_probe(void) {{ return {poly_text(p)}; }}", "<expr>")
    node = ast.ext[0].body.block_items[0].expr
    for n in _walk(node):
        n.coord = coord
    return node


def substitute(node, name: str, value):
    """node with every reference of name replaced by value (a Poly or an expression)."""
    if is_name(node, name):
        return _expr(value, node.coord) if isinstance(value, Poly) else copy.deepcopy(value)
    for attr in node.__slots__:
        child = getattr(node, attr, None) if attr not in ("coord", "__weakref__") else None
        if isinstance(child, c_ast.Node):
            setattr(node, attr, substitute(child, name, value))
        elif isinstance(child, list):
            setattr(node, attr, [substitute(c, name, value) if isinstance(c, c_ast.Node) else c for c in child])
    return node


def written_names(items) -> set[str]:
    """Names assigned, stepped, declared or taken the address of anywhere in items."""
    out = set()
    for it in items:
        for x in _walk(it):
            if isinstance(x, c_ast.Decl):
                out.add(x.name)
            elif isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ID):
                out.add(x.lvalue.name)
            elif isinstance(x, c_ast.UnaryOp) and x.op in ("++", "--", "p++", "p--", "&") \
                    and isinstance(x.expr, c_ast.ID):
                out.add(x.expr.name)
    return out


def _refs(node, name) -> list:
    return [n for n in _walk(node) if is_name(n, name)]


def _refs_in(items, name) -> list:
    return [n for it in items for n in _refs(it, name)]



