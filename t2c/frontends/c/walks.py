"""Pointer parameters walked through a loop nest (`*p++`, `p += s`), read as the subscripts they reach.

    walked_pointers(body, pointers) -> None      (rewrites `body` in place)

The class: pointer parameter p moves only in statements of one loop L's body (or in L's header
after its counter, `for (i = 0; i < n; i++, p += s)`): `*p++` as an access, or `p++`, `++p`,
`p += s`, `p = p + s` as a statement of its own, each such statement moving it once, not under
`?:`, `&&`, `||` or a branch.  Its other uses are `*p` and `p[c]`, anywhere in L's body.  The
loops enclosing L and L itself are for loops `for (v = lo; v < hi; v++)` (or `<=`), each a
statement of its parent's body, no bound or step reading a variable of the nest or a name it
assigns, and no `continue`: `for (i...) { *dst++ = *src; src += stride; }` or
`for (i...) { for (j...) s += p[j] * x[j]; p += n; }` as C written for a CPU walks its arrays.
With K the sum of one iteration's steps and P the iteration's position in the nest (row-major),
a use after steps adding up to o reads `p[K * P + o (+ c)]`; the moving statements go.  p is not
used after the nest, so where it ends does not matter.  Anything else is left as written
(refused as before).
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ...ir.csyntax import assigned, block_items, counted_for, names, set_child, unused_name, walk

_LOOPS = (c_ast.For, c_ast.While, c_ast.DoWhile)


def walked_pointers(body: c_ast.Compound, pointers: set[str]) -> None:
    _pointer_loops(body, pointers)
    for p in sorted(pointers):
        if not any(_moves(n, p) for n in walk(body)):
            continue
        trial = copy.deepcopy(body)                   # the header's steps move into the body first
        _steps_into_bodies(trial, p)
        if _rewrite(trial, p):
            body.block_items = trial.block_items


def _pointer_loops(body, pointers: set[str]) -> None:
    """`for (T *q = X [+ e]; q < X + E; q++) S` (`!=`, `++q` too), X a pointer parameter and S
    reading q only as `*q`, `q[j]` or `q - X`, never assigning it: `for (int c = e; c < E; c++) S`
    with `*q` read as X[c], `q[j]` as X[c + j] and `q - X` as c (c a fresh name), the loop C for
    a CPU writes with a pointer for its counter."""
    for f in [n for n in walk(body) if isinstance(n, c_ast.For) and isinstance(n.init, c_ast.DeclList)
              and len(n.init.decls) == 1 and isinstance(n.init.decls[0].type, c_ast.PtrDecl)]:
        d = f.init.decls[0]
        q, start = d.name, _offset(d.init, pointers)
        end = _offset(f.cond.right, pointers) if isinstance(f.cond, c_ast.BinaryOp) and f.cond.op in ("<", "!=") \
            and _is_id(f.cond.left, q) else None
        if start is None or end is None or start[0] != end[0] or not (
                isinstance(f.next, c_ast.UnaryOp) and f.next.op in ("p++", "++") and _is_id(f.next.expr, q)) \
                or q in assigned(f.stmt) or _count(f.stmt, q) != sum(
                    1 for n in walk(f.stmt) if isinstance(n, c_ast.UnaryOp) and n.op == "*" and _is_id(n.expr, q)
                    or isinstance(n, c_ast.ArrayRef) and _is_id(n.name, q) or _distance(n, q, start[0])):
            continue
        c, x = unused_name(body, "cnt"), start[0]
        for n in list(walk(f.stmt)):
            for name, child in n.children():
                if isinstance(child, c_ast.UnaryOp) and child.op == "*" and _is_id(child.expr, q):
                    set_child(n, name, c_ast.ArrayRef(c_ast.ID(x), c_ast.ID(c), child.coord))
                elif isinstance(child, c_ast.ArrayRef) and _is_id(child.name, q):
                    set_child(n, name, c_ast.ArrayRef(c_ast.ID(x), _bin("+", c_ast.ID(c), child.subscript), child.coord))
                elif _distance(child, q, x):
                    set_child(n, name, c_ast.ID(c))
        counted = counted_for(c, start[1] or c_ast.Constant("int", "0"), end[1] or c_ast.Constant("int", "0"), f.stmt)
        f.init, f.cond, f.next = counted.init, counted.cond, counted.next


def _distance(n, q: str, x: str) -> bool:
    """`n` is `q - x`: the index q stands at."""
    return isinstance(n, c_ast.BinaryOp) and n.op == "-" and _is_id(n.left, q) and _is_id(n.right, x)


def _offset(e, pointers: set[str]):
    """(X, e) of `X + e`, `e + X` or `&X[e]`, (X, None) of `X`, X one of `pointers`; else None."""
    if isinstance(e, c_ast.ID) and e.name in pointers:
        return e.name, None
    if isinstance(e, c_ast.BinaryOp) and e.op == "+":
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if isinstance(a, c_ast.ID) and a.name in pointers:
                return a.name, b
    if isinstance(e, c_ast.UnaryOp) and e.op == "&" and isinstance(e.expr, c_ast.ArrayRef) \
            and isinstance(e.expr.name, c_ast.ID) and e.expr.name.name in pointers:
        return e.expr.name.name, e.expr.subscript
    return None


def _walk_of(n, p: str) -> bool:
    """`n` is `*p++`."""
    return isinstance(n, c_ast.UnaryOp) and n.op == "*" and isinstance(n.expr, c_ast.UnaryOp) \
        and n.expr.op == "p++" and _is_id(n.expr.expr, p)


def _step(n, p: str):
    """The amount `n` moves p by as an expression of its own (`p++`, `++p`, `p += s`, `p = p + s`), else None."""
    if isinstance(n, c_ast.UnaryOp) and n.op in ("p++", "++") and _is_id(n.expr, p):
        return c_ast.Constant("int", "1")
    if isinstance(n, c_ast.Assignment) and _is_id(n.lvalue, p):
        if n.op == "+=":
            return n.rvalue
        r = n.rvalue
        if n.op == "=" and isinstance(r, c_ast.BinaryOp) and r.op == "+" and (_is_id(r.left, p) or _is_id(r.right, p)):
            return r.right if _is_id(r.left, p) else r.left
    return None


def _moves(n, p: str) -> bool:
    return _walk_of(n, p) or _step(n, p) is not None


def _movers(root, p: str) -> list:
    """Each `*p++` and each step under `root` (a `*p++`'s own `p++` not again)."""
    inner = {id(n.expr) for n in walk(root) if _walk_of(n, p)}
    return [n for n in walk(root) if _moves(n, p) and id(n) not in inner]


def _steps_into_bodies(root, p: str) -> None:
    """`for (i = 0; i < n; i++, p += s) S` as `for (i = 0; i < n; i++) { S p += s; }` (no `continue` in S)."""
    for f in walk(root):
        if isinstance(f, c_ast.For) and isinstance(f.next, c_ast.ExprList) and len(f.next.exprs) > 1 \
                and not any(isinstance(n, c_ast.Continue) for n in walk(f.stmt)):
            moved = [e for e in f.next.exprs[1:] if _step(e, p) is not None]
            if moved:
                kept = [e for e in f.next.exprs if not any(e is m for m in moved)]
                f.next = kept[0] if len(kept) == 1 else c_ast.ExprList(kept, f.next.coord)
                f.stmt = c_ast.Compound([*block_items(f.stmt), *moved], f.stmt.coord)


def _rewrite(body, p: str) -> bool:
    movers = _movers(body, p)
    nest = _nest(body, movers[0])
    if not nest:
        return False
    loop = nest[-1]
    stmts = block_items(loop.stmt)
    ranges = [_range(f) for f in nest]
    written = assigned(nest[0]) - {p}
    loop_vars = {r[0] for r in ranges if r}
    if None in ranges or any(names(lo, hi) & (written | loop_vars) for _, lo, hi in ranges) \
            or any(isinstance(n, c_ast.Continue) for f in nest for n in walk(f.stmt)) \
            or _count(body, p) != _count(loop.stmt, p):
        return False
    for outer, inner in zip(nest, nest[1:]):
        if not any(s is inner for s in block_items(outer.stmt)):
            return False
    offset, uses, gone, found = c_ast.Constant("int", "0"), [], [], 0
    for s in stmts:                                   # in source order: where p stands at each use
        if (amount := _step(s, p)) is not None:
            if names(amount) & (written | loop_vars) or _count(s, p) != _count(amount, p) + (1 if s.op != "=" else 2):
                return False
            offset, found = _add(offset, amount), found + 1
            gone.append(s)
            continue
        walks = [n for n in walk(s) if _walk_of(n, p)]
        if walks:
            if len(walks) > 1 or _count(s, p) != 1 or _hidden(s, walks[0]):
                return False
            uses.append((walks[0], offset, None))
            offset, found = _add(offset, c_ast.Constant("int", "1")), found + 1
            continue
        reads = [(n, offset, None) for n in walk(s) if isinstance(n, c_ast.UnaryOp) and n.op == "*" and _is_id(n.expr, p)] \
            + [(n, offset, n.subscript) for n in walk(s) if isinstance(n, c_ast.ArrayRef) and _is_id(n.name, p)]
        if len(reads) != _count(s, p) or _movers(s, p):
            return False
        uses += reads
    if found != len(movers) or gone and not isinstance(loop.stmt, c_ast.Compound):
        return False
    position = None
    for v, lo, hi in ranges:                          # row-major: ((i - lo_i) * N_j + (j - lo_j)) ...
        here = _bin("-", c_ast.ID(v), lo)
        position = here if position is None else _bin("+", _bin("*", position, _span(lo, hi)), here)
    base = _bin("*", offset, position)
    for use, at, extra in uses:
        index = _add(_add(base, at), extra) if extra is not None else _add(base, at)
        _replace(loop, use, c_ast.ArrayRef(c_ast.ID(p), index, use.coord))
    if gone:
        loop.stmt.block_items = [s for s in stmts if not any(s is g for g in gone)]
    return True


def _count(node, p: str) -> int:
    return sum(_is_id(n, p) for n in walk(node))


def _is_id(n, p: str) -> bool:
    return isinstance(n, c_ast.ID) and n.name == p


def _add(a, b):
    """`a + b`, constants folded and `+ 0` left out."""
    if isinstance(a, c_ast.Constant) and isinstance(b, c_ast.Constant) and a.type == b.type == "int":
        return c_ast.Constant("int", str(int(a.value.rstrip("uUlL"), 0) + int(b.value.rstrip("uUlL"), 0)))
    if _is(a, "0"):
        return copy.deepcopy(b)
    return _bin("+", a, b)


def _nest(body, use) -> list | None:
    """The for loops enclosing `use`, outermost first, when no other loop does."""
    path = _path(body, use)
    loops = [n for n in path if isinstance(n, _LOOPS)]
    return loops if loops and all(isinstance(f, c_ast.For) for f in loops) else None


def _path(root, target) -> list:
    if root is target:
        return [root]
    for _, child in root.children():
        if (found := _path(child, target)):
            return [root, *found]
    return []


def _hidden(stmt, use) -> bool:
    """Whether `use` may not run each time `stmt` does (under ?:, &&, ||, a branch or a loop)."""
    path = _path(stmt, use)
    return any(isinstance(n, (c_ast.TernaryOp, c_ast.If, c_ast.Switch, c_ast.Compound, *_LOOPS))
               or isinstance(n, c_ast.BinaryOp) and n.op in ("&&", "||") for n in path[:-1])


def _range(f: c_ast.For):
    """(v, lo, hi) of `for (v = lo; v < hi; v++)`, hi one past the last (`<= h`: h + 1), else None."""
    init = f.init.decls[0] if isinstance(f.init, c_ast.DeclList) and len(f.init.decls) == 1 else f.init
    v, lo = (init.name, init.init) if isinstance(init, c_ast.Decl) else \
        (init.lvalue.name, init.rvalue) if isinstance(init, c_ast.Assignment) and init.op == "=" \
        and isinstance(init.lvalue, c_ast.ID) else (None, None)
    c, step = f.cond, f.next
    if v is None or lo is None or not (isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=")
                                        and isinstance(c.left, c_ast.ID) and c.left.name == v):
        return None
    if not (isinstance(step, c_ast.UnaryOp) and step.op in ("p++", "++") and isinstance(step.expr, c_ast.ID)
            and step.expr.name == v) or v in assigned(f.stmt):
        return None
    hi = c.right if c.op == "<" else _bin("+", c.right, c_ast.Constant("int", "1"))
    return v, lo, hi


def _span(lo, hi):
    """hi - lo, folded where lo is a constant and hi a name plus one (`j = 1; j <= m`: m)."""
    def split(e):
        if isinstance(e, c_ast.Constant) and e.type == "int":
            return None, int(e.value.rstrip("uUlL"), 0)
        if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-") and isinstance(e.right, c_ast.Constant) \
                and e.right.type == "int":
            return e.left, int(e.right.value.rstrip("uUlL"), 0) * (1 if e.op == "+" else -1)
        return e, 0
    (h, hc), (l, lc) = split(hi), split(lo)
    if l is not None or h is None:
        return _bin("-", hi, lo)
    c = hc - lc
    return _bin("+" if c >= 0 else "-", h, c_ast.Constant("int", str(abs(c))))


def _bin(op, a, b):
    """`a op b`, without the `- 0`, `+ 0` and `1 *` a loop from 0 or one use per iteration gives."""
    if op in ("+", "-") and _is(b, "0"):
        return copy.deepcopy(a)
    if op == "*" and _is(a, "1"):
        return copy.deepcopy(b)
    return c_ast.BinaryOp(op, copy.deepcopy(a), copy.deepcopy(b))


def _is(node, value: str) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == value


def _replace(root, old, new) -> None:
    for parent in walk(root):
        for name, child in parent.children():
            if child is old:
                set_child(parent, name, new)
                return
