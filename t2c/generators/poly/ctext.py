"""C text and syntax helpers that poly's printers and plans share (the lowest poly module).

Names in a text (`WORD`, `names_used`, `identifiers`), the nested `poly_min`/`poly_max` of
several bounds and a loop's trip count as folded text (`extent_text`), parentheses, and
rewriting pycparser trees in place (`rewrite`, `substitute`, `replace_refs`, `array_refs`) and
the value of an integer sum's tree (`int_value`); `at` substitutes a name in C text's tree.
It imports no other poly module, so every one of them may import it.
"""
from __future__ import annotations

import copy
import re

from pycparser import c_ast

from ...analysis.model import parse_expr
from ...ir.csyntax import array_name, cprint, walk

WORD = re.compile(r"[A-Za-z_]\w*")


def identifiers(text: str) -> set[str]:
    return set(WORD.findall(text))


def names_used(text: str) -> set[str]:
    """The names a kernel body uses (not blockIdx.x's x)."""
    return set(WORD.findall(re.sub(r"\.[xyz]\b", "", text)))


def loop_guard(l) -> str:
    """C: the loop's variable within its bounds (its start by its header, its condition)."""
    start = l.init.split("=", 1)[1].strip()
    return f"{l.var} {'>=' if l.step > 0 else '<='} {start} && {l.cond}"


def offset_text(base: str, k: int) -> str:
    """`base + k` as C, nothing added for 0."""
    return base if k == 0 else f"{base} {'+' if k > 0 else '-'} {abs(k)}"


def var_offset(sub, var: str) -> int | None:
    """d of a subscript node `var`, `var + d`, `var - d` or `d + var` (d an integer), else None."""
    if isinstance(sub, c_ast.ID):
        return 0 if sub.name == var else None
    if isinstance(sub, c_ast.BinaryOp) and sub.op in "+-":
        left, right = sub.left, sub.right
        if sub.op == "+" and isinstance(left, c_ast.Constant):
            left, right = right, left
        if isinstance(left, c_ast.ID) and left.name == var and isinstance(right, c_ast.Constant) \
                and right.type == "int" and right.value.isdigit():
            return int(right.value) * (1 if sub.op == "+" else -1)
    return None


def min_expr(exprs) -> str:
    text = exprs[0]
    for e in exprs[1:]:
        text = f"poly_min({text}, {e})"
    return text


def max_expr(exprs) -> str:
    text = exprs[0]
    for e in exprs[1:]:
        text = f"poly_max({text}, {e})"
    return text


def split_const(text: str) -> tuple[str, int]:
    """`n - 1` -> ("n", -1); `3` -> ("", 3); anything else -> (text, 0)."""
    if re.fullmatch(r"-?\d+", text.strip()):
        return "", int(text)
    m = re.fullmatch(r"(.*?) ([+-]) (\d+)", text.strip())
    if m and "poly_" not in m.group(1):
        return m.group(1), int(m.group(3)) * (1 if m.group(2) == "+" else -1)
    return text.strip(), 0


def extent_text(high: str, low: str) -> str:
    """`high - low + 1` with the constants folded: (`n - 1`, `i`) -> `n - i`."""
    hb, hc = split_const(high)
    lb, lc = split_const(low)
    c = hc - lc + 1
    text = hb or ""
    if lb:
        lb = lb if re.fullmatch(r"\w+", lb) else f"({lb})"
        text = f"{text} - {lb}" if text else f"-{lb}"
    if not text:
        return str(c)
    return text if c == 0 else f"{text} {'+' if c > 0 else '-'} {abs(c)}"


def parens(text: str) -> str:
    """Parenthesize an affine text unless it is one word: `(n - 2)` stays, `(1)` -> `1`."""
    t = text.strip()
    while t.startswith("(") and t.endswith(")") and balanced(t[1:-1]):
        t = t[1:-1].strip()
    return t if re.fullmatch(r"\w+", t) else f"({t})"


def balanced(t: str) -> bool:
    depth = 0
    for ch in t:
        depth += ch == "("
        depth -= ch == ")"
        if depth < 0:
            return False
    return depth == 0


def rewrite(node, pick):
    """`node` with every node for which `pick` gives a replacement replaced (in place, top
    down: a replaced node's children are not visited)."""
    new = pick(node)
    if new is not None:
        return new
    for slot, kid in node.children():
        new = rewrite(kid, pick)
        if new is not kid:
            m = re.fullmatch(r"(\w+)\[(\d+)\]", slot)
            if m:
                getattr(node, m.group(1))[int(m.group(2))] = new
            else:
                setattr(node, slot, new)
    return node


def stored_value(node):
    """(the value an assignment stores, its target): `x op= e` as `x op (e)`; (None, None) else."""
    if not isinstance(node, c_ast.Assignment) or not isinstance(node.lvalue, c_ast.ArrayRef):
        return None, None
    if node.op == "=":
        return node.rvalue, node.lvalue
    if node.op in ("+=", "-=", "*=", "/="):
        return c_ast.BinaryOp(node.op[0], copy.deepcopy(node.lvalue), node.rvalue), node.lvalue
    return None, None


def rewrite_reads(node: c_ast.Assignment, pick) -> c_ast.Assignment:
    """A copy of an assignment with `rewrite` applied to what it reads: its value and its target's
    subscripts (the target itself kept)."""
    node = copy.deepcopy(node)
    node.rvalue, ref = rewrite(node.rvalue, pick), node.lvalue
    while isinstance(ref, c_ast.ArrayRef):
        ref.subscript, ref = rewrite(ref.subscript, pick), ref.name
    return node


def substitute(node, values: dict):
    """Replace every identifier in `values` under `node` (in place) by a copy of its value."""
    return rewrite(node, lambda n: copy.deepcopy(values[n.name])
                   if isinstance(n, c_ast.ID) and n.name in values else None)


def at(text: str, var: str, value: str) -> str:
    """C expression `text` (a loop bound as the plan keeps it) with the identifier `var`
    replaced by the expression `value`: substituted in its syntax tree and printed; `text` as
    it is where it does not read `var`."""
    node = parse_expr(text)
    if not any(isinstance(n, c_ast.ID) and n.name == var for n in walk(node)):
        return text
    return cprint(substitute(node, {var: parse_expr(value)}))


def int_value(node, values: dict[str, int], default: int | None = None) -> int:
    """The value of an integer C expression of + - * over integer literals and identifiers
    (`values`, else `default`); ValueError for anything else."""
    if isinstance(node, c_ast.Constant) and node.type == "int" and node.value.rstrip("uUlL").isdigit():
        return int(node.value.rstrip("uUlL"))
    if isinstance(node, c_ast.ID) and (node.name in values or default is not None):
        return values.get(node.name, default)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = int_value(node.expr, values, default)
        return -v if node.op == "-" else v
    if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-", "*"):
        a, b = int_value(node.left, values, default), int_value(node.right, values, default)
        return a + b if node.op == "+" else a - b if node.op == "-" else a * b
    raise ValueError(f"not an integer sum: {cprint(node)}")


def array_refs(node, name: str | None = None) -> list:
    """The outermost ArrayRefs of array `name` (of any array: None) under `node`, in order."""
    if isinstance(node, c_ast.ArrayRef) and (name is None or array_name(node) == name):
        return [node]
    return [r for _, kid in node.children() for r in array_refs(kid, name)]


def replace_refs(node, target: str, acc: str):
    """`node` with every reference (or scalar) whose text is `target` replaced by the
    identifier `acc`."""
    return rewrite(node, lambda n: c_ast.ID(acc) if isinstance(n, (c_ast.ArrayRef, c_ast.ID)) and
                   cprint(n) == target else None)
