"""Extents of pointer parameters from the index ranges a kernel accesses.

For `double *x` accessed as `x[i*n + j]` inside `for (i = 0; i < n; i++)` and
`for (j = 0; j < n; j++)`, the largest index is n*n - 1, so the extent is n*n.
Indices are kept as integer polynomials in the loop variables and the sizes; a
loop variable is replaced by the end of its range that makes the index largest
(or smallest, to prove it never goes below zero).  Anything else in an index (a
division, a local variable, another array) makes the extent unknown, and the
caller asks the user for a `t2c: array` annotation.
"""
from __future__ import annotations

from collections import Counter

from pycparser import c_ast

from .csyntax import conjuncts


class NotPolynomial(Exception):
    pass


class Poly:
    """Integer polynomial: {(var, var, ...) sorted: coefficient}."""

    def __init__(self, terms=None):
        self.terms = {m: c for m, c in (terms or {}).items() if c}

    @staticmethod
    def const(c: int) -> "Poly":
        return Poly({(): c})

    @staticmethod
    def var(name: str) -> "Poly":
        return Poly({(name,): 1})

    def __add__(self, o):
        t = Counter(self.terms)
        t.update(o.terms)
        return Poly(dict(t))

    def __neg__(self):
        return Poly({m: -c for m, c in self.terms.items()})

    def __sub__(self, o):
        return self + (-o)

    def __mul__(self, o):
        t = Counter()
        for m1, c1 in self.terms.items():
            for m2, c2 in o.terms.items():
                t[tuple(sorted(m1 + m2))] += c1 * c2
        return Poly(dict(t))

    def __eq__(self, o):
        return isinstance(o, Poly) and self.terms == o.terms

    def vars(self) -> set[str]:
        return {v for m in self.terms for v in m}

    def split(self, v: str) -> tuple["Poly", "Poly"]:
        """self == a*v + b; raises NotPolynomial when v appears squared."""
        a, b = {}, {}
        for m, c in self.terms.items():
            n = m.count(v)
            if n > 1:
                raise NotPolynomial(f"{v} appears squared")
            if n == 1:
                rest = list(m)
                rest.remove(v)
                a[tuple(rest)] = c
            else:
                b[m] = c
        return Poly(a), Poly(b)

    def sign(self) -> int:
        """+1 when every coefficient is >= 0, -1 when every one is <= 0, else 0."""
        cs = list(self.terms.values())
        if all(c >= 0 for c in cs):
            return 1
        if all(c <= 0 for c in cs):
            return -1
        return 0

    def substitute(self, v: str, value: "Poly") -> "Poly":
        a, b = self.split(v)
        return a * value + b

    def powers(self, v: str) -> dict[int, "Poly"]:
        """self == sum over k of out[k] * v**k."""
        out: dict[int, dict] = {}
        for m, c in self.terms.items():
            rest = tuple(x for x in m if x != v)
            out.setdefault(m.count(v), {})[rest] = c
        return {k: Poly(t) for k, t in out.items()}

    def replace(self, v: str, value: "Poly") -> "Poly":
        """self with v replaced by value, at any power."""
        out = Poly()
        for k, a in self.powers(v).items():
            for _ in range(k):
                a = a * value
            out = out + a
        return out

    def divided(self, d: "Poly") -> tuple["Poly", "Poly"]:
        """(q, r) with self == q * d + r, dividing by d's leading term (most factors first) while
        r's leading term is a multiple of it: the exact quotient, r == 0, where d divides self."""
        order = lambda m: (len(m), m)
        lead = max(d.terms, key=order)
        q, r = Poly(), Poly(self.terms)
        while r.terms:
            m = max(r.terms, key=order)
            rest, c = list(m), r.terms[m]
            if c % d.terms[lead] or any(rest.count(v) < lead.count(v) for v in set(lead)):
                break
            for v in lead:
                rest.remove(v)
            t = Poly({tuple(rest): c // d.terms[lead]})
            q, r = q + t, r - t * d
        return q, r

    def to_c(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for m in sorted(self.terms, key=lambda m: (-len(m), m)):
            c = self.terms[m]
            factors = list(m)
            if abs(c) != 1 or not factors:
                factors.insert(0, str(abs(c)))
            text = " * ".join(factors)
            parts.append(("- " if c < 0 else "+ ") + text)
        s = " ".join(parts)
        return s[2:] if s.startswith("+ ") else "-" + s[2:]


def at_least(p: Poly, q: Poly) -> bool:
    """p >= q for all sizes >= 1: p - q, with every size v written 1 + v' (v' >= 0) and every
    quotient as itself (>= 0), has no negative coefficient; or, where a quotient (e / c) has a
    negative constant coefficient, c * (p - q) with c * (e / c) at its largest, e, has none (a
    subscript read from both ends, `x[n - 1 - i]` for i < n / 2, stays below n)."""
    d = Poly()
    for m, c in (p - q).terms.items():
        t = Poly.const(c)
        for v in m:
            t = t * (Poly.var(v) + Poly.const(0 if quotient(v) else 1))
        d = d + t
    if d.sign() > 0:
        return True
    for v in (p - q).vars() & set(_QUOTIENTS):
        try:
            a, b = (p - q).split(v)
        except NotPolynomial:
            continue
        if set(a.terms) == {()} and a.terms[()] < 0:
            e, c = _QUOTIENTS[v]
            if at_least(a * e + b * Poly.const(c), Poly()):
                return True
    return False


_QUOTIENTS: dict[str, tuple[Poly, int]] = {}      # quotient variable -> (numerator, divisor): to_poly's


def quotient(name: str) -> bool:
    """Whether a Poly variable is a quotient of the sizes by a constant (`(n / 2)`), not a name."""
    return name.startswith("(")


def quotient_numerator(name: str) -> Poly:
    return _QUOTIENTS[name][0]


def quotient_of(numerator: Poly, c: int) -> Poly:
    """numerator / c (C's division of a value never negative) as one variable of its own."""
    if c == 1:
        return numerator
    text = numerator.to_c() if len(numerator.terms) == 1 and len(next(iter(numerator.terms))) <= 1 \
        else f"({numerator.to_c()})"
    _QUOTIENTS[f"({text} / {c})"] = (numerator, c)
    return Poly.var(f"({text} / {c})")


def to_poly(node, known: set[str], sizes: set[str] | None = None) -> Poly:
    """A pycparser expression as a Poly over the names in `known`.  Given the `sizes`, a size
    expression divided by a positive constant or shifted right (`n / 2`, `(n - 1) >> 1`, never
    negative) is one variable of its own, its C text: a bound or an extent may hold it, and
    loop ranges are substituted around it; so is a quotient of loop variables whose every
    coefficient is positive (`i * (i + 1) / 2`, packed triangular storage), which Bounds.extreme
    takes to its end of a loop's range, where a loop variable never goes below 0."""
    if sizes is not None and isinstance(node, c_ast.BinaryOp) and node.op in ("/", ">>") \
            and isinstance(node.right, c_ast.Constant) and node.right.type == "int":
        k = int(node.right.value.rstrip("uUlL"), 0)
        c = k if node.op == "/" else 1 << k if 0 <= k < 31 else 0
        left = to_poly(node.left, known, sizes)
        if c < 1 or not (at_least(left, Poly()) if left.vars() <= sizes else left.sign() > 0):
            raise NotPolynomial("a quotient that is not of sizes by a positive constant")
        return quotient_of(left, c)
    if isinstance(node, c_ast.Constant) and node.type in ("int", "long", "unsigned int"):
        return Poly.const(int(node.value.rstrip("uUlL"), 0))
    if isinstance(node, c_ast.ID) and node.name in known:
        return Poly.var(node.name)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        p = to_poly(node.expr, known, sizes)
        return -p if node.op == "-" else p
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        left, right = to_poly(node.left, known, sizes), to_poly(node.right, known, sizes)
        return {"+": left + right, "-": left - right, "*": left * right}[node.op]
    if isinstance(node, c_ast.BinaryOp) and node.op == "<<" and isinstance(node.right, c_ast.Constant) \
            and node.right.type == "int" and 0 <= int(node.right.value.rstrip("uUlL"), 0) < 31:
        return to_poly(node.left, known, sizes) * Poly.const(1 << int(node.right.value.rstrip("uUlL"), 0))
    if isinstance(node, c_ast.Cast):
        return to_poly(node.expr, known, sizes)
    raise NotPolynomial(type(node).__name__)


class Bounds:
    """Loop ranges in scope: var -> (lowest value, highest value) as Polys."""

    def __init__(self):
        self.ranges: dict[str, tuple[Poly, Poly]] = {}
        self.order: list[str] = []
        self.shadowed: list = []                # the range an inner loop's same name hides

    def push(self, v, lo, hi):
        self.shadowed.append(self.ranges.get(v))
        self.ranges[v] = (lo, hi)
        self.order.append(v)

    def pop(self):
        v, outer = self.order.pop(), self.shadowed.pop()
        if outer is None:
            del self.ranges[v]
        else:
            self.ranges[v] = outer

    def extreme(self, p: Poly, want_max: bool, assume: list | None = None) -> Poly:
        """p's largest (smallest) value over the loops in scope: each loop variable, innermost
        first (its bounds may use outer ones), goes to the end of its range p grows toward, where
        p is monotone in it: one sign for every coefficient of it, at any power, and of each
        quotient whose numerator holds it (a power or a quotient only where it is never below 0).
        `assume`: a linear coefficient of no one sign (`r * (w - kw + 1)`, a derived row length)
        is taken as >= 0 and appended there, for the caller to require of the sizes."""
        for v in reversed(self.order):
            inner = [q for q in p.vars() if q in _QUOTIENTS and v in _QUOTIENTS[q][0].vars()]
            if v not in p.vars() and not inner:
                continue
            lo, hi = self.ranges[v]
            signs = {a.sign() for k, a in p.powers(v).items() if k} | \
                {p.powers(q).get(1, Poly()).sign() if set(p.powers(q)) <= {0, 1} else 0 for q in inner}
            if signs == {0} and assume is not None and not inner and set(p.powers(v)) <= {0, 1}:
                assume.append(p.powers(v)[1])
                signs = {1}
            if len(signs) != 1 or 0 in signs or (max(p.powers(v)) > 1 or inner) and not at_least(lo, Poly()):
                raise NotPolynomial(f"cannot tell the sign of the coefficient of {v}")
            end = hi if (signs.pop() > 0) == want_max else lo
            for q in inner:
                numerator, c = _QUOTIENTS[q]
                p = p.replace(q, quotient_of(numerator.replace(v, end), c))
            p = p.replace(v, end)
        return p


def loop_range(node: c_ast.For, known: set[str], sizes: set[str] | None = None):
    """(var, lowest, highest) of a counted for loop, or None when it is not one.  Given the
    `sizes`, a condition `v < a && v < b` too (a tile loop's, `i < ii + T && i < n`): its conjunct
    over the sizes alone bounds v (n: the last tile ends there); without one it is no counted loop."""
    init, cond, step = node.init, node.cond, node.next
    var = lo = None
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var, lo = init.decls[0].name, init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, lo = init.lvalue.name, init.rvalue
    parts = conjuncts(cond)
    if var is None or (len(parts) > 1 and sizes is None) or not all(
            isinstance(c, c_ast.BinaryOp) and isinstance(c.left, c_ast.ID) and c.left.name == var for c in parts):
        return None
    up = (isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++")) or \
         (isinstance(step, c_ast.Assignment) and step.op == "+=")
    down = (isinstance(step, c_ast.UnaryOp) and step.op in ("p--", "--")) or \
           (isinstance(step, c_ast.Assignment) and step.op == "-=")
    ops = {c.op for c in parts}
    if not (up and ops <= {"<", "<="} or down and ops <= {">", ">="}):
        return None
    scope = known | {var}
    try:
        start = to_poly(lo, scope, sizes)
        limits = [(c.op, to_poly(c.right, scope, sizes)) for c in parts]
    except NotPolynomial:
        return None
    if len(limits) > 1:
        limits = [(o, l) for o, l in limits if all(v in sizes or quotient(v) for v in l.vars())][:1]
        if not limits:
            return None
    op, limit = limits[0]
    one = Poly.const(1)
    if up:
        return var, start, limit - one if op == "<" else limit
    return var, (limit + one if op == ">" else limit), start


