"""An early return on sizes that no valid call has, dropped.

    normalize_guards(fn, sizes, never, affine, not_affine) -> None   (rewrites fn in place)

Takes a reference function and `never(text)`: whether an isl condition over the sizes holds for
no sizes the constraints allow. Removes each statement `if (C) return;` (or `return E;`, or the
return in braces) at the head of the body whose condition C compares affine expressions of the
sizes (`&&`, `||`, `!`, `==`, `!=`, ...), when `never` says no valid call takes it: the guard on
empty input people write (`if (n <= 0) return;` under the default `n >= 1`) does nothing then,
and the loops after it are the model's. A guard that valid sizes take stays in the reference and
is refused here with the constraint that would drop it; any other head `if` is left as written.

    decide_branches(fn, sizes, never, affine, not_affine) -> None   (rewrites fn in place)

Writes each `if (C) A else B` whose condition compares affine expressions of the sizes alone and
which every valid call decides alike as the branch taken (A, B or nothing; a block without
declarations spliced into its own): `if (n > 0) { do ... while (i < n); }` under the default
`n >= 1` is its loop, which the model reads (a loop under an if it refuses). The sizes are never
written (the frontend refuses it), so C has one value for the whole call. A branch taken that
returns stays as written (the model judges the return under its if).
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

from pycparser import c_ast

from ..ir.csyntax import cprint, walk

_FLIP = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def normalize_guards(fn: c_ast.FuncDef, sizes: set[str], never, affine, not_affine) -> None:
    """`affine(node, names, what)`: isl text of an affine expression (model.affine);
    `not_affine(message)`: the exception to raise for a guard valid sizes take."""
    items = fn.body.block_items or []
    while items and _is_guard(items[0]):
        try:
            cond = _condition(items[0].cond, sizes, affine, negate=False)
        except not_affine:
            return                               # not over the sizes alone: the model decides
        if not never(cond):
            raise not_affine(f"line {items[0].coord.line}: the early return under `{cprint(items[0].cond)}` "
                             "is taken for sizes the constraints allow; declare the sizes that never "
                             f"reach it (`t2c: constraint ...`) and t2c drops it")
        del items[0]
    fn.body.block_items = items or None


def decide_branches(fn: c_ast.FuncDef, sizes: set[str], never, affine, not_affine) -> None:
    """Module docstring; the arguments as normalize_guards's."""
    for block in reversed([n for n in walk(fn.body) if isinstance(n, c_ast.Compound)]):   # inner first
        out = []
        for item in block.block_items or []:
            taken = _decided(item, sizes, never, affine, not_affine) if isinstance(item, c_ast.If) else item
            if isinstance(taken, c_ast.Compound) and not any(isinstance(x, c_ast.Decl) for x in taken.block_items or []):
                out += taken.block_items or []
            elif taken is not None:
                out.append(taken)
        block.block_items = out or None


def _decided(item: c_ast.If, sizes, never, affine, not_affine):
    """The branch every valid call takes (None: no statement), or item where calls differ."""
    try:
        holds = never(_condition(item.cond, sizes, affine, negate=True))
        fails = not holds and never(_condition(item.cond, sizes, affine, negate=False))
    except not_affine:
        return item
    taken = item.iftrue if holds else item.iffalse if fails else item
    if taken is not item and taken is not None and any(isinstance(n, c_ast.Return) for n in walk(taken)):
        return item
    return taken


def _is_guard(item) -> bool:
    if not isinstance(item, c_ast.If) or item.iffalse is not None:
        return False
    then = item.iftrue
    if isinstance(then, c_ast.Compound) and len(then.block_items or []) == 1:
        then = then.block_items[0]
    return isinstance(then, c_ast.Return)


def _condition(node, sizes, affine, negate: bool) -> str:
    """isl text of a C condition over the sizes (its negation with `negate`)."""
    if isinstance(node, c_ast.UnaryOp) and node.op == "!":
        return _condition(node.expr, sizes, affine, not negate)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        op = {"&&": "and", "||": "or"}[node.op] if not negate else {"&&": "or", "||": "and"}[node.op]
        return (f"({_condition(node.left, sizes, affine, negate)} {op} "
                f"{_condition(node.right, sizes, affine, negate)})")
    if isinstance(node, c_ast.BinaryOp) and node.op in _FLIP:
        op = _FLIP[node.op] if negate else node.op
        left, right = affine(node.left, sizes, "guard"), affine(node.right, sizes, "guard")
    else:                                        # a value as a condition: `if (!n)`
        op, left, right = ("==" if negate else "!="), affine(node, sizes, "guard"), "0"
    if op == "!=":
        return f"({left} < {right} or {left} > {right})"
    return f"({left} {'=' if op == '==' else op} {right})"
