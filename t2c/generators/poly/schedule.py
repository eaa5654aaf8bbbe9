"""isl's own schedule as a loop tree: the alternative to permuting the reference's loops.

The passes in `transform` keep the reference's loop structure and only reorder, split
and skew it; a kernel like lu or cholesky then keeps its pivot loop *inside* the
parallel rows, and the whole factorization runs in one thread.  isl's scheduler
(Pluto-style, outer parallelism first) finds the right-looking form instead: the pivot
loop outermost, parallel row/column loops inside it.

`isl_tree(an)` gives that schedule as `Loop`/`Stmt` nodes the mapper and printer take
like any other tree:

- isl's iterators get readable names (the reference iterator a loop enumerates, when
  unambiguous), the loop headers are isl's bounds printed as C;
- each statement instance is the reference's C statement with its iterators replaced
  by isl's call arguments, under the AST's `if` guards;
- `Stmt.at` (each loop's value over the statement's iterators) lets the dependence
  check and the launch bounds read the tree, `Stmt.bind` lets the mapper see which
  loop indexes a subscript.

It returns None where the plain form does not apply: scalar webs (their storage needs
the reference's loop structure), a statement placed twice, or an AST construct the
printer does not cover.  `lower` then keeps the classic tree.
"""
from __future__ import annotations

import copy
import re
from dataclasses import replace

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...analysis.model import parse_expr

_C_OPS = {"neg": "-", "min": "poly_min", "max": "poly_max", "floord": "poly_floord"}


def c_expr(e, names: dict[str, str]) -> str:
    """C text of one of `isl_bridge._expr`'s tuples, iterators renamed by `names`."""
    return _c(e, names)[0]


_PREC = {"||": 0, "&&": 1, "==": 2, "<=": 2, "<": 2, ">=": 2, ">": 2, "+": 3, "-": 3,
         "*": 4, "/": 4, "%": 4}


def _c(e, names) -> tuple[str, int]:                  # (text, precedence of its top operator)
    op, *args = e
    if op == "id":
        return names.get(args[0], args[0]), 9
    if op == "int":
        return str(args[0]), 9 if args[0] >= 0 else 5
    parts = [_c(a, names) for a in args]
    if op in _C_OPS and op != "neg":
        return f"{_C_OPS[op]}({', '.join(p for p, _ in parts)})", 9
    if op == "neg":
        return f"-{parts[0][0] if parts[0][1] > 5 else f'({parts[0][0]})'}", 5
    op = {"div": "/", "mod": "%"}.get(op, op)
    (a, pa), (b, pb) = parts
    prec = _PREC[op]
    return f"{a if pa >= prec else f'({a})'} {op} {b if pb > prec else f'({b})'}", prec


def isl_tree(an: Analysis) -> list | None:
    if an.webs:
        return None
    try:
        ast = an.model.scheduled_ast(an.all_deps)
    except ValueError:
        return None
    calls = _calls(ast)
    if len(calls) != len(set(calls)) or set(calls) != {s.name for s in an.program.statements}:
        return None
    taken = set(an.program.kernel.params) | set(an.program.locals) | {
        s.name for s in an.program.statements}
    try:
        return _convert(an, ast, {}, [], [], taken)
    except ValueError:
        return None


def _calls(ast) -> list[str]:
    out = []
    for n in ast:
        if n[0] == "call":
            out.append(n[1])
        else:
            out += _calls(n[-1])
    return out


def _iterator_names(an: Analysis, node, it: str) -> list[str]:
    """Reference iterators that loop `it` enumerates exactly, in calls beneath it."""
    out = []
    for stmt, args in _call_args(node):
        loops = an.program.statement(stmt).loops
        out += [l for l, a in zip(loops, args) if a == ("id", it)]
    return out


def _call_args(node):
    if node[0] == "call":
        yield node[1], node[2]
    else:
        for kid in node[-1]:
            yield from _call_args(kid)


def _convert(an, ast, names, loops, guards, taken) -> list:
    out = []
    for node in ast:
        if node[0] == "for":
            _, it, init, cond, body = node
            cands = [c for c in _iterator_names(an, node, it) if c not in names.values()]
            name = max(sorted(set(cands)), key=cands.count) if cands else it
            if name in taken or name in names.values():
                name = it
            inner = {**names, it: name}
            lo = c_expr(init, names)
            out.append(Loop(name, lo, c_expr(cond, inner), 1,
                            _convert(an, body, inner, loops + [it], guards, taken),
                            init=f"{name} = {lo}", cond=c_expr(cond, inner), next=f"{name}++"))
        elif node[0] == "if":
            out += _convert(an, node[2], names, loops, guards + [c_expr(node[1], names)], taken)
        else:
            out.append(_placed(an, node[1], node[2], names, loops, guards))
    return out


def _placed(an, name, args, names, loops, guards) -> Stmt:
    """One statement instance under isl's loops: its C text with the iterators replaced."""
    s = an.program.statement(name)
    bind = {l: c_expr(a, names) for l, a in zip(s.loops, args)}
    node = _subst(copy.deepcopy(s.node), {l: parse_expr(t) for l, t in bind.items()})
    if guards:
        node = c_ast.If(parse_expr(" && ".join(f"({g})" for g in guards)), node, None)
    at = an.model.schedule_values(name, loops, [c_expr(a, {}) for a in args])
    return Stmt(replace(s, node=node), at={names[l]: v for l, v in at.items()}, bind=bind)


def _subst(node, values: dict):
    """Replace every identifier in `values` under `node` (in place) by a copy of its value."""
    if isinstance(node, c_ast.ID) and node.name in values:
        return copy.deepcopy(values[node.name])
    for slot, kid in node.children():
        new = _subst(kid, values)
        if new is not kid:
            m = re.fullmatch(r"(\w+)\[(\d+)\]", slot)
            if m:
                getattr(node, m.group(1))[int(m.group(2))] = new
            else:
                setattr(node, slot, new)
    return node
