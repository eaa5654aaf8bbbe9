"""Triangular sums as running sums: a sum over a range that grows with its loop, carried across it.

    running_sums(analysis, options) -> (Analysis, [loop variables])

Takes every loop `for (i = L; i <= U; i++) { acc = INIT; for (k = K0; k <= i + c - 1; k++) acc +=
T(k); Y[.., i] = acc; }` (or `Y[.., i] = INIT; ... Y[.., i] += T(k);`; a spec's `y[i] = sum(k < i:
x[k])`), where INIT and T name no value of i, no local and nothing the nest writes, acc has Y's
element type (or is a double sum for a float Y: _CARRIES) and is used nowhere else, K0 names no i
and c is a constant with L + c - K0 = 0 or 1 (the first range's terms). Gives `Y[.., L] = INIT
(+ T(K0))` before the loop (under `if (L <= U)` unless that always holds) and `Y[.., i] =
Y[.., i - 1] + T(i + c - 1)` for i from L + 1: each Y[i] adds the same terms in the same order as
the reference, in O(U - L) additions instead of O((U - L)^2), and the scan recognizers (scan.py,
rowscan.py) take the loop. Only where they can: top-level loops with `scans.linear`, nested ones
(per row) with `scans.rows`. Anything else stays (a term of i, like trmv's `L[i][k] * x[k]`, is no
scan). docs/poly.md, "Running sums".
"""
from __future__ import annotations

import copy
import re
from dataclasses import replace

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt, analyze_program
from ...analysis.isl_bridge import always_within, constant_value
from ...analysis.model import parse_expr
from ...ir.csyntax import cprint, walk as _walk
from .ctext import WORD, at as ctext_at, substitute

_PLAIN = re.compile(r"[\w\s+\-*()]*")        # bounds that read the same in C and in isl
#: (acc's type, Y's type) where Y's cells can carry the sum: the same type, or a double sum of
#: floats (a spec's: docs/specs.md), carried in float: Y's precision, which the check's tolerance
#: is for; the scans add in Y's type anyway
_CARRIES = {*((t, t) for t in ("float", "double", "int", "long", "unsigned", "unsigned long")),
            ("double", "float")}


def running_sums(an: Analysis, options) -> tuple[Analysis, list[str]]:
    """The program with each qualifying loop running (module docstring) and the variables of
    those loops; the analysis itself and [] when none qualifies."""
    prog, done, new, gone = an.program, [], {}, set()

    def tree(nodes, outer):
        out = []
        for n in nodes:
            if not isinstance(n, Loop):
                out.append(n)
                continue
            on = options.scans.rows if outer else options.scans.linear
            r = _running(an, n, outer) if on and not n.geometric else None   # its previous value is not v - 1
            if r is None:
                out.append(replace(n, body=tree(n.body, (*outer, n))))
                continue
            pre, run, dropped = r
            lower = _plus1(n.lower)
            out += [Stmt(pre), replace(n, lower=lower, init=f"{n.var} = {lower}", body=[Stmt(run)])]
            new.update({pre.name: pre, run.name: run})
            gone.update(dropped)
            done.append(n.var)
        return out
    body = tree(prog.body, ())
    if not done:
        return an, []
    statements = [new.get(st.name, st) for st in prog.statements if st.name not in gone]
    used = lambda sts: {a.name for st in sts for a in st.accesses}
    unused = used(prog.statements) - used(statements)                 # the accumulators
    locals_ = {k: v for k, v in prog.locals.items() if k not in unused}
    return analyze_program(replace(prog, body=body, statements=statements, locals=locals_)), done


def _plus1(text: str) -> str:
    return str(int(text) + 1) if re.fullmatch(r"\s*-?\d+\s*", text) else f"({text}) + 1"


def _running(an: Analysis, loop: Loop, outer: tuple) -> tuple | None:
    """(the statement before the loop, the loop's one statement, the names of the statements
    dropped) for a loop of the module docstring's form, else None."""
    prog, i = an.program, loop.var
    body = loop.body
    if not (_simple(loop) and 2 <= len(body) <= 3 and isinstance(body[0], Stmt) and isinstance(body[1], Loop)
            and all(isinstance(x, Stmt) for x in body[2:])):
        return None
    inner = body[1]
    if not (_simple(inner) and len(inner.body) == 1 and isinstance(inner.body[0], Stmt)):
        return None
    k, add = inner.var, inner.body[0]
    if any(x.at or x.bind or x.stmt.conditional or x.stmt.atomic for x in (body[0], add, *body[2:])):
        return None
    init, store = body[0].stmt, (body[2].stmt if len(body) == 3 else None)
    if not _assign(init.node, "="):
        return None
    cell = store.node.lvalue if store else init.node.lvalue          # Y[.., i]
    y = _array(prog, cell)
    if y is None:
        return None
    subs = _subscripts(cell)
    if subs[-1] != i or any({i, k} & set(WORD.findall(s)) for s in subs[:-1]):
        return None
    if store:                                    # acc = INIT; acc += T; Y[i] = acc
        acc = init.node.lvalue
        local = prog.locals.get(getattr(acc, "name", None))
        if local is None or local.shape or (local.dtype, y.dtype) not in _CARRIES or not _assign(store.node, "=") or \
                not _same(store.node.rvalue, acc):
            return None
        mine = {init.name, add.stmt.name, store.name}
        if any(a.name == acc.name for st in prog.statements if st.name not in mine for a in st.accesses):
            return None                          # acc's value is read elsewhere
    else:                                        # Y[i] = INIT; Y[i] += T
        acc = cell
    term = _term(add.stmt.node, acc)
    if term is None:
        return None
    written = {a.name for x in loop.statements() for a in x.stmt.writes()}
    for e in (term, init.node.rvalue):
        names = {x.name for x in _walk(e) if isinstance(x, c_ast.ID)}
        if {i, y.name} & names or names & set(prog.locals) or names & written:
            return None                          # a term of i, a local's value, what the nest writes
    if k in {x.name for x in _walk(init.node) if isinstance(x, c_ast.ID)} or i in WORD.findall(inner.lower):
        return None
    # the range at i is [K0, i + c): its end moves with i, and the first one has 0 or 1 terms
    names = [*(l.var for l in outer), i]
    offset = constant_value(prog.sizes, names, f"({inner.upper}) - {i}")       # c - 1
    first = constant_value(prog.sizes, names, f"({loop.lower}) + ({inner.upper}) - {i} + 1 - ({inner.lower})")
    if offset is None or first not in (0, 1):
        return None
    return _statements(an, loop, init, add.stmt, store, cell, term, offset, first)


def _statements(an, loop, init, add, store, cell, term, offset: int, first: int) -> tuple | None:
    """`Y[.., L] = INIT (+ T(K0))` (guarded) and `Y[.., i] = Y[.., i - 1] + T(i + c - 1)`, their
    accesses in isl text (substituted in their syntax trees: ctext.at), and the statement the
    rewrite drops (the store of acc); None where a subscript is not plain C."""
    prog, i, lower, inner = an.program, loop.var, loop.lower, loop.body[1]
    k, start = inner.var, inner.lower
    at = lambda e, v, val: substitute(copy.deepcopy(e), {v: parse_expr(val)})
    isl_at = lambda a, v, val, **kw: replace(a, index=tuple(ctext_at(x, v, val) for x in a.index), **kw)
    wcell = next(a for a in (store or init).writes() if a.index)
    terms = [a for a in add.reads() if a.index and a.name != wcell.name]
    if not all(_PLAIN.fullmatch(x) for a in (wcell, *terms) for x in a.index):
        return None                   # a subscript in isl's own syntax (mod): not substituted as C
    # before the loop
    value = copy.deepcopy(init.node.rvalue)
    if first:
        value = c_ast.BinaryOp("+", value, at(term, k, start))
    accesses = (*(a for a in init.reads() if a.index), *(isl_at(a, k, start) for a in terms if first),
                isl_at(wcell, i, lower))
    outer = tuple(c for c in init.domain if i not in WORD.findall(c))
    node = c_ast.Assignment("=", at(cell, i, lower), value)
    always = always_within(prog.sizes, prog.context, init.loops[:-1], outer, loop.upper, lower, loop.upper)
    if not always:
        node = c_ast.If(parse_expr(f"{lower} <= {loop.upper}"), node, None)
    pre = replace(init, node=node, loops=init.loops[:-1], domain=(*outer, f"{lower} <= {loop.upper}"),
                  accesses=accesses, conditional=not always, flops=add.flops if first else 0)
    # in the loop, from L + 1
    shift = f"{i} + {offset}" if offset >= 0 else f"{i} - {-offset}"
    value = c_ast.BinaryOp("+", at(cell, i, f"{i} - 1"), at(term, k, shift))
    accesses = (isl_at(wcell, i, f"{i} - 1", write=False), *(isl_at(a, k, shift) for a in terms), wcell)
    run = replace(add, node=c_ast.Assignment("=", copy.deepcopy(cell), value), loops=init.loops,
                  domain=(*init.domain, f"{_plus1(lower)} <= {i}"), accesses=accesses)
    return pre, run, {store.name} if store else set()


def _simple(loop: Loop) -> bool:
    return loop.step == 1 and not loop.time and not loop.derived and \
        bool(_PLAIN.fullmatch(f"{loop.lower} {loop.upper}"))


def _assign(node, op: str) -> bool:
    return isinstance(node, c_ast.Assignment) and node.op == op


def _same(a, b) -> bool:
    return cprint(a) == cprint(b)


def _term(node, acc):
    """T of `acc += T` or `acc = acc + T`, else None."""
    if _assign(node, "+=") and _same(node.lvalue, acc):
        return node.rvalue
    if _assign(node, "=") and _same(node.lvalue, acc) and isinstance(node.rvalue, c_ast.BinaryOp) and \
            node.rvalue.op == "+" and _same(node.rvalue.left, acc):
        return node.rvalue.right
    return None


def _subscripts(ref) -> list[str]:
    out = []
    while isinstance(ref, c_ast.ArrayRef):
        out.append(cprint(ref.subscript))
        ref = ref.name
    return out[::-1]


def _array(prog, ref):
    """The kernel array `ref` (an `X[..]` node) names, else None."""
    base = ref
    while isinstance(base, c_ast.ArrayRef):
        base = base.name
    if not (isinstance(ref, c_ast.ArrayRef) and isinstance(base, c_ast.ID)):
        return None
    return next((a for a in prog.kernel.arrays if a.name == base.name), None)
