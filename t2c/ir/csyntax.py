"""The C syntax of an IS reference: parse it, walk it, print it back.

Every stage that reads a reference (frontends, analysis, generators, the verifier) reads it
through these, so the text and its pycparser AST mean one thing everywhere.  A reference is
its helper functions, then the kernel's function (the last definition).  `parse_c` refuses
what is not C99 with a `file:line:col` UserError.  A reference is parsed once per text in a
process (`reference_tree`, read as `Kernel.tree`) and that tree is shared: a reader that edits
nodes edits its own `clone`.
"""
from __future__ import annotations

import copy
import dataclasses
import functools
import re

from pycparser import c_ast, c_generator, c_parser
from pycparser.c_parser import ParseError

from ..errors import UserError
from .dtypes import HALF_DTYPES


#: Type names every reference may use without declaring them: the 16-bit storage types and bool.  pycparser
#: must know a typedef name to parse a declaration, so parse_c declares them ahead of the text
#: (on its line 0) and drops those declarations from the tree.
_NAMED = (*HALF_DTYPES, "bool")          # bool: the IS's name of C's _Bool (stdbool.h's, CUDA's)
_KNOWN_TYPES = "".join(f"typedef int {t}; " for t in _NAMED)


def parse_c(text: str, filename: str) -> c_ast.FileAST:
    try:
        ast = c_parser.CParser().parse(f'{_KNOWN_TYPES}\n# 1 "{filename}"\n{text}', filename)
        ast.ext = ast.ext[len(_NAMED):]
        return ast
    except ParseError as e:
        m = re.match(r"(.*?):(\d+):(\d+): (.*)", str(e))
        if m:
            raise UserError(f"parse error: {m.group(4)}", file=m.group(1), line=int(m.group(2)),
                            col=int(m.group(3)), hint="t2c reads C99; check the syntax here") from None
        raise UserError(f"parse error: {e}", file=filename) from None


@functools.lru_cache(maxsize=256)
def reference_tree(text: str, filename: str) -> c_ast.FileAST:
    """`parse_c(text, filename)`, made once per text in a process (a kernel's readers, and the
    kernels of one batch worker, share it).  Shared, so read-only: edit a `clone` of it."""
    return parse_c(text, filename)


def clone(node):
    """A private copy of a tree, for a reader that edits nodes: new nodes and lists, the same
    strings and coordinates (a Coord is replaced, never edited: `relined`).  Not
    `copy.deepcopy`, which costs more than parsing the text again."""
    cls = type(node)
    new = cls.__new__(cls)
    for slot in cls.__slots__:
        if slot == "__weakref__":
            continue
        value = getattr(node, slot)
        if isinstance(value, c_ast.Node):
            value = clone(value)
        elif isinstance(value, list):
            value = [clone(x) if isinstance(x, c_ast.Node) else x for x in value]
        setattr(new, slot, value)
    return new


def relined(ast, origin) -> c_ast.FileAST:
    """`ast` (a reader's own copy of a reference) with each node's line the source file's
    (`Origin.lines`), so that what names a node's line names the user's line; unchanged without
    a map.  Gives nodes new coordinates: the shared tree's stay as they are."""
    if origin is None or not origin.lines:
        return ast
    made = {}                                                    # nodes may share a Coord
    for node in walk(ast):
        coord = getattr(node, "coord", None)
        if coord is not None:
            if id(coord) not in made:
                made[id(coord)] = dataclasses.replace(coord, line=origin.source_line(coord.line))
            node.coord = made[id(coord)]
    return ast


def cprint(node) -> str:
    """C text of an AST node, without the blank lines pycparser's printer leaves."""
    text = c_generator.CGenerator().visit(node)
    return "\n".join(line for line in text.splitlines() if line.strip())


def walk(node):
    """The node and all its descendants, depth first, in source order."""
    yield node
    for _, child in node.children():
        yield from walk(child)


def names(*nodes) -> set[str]:
    """The identifiers the nodes hold (variables, and the functions they call), read from the tree:
    a regex over their printed text also finds the type of a cast and the `f` of `1.0f`."""
    return {n.name for node in nodes for n in walk(node) if isinstance(n, c_ast.ID)}


def array_name(ref) -> str | None:
    """The array an `a[i][j]` or `*a` refers to (None for anything else)."""
    while isinstance(ref, c_ast.ArrayRef):
        ref = ref.name
    if isinstance(ref, c_ast.UnaryOp) and ref.op == "*":
        ref = ref.expr
    return ref.name if isinstance(ref, c_ast.ID) else None


def eager_refs(node) -> list:
    """The outermost array references that evaluating `node` always reads."""
    if isinstance(node, c_ast.ArrayRef):
        return [node]
    if isinstance(node, c_ast.TernaryOp):
        return eager_refs(node.cond)
    if isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
        return eager_refs(node.left)
    if isinstance(node, c_ast.UnaryOp) and node.op in ("&", "sizeof"):
        return []
    return [r for _, kid in node.children() for r in eager_refs(kid)]


def assignment_reads(node: c_ast.Assignment) -> list:
    """The array references an assignment always reads: its value's, then its target's subscripts'."""
    subs, ref = [], node.lvalue
    while isinstance(ref, c_ast.ArrayRef):
        subs, ref = subs + eager_refs(ref.subscript), ref.name
    return eager_refs(node.rvalue) + subs


def kernel_definition(ast: c_ast.FileAST) -> c_ast.FuncDef:
    """The kernel's function in a parsed reference: its last definition (helpers come first)."""
    return [e for e in ast.ext if isinstance(e, c_ast.FuncDef)][-1]


def reference_helpers(ast: c_ast.FileAST) -> list[c_ast.FuncDef]:
    """The helper definitions of a parsed reference, in order (none for most kernels)."""
    return [e for e in ast.ext if isinstance(e, c_ast.FuncDef)][:-1]


def takes_arrays(f: c_ast.FuncDef) -> bool:
    """Whether a function has a pointer or array parameter (a helper that reads or writes the
    caller's arrays, not a pure function of scalars)."""
    return bool(f.decl.type.args) and any(isinstance(p, c_ast.Decl) and not isinstance(p.type, c_ast.TypeDecl)
                                          for p in f.decl.type.args.params)


def block_items(s) -> list:
    """The statements of a `{ ... }` (an empty one: none), or [s] for any other statement."""
    return (s.block_items or []) if isinstance(s, c_ast.Compound) else [s]


def name_subscripts(ref) -> tuple[str, ...] | None:
    """The plain-name subscripts of `X[a][b]...`, outermost dimension first, or None."""
    out = []
    while isinstance(ref, c_ast.ArrayRef):
        if not isinstance(ref.subscript, c_ast.ID):
            return None
        out.append(ref.subscript.name)
        ref = ref.name
    return tuple(reversed(out))


def renamed(node, old: str, new: str):
    """A copy of `node` with every identifier `old` named `new`."""
    node = copy.deepcopy(node)
    for x in walk(node):
        if isinstance(x, c_ast.ID) and x.name == old:
            x.name = new
    return node


def assigned(node) -> set[str]:
    """Names assigned, incremented or decremented, or whose address is taken, under `node`."""
    out = set()
    for n in walk(node):
        target = n.lvalue if isinstance(n, c_ast.Assignment) else \
            n.expr if isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--", "&") else None
        if isinstance(target, c_ast.ID):
            out.add(target.name)
    return out


def substitute(node, values: dict, keep=lambda parent, child: False):
    """`node` with each identifier that `values` names replaced, in place, by a copy of its value
    (an expression node, not walked again), except where `keep(parent, child)`; gives `node`."""
    for parent in list(walk(node)):
        for name, child in parent.children():
            if isinstance(child, c_ast.ID) and child.name in values and not keep(parent, child):
                set_child(parent, name, copy.deepcopy(values[child.name]))
    return node


def unused_name(root, stem: str) -> str:
    """`stem` followed by the first number no identifier or declaration under `root` has."""
    taken = {x.name for x in walk(root) if isinstance(x, (c_ast.ID, c_ast.Decl)) and x.name}
    return next(f"{stem}{i}" for i in range(len(taken) + 1) if f"{stem}{i}" not in taken)


def counted_for(v: str, lo, hi, stmt, ctype: str = "int", coord=None) -> c_ast.For:
    """`for (ctype v = lo; v < hi; v++) stmt`."""
    init = c_ast.Decl(v, [], [], [], [], c_ast.TypeDecl(v, [], None, c_ast.IdentifierType([ctype])), lo, None)
    return c_ast.For(c_ast.DeclList([init]), c_ast.BinaryOp("<", c_ast.ID(v), hi), c_ast.UnaryOp("p++", c_ast.ID(v)),
                     stmt, coord)


def set_child(parent, name: str, value) -> None:
    """Put `value` where `parent.children()` names a child `name` (`stmt`, or a list's `block_items[2]`)."""
    if "[" in name:
        attr, index = name[:-1].split("[")
        getattr(parent, attr)[int(index)] = value
    else:
        setattr(parent, name, value)


def initialized(s) -> tuple[str, c_ast.Node] | None:
    """(v, E) of `v = E;` or `T v = E;` (a scalar of a plain type), else None."""
    if isinstance(s, c_ast.Assignment) and s.op == "=" and isinstance(s.lvalue, c_ast.ID):
        return s.lvalue.name, s.rvalue
    if isinstance(s, c_ast.Decl) and s.init is not None and not s.storage \
            and isinstance(s.type, c_ast.TypeDecl) and isinstance(s.type.type, c_ast.IdentifierType):
        return s.name, s.init
    return None


def conjuncts(cond) -> list:
    """The terms of a condition `a && b && ...` (the condition itself when not a conjunction)."""
    if isinstance(cond, c_ast.BinaryOp) and cond.op == "&&":
        return conjuncts(cond.left) + conjuncts(cond.right)
    return [cond]


def is_name(node, name) -> bool:
    """Whether `node` is the identifier `name`."""
    return isinstance(node, c_ast.ID) and node.name == name
