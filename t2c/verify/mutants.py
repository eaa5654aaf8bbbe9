"""Mutants of a kernel's reference: the wrong programs a test suite must tell apart.

    mutants(kernel) -> [Mutant]

Takes the IS; edits its reference's AST (pycparser) and prints each mutant back as C with the
reference's own signature and helper functions, so the host reference driver runs it unchanged.
The operators, each a known way to "pass" without the work: `zeros`, `constant` (ones),
`copy_input`, `truncated_loop` (a top-level loop's first half), `off_by_one` (an innermost loop
one short), `swapped_subscripts` (the last two of a read, wrapped by the extents),
`float_precision`. Mutants stay in bounds by construction, so they are told apart by values,
not crashes; operators that do not apply are left out. Local arrays start poisoned (`_poisoned`),
so a mutant that reads what it skipped writing behaves alike everywhere. gate.py judges the suite
against them.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from ..ir import Kernel
from ..ir.csyntax import clone, cprint, parse_c, reference_helpers, relined

#: At most this many mutants per loop operator, spread over the candidates.
PER_OPERATOR = 3
MATH = {"sqrt", "exp", "log", "pow", "fabs", "sin", "cos", "tan", "tanh", "atan", "atan2",
        "floor", "ceil", "fmin", "fmax", "fmod", "erf", "erfc", "log2", "log10", "exp2", "expm1", "log1p",
        "round", "trunc", "cbrt", "fma", "hypot", "copysign"}


@dataclass(frozen=True)
class Mutant:
    name: str           # operator, or operator:index for several of a kind
    operator: str
    where: str          # what was changed, for the report
    reference: str      # the mutant's C text, same signature as the reference


def _function(ast: c_ast.FileAST, name: str) -> c_ast.FuncDef:
    return next(e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == name)


def _expr(text: str) -> c_ast.Node:
    """The AST of one C expression."""
    fn = parse_c(f"void t2c_e(void) {{ t2c_x = {text}; }}", "<mutant>").ext[0]
    return fn.body.block_items[0].rvalue


def _body(text: str) -> c_ast.Compound:
    return parse_c(f"void t2c_b(void) {{ {text} }}", "<mutant>").ext[0].body


def _spread(items: list, n: int) -> list:
    if len(items) <= n:
        return items
    step = (len(items) - 1) / (n - 1)
    return [items[round(i * step)] for i in range(n)]


def _line(node) -> str:
    return f"line {node.coord.line}" if getattr(node, "coord", None) else "?"


# -- whole-body mutants --------------------------------------------------------------------

def _count(shape) -> str:
    return " * ".join(f"(long) ({e})" for e in shape) or "1"


def _fill_body(k: Kernel, value_for) -> str:
    stmts = []
    for a in k.arrays:
        if a.intent == "in":
            continue
        v = value_for(a)
        if v is None:
            continue
        stmts.append(f"for (long t2c_i = 0; t2c_i < {_count(a.shape)}; t2c_i++) "
                     f"(({a.dtype} *) {a.name})[t2c_i] = {v};")
    if k.returns:                       # no loop around it: an array value's first element
        stmts.append(f"return {str(value_for(k.returns) or 0).replace('t2c_i', '0')};")
    return " ".join(stmts)


def _copy_source(k: Kernel, out):
    ins = [a for a in k.arrays if a.intent != "out" and a is not out]
    same = [a for a in ins if a.shape == getattr(out, "shape", None)]
    src = (same or ins or [None])[0]
    if src is None:
        scal = next((s for s in k.scalars if s.intent == "in"), None)
        return f"({out.dtype}) {scal.name}" if scal else "0"
    return (f"({out.dtype}) (({src.dtype} *) {src.name})"
            f"[t2c_i % ({_count(src.shape)})]")


def _whole(k: Kernel, fn: c_ast.FuncDef, body: str) -> str:
    fn = copy.deepcopy(fn)
    fn.body = _body(body)
    return cprint(fn)


# -- loop mutants --------------------------------------------------------------------------

def _loops(node, depth=0, out=None):
    """Every For with its nesting depth and whether it contains another For."""
    out = [] if out is None else out
    for _, child in node.children():
        if isinstance(child, c_ast.For):
            start = len(out)
            out.append([child, depth, True])
            _loops(child.stmt, depth + 1, out)
            out[start][2] = len(out) == start + 1
        else:
            _loops(child, depth, out)
    return out


def _loop_var_and_init(loop: c_ast.For):
    cond = loop.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=")
            and isinstance(cond.left, c_ast.ID)):
        return None
    var = cond.left.name
    init = loop.init
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID) and init.lvalue.name == var:
        return var, init.rvalue
    if isinstance(init, c_ast.DeclList) and init.decls and init.decls[0].name == var and init.decls[0].init:
        return var, init.decls[0].init
    return None


def _edit_bound(fn, index: int, how: str) -> tuple[str, str] | None:
    fn = copy.deepcopy(fn)
    loop = _loops(fn.body)[index][0]
    found = _loop_var_and_init(loop)
    if not found:
        return None
    var, init = found
    cond = loop.cond
    bound, start = cprint(cond.right), cprint(init)
    up = cond.op in ("<", "<=")
    if how == "off_by_one":
        new = f"({bound}) - 1" if up else f"({bound}) + 1"
    else:
        new = f"({start}) + (({bound}) - ({start})) / 2" if up else f"({bound}) + (({start}) - ({bound})) / 2"
    cond.right = _expr(new)
    return cprint(fn), f"loop '{var}' ({_line(loop)}): bound {bound} -> {new}"


# -- swapped subscripts --------------------------------------------------------------------

def _reads(node, out, lvalue=False):
    """Outermost ArrayRefs read in expressions (not those only written)."""
    if isinstance(node, c_ast.ArrayRef):
        if not lvalue:
            out.append(node)
        _reads(node.subscript, out)
        inner = node.name
        while isinstance(inner, c_ast.ArrayRef):
            _reads(inner.subscript, out)
            inner = inner.name
        return
    if isinstance(node, c_ast.Assignment):
        _reads(node.lvalue, out, lvalue=node.op == "=")
        _reads(node.rvalue, out)
        return
    for _, child in node.children():
        _reads(child, out)


def _base(ref: c_ast.ArrayRef) -> str | None:
    while isinstance(ref, c_ast.ArrayRef):
        ref = ref.name
    return ref.name if isinstance(ref, c_ast.ID) else None


def _swap(k: Kernel, fn, index: int) -> tuple[str, str] | None:
    fn = copy.deepcopy(fn)
    reads = []
    _reads(fn.body, reads)
    ref = reads[index]
    name = _base(ref)
    a = k.array(name)
    last, prev = ref.subscript, ref.name.subscript
    s_last, s_prev = cprint(last), cprint(prev)
    if a.shape[-1] == a.shape[-2]:
        new_last, new_prev = s_prev, s_last
    else:
        new_last = f"({s_prev}) % ({a.shape[-1]})"
        new_prev = f"({s_last}) % ({a.shape[-2]})"
    ref.subscript, ref.name.subscript = _expr(new_last), _expr(new_prev)
    return cprint(fn), f"read of {name} ({_line(ref)}): [{s_prev}][{s_last}] -> [{new_prev}][{new_last}]"


def _swappable(k: Kernel, fn) -> list[int]:
    reads = []
    _reads(fn.body, reads)
    out, seen = [], set()
    arrays = {a.name: a for a in k.arrays}
    for i, ref in enumerate(reads):
        name = _base(ref)
        if name not in arrays or arrays[name].rank < 2 or not isinstance(ref.name, c_ast.ArrayRef):
            continue
        if cprint(ref.subscript) == cprint(ref.name.subscript) or name in seen:
            continue
        seen.add(name)
        out.append(i)
    return out


# -- float instead of double ---------------------------------------------------------------

class _ToFloat(c_ast.NodeVisitor):
    """Rewrites a function body so that its arithmetic runs in float."""

    def __init__(self, doubles: set[str]):
        self.doubles = doubles

    @staticmethod
    def cast(node):
        c = _expr("(float) 0")
        c.expr = node
        return c

    def rewrite(self, node):
        """The float version of an expression node (recursively)."""
        if isinstance(node, c_ast.Constant) and node.type == "double":
            node.value = node.value.rstrip("lL") + "f"
            node.type = "float"
            return node
        if isinstance(node, c_ast.ArrayRef) or (isinstance(node, c_ast.ID) and node.name in self.doubles):
            return self.cast(node)
        if isinstance(node, c_ast.Cast):
            names = getattr(getattr(node.to_type.type, "type", None), "names", None)
            if names == ["double"]:
                node.to_type.type.type.names = ["float"]
            node.expr = self.rewrite(node.expr)
        elif isinstance(node, c_ast.BinaryOp):
            node.left, node.right = self.rewrite(node.left), self.rewrite(node.right)
        elif isinstance(node, c_ast.UnaryOp) and node.op not in ("sizeof", "&"):
            node.expr = self.rewrite(node.expr)
        elif isinstance(node, c_ast.TernaryOp):
            node.cond, node.iftrue, node.iffalse = (self.rewrite(node.cond), self.rewrite(node.iftrue),
                                                     self.rewrite(node.iffalse))
        elif isinstance(node, c_ast.FuncCall):
            if isinstance(node.name, c_ast.ID) and node.name.name in MATH:
                node.name.name += "f"
            if node.args:
                node.args.exprs = [self.rewrite(e) for e in node.args.exprs]
        return node

    def visit_Decl(self, node):
        t = node.type
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                and t.type.names == ["double"]:
            t.type.names = ["float"]
        if node.init is not None:
            node.init = self.rewrite(node.init)

    def visit_Assignment(self, node):
        rhs = self.rewrite(node.rvalue)
        if node.op != "=" and isinstance(node.lvalue, c_ast.ArrayRef):
            rhs = c_ast.BinaryOp(node.op[:-1], self.cast(copy.deepcopy(node.lvalue)), rhs)
            node.op = "="
        node.rvalue = self.cast(rhs) if isinstance(node.lvalue, c_ast.ArrayRef) else rhs

    def visit_If(self, node):
        node.cond = self.rewrite(node.cond)
        self.visit(node.iftrue)
        if node.iffalse is not None:
            self.visit(node.iffalse)

    def visit_Return(self, node):
        if node.expr is not None:
            node.expr = self.rewrite(node.expr)


def _float(k: Kernel, fn) -> str:
    fn = copy.deepcopy(fn)
    doubles = {s.name for s in k.scalars if s.dtype == "double"}
    _ToFloat(doubles).visit(fn.body)
    return cprint(fn)


# -- all of them ---------------------------------------------------------------------------

def _poisoned(fn: c_ast.FuncDef) -> c_ast.FuncDef:
    """fn with every local array filled with 0xff bytes where it is declared (NaN for floating
    point, -1 for integers). A mutant that reads cells the reference writes first (a temporary's
    rows a truncated loop skipped) then reads the same values on every machine, not the stack's
    leftovers, as a candidate's `out` arrays start poisoned."""
    def visit(node):
        for _, child in node.children():
            visit(child)
        if isinstance(node, c_ast.Compound) and node.block_items:
            items = []
            for item in node.block_items:
                items.append(item)
                if isinstance(item, c_ast.Decl) and isinstance(item.type, c_ast.ArrayDecl) and item.init is None:
                    items.append(_expr(f"__builtin_memset({item.name}, 0xff, sizeof({item.name}))"))
            node.block_items = items
    fn = copy.deepcopy(fn)
    visit(fn.body)
    return fn


def mutants(k: Kernel) -> list[Mutant]:
    ast = relined(clone(k.tree), k.origin)    # its own copy (mutants edit it); lines: the user's
    fn = _poisoned(_function(ast, k.name))
    out = [
        Mutant("zeros", "zeros", "every output 0", _whole(k, fn, _fill_body(k, lambda a: "0"))),
        Mutant("constant", "constant", "every output 1", _whole(k, fn, _fill_body(k, lambda a: "1"))),
        Mutant("copy_input", "copy_input", "outputs copy an input",
               _whole(k, fn, _fill_body(k, lambda a: _copy_source(k, a) if a.intent == "out" else None))),
    ]
    loops = _loops(fn.body)
    top = [i for i, (_, depth, _) in enumerate(loops) if depth == 0]
    inner = [i for i, (_, _, innermost) in enumerate(loops) if innermost]
    for how, picks in (("truncated_loop", top), ("off_by_one", inner)):
        made = []
        for i in picks:
            edited = _edit_bound(fn, i, how)
            if edited:
                made.append(edited)
        for j, (text, where) in enumerate(_spread(made, PER_OPERATOR)):
            out.append(Mutant(f"{how}:{j}", how, where, text))
    for j, i in enumerate(_spread(_swappable(k, fn), 2)):
        text, where = _swap(k, fn, i)
        out.append(Mutant(f"swapped_subscripts:{j}", "swapped_subscripts", where, text))
    if any(x.dtype == "double" for x in (*k.arrays, *k.scalars)):
        out.append(Mutant("float_precision", "float_precision", "arithmetic in float", _float(k, fn)))
    helpers = "".join(cprint(h) + "\n" for h in reference_helpers(ast))
    return [replace(m, reference=helpers + m.reference) for m in out] if helpers else out
