"""Generated C and CUDA as nodes, and the one printer that prints them.

    render(node) -> str;  builders: expr, stmts, decl, call, assign, cast, block, if_, for_, switch, function

Takes pycparser `c_ast` nodes plus the few CUDA constructs C lacks (`Kernel`: a `__global__`
definition with an optional `__launch_bounds__`; `Launch`: `f<<<grid, block, shared, stream>>>(args)`;
`SharedArray`: a `__shared__` array; a barrier is `call("__syncthreads")`), `Verbatim` text that is
no C statement (a prelude, preprocessor lines, a C++ declaration) and `Comment`s.  Gives their text:
two spaces a level, braces on the statement's line except a function's, parentheses only where C's
precedence needs them.  The builders parse short C texts (expressions, statements, declarators)
into nodes, so a malformed one fails at generation.  Printed C parses back to its nodes
(tests/ir/test_cgen.py).  The reference and candidate drivers print through here.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache

from pycparser import c_ast, c_generator, c_parser

from .kernel import HALF_DTYPES

#: Type names the builders' texts may use besides C's own: pycparser must know a typedef name to
#: parse a cast or a declaration over it.
TYPE_NAMES = ("size_t", "FILE", "cudaError_t", "cudaEvent_t", "cudaStream_t", "bool", *HALF_DTYPES)


# -- the nodes C lacks ----------------------------------------------------------------------

class Verbatim(c_ast.Node):
    """Text printed as it is, then a newline: a prelude, preprocessor lines, a C++ declaration."""
    __slots__ = ("text", "coord", "__weakref__")
    attr_names = ("text",)

    def __init__(self, text: str, coord=None):
        self.text = text
        self.coord = coord

    def children(self):
        return ()


class Comment(c_ast.Node):
    """`/* text */` on a line of its own."""
    __slots__ = ("text", "coord", "__weakref__")
    attr_names = ("text",)

    def __init__(self, text: str, coord=None):
        if "*/" in text:
            raise ValueError(f"a comment cannot hold '*/': {text!r}")
        self.text = text
        self.coord = coord

    def children(self):
        return ()


class Kernel(c_ast.Node):
    """`__global__ void [__launch_bounds__(bounds)] name(params) { body }`."""
    __slots__ = ("name", "params", "body", "launch_bounds", "coord", "__weakref__")
    attr_names = ("name",)

    def __init__(self, name: str, params: c_ast.ParamList, body: c_ast.Compound,
                 launch_bounds: c_ast.ExprList | None = None, coord=None):
        self.name, self.params, self.body, self.launch_bounds = name, params, body, launch_bounds
        self.coord = coord

    def children(self):
        return tuple((k, v) for k, v in (("params", self.params), ("launch_bounds", self.launch_bounds),
                                         ("body", self.body)) if v is not None)


class Launch(c_ast.Node):
    """`name<<<grid, block[, shared[, stream]]>>>(args)`, an expression."""
    __slots__ = ("name", "grid", "block", "shared", "stream", "args", "coord", "__weakref__")
    attr_names = ()

    def __init__(self, name, grid, block, args: c_ast.ExprList | None, shared=None, stream=None,
                 coord=None):
        self.name, self.grid, self.block, self.args = name, grid, block, args
        self.shared, self.stream = shared, stream
        self.coord = coord

    def children(self):
        return tuple((k, v) for k, v in (("name", self.name), ("grid", self.grid), ("block", self.block),
                                         ("shared", self.shared), ("stream", self.stream),
                                         ("args", self.args)) if v is not None)


class SharedArray(c_ast.Node):
    """`[extern ]__shared__ [__align__(align) ]dtype name[d0][d1]...`; no dims: `name[]`, the
    launch's dynamic shared memory (extern)."""
    __slots__ = ("dtype", "name", "dims", "align", "coord", "__weakref__")
    attr_names = ("dtype", "name", "align")

    def __init__(self, dtype: str, name: str, dims: list, align: int | None = None, coord=None):
        self.dtype, self.name, self.dims, self.align = dtype, name, dims, align
        self.coord = coord

    def children(self):
        return tuple((f"dims[{i}]", d) for i, d in enumerate(self.dims))


# -- the printer ------------------------------------------------------------------------------

#: Binding strength of what is not a binary operator (pycparser's binary ones are 0..9).
_UNARY, _POSTFIX, _TERNARY, _ASSIGN, _COMMA = 10, 11, -1, -2, -3
#: Operators whose operands gcc's -Wparentheses asks to parenthesize when they are other binary
#: operations (`||`: only an `&&`).
_CLARIFIED = {"|", "^", "&", "<<", ">>"}


class Printer(c_generator.CGenerator):
    """pycparser's generator with the CUDA nodes, statements laid out as t2c prints them and
    expressions with the fewest parentheses: `Printer().visit(node)`."""

    def __init__(self):
        super().__init__(reduce_parentheses=True)

    # statements -------------------------------------------------------------------------
    def visit_FileAST(self, n):
        return "".join(self._top(e) for e in n.ext)

    def _top(self, n) -> str:
        if isinstance(n, (c_ast.FuncDef, Kernel, Verbatim, Comment)):
            return self.visit(n)
        return self.visit(n) + ";\n"

    def visit_FuncDef(self, n):
        self.indent_level = 0
        return self.visit(n.decl) + "\n" + self.visit(n.body)

    def visit_Kernel(self, n):
        bounds = f"__launch_bounds__({self.visit(n.launch_bounds)}) " if n.launch_bounds else ""
        self.indent_level = 0
        return f"__global__ void {bounds}{n.name}({self.visit(n.params)})\n" + self.visit(n.body)

    def visit_Compound(self, n):
        """A block on lines of its own (a function's body, a bare block)."""
        return self._make_indent() + self._braces(n) + "\n"

    def _braces(self, n: c_ast.Compound) -> str:
        self.indent_level += 2
        inner = "".join(self._stmt(s) for s in n.block_items or ())
        self.indent_level -= 2
        return "{\n" + inner + self._make_indent() + "}"

    def _stmt(self, n) -> str:
        """One statement at the current indentation, with its newline."""
        if isinstance(n, (c_ast.Compound, Verbatim)):
            return self.visit(n)
        if isinstance(n, c_ast.Pragma):
            return self.visit(n) + "\n"            # a directive starts its line
        text = self.visit(n)
        if isinstance(n, (c_ast.If, c_ast.For, c_ast.While, c_ast.Switch, c_ast.Case, c_ast.Default,
                          c_ast.Label, Comment)):
            return self._make_indent() + text
        if isinstance(n, (c_ast.Return, c_ast.Break, c_ast.Continue, c_ast.Goto, c_ast.EmptyStatement)):
            return self._make_indent() + text + "\n"
        return self._make_indent() + text + ";\n"

    def _body(self, n) -> str:
        """What follows `if (...)`, `for (...)`, `else`: ` {` block `}` or the statement on the next
        line, indented."""
        if isinstance(n, c_ast.Compound):
            return " " + self._braces(n) + "\n"
        self.indent_level += 2
        text = self._stmt(n)
        self.indent_level -= 2
        return "\n" + text

    def visit_If(self, n):
        s = f"if ({self.visit(n.cond)})" + self._body(n.iftrue)
        if n.iffalse is None:
            return s
        s = s[:-1] + " else" if isinstance(n.iftrue, c_ast.Compound) else s + self._make_indent() + "else"
        if isinstance(n.iffalse, c_ast.If):
            return s + " " + self.visit(n.iffalse)
        return s + self._body(n.iffalse)

    def visit_For(self, n):
        init, cond, step = (" " + self.visit(p) if p is not None else "" for p in (n.init, n.cond, n.next))
        return f"for ({init[1:]};{cond};{step})" + self._body(n.stmt)

    def visit_While(self, n):
        return f"while ({self.visit(n.cond)})" + self._body(n.stmt)

    def visit_Switch(self, n):
        return f"switch ({self.visit(n.cond)})" + self._body(n.stmt)

    def visit_Case(self, n):
        return f"case {self.visit(n.expr)}:\n" + self._cased(n.stmts)

    def visit_Default(self, n):
        return "default:\n" + self._cased(n.stmts)

    def _cased(self, stmts) -> str:
        self.indent_level += 2
        text = "".join(self._stmt(s) for s in stmts or ())
        self.indent_level -= 2
        return text

    def visit_Label(self, n):
        return n.name + ":\n" + self._stmt(n.stmt)

    def visit_Verbatim(self, n):
        return n.text + "\n"

    def visit_Comment(self, n):
        return f"/* {n.text} */\n"

    def visit_SharedArray(self, n):
        align = f"__align__({n.align}) " if n.align else ""
        dims = "".join(f"[{self.visit(d)}]" for d in n.dims) or "[]"
        return f"{'' if n.dims else 'extern '}__shared__ {align}{n.dtype} {n.name}{dims}"

    # expressions ----------------------------------------------------------------------------
    def _strength(self, n) -> int:
        if isinstance(n, c_ast.BinaryOp):
            return self.precedence_map[n.op]
        if isinstance(n, c_ast.UnaryOp):
            return _POSTFIX if n.op in ("p++", "p--") else _UNARY
        if isinstance(n, c_ast.Cast):
            return _UNARY
        if isinstance(n, c_ast.TernaryOp):
            return _TERNARY
        if isinstance(n, c_ast.Assignment):
            return _ASSIGN
        if isinstance(n, c_ast.ExprList):
            return _COMMA
        return _POSTFIX

    def _operand(self, n, weakest: int) -> str:
        """n's text, parenthesized when it binds more weakly than `weakest`."""
        text = self.visit(n)
        return f"({text})" if self._strength(n) < weakest else text

    def visit_BinaryOp(self, n):
        p = self.precedence_map[n.op]
        def side(d, weakest):
            if isinstance(d, c_ast.BinaryOp) and d.op != n.op and (
                    n.op in _CLARIFIED or (n.op, d.op) == ("||", "&&")):
                return f"({self.visit(d)})"
            return self._operand(d, weakest)
        return f"{side(n.left, p)} {n.op} {side(n.right, p + 1)}"

    def visit_UnaryOp(self, n):
        if n.op == "sizeof":
            return f"sizeof({self.visit(n.expr)})"
        if n.op in ("p++", "p--"):
            return self._operand(n.expr, _POSTFIX) + n.op[1:]
        operand = self._operand(n.expr, _UNARY)
        if operand[:1] in ("+", "-", "&") and operand[:1] == n.op[-1]:
            operand = f"({operand})"            # `- -x`, not `--x`
        return n.op + operand

    def visit_Cast(self, n):
        return f"({self._generate_type(n.to_type, emit_declname=False)})" + self._operand(n.expr, _UNARY)

    def visit_TernaryOp(self, n):
        return (f"{self._operand(n.cond, _TERNARY + 1)} ? {self._operand(n.iftrue, _TERNARY)}"
                f" : {self._operand(n.iffalse, _TERNARY)}")

    def visit_Assignment(self, n):
        return f"{self.visit(n.lvalue)} {n.op} {self._operand(n.rvalue, _ASSIGN)}"

    def visit_ExprList(self, n):
        return ", ".join(self._operand(e, _ASSIGN) for e in n.exprs)

    def visit_Launch(self, n):
        config = [n.grid, n.block]
        if n.shared is not None or n.stream is not None:
            config.append(c_ast.Constant("int", "0") if n.shared is None else n.shared)
        if n.stream is not None:
            config.append(n.stream)
        args = self.visit(n.args) if n.args else ""
        return f"{self.visit(n.name)}<<<{', '.join(self.visit(c) for c in config)}>>>({args})"


def render(node) -> str:
    """The text of a node: a program (`FileAST`), a function, a statement, an expression."""
    return Printer().visit(node)


# -- builders ---------------------------------------------------------------------------------

_PARSER = c_parser.CParser()
_PARSING = threading.Lock()             # one parser, and the ladder builds drivers in threads


def _parse(text: str, wrapped: str = "{}") -> c_ast.Node:
    """The last external declaration of `wrapped` holding `text`, parsed with the `TYPE_NAMES` it
    uses known: a copy of the tree parsed the first time (a driver parses the same texts again)."""
    return _copy(_parsed(text, wrapped))


def _copy(node):
    """A copy of a tree's nodes and lists (their coordinates shared): faster than deepcopy."""
    if isinstance(node, list):
        return [_copy(x) for x in node]
    if not isinstance(node, c_ast.Node):
        return node
    new = object.__new__(type(node))
    for slot in node.__slots__:
        if slot != "__weakref__":
            setattr(new, slot, _copy(getattr(node, slot)))
    return new


@lru_cache(maxsize=4096)
def _parsed(text: str, wrapped: str) -> c_ast.Node:
    typedefs = "".join(f"typedef int {t}; " for t in TYPE_NAMES if re.search(rf"\b{t}\b", text))
    try:
        with _PARSING:
            return _PARSER.parse(typedefs + "\n" + wrapped.format(text), "<cgen>").ext[-1]
    except c_parser.ParseError as e:
        raise ValueError(f"not C: {text!r}: {e}") from None


def _parse_body(text: str) -> list:
    return _parse(text, "void t2c_f(void)\n{{\n{}\n}}\n").body.block_items or []


def stmts(text: str) -> list:
    """The statements of a C text (declarations with several names give one Decl each)."""
    return _parse_body(text)


def expr(text) -> c_ast.Node:
    """A C expression: a node as it is, an int as a constant, a text parsed."""
    if isinstance(text, c_ast.Node):
        return text
    if isinstance(text, int):
        return c_ast.Constant("int", str(text))
    if re.fullmatch(r"[A-Za-z_]\w*", text) and text not in TYPE_NAMES:
        return c_ast.ID(text)                   # a name: no need to parse
    (node,) = _parse_body(f"({text});")
    return node


def string(text: str) -> c_ast.Constant:
    """A C string literal holding `text` (quotes, backslashes and newlines escaped)."""
    body = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return c_ast.Constant("string", f'"{body}"')


def call(name: str, *args) -> c_ast.FuncCall:
    """`name(args)`, each argument as `expr` takes it."""
    return c_ast.FuncCall(c_ast.ID(name), c_ast.ExprList([expr(a) for a in args]) if args else None)


def assign(target, value, op: str = "=") -> c_ast.Assignment:
    """`target op value`, both as `expr` takes them."""
    return c_ast.Assignment(op, expr(target), expr(value))


def ternary(cond, yes, no) -> c_ast.TernaryOp:
    """`cond ? yes : no`, each as `expr` takes it."""
    return c_ast.TernaryOp(expr(cond), expr(yes), expr(no))


def deref(pointer) -> c_ast.UnaryOp:
    """`*pointer`, as `expr` takes it."""
    return c_ast.UnaryOp("*", expr(pointer))


def cast(ctype: str, value) -> c_ast.Cast:
    """`(ctype)value`, value as `expr` takes it."""
    node = expr(f"({ctype})0")
    node.expr = expr(value)
    return node


def decl(declarator: str, init=None) -> c_ast.Decl:
    """A declaration from its text (`double *d_A`, `char path[4096]`), with `init` (as `expr` takes it)."""
    (node,) = _parse_body(declarator + ";")
    if init is not None:
        node.init = expr(init)
    return node


def _items(body) -> list:
    out = []
    for item in body:
        if isinstance(item, (list, tuple)):
            out += _items(item)
        elif isinstance(item, str):
            out += stmts(item)
        elif item is not None:
            out.append(item)
    return out


def block(*body) -> c_ast.Compound:
    """A compound statement: each item a node, a C text of statements, a list of either, or None."""
    return c_ast.Compound(_items(body))


def if_(cond, then, otherwise=None) -> c_ast.If:
    """`if (cond) {then} [else {otherwise}]`; a branch given as a list is a block."""
    arm = lambda b: block(*b) if isinstance(b, list) else _items([b])[0]
    return c_ast.If(expr(cond), arm(then), None if otherwise is None else arm(otherwise))


def for_(init: str, cond, step, *body) -> c_ast.For:
    """`for (init; cond; step) {body}`; `init` a declaration's text (`int i = 0`) or an expression."""
    (head,) = _parse_body(f"for ({init};;) ;")
    return c_ast.For(head.init, expr(cond), expr(step), block(*body))


def switch(cond, cases: list, default: list | None = None) -> c_ast.Switch:
    """`switch (cond) { case v: ... default: ... }`, `cases` as (value, statements) pairs; the
    statements as `block` takes its items."""
    arms = [c_ast.Case(expr(value), _items(body)) for value, body in cases]
    return c_ast.Switch(expr(cond), c_ast.Compound(arms + ([c_ast.Default(_items(default))] if default else [])))


def function(head: str, *body) -> c_ast.FuncDef:
    """A function definition: `head` its declaration's text (`int main(int argc, char **argv)`)."""
    return c_ast.FuncDef(_parse(head + ";"), None, block(*body))


def program(*items) -> c_ast.FileAST:
    """A translation unit: nodes, and texts kept `Verbatim`."""
    return c_ast.FileAST([Verbatim(i) if isinstance(i, str) else i for i in items])
