"""The polyhedral model of an IS reference, read from its pycparser AST.

    build_program(kernel) -> Program;  NotAffine

Takes a `Kernel`; gives a `Program`: the reference's loop tree (`Loop` and `Stmt` nodes), one
`Statement` per leaf (an assignment, a call, an `if` without loops: may-writes, or an opaque
loop) with its enclosing loops, iteration domain, affine accesses and flop count, and the
locals. Constraints and subscripts are text in isl syntax over the original names (isl_bridge
prefixes them). It first normalizes (guards.py, switches.py, whiles.py, commas.py, scopes.py, tiles.py,
scalars.py, searches.py, selections.py, delinearize.py). Refuses with `NotAffine`, naming the construct and its line,
what it cannot describe exactly: while loops other than counted ones, steps that are not
constants, non-affine bounds or subscripts outside an opaque loop, data-dependent writes other
than atomic updates; poly then answers with one thread, always correct. A loop of a constant
step other than +-1 is counted (`counted`): the model sees it from 0 by 1, its body reading
`start + step * v` where it read v. A geometric counter (`s *= 2`, `s >>= 1`: `geometric`) is a loop
over every integer between its ends, marked `Loop.geometric` (the generator keeps it in order, as
written; `counter_values` restricts it to its values for counting).
docs/poly.md, "Analysis".
"""
from __future__ import annotations

import copy
import itertools
from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ..ir import Kernel
from ..ir.csyntax import (clone, conjuncts, cprint, is_name, kernel_definition, parse_c, reference_helpers, relined,
                          takes_arrays)
from ..ir.csyntax import walk as _walk
from ..ir.extents import NotPolynomial, to_poly
from .commas import normalize_commas
from .delinearize import row_major
from .guards import decide_branches, normalize_guards
from .isl_bridge import always_within, never_holds
from .scalars import constant_step, geometric_step, normalize_scalars, substitute, written_names
from .searches import normalize_searches
from .selections import normalize_selections
from .switches import normalize_switches, refusal as switch_refusal
from .tiles import Tiling, untile
from .scopes import data_sources, reads_data, separate_reused_names
from .whiles import named_outside, normalize_whiles


#: Element types an update at a data-dependent cell may have: those CUDA's atomicAdd takes.
ATOMIC_DTYPES = ("int", "unsigned", "float", "double")


class NotAffine(Exception):
    """The reference leaves the polyhedral model; the message names what and where."""


@dataclass(frozen=True)
class Access:
    name: str                  # array or local scalar
    index: tuple[str, ...]     # affine subscripts (isl syntax, original names); () for a scalar
    write: bool
    atomic: bool = False       # part of an atomic update: a data-dependent subscript is `t2c_cell<d>`, any cell


@dataclass
class Statement:
    name: str                  # S0, S1, ... in source order
    node: c_ast.Node           # the C leaf statement
    loops: tuple[str, ...]     # enclosing loop variables, outermost first
    domain: tuple[str, ...]    # affine constraints over loops and sizes
    accesses: tuple[Access, ...]
    conditional: bool          # under an `if`: its writes may not happen
    flops: int                 # floating-point operations per instance
    line: int = 0
    atomic: str | None = None  # the array this statement adds into at a data-dependent cell (atomicAdd)
    opaque: bool = False       # a whole loop that leaves the model through its own control (`opaque`)
    gathers: tuple[str, ...] = ()   # arrays read at subscripts the model does not describe (through
                                    # data, or an opaque loop's own variable): one per reference

    @property
    def text(self) -> str:
        return cprint(self.node)

    def writes(self, name: str | None = None):
        return [a for a in self.accesses if a.write and (name is None or a.name == name)]

    def reads(self, name: str | None = None):
        return [a for a in self.accesses if not a.write and (name is None or a.name == name)]


@dataclass(frozen=True)
class Geometric:
    """A geometric loop counter (`model._Builder.geometric`): the model's loop runs over every
    integer between its ends; the counter takes only start * c^k (grows) or start / c^k (shrinks)."""
    step: str                  # the C step, `s *= 2`
    line: int
    start: str                 # its first value, isl text
    factor: int                # c >= 2
    grows: bool
    bits: int = 32             # of its type: 64 for long, size_t, ptrdiff_t

    def values(self, var: str) -> str:
        """isl text: `var` is one of the counter's values (a disjunction over the powers of c its type
        holds; exact where the model's bounds hold: start >= 1 for a growing counter, and C's
        truncation is isl's floor for the non-negative values a shrinking one keeps)."""
        terms, power = [], 1
        while power < 2 ** self.bits:
            terms.append(f"{var} = {power} * ({self.start})" if self.grows else
                         f"{var} = floor(({self.start}) / {power})")
            power *= self.factor
        return "(" + " or ".join(terms) + ")"


@dataclass
class Loop:
    var: str
    lower: str                 # first value when ascending (inclusive), isl syntax
    upper: str                 # last value when ascending (inclusive), isl syntax
    step: int                  # +1 or -1 (descending loops run from upper down to lower)
    body: list                 # of Loop | Stmt
    init: str = ""             # the C header, kept for printing: init; cond; next
    cond: str = ""
    next: str = ""
    # Set by schedule transformations (the reference's own loops leave them empty):
    time: str | None = None    # the loop's schedule value when not `var` (a wavefront: 2*i + j)
    derived: tuple = ()        # (var, C expression, C guard) computed at the top of the body
    geometric: Geometric | None = None   # a geometric counter (`s *= 2`): the model's domain holds
                                         # every integer between its ends (_Builder.geometric)

    def statements(self) -> list["Stmt"]:
        out = []
        for n in self.body:
            out.extend([n] if isinstance(n, Stmt) else n.statements())
        return out


@dataclass
class Stmt:
    stmt: Statement
    # Set when a new schedule places the statement (the reference's own tree leaves them None):
    at: dict | None = None     # enclosing loop var -> its value, affine text over the statement's iterators
    bind: dict | None = None   # statement iterator -> C expression over the enclosing loop vars


@dataclass
class LocalVar:
    name: str
    dtype: str
    shape: tuple[str, ...] = ()   # () for a scalar; C extents for a local array


@dataclass(frozen=True)
class Untiled:
    """A hand-tiled nest the model reads untiled: where it was (`tiles.Tiling`) and its point loops'
    `Loop`s, outermost first (None for one the model reads as an opaque statement)."""
    line: int
    order: tuple[str, ...]                  # its loops' variables as written, `ii, jj, i, j`
    pairs: tuple[tuple[str, str, int], ...]   # (tile variable, point variable, T), in tile order
    points: tuple                           # of Loop | None


@dataclass
class Program:
    kernel: Kernel
    body: list                              # top-level Loop | Stmt nodes
    statements: list[Statement]
    locals: dict[str, LocalVar]             # local scalars and arrays (not loop variables)
    sizes: tuple[str, ...]
    scalar_params: tuple[str, ...]
    returns: str | None = None              # the C expression returned, if any
    context: tuple[str, ...] = field(default_factory=tuple)   # affine size constraints
    copies: dict[str, str] = field(default_factory=dict)      # copy of an input array -> the array
    expanded: dict[str, tuple] = field(default_factory=dict)  # a copy per host iteration -> (the array,
                                                              # the host loops' extents): poly/expand.py
    notes: tuple[str, ...] = ()             # what the normalizations did or refused, for --explain
    untiled: tuple[Untiled, ...] = ()       # hand-tiled nests read untiled (tiles.py), for untiling.py

    def statement(self, name: str) -> Statement:
        return next(s for s in self.statements if s.name == name)


# -- affine expressions ------------------------------------------------------------------

def affine(node, names: set[str], what: str, nonneg=None) -> str:
    """isl text of an affine C expression over `names`; NotAffine otherwise.  With `nonneg` (isl
    text -> whether it is never negative where the expression is used), a quasi-affine one too:
    `e / c` and `e % c` of a positive constant c are floor(e / c) and e mod c where e >= 0 (C
    truncates toward zero: the same there), and `e >> k` is floor(e / 2^k) there; `e << k` is
    e * 2^k anywhere."""
    def bad(reason):
        line = node.coord.line if getattr(node, "coord", None) else "?"
        raise NotAffine(f"line {line}: {what} '{cprint(node)}' {reason}")

    def go(n) -> tuple[str, bool]:           # (text, is_constant)
        if isinstance(n, c_ast.Constant):
            if n.type not in ("int",) or not n.value.rstrip("uUlL").isdigit():
                bad("uses a non-integer constant")
            return n.value.rstrip("uUlL"), True
        if isinstance(n, c_ast.ID):
            if n.name not in names:
                bad(f"depends on '{n.name}', which is neither a loop variable nor a size")
            return n.name, False
        if isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+"):
            t, c = go(n.expr)
            return (f"(-{t})" if n.op == "-" else t), c
        if isinstance(n, c_ast.BinaryOp) and n.op in ("+", "-"):
            (a, ca), (b, cb) = go(n.left), go(n.right)
            return f"({a} {n.op} {b})", ca and cb
        if isinstance(n, c_ast.BinaryOp) and n.op == "*":
            (a, ca), (b, cb) = go(n.left), go(n.right)
            if not (ca or cb):
                bad("multiplies two variables")
            return f"({a} * {b})", ca and cb
        if isinstance(n, c_ast.BinaryOp) and n.op in ("/", "%") and nonneg is not None:
            (a, ca), (b, cb) = go(n.left), go(n.right)
            if not cb or not b.isdigit() or int(b) == 0:
                bad("divides by something other than a positive constant")
            if not nonneg(a):
                bad(f"divides '{cprint(n.left)}', which may be negative (C rounds it toward zero)")
            return (f"floor({a} / {b})" if n.op == "/" else f"({a} mod {b})"), ca and cb
        if isinstance(n, c_ast.BinaryOp) and n.op in ("<<", ">>") and (n.op == "<<" or nonneg is not None):
            (a, ca), (b, cb) = go(n.left), go(n.right)      # by a constant: * or floor / 2^k
            if not cb or not b.isdigit() or int(b) > 30:
                bad("shifts by something other than a constant below 31")
            if n.op == "<<":
                return f"({a} * {1 << int(b)})", ca
            if not nonneg(a):
                bad(f"shifts '{cprint(n.left)}', which may be negative")
            return f"floor({a} / {1 << int(b)})", ca
        if isinstance(n, c_ast.Cast):
            return go(n.expr)
        bad("is not affine")
    return go(node)[0]


# -- building the model ------------------------------------------------------------------

def base_and_subscripts(ref: c_ast.ArrayRef):
    subs = []
    while isinstance(ref, c_ast.ArrayRef):
        subs.append(ref.subscript)
        ref = ref.name
    return ref, list(reversed(subs))


def _count_flops(node) -> int:
    n = 0
    for x in _walk(node):
        if isinstance(x, c_ast.BinaryOp) and x.op in ("+", "-", "*", "/"):
            n += 1
        elif isinstance(x, c_ast.Assignment) and x.op in ("+=", "-=", "*=", "/="):
            n += 1
        elif isinstance(x, c_ast.FuncCall):
            n += 1
        elif isinstance(x, c_ast.UnaryOp) and x.op == "-" and not isinstance(x.expr, c_ast.Constant):
            n += 1
    return n


def array_call(ast, fn) -> str | None:
    """Where `fn` calls one of the reference's own functions that takes a pointer or an array (its
    accesses, the helper's own, are outside the model), as `line N: ...`; None where every call is
    an expression like a math call (the helpers take scalars)."""
    takes = {h.decl.name for h in reference_helpers(ast) if takes_arrays(h)}
    for n in _walk(fn.body):
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name in takes:
            return (f"line {n.coord.line}: calls its own function '{n.name.name}', which takes a pointer or an "
                    "array (its accesses are outside the model)")
    return None


def calls_with_arrays(k: Kernel) -> str | None:
    """`array_call` of a kernel's reference, its lines the user's: the forms that read a body as
    written (compaction, exchange networks) cannot see such a call's accesses either."""
    ast = relined(clone(k.tree), k.origin)
    return array_call(ast, kernel_definition(ast))


def _pure_helpers_only(ast, fn) -> None:
    if why := array_call(ast, fn):
        raise NotAffine(why)


class _Builder:
    def __init__(self, k: Kernel, untile=frozenset()):
        self.k = k
        self.untile = untile                           # lines of hand-tiled nests to untile (tiles.py)
        self.tilings: list[Tiling] = []
        self.loop_of: dict[int, Loop] = {}             # id of a For node -> its Loop
        self.sizes = tuple(s.name for s in k.sizes)
        self.scalar_params = tuple(s.name for s in k.scalars if s.intent == "in")
        self.arrays = {a.name for a in k.arrays}
        self.shapes = {a.name: a.shape for a in k.arrays}
        self.context: tuple[str, ...] = ()
        self.data: dict[str, str] = {}                 # local -> an array its value comes from
        self.locals: dict[str, LocalVar] = {}
        self.loop_vars: set[str] = set()
        self.loop_types: dict[str, list[str]] = {}     # loop variable -> its declared type's words
        self.hidden: set[str] = set()                  # scalars declared inside an opaque loop's body
        self.statements: list[Statement] = []
        self.returns = None
        self.where: tuple = ([], [])                   # loops and domain of what is being read
        self.gathered: list[str] = []                  # gathers of the statement being read (`collect`)

    def build(self) -> Program:
        ast = relined(clone(self.k.tree), self.k.origin)    # its own copy: the normalizations edit it
        fn = self.fn = kernel_definition(ast)
        _pure_helpers_only(ast, fn)
        context = []
        for c in self.k.constraints:
            try:
                context.append(affine_condition(parse_expr(c), set(self.sizes), "constraint"))
            except (NotAffine, Exception):
                pass
        self.context = tuple(context)
        normalize_guards(fn, set(self.sizes), lambda c: never_holds(self.sizes, self.context, c),
                         affine, NotAffine)          # `if (n <= 0) return;` that no valid call takes
        decide_branches(fn, set(self.sizes), lambda c: never_holds(self.sizes, self.context, c),
                        affine, NotAffine)           # `if (n > 0) {...}` that every valid call takes
        normalize_switches(fn)                    # a switch without fall-through as its if chain
        normalize_whiles(fn, set(self.sizes), self.within)   # a counted (do-)while loop as its for loop
        normalize_commas(fn)                      # `for (i = 0, j = n - 1; i < j; i++, j--)` over i alone
        separate_reused_names(fn)                 # one name, one variable: the model knows them by name
        self.tilings = untile(fn, self.untile)   # hand-tiled loops over their full ranges (untiling.py)
        normalize_scalars(fn, set(self.sizes), self.within)   # affine integer locals as their values
        normalize_searches(fn)                    # an early-exit search as the index it finds
        normalize_selections(fn, set(self.sizes), self.within)   # a one-hot loop as the element it picks
        self.data = data_sources(fn.body)         # locals whose values come from arrays
        items = fn.body.block_items or []
        self.loop_vars = {_loop_var(n) for n in _walk(fn.body) if isinstance(n, c_ast.For)} - {None}
        body = self.block(items, [], [])
        self.one_form_per_array()
        for nest in body:
            self.updates_only(nest)
        untiled = tuple(Untiled(t.line, t.order, t.pairs, tuple(self.loop_of.get(id(p)) for p in t.points))
                        for t in self.tilings)
        return Program(self.k, body, self.statements, self.locals, self.sizes,
                       self.scalar_params, self.returns, self.context, untiled=untiled)

    def nonneg(self, expr: str) -> bool:
        """Whether expr >= 0 wherever the statement or loop being read runs (`self.where`)."""
        loops, domain = self.where
        return self.within(loops, domain, expr, "0", expr)

    def within(self, loops, domain, expr, low, high) -> bool:
        """Whether low <= expr <= high wherever the loops run (affine text, sizes' context)."""
        return always_within(self.sizes, self.context, loops, domain, expr, low, high)

    # statements ---------------------------------------------------------------------
    def block(self, items, loops: list[Loop], domain: list[str]) -> list:
        out = []
        for item in items:
            out.extend(self.node(item, loops, domain))
        return out

    def node(self, item, loops, domain) -> list:
        if isinstance(item, c_ast.Compound):
            return self.block(item.block_items or [], loops, domain)
        if isinstance(item, c_ast.Decl):
            return self.decl(item, loops, domain)
        if isinstance(item, c_ast.For):
            return [self.loop(item, loops, domain)]
        if isinstance(item, (c_ast.While, c_ast.DoWhile)):
            why = NotAffine(f"line {item.coord.line}: while loops have no affine iteration domain")
            if loops and (st := self.opaque(item, None, loops, domain, why)):
                return [st]         # a while loop per instance of the loops around it
            raise why
        if isinstance(item, c_ast.Return):
            if loops:
                raise NotAffine(f"line {item.coord.line}: return inside a loop")
            if item.expr is not None:
                self.returns = cprint(item.expr)
                return [self.leaf(item, loops, domain)]
            return []
        if isinstance(item, c_ast.EmptyStatement):
            return []
        if isinstance(item, c_ast.Switch):           # one that is no if chain (switches.py)
            raise NotAffine(f"line {item.coord.line}: a {switch_refusal(item)}")
        if isinstance(item, c_ast.If):
            if any(isinstance(n, c_ast.Return) for n in _walk(item)):
                raise NotAffine(f"line {item.coord.line}: a return under an if (where the kernel stops "
                                "depends on the condition)")
            if any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in _walk(item)):
                raise NotAffine(f"line {item.coord.line}: a loop under an if")
            if loops and any(isinstance(n, (c_ast.Break, c_ast.Continue, c_ast.Goto)) for n in _walk(item)):
                # the loop's trip count then depends on the data: its statements cannot be split apart
                raise NotAffine(f"line {item.coord.line}: an early exit (break, continue) from loop "
                                f"'{loops[-1].var}' depends on the data")
            return [self.leaf(item, loops, domain, conditional=True)]
        if isinstance(item, (c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall)):
            return [self.leaf(item, loops, domain)]
        raise NotAffine(f"line {getattr(item.coord, 'line', '?')}: unsupported statement "
                        f"{type(item).__name__}")

    def decl(self, d: c_ast.Decl, loops, domain) -> list:
        typ = d.type
        shape = []
        while isinstance(typ, c_ast.ArrayDecl):
            shape.append(cprint(typ.dim))
            typ = typ.type
        if not isinstance(typ, c_ast.TypeDecl) or not isinstance(typ.type, c_ast.IdentifierType):
            raise NotAffine(f"line {d.coord.line}: local '{d.name}' is not a scalar or an array")
        dtype = " ".join(typ.type.names)
        if d.name in self.loop_vars:
            self.loop_types[d.name] = list(typ.type.names)
            if d.init is not None:
                raise NotAffine(f"line {d.coord.line}: loop variable '{d.name}' has an initializer")
            return []
        if loops and shape:
            raise NotAffine(f"line {d.coord.line}: local array '{d.name}' declared inside a loop")
        known = self.locals.get(d.name)
        if known is not None and (known.dtype, known.shape) != (dtype, tuple(shape)):
            raise NotAffine(f"line {d.coord.line}: two locals named '{d.name}' with different types")
        # A scalar declared in a loop body is one variable for the model: each iteration
        # assigns it before use, which the scalar webs find (and privatize).
        self.locals[d.name] = LocalVar(d.name, dtype, tuple(shape))
        if d.init is None:
            return []
        if shape:
            raise NotAffine(f"line {d.coord.line}: initialized local array '{d.name}'")
        assign = c_ast.Assignment("=", c_ast.ID(d.name, d.coord), d.init, d.coord)
        return [self.leaf(assign, loops, domain)]

    def loop(self, f: c_ast.For, loops, domain) -> Loop | Stmt:
        line = f.coord.line
        var = _loop_var(f)
        if var is None:
            raise NotAffine(f"line {line}: loop header is not 'v = start'")
        geometric = None
        try:
            lower, upper, step, bounds = self.header(f, var, loops, domain)
        except NotAffine as e:
            if counted := self.counted(f, var, loops, domain):
                f, (lower, upper, step, bounds) = counted
            elif found := self.geometric(f, var, loops, domain, e):
                lower, upper, step, bounds, geometric = found
            elif self.data_header(f, var, loops) and (st := self.opaque(f, var, loops, domain, e)):
                return st
            else:
                raise _stepped_by_expression(f, var) or e
        exits = [n for n in _walk(f.stmt) if isinstance(n, (c_ast.Break, c_ast.Continue))] if f.stmt else []
        if exits and _innermost(f):        # refused, the walk of its body below says why as before
            at = next((n for n in _walk(f.stmt) if isinstance(n, c_ast.If) and any(
                isinstance(x, (c_ast.Break, c_ast.Continue)) for x in _walk(n))), exits[0])
            why = NotAffine(f"line {at.coord.line}: an early exit (break, continue) from loop '{var}' "
                            f"depends on the data")
            if st := self.opaque(f, var, loops, domain, why):
                return st
        node = Loop(var, lower, upper, step, [], cprint(f.init), cprint(f.cond), cprint(f.next),
                    geometric=geometric)
        self.loop_of[id(f)] = node
        inner = domain + [f"{lower} <= {var}", *(f"{var} <= {b}" for b in bounds)] if step > 0 else \
            domain + [*(f"{b} <= {var}" for b in bounds), f"{var} <= {upper}"]
        node.body = self.node(f.stmt, loops + [node], inner) if f.stmt is not None else []
        return node

    def header(self, f: c_ast.For, var: str, loops, domain):
        """(lower, upper, step, bounds) of an affine loop header: `bounds` are the affine ends its
        condition sets (a conjunction `v <= w && v <= i` sets several: the loop runs to the
        nearest, and `upper` (or `lower` for a descending loop) is then their isl `min`/`max`,
        which the generator's text forms refuse); NotAffine otherwise."""
        line = f.coord.line
        names = set(self.sizes) | {l.var for l in loops}
        first = f.init.rvalue if isinstance(f.init, c_ast.Assignment) else f.init.decls[0].init
        self.where = ([l.var for l in loops], domain)
        start = affine(first, names, "loop start", self.nonneg)
        step = _step(f.next, var)
        if step is None:
            raise NotAffine(f"line {line}: loop step of '{var}' is not +1 or -1")
        parts = conjuncts(f.cond)
        if not all(isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=", ">", ">=") and is_name(c.left, var)
                   for c in parts):
            raise NotAffine(f"line {line}: loop condition is not 'v < bound' or alike")
        bounds = []
        for c in parts:
            bound = affine(c.right, names, "loop bound", self.nonneg)
            if step == 1 and c.op in ("<", "<="):
                bounds.append(f"({bound} - 1)" if c.op == "<" else bound)
            elif step == -1 and c.op in (">", ">="):
                bounds.append(f"({bound} + 1)" if c.op == ">" else bound)
            else:
                raise NotAffine(f"line {line}: loop condition of '{var}' does not match its step")
        end = bounds[0] if len(bounds) == 1 else f"{'min' if step == 1 else 'max'}({', '.join(bounds)})"
        return (start, end, step, bounds) if step == 1 else (end, start, step, bounds)

    def counted(self, f: c_ast.For, var: str, loops, domain):
        """(the loop, its header) for a loop stepping `var` by a constant s other than +-1 (`v += s`,
        `v = v + s`, `v -= s`; a condition `v < e`, `v <= e` for s > 0, `v > e`, `v >= e` for s < 0):
        the same loop counted, `v = 0; v < (e - start + |s| - 1) / |s|; v++` (`<=`: `+ |s|`), whose
        body reads `start + s * v` where it read v (a copy: the reference runs as written). The
        trip count is a floor division of a numerator the model proves never negative, so C's
        truncation is isl's floor there. None (the loop is refused as before) when s is not such a
        constant or v not an integer, the body writes v or anything outside the loop reads it (its
        last value differs), or the counted header is not affine."""
        step = constant_step(f.next, var) if f.cond is not None and f.stmt is not None else None
        declared = self.loop_types.get(var, ["double"])        # `int v; for (v = ...)`, else:
        if isinstance(f.init, c_ast.DeclList):
            declared = getattr(getattr(f.init.decls[0].type, "type", None), "names", ["double"])
        if step in (None, 0, 1, -1) or {"float", "double"} & set(declared) or var in written_names([f.stmt]) \
                or named_outside(self.fn.body, (f,), var):
            return None
        first = f.init.rvalue if isinstance(f.init, c_ast.Assignment) else f.init.decls[0].init
        s, start, conds = abs(step), cprint(first), []
        for c in conjuncts(f.cond):
            if not (isinstance(c, c_ast.BinaryOp) and is_name(c.left, var) and c.op in (("<", "<=") if step > 0 else (">", ">="))):
                return None
            high, low = (cprint(c.right), start) if step > 0 else (start, cprint(c.right))
            span = f"({high})" if low == "0" else f"({high}) - ({low})"
            conds.append(f"{var} < ({span} + {s if '=' in c.op else s - 1}) / {s}")
        init = copy.deepcopy(f.init)
        zero = c_ast.Constant("int", "0", first.coord)
        if isinstance(init, c_ast.Assignment):
            init.rvalue = zero
        else:
            init.decls[0].init = zero
        value = c_ast.BinaryOp("*", c_ast.Constant("int", str(s), f.coord), c_ast.ID(var, f.coord), f.coord)
        if start != "0" or step < 0:
            value = c_ast.BinaryOp("+" if step > 0 else "-", copy.deepcopy(first), value, f.coord)
        cond, nxt = parse_expr(" && ".join(conds)), parse_expr(f"{var}++")
        for n in _walk(cond):
            n.coord = f.cond.coord
        g = c_ast.For(init, cond, nxt, substitute(copy.deepcopy(f.stmt), var, value), f.coord)
        try:
            return g, self.header(g, var, loops, domain)
        except NotAffine:
            return None

    def geometric(self, f: c_ast.For, var: str, loops, domain, why: NotAffine):
        """(lower, upper, step, bounds, Geometric) of the model's loop for a geometric counter: `v *= c`, `v <<= k`,
        `v = v * c` under `v < e` (`<=`) from a start proved >= 1, or `v /= c`, `v >>= k`, `v = v / c`
        under `v > e` (`>=`) with e proved >= 0 (>= 1), c >= 2 a constant, e and the start affine.
        The model's loop runs over every integer between the ends, in the counter's direction
        (step +1 for a growing one, -1 for a shrinking one): a superset of the values the counter
        takes, in the same order, so every dependence between its real instances is one of the
        model's, and a loop nest parallel for every value is parallel for the real ones. The
        generator keeps such a loop on the host, printed as written (`Analysis.carries` holds it
        carried, poly.lower checks the plan). None where the step is not geometric; NotAffine,
        naming the loop, its line and the reason, where it is but cannot be used."""
        nxt, line = f.next, f.coord.line
        if (found := geometric_step(nxt, var)) is None:
            return None
        factor, grows = found

        def refuse(reason):
            raise NotAffine(f"{why} (a geometric counter, `{cprint(nxt)}`, {reason}; poly runs one from a "
                            "start and to a bound affine in the sizes, never reaching 0, as a host loop)")
        declared = self.loop_types.get(var, ["double"])
        if isinstance(f.init, c_ast.DeclList):
            declared = getattr(getattr(f.init.decls[0].type, "type", None), "names", ["double"])
        if {"float", "double"} & set(declared):
            return None
        if f.cond is None or f.stmt is None:
            refuse("but without a condition or a body")
        if var in written_names([f.stmt]) or named_outside(self.fn.body, (f,), var):
            refuse(f"but '{var}' is also written in its body or read outside the loop")
        names = set(self.sizes) | {l.var for l in loops}
        self.where = ([l.var for l in loops], domain)
        first = f.init.rvalue if isinstance(f.init, c_ast.Assignment) else f.init.decls[0].init
        try:
            start = affine(first, names, "loop start", self.nonneg)
        except NotAffine as e:
            refuse(f"but its {_unlined(e)}")
        parts = conjuncts(f.cond)
        wanted = ("<", "<=") if grows else (">", ">=")
        if not all(isinstance(x, c_ast.BinaryOp) and is_name(x.left, var) and x.op in wanted for x in parts):
            refuse(f"but its condition is not '{var} {wanted[0]} bound' (the bound a size expression)")
        bounds = []
        for x in parts:
            try:
                bound = affine(x.right, names, "loop bound", self.nonneg)
            except NotAffine as e:
                refuse(f"but its {_unlined(e)}")
            if grows:
                bounds.append(f"({bound} - 1)" if x.op == "<" else bound)
            else:
                bounds.append(f"({bound} + 1)" if x.op == ">" else bound)
        loop_vars = [l.var for l in loops]
        if grows and not self.within(loop_vars, domain, start, "1", start):
            refuse(f"but its start '{cprint(first)}' may be below 1 (the counter would stay at 0 or below)")
        if not grows and not all(self.within(loop_vars, domain, b, "1", b) for b in bounds):
            refuse(f"but its bound may let it reach 0 (it would stay there): end it with '{var} > 0' or higher")
        wide = {"long", "size_t", "ptrdiff_t", "int64_t", "uint64_t"} & set(declared)
        record = Geometric(cprint(nxt), line, start, factor, grows, 64 if wide else 32)
        if grows:
            end = bounds[0] if len(bounds) == 1 else f"min({', '.join(bounds)})"
            return start, end, 1, bounds, record
        end = bounds[0] if len(bounds) == 1 else f"max({', '.join(bounds)})"
        return end, start, -1, bounds, record

    # opaque inner loops ---------------------------------------------------------------
    def data_header(self, f: c_ast.For, var: str, loops) -> bool:
        """Whether a loop header leaves the model only through data the kernel never writes: a
        step of +-1, a start and a condition over sizes, scalar parameters, the enclosing loop
        variables, its own and values of `in` arrays, at least one of which it reads."""
        if f.cond is None or _step(f.next, var) is None:
            return False
        first = f.init.rvalue if isinstance(f.init, c_ast.Assignment) else f.init.decls[0].init
        known = set(self.sizes) | set(self.scalar_params) | {l.var for l in loops} | {var}
        refs = [n for e in (first, f.cond) for n in _walk(e)]
        for n in refs:
            if isinstance(n, c_ast.ArrayRef):
                base, _ = base_and_subscripts(n)
                if not (isinstance(base, c_ast.ID) and base.name in self.arrays
                        and self.k.array(base.name).intent == "in"):
                    return False
            elif isinstance(n, c_ast.ID) and n.name not in known and n.name not in self.arrays:
                return False
            elif isinstance(n, (c_ast.Assignment, c_ast.FuncCall)) or \
                    isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "*", "&"):
                return False
        return any(isinstance(n, c_ast.ArrayRef) for n in refs)

    def opaque(self, f, var: str | None, loops, domain, why: NotAffine) -> Stmt | None:
        """An innermost loop that leaves the model only through its own control (`why`: bounds or
        a condition read from `in` arrays, a data-dependent break or continue, a while loop) as ONE leaf
        statement, the whole `for`, which each instance of the loops around it runs in order.
        Its accesses are its body's and header's over the enclosing loop variables: a subscript
        over its own variable only in a read of an `in` array (a gather: it orders nothing); it
        writes local scalars only (may-writes: it may stop before).  Scalars declared in its body
        stay there.  None for anything else: the loop is refused as before; with no loop around
        it, NotAffine (`why`: kept whole, it would still run in one thread)."""
        if f.stmt is None or not _innermost(f):
            return None
        body = f.stmt
        if any(isinstance(n, (c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Goto, c_ast.Label,
                              c_ast.Return)) for n in _walk(body)):
            return None
        decls = [n for n in _walk(body) if isinstance(n, c_ast.Decl)]
        own = {d.name for d in decls}
        for d in decls:                          # block scalars, each declared once before any use
            uses = [n for n in _walk(body) if n is d or isinstance(n, c_ast.ID) and n.name == d.name]
            if d.storage or not isinstance(d.type, c_ast.TypeDecl) or d.name in self.loop_vars \
                    or not isinstance(d.type.type, c_ast.IdentifierType) \
                    or sum(x.name == d.name for x in decls) > 1 or uses[0] is not d:
                return None
        if isinstance(f, c_ast.For):
            init = f.init
            if isinstance(init, c_ast.Assignment):   # each thread's loop declares its variable
                names = self.loop_types.get(var, ["int"])
                init = c_ast.DeclList([c_ast.Decl(var, [], [], [], [], c_ast.TypeDecl(
                    var, [], None, c_ast.IdentifierType(list(names))), init.rvalue, None, init.coord)], init.coord)
            item = c_ast.For(init, f.cond, f.next, body, f.coord)
            parts = (item.init.decls[0].init, item.cond, item.stmt)
        else:                                    # a while or do-while: its condition and body
            item = type(f)(f.cond, body, f.coord)
            parts = (item.cond, item.stmt)
        in_scope = {l.var for l in loops}
        names = set(self.sizes) | in_scope
        for n in _walk(item):
            if isinstance(n, c_ast.ID) and n.name in self.loop_vars and n.name not in in_scope | {var}:
                return None
        item = self.row_major_refs(item, names, loops, domain)
        accesses = []
        self.hidden, self.where, self.gathered = own, ([l.var for l in loops], domain), []
        try:
            for part in parts:
                self.collect(part, accesses, names, write=False)
        except NotAffine:
            return None
        finally:
            self.hidden = set()
        if any(a.write and (a.name not in self.locals or self.locals[a.name].shape) for a in accesses):
            return None
        if not loops:
            raise NotAffine(f"{why} (kept whole, loop '{var}' would still run in one thread: no loop "
                            "encloses it)")
        st = Statement(f"S{len(self.statements)}", item, tuple(l.var for l in loops),
                       tuple(domain), tuple(dict.fromkeys(accesses)), True, _count_flops(body),
                       f.coord.line if f.coord else 0, opaque=True, gathers=tuple(self.gathered))
        self.statements.append(st)
        return Stmt(st)

    def leaf(self, item, loops, domain, conditional=False) -> Stmt:
        in_scope = {l.var for l in loops}
        accesses = []
        for n in _walk(item):
            if isinstance(n, c_ast.ID) and n.name in self.loop_vars and n.name not in in_scope:
                raise NotAffine(f"line {n.coord.line}: loop variable '{n.name}' used outside its loop")
        item = self.row_major_refs(item, set(self.sizes) | in_scope, loops, domain)
        self.where, self.gathered = ([l.var for l in loops], domain), []
        self.collect(item, accesses, set(self.sizes) | in_scope, write=False)
        atomic = next((a.name for a in accesses if a.atomic), None)
        if atomic is not None:
            self.atomic_update(item, atomic)
        st = Statement(f"S{len(self.statements)}", item, tuple(l.var for l in loops), tuple(domain),
                       tuple(dict.fromkeys(accesses)), conditional, _count_flops(item),
                       item.coord.line if item.coord else 0, atomic, gathers=tuple(self.gathered))
        self.statements.append(st)
        return Stmt(st)

    def row_major_refs(self, item, names, loops, domain):
        """`item` with each flat subscript of a multi-dimensional pointer (`t2c: array a[n][m]`,
        `a[i*m + j]`) written as its row-major indices where they provably are ones
        (delinearize.py), so the model and the generator see what `a[i][j]` gives."""
        def within(index, extent) -> bool:
            return always_within(self.sizes, self.context, [l.var for l in loops], domain,
                                 index.to_c(), "0", f"{extent.to_c()} - 1")

        def split(ref: c_ast.ArrayRef):
            try:
                inner = [to_poly(parse_expr(e), set(self.sizes)) for e in self.shapes[ref.name.name][1:]]
                index = row_major(to_poly(ref.subscript, names), inner, within)
            except NotPolynomial:                               # a division, a local, data
                return None
            if index is None:
                return None
            out = ref.name
            for p in index:
                out = c_ast.ArrayRef(out, parse_expr(p.to_c()), ref.coord)
            return out

        def go(n):
            if isinstance(n, c_ast.ArrayRef):
                node = n
                while isinstance(node, c_ast.ArrayRef):          # subscripts first: a[b[i*m + j]]
                    node.subscript = go(node.subscript)
                    node = node.name
                if isinstance(n.name, c_ast.ID) and len(self.shapes.get(n.name.name, ())) > 1:
                    return split(n) or n
                return n
            for attr in n.__slots__:
                child = getattr(n, attr, None) if attr not in ("coord", "__weakref__") else None
                if isinstance(child, c_ast.Node):
                    setattr(n, attr, go(child))
                elif isinstance(child, list):
                    setattr(n, attr, [go(c) if isinstance(c, c_ast.Node) else c for c in child])
            return n
        return go(item)

    def one_form_per_array(self):
        """An array is indexed either flat or row-major throughout: the model cannot relate the
        two forms (they would be two arrays to isl, and their dependences would be lost)."""
        for name, shape in self.shapes.items():
            seen = {len(a.index) for st in self.statements for a in st.accesses if a.name == name and a.index}
            if len(seen) > 1:
                st, a = next((st, a) for st in self.statements for a in st.accesses
                             if a.name == name and len(a.index) == 1)
                raise NotAffine(f"line {st.line}: subscript '{a.index[0]}' of '{name}' is not a row-major "
                                f"index into its extents [{']['.join(shape)}] (each inner index within "
                                f"its extent), and other subscripts of '{name}' are")

    def collect(self, n, out: list, names, write: bool, also_read=False, update=False):
        """Accesses of an expression or leaf; `write` marks an lvalue, `update` one that is added into."""
        if isinstance(n, c_ast.Assignment):
            self.collect(n.rvalue, out, names, False)
            self.collect(n.lvalue, out, names, True, also_read=n.op != "=", update=n.op in ("+=", "-="))
            return
        if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--"):
            self.collect(n.expr, out, names, True, also_read=True, update=True)
            return
        if isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.ID) \
                and n.expr.name in self.arrays:
            self._add(out, Access(n.expr.name, (), write), also_read)
            return
        if isinstance(n, c_ast.ArrayRef):
            base, subs = base_and_subscripts(n)
            if not isinstance(base, c_ast.ID):
                raise NotAffine(f"line {n.coord.line}: indexing an expression")
            cells = [f"t2c_cell{d}" if update else None for d in range(len(subs))]
            alts = [self.subscript(s, base.name, names, write, c) for s, c in zip(subs, cells)]
            if None in alts:               # a gather from an array the kernel never writes: it
                self.gathered.append(base.name)   # carries no dependence, only its subscripts' reads
                for s in subs:                    # count (cost.py bounds its bytes)
                    self.collect(s, out, names, False)
                return
            atomic = any(i == (c,) for i, c in zip(alts, cells))
            for s in subs:                 # an update's subscripts (ip[i]) and a clamp's condition
                if atomic:                 # read for the statement too
                    self.collect(s, out, names, False)
                elif isinstance(s, c_ast.TernaryOp):
                    self.collect(s.cond, out, names, False)
            for idx in itertools.product(*alts):
                self._add(out, Access(base.name, idx, write, atomic), also_read)
            return
        if isinstance(n, c_ast.ID):
            if n.name in self.hidden:
                return
            if n.name in self.locals or (n.name in self.arrays):
                if n.name in self.arrays:
                    raise NotAffine(f"line {n.coord.line}: array '{n.name}' used without subscripts")
                self._add(out, Access(n.name, (), write), also_read)
            elif write and n.name not in self.locals:
                raise NotAffine(f"line {n.coord.line}: write to '{n.name}', which is not a local")
            return
        if isinstance(n, c_ast.FuncCall):
            if n.args is not None:
                for a in n.args.exprs:
                    self.collect(a, out, names, False)
            return
        for _, child in n.children():
            self.collect(child, out, names, False)

    def subscript(self, node, array: str, names, write: bool, cell: str | None = None) -> tuple[str, ...] | None:
        """isl texts of a subscript: one for an affine subscript; a read's `c ? a : b` of affine
        branches (a clamp at an edge) reads one of both, so both count (a may-read: dependences
        only grow).  Any other subscript of an input array's read: None (the kernel never writes
        it, so the read orders nothing).  One that depends on values read from an array, directly
        (`a[ip[i]]`) or through locals (`k = ip[i]; a[k]`): `cell` (any element) for an update that
        adds into it (`atomic_update` and `updates_only` judge it); else it leaves the model: a write
        there may reach any element, and poly cannot prove that two iterations never write the same one."""
        what = f"subscript of '{array}'"
        if not write and isinstance(node, c_ast.TernaryOp):
            try:
                return (affine(node.iftrue, names, what, self.nonneg), affine(node.iffalse, names, what, self.nonneg))
            except NotAffine:
                pass
        try:
            return (affine(node, names, what, self.nonneg),)
        except NotAffine:
            if not write and array in self.arrays and self.k.array(array).intent == "in":
                return None
            source = reads_data(node, self.data)
            if source is None:
                raise
            if write and cell is not None:
                return (cell,)
            line = node.coord.line if node.coord else "?"
            if write:
                raise NotAffine(f"line {line}: a data-dependent write: '{array}' is written at a subscript "
                                f"computed from values of '{source}', and poly cannot prove that two "
                                f"iterations never write the same element") from None
            raise NotAffine(f"line {line}: subscript of '{array}' is computed from values of '{source}' "
                            f"(a data-dependent read)") from None

    @staticmethod
    def _add(out, acc: Access, also_read):
        if also_read:
            out.append(Access(acc.name, acc.index, False, acc.atomic))
        out.append(acc)

    # atomic updates -------------------------------------------------------------------
    def atomic_update(self, item, array: str):
        """Refuse, as a data-dependent write, an update of `array` at a data-dependent cell that an
        atomicAdd cannot carry out exactly as the reference does: other side effects in the
        statement, an element type without atomicAdd, a non-integer value added to integers."""
        line = item.coord.line if item.coord else "?"
        dtype = self.locals[array].dtype if array in self.locals else self.k.array(array).dtype
        updates = [n for n in _walk(item) if isinstance(n, c_ast.Assignment) or
                   isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")]
        why = ""
        if len(updates) != 1:
            why = "the statement has other side effects"
        elif dtype not in ATOMIC_DTYPES:
            why = f"its element type {dtype} has no atomicAdd"
        elif isinstance(updates[0], c_ast.Assignment) and dtype not in ("float", "double") \
                and not self.integral(updates[0].rvalue):
            why = "the value added to its integers may not be an integer"
        if why:
            raise NotAffine(f"line {line}: a data-dependent write: '{array}' is updated at a computed "
                            f"cell, not as an atomic update ({why})")

    def updates_only(self, nest):
        """Refuse a nest in which an array updated at a data-dependent cell is also accessed
        otherwise: the updates commute only with one another."""
        stmts = [nest.stmt] if isinstance(nest, Stmt) else [s.stmt for s in nest.statements()]
        atomic = {st.atomic for st in stmts} - {None}
        for st in stmts:
            for a in st.accesses:
                if a.name in atomic and not a.atomic:
                    first = next(s for s in stmts if s.atomic == a.name)
                    raise NotAffine(f"line {first.line}: a data-dependent write: '{a.name}' is updated at a "
                                    f"cell computed from data, and line {st.line} also "
                                    f"{'writes' if a.write else 'reads'} it in the same loop nest, so poly "
                                    f"cannot prove that two iterations never touch the same element")

    def integral(self, n) -> bool:
        """Whether a C expression's value is an integer whatever the data (conservative)."""
        def typed(name):
            if name in self.loop_vars or name in self.sizes:
                return "int"
            if name in self.locals:
                return self.locals[name].dtype
            known = {s.name: s.dtype for s in self.k.scalars} | {a.name: a.dtype for a in self.k.arrays}
            return known.get(name, "double")
        integer = lambda dtype: not any(w in dtype for w in ("float", "double"))
        if isinstance(n, c_ast.Constant):
            return n.type in ("int", "char")
        if isinstance(n, c_ast.ID):
            return integer(typed(n.name))
        if isinstance(n, c_ast.ArrayRef):
            base, _ = base_and_subscripts(n)
            return isinstance(base, c_ast.ID) and integer(typed(base.name))
        if isinstance(n, c_ast.Cast):
            return integer(cprint(n.to_type))
        if isinstance(n, c_ast.BinaryOp):
            if n.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                return True
            return self.integral(n.left) and self.integral(n.right)
        if isinstance(n, c_ast.UnaryOp):
            return n.op == "!" or (n.op in ("-", "+", "~") and self.integral(n.expr))
        if isinstance(n, c_ast.TernaryOp):
            return self.integral(n.iftrue) and self.integral(n.iffalse)
        return False


def _loop_var(f: c_ast.For) -> str | None:
    """The variable a for header starts: `v = e` or `int v = e`; None otherwise."""
    init = f.init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None \
            and isinstance(init.decls[0].type, c_ast.TypeDecl):
        return init.decls[0].name
    return None


def _step(nxt, var: str) -> int | None:
    """+1 or -1 for a loop step `v++`, `v--`, `v += 1`, `v -= 1`, `v = v + 1`, ...; None for any other."""
    step = constant_step(nxt, var)
    return step if step in (1, -1) else None


def _unlined(e: NotAffine) -> str:
    """A refusal's text without its leading `line N: `."""
    return str(e).split(": ", 1)[-1] if str(e).startswith("line ") else str(e)


def _stepped_by_expression(f: c_ast.For, var: str) -> NotAffine | None:
    """The refusal of a loop stepping by a non-constant amount (`i += 2 * s`), with the rewrite that
    the model reads: isl cannot describe `i = start + step * t` for a variable step (a product of
    variables), nor prove on its own that the iterations of one step value touch distinct cells."""
    nxt = f.next
    if isinstance(nxt, c_ast.Assignment) and is_name(nxt.lvalue, var) and nxt.op in ("+=", "-="):
        amount = nxt.rvalue
    elif isinstance(nxt, c_ast.Assignment) and nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) \
            and nxt.rvalue.op == "+" and is_name(nxt.lvalue, var) and is_name(nxt.rvalue.left, var):
        amount = nxt.rvalue.right
    else:
        return None
    if isinstance(amount, c_ast.Constant):
        return None
    d = cprint(amount)
    return NotAffine(f"line {f.coord.line}: loop step of '{var}' is not +1 or -1: it steps by '{d}', not a "
                     f"constant, and {var} = start + ({d}) * t is a product of variables the model cannot "
                     f"describe; write the loop over its count, `for (t = 0; t < count; t++)`, and index "
                     f"start + ({d}) * t (e.g. `t < n / ({d})` and `x[({d}) * t]`)")




def _innermost(f: c_ast.For) -> bool:
    return not any(isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)) for n in _walk(f.stmt))




def parse_expr(text: str) -> c_ast.Node:
    ast = parse_c(f"int t2c_probe(void) {{ return {text}; }}", "<expr>")
    return ast.ext[0].body.block_items[0].expr


def affine_condition(node, names, what) -> str:
    """isl text of a conjunction of affine comparisons."""
    if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
        return f"{affine_condition(node.left, names, what)} and {affine_condition(node.right, names, what)}"
    if isinstance(node, c_ast.BinaryOp) and node.op in ("<", "<=", ">", ">=", "=="):
        op = "=" if node.op == "==" else node.op
        return f"{affine(node.left, names, what)} {op} {affine(node.right, names, what)}"
    raise NotAffine(f"{what} '{cprint(node)}' is not a conjunction of affine comparisons")


def counter_values(prog: Program) -> Program:
    """The program whose statements under geometric counters run only at the counters' values
    (Geometric.values): exact instance counts, footprints and coverage. Not for dependences
    (the model's loops over every integer keep isl's work small; they give a superset)."""
    domains = {}

    def go(nodes, extra):
        for n in nodes:
            if isinstance(n, Stmt):
                domains[n.stmt.name] = extra
            else:
                go(n.body, extra + ((n.geometric.values(n.var),) if n.geometric else ()))
    go(prog.body, ())
    if not any(domains.values()):
        return prog
    statements = [replace(st, domain=st.domain + domains.get(st.name, ())) for st in prog.statements]
    return replace(prog, statements=statements)


def build_program(k: Kernel, untile=frozenset()) -> Program:
    """The polyhedral model of k's reference; raises NotAffine where it does not apply. The
    hand-tiled nests (tiles.py) whose outermost tile loop is on a line in `untile` (None: all) are
    read untiled, unchecked: `untiling.build_program` decides which may be."""
    return _Builder(k, untile).build()
