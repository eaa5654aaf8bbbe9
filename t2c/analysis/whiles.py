"""A counted while or do-while loop, written as the for loop it is.

    normalize_whiles(fn, sizes, within) -> None   (rewrites fn in place, before the model)

Takes a reference function; rewrites `v = lo; while (v < hi) { ...; v++; }` (or `int v = lo;`
before it, with nothing between naming v; any constant step `v += s`, `v = v + s`, `v--`, or a geometric one `v *= 2`, `v >>= 1`
(scalars.geometric_step), last in the body, and a condition
of comparisons of v, as a for header reads them) as `for (v = lo; v < hi; v++) { ...; }`, which
the model reads as any for loop. Only where that is the same loop: v is an integer local written
nowhere else in the body, no `continue` skips the step, and nothing outside the two statements
names v (the model refuses a loop variable read after its loop); anything else is left as written.

A do-while loop `v = lo; do { ...; v += s; } while (v < hi);` (a constant step, each comparison
in its direction, hi written nowhere in the body) runs its body once before the first test: it is
`for (v = lo; v < MAX(lo + s, hi); v += s)`, so where `lo < hi` holds wherever it runs (`within`
proves it over the enclosing loops and the sizes' constraints) it is the for loop of the same
header, and elsewhere the for loop from `lo + s` after one copy of the body at v = lo (lo and
hi unchanged by the body, no break in it): the same iterations, and v ends as the do-while
leaves it.
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import conjuncts, initialized, is_name, names, walk as _walk
from ..ir.extents import NotPolynomial, Poly, loop_range, to_poly
from .scalars import constant_step, geometric_step, substitute, written_names


def normalize_whiles(fn: c_ast.FuncDef, sizes=frozenset(), within=None) -> None:
    """Module docstring.  `within(loops, domain, expr, low, high)` proves low <= expr <= high over
    the loops' domain (isl_bridge.always_within); without it a do-while loop is always peeled."""
    for block, loops in reversed(list(_blocks(fn.body, [], set(sizes)))):        # inner first
        items = block.block_items or []
        for p in range(len(items) - 1, 0, -1):
            q = _start(items, p)
            if (f := _counted(fn, items[q], items[p], loops, within, set(sizes))) is not None:
                items[q if q == p - 1 else p:p + 1] = f
                if q < p - 1:                     # the start moved into its loop's header
                    del items[q]


def _start(items: list, p: int) -> int:
    """Where the statement setting loop p's counter is: `int v = lo; S...; while (v < hi)` with S
    naming no v and writing nothing lo reads (an early `if (n <= 0) return;`) is the same program
    with the start just before the loop; else p - 1."""
    loop = items[p]
    var = next((c.left.name for c in conjuncts(loop.cond) if isinstance(c, c_ast.BinaryOp)
                and isinstance(c.left, c_ast.ID)), None) if isinstance(loop, (c_ast.While, c_ast.DoWhile)) else None
    for q in range(p - 1, -1, -1) if var else ():
        if _var(items[q]) == var:
            start = items[q].init if isinstance(items[q], c_ast.Decl) else items[q].rvalue
            between = items[q + 1:p]
            if not any(var in names(s) for s in between) and not names(start) & written_names(between):
                return q
            break
        if var in names(items[q]):
            break
    return p - 1


def named_outside(root, skip, var: str) -> bool:
    """Whether `var` is named in `root` outside the nodes `skip` and the for loops over var (they
    set it before any use)."""
    if any(root is s for s in skip) or isinstance(root, c_ast.For) and _sets(root.init, var):
        return False
    if isinstance(root, c_ast.ID) and root.name == var:
        return True
    return any(named_outside(c, skip, var) for _, c in root.children())


def _blocks(node, loops: list, known: set):
    """(block, enclosing loops' (var, lowest, highest) ranges, None for one loop_range cannot
    read) of every Compound under node, outer first."""
    if isinstance(node, c_ast.Compound):
        yield node, loops
    if isinstance(node, c_ast.For):
        loops = loops + [loop_range(node, known | {l[0] for l in loops}) if all(loops) else None]
    elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
        loops = loops + [None]
    for _, c in node.children():
        yield from _blocks(c, loops, known)


def _counted(fn, first, loop, loops=(), within=None, sizes=frozenset()) -> list | None:
    """The statements of `first; loop` when they are a counted while or do-while loop (module
    docstring)."""
    if not isinstance(loop, (c_ast.While, c_ast.DoWhile)) or not isinstance(loop.stmt, c_ast.Compound):
        return None
    body = loop.stmt.block_items or []
    var = _var(first)
    decl = first if isinstance(first, c_ast.Decl) else next(
        (d for d in _walk(fn.body) if isinstance(d, c_ast.Decl) and d.name == var), None)
    if var is None or not _integer(decl) or not body or var in written_names(body[:-1]) or \
            constant_step(body[-1], var) in (None, 0) and geometric_step(body[-1], var) is None:
        return None
    if not all(isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=", ">", ">=") and is_name(c.left, var)
               and not written_names([c.right]) for c in conjuncts(loop.cond)):
        return None
    if any(isinstance(n, (c_ast.Continue, c_ast.Goto, c_ast.Label)) for n in _walk(loop.stmt)) \
            or named_outside(fn.body, (first, loop), var):
        return None
    init = c_ast.DeclList([first], first.coord) if isinstance(first, c_ast.Decl) else first
    peel = []
    if isinstance(loop, c_ast.DoWhile) and (peel := _once(first, loop, var, loops, within, sizes)) is None:
        return None
    loop.stmt.block_items = body[:-1]
    return peel + [c_ast.For(init, loop.cond, body[-1], loop.stmt, loop.coord)]


def _once(first, loop, var, loops, within, sizes) -> list | None:
    """What a do-while loop runs before its for loop (module docstring): nothing where its first
    test provably passes, else one copy of the body at v = lo, `first` then setting lo + s;
    None where it is no counted loop."""
    body = loop.stmt.block_items
    step, conds = constant_step(body[-1], var), conjuncts(loop.cond)
    if not step or any(c.op not in (("<", "<=") if step > 0 else (">", ">=")) for c in conds) \
            or names(*(c.right for c in conds)) & written_names(body):
        return None
    start = first.init if isinstance(first, c_ast.Decl) else first.rvalue
    if _first_test_holds(start, conds, step, loops, within, sizes):
        return []
    if any(isinstance(n, c_ast.Break) for n in _walk(loop.stmt)) or names(start) & written_names(body):
        return None
    once = c_ast.Compound([substitute(copy.deepcopy(s), var, start) for s in body[:-1]] or None, loop.coord)
    after = c_ast.BinaryOp("+" if step > 0 else "-", copy.deepcopy(start),
                           c_ast.Constant("int", str(abs(step)), start.coord), start.coord)
    if isinstance(first, c_ast.Decl):
        first.init = after
    else:
        first.rvalue = after
    return [once]


def _first_test_holds(start, conds, step, loops, within, sizes) -> bool:
    """Whether each `v OP hi` holds at v = start wherever the loop runs."""
    if within is None or None in loops:
        return False
    known = set(sizes) | {l[0] for l in loops}
    domain = [c for v, lo, hi in loops for c in (f"{lo.to_c()} <= {v}", f"{v} <= {hi.to_c()}")]
    try:
        lo = to_poly(start, known)
        gaps = [(to_poly(c.right, known) - lo) * Poly.const(1 if step > 0 else -1) for c in conds]
    except NotPolynomial:
        return False
    return all(within([l[0] for l in loops], domain, g.to_c(), "0" if "=" in c.op else "1", g.to_c())
               for g, c in zip(gaps, conds))


def _var(first) -> str | None:
    """v of `v = lo;` or of `int v = lo;` (a scalar of a plain type)."""
    return (initialized(first) or (None,))[0]


def _integer(decl) -> bool:
    """Whether `decl` declares an integer scalar (a parameter or a float counts as none)."""
    return isinstance(decl, c_ast.Decl) and isinstance(decl.type, c_ast.TypeDecl) \
        and isinstance(decl.type.type, c_ast.IdentifierType) \
        and not {"float", "double"} & set(decl.type.type.names)


def _sets(init, var: str) -> bool:
    """Whether a for header's init sets var before reading it (`v = e`, `int v = e`, and in a
    comma list `i = 0, v = e`)."""
    if isinstance(init, c_ast.ExprList):
        first = next((k for k, e in enumerate(init.exprs) if _var(e) == var), None)
        return first is not None and var not in names(*init.exprs[:first], init.exprs[first].rvalue)
    return _var(init) == var or isinstance(init, c_ast.DeclList) and any(d.name == var for d in init.decls)




