"""A switch whose cases all end in break, written as the if / else-if chain it is.

    normalize_switches(fn) -> None      (rewrites fn in place, before the model)
    refusal(switch) -> str | None       (why a switch stays as written; None: it is a chain)

The class: `switch (e) { case 0: A; break; case 1: case 2: B; break; default: D; }` (labels sharing
a group, the default anywhere, the last group's break optional, a group's break last in braces
too) is `if (e == 0) A else if (e == 1 || e == 2) B else D`: exactly the same statements run,
since no group falls through into another's and e, which has no side effects, is evaluated
only before any group runs (as often as there are tests, always to the same value).  A group
that is only `break;` keeps its test with an empty branch (the default must not take it).
Anything else stays as written and `refusal` names it (the model refuses a switch with that
reason): a group falling through into statements, a break before a group's end, a `continue`,
`return` or `goto` inside, a declaration directly under a label, a duplicate label, an `e` with
side effects.  docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import copy

from pycparser import c_ast

from ..ir.csyntax import cprint, walk as _walk
from .searches import pure

_BREAK_TARGETS = (c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch)


def normalize_switches(fn: c_ast.FuncDef) -> None:
    switches = [n for n in _walk(fn.body) if isinstance(n, c_ast.Switch)]
    for sw in reversed(switches):                          # inner first: their breaks go with them
        if refusal(sw) is None:
            chain = _chain(sw)
            for parent in _walk(fn.body):
                for attr in ("block_items", "stmts"):
                    items = getattr(parent, attr, None) or []
                    items[:] = [chain if it is sw else it for it in items]
                for attr in ("stmt", "iftrue", "iffalse"):
                    if getattr(parent, attr, None) is sw:
                        setattr(parent, attr, chain)


def refusal(sw: c_ast.Switch) -> str | None:
    """Why `sw` is not an if / else-if chain (module docstring); None where it is one."""
    if not pure(sw.cond):
        return f"switch on `{cprint(sw.cond)}`, which has side effects (bind it to a local first)"
    items = sw.stmt.block_items if isinstance(sw.stmt, c_ast.Compound) else None
    if not items or not all(isinstance(it, (c_ast.Case, c_ast.Default)) for it in items):
        return "switch whose body is not a block of labelled cases (a statement before the first label)"
    labels = [cprint(it.expr) for it in items if isinstance(it, c_ast.Case)]
    if len(set(labels)) < len(labels):
        dup = next(x for x in labels if labels.count(x) > 1)
        return f"switch with the label `case {dup}` twice"
    for k, it in enumerate(items):
        name, stmts = _label(it), it.stmts or []
        jump = next((n for s in stmts for n in _walk(s) if isinstance(n, (c_ast.Return, c_ast.Goto, c_ast.Label))),
                    None) or next((n for n in _own(stmts) if isinstance(n, c_ast.Continue)), None)
        if jump is not None:
            return f"switch whose `{name}` holds a {type(jump).__name__.lower()} (it leaves the switch other than by break)"
        if any(isinstance(s, c_ast.Decl) for s in stmts):
            return f"switch with a declaration directly under `{name}`"
        body = _without_break(stmts)
        if body is None:
            return f"switch whose `{name}` breaks before its end"
        if stmts and not body[1] and k + 1 < len(items):
            return f"switch whose `{name}` falls through into `{_label(items[k + 1])}`"
    return None


def _chain(sw: c_ast.Switch) -> c_ast.Node:
    groups, labels, default = [], [], None
    for it in sw.stmt.block_items:
        labels.append(it)
        if it.stmts or it is sw.stmt.block_items[-1]:
            body = c_ast.Compound(_without_break(it.stmts or [])[0] or None, it.coord)
            if any(isinstance(x, c_ast.Default) for x in labels):
                default = body
            else:
                groups.append((labels, body))
            labels = []
    out = default
    for labels, body in reversed(groups):
        tests = [c_ast.BinaryOp("==", copy.deepcopy(sw.cond), copy.deepcopy(x.expr), x.coord) for x in labels]
        cond = tests[0]
        for t in tests[1:]:
            cond = c_ast.BinaryOp("||", cond, t, t.coord)
        out = c_ast.If(cond, body, out, sw.coord)
    return out if out is not None else c_ast.EmptyStatement(sw.coord)


def _without_break(stmts: list) -> tuple[list, bool] | None:
    """(the group's statements without the break that ends it, whether one ends it: a break
    last in braces counts); None where a break of the switch comes before the end."""
    last = stmts[-1] if stmts else None
    rest, ended = stmts, False
    if isinstance(last, c_ast.Break):
        rest, ended = stmts[:-1], True
    elif isinstance(last, c_ast.Compound) and (inner := _without_break(last.block_items or [])) and inner[1]:
        rest, ended = stmts[:-1] + [c_ast.Compound(inner[0] or None, last.coord)], True
    if any(isinstance(n, c_ast.Break) for n in _own(rest)):
        return None
    return rest, ended


def _own(stmts):
    """The nodes of stmts that belong to this switch: not inside an inner loop or switch."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, _BREAK_TARGETS):
            todo.extend(c for _, c in n.children())


def _label(it) -> str:
    return f"case {cprint(it.expr)}" if isinstance(it, c_ast.Case) else "default"
