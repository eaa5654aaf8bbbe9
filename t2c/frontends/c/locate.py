"""Find kernels in an unpreprocessed C file with tree-sitter-c.

Takes the raw bytes of a C file; gives its function definitions with their
original coordinates, whether each holds a `#pragma scop` region, and the `t2c:`
annotations written in comments just above or inside it.  Works before any
preprocessing, so names and lines are those the user wrote.  Refuses (UserError)
a file tree-sitter cannot parse, naming the first bad line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter
import tree_sitter_c

from ...errors import NoKernel, UserError
from .normalize import IO_FUNCTIONS


@dataclass(frozen=True)
class FunctionSite:
    name: str
    line: int                 # 1-based line of the definition's start
    col: int
    end_line: int
    is_static: bool
    has_scop: bool
    annotations: tuple[tuple[int, str], ...]   # (line, text after "t2c:")
    calls: frozenset[str] = frozenset()        # names of the functions it calls
    marked: bool = False                       # a `t2c: kernel` comment above or inside it
    reads: bool = True                         # it reads an element (`a[i]` not only assigned, `*p`)


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_c.language()))


_ANNOT = re.compile(r"^\s*(?:/[/*]+|\*+)?\s*t2c:\s*(.*?)\s*(\*/)?\s*$")   # a comment line that starts t2c:


def _first_error(node):
    if node.type == "ERROR" or node.is_missing:
        return node
    for child in node.children:
        if child.has_error:
            return _first_error(child)
    return node if node.has_error else None


def _declarator_name(node) -> str | None:
    while node is not None:
        if node.type == "identifier":
            return node.text.decode()
        node = node.child_by_field_name("declarator")
    return None


def locate(source: bytes, filename: str) -> list[FunctionSite]:
    tree = _parser().parse(source)
    root = tree.root_node
    comments = []     # (start line, end line, text) of every comment
    functions = []

    def walk(node, top):
        if node.type == "comment":
            comments.append((node.start_point[0] + 1, node.end_point[0] + 1, node.text.decode()))
        for child in node.children:
            walk(child, False)
        if node.type == "function_definition":
            functions.append(node)

    walk(root, True)
    if root.has_error:
        bad = _first_error(root)
        # A macro tree-sitter cannot read is not fatal by itself: the preprocessor
        # and pycparser decide later.  Only fail when no function could be found.
        if not functions:
            line, col = (bad.start_point[0] + 1, bad.start_point[1] + 1) if bad else (1, 1)
            raise UserError("this does not parse as C", file=filename, line=line, col=col,
                            hint="fix the syntax error (t2c reads C99 kernels)")

    sites = []
    ordered = sorted(functions, key=lambda n: n.start_byte)
    first = ordered[0].start_point[0] + 1 if ordered else 0
    # Annotations above the first function belong to the file: every function gets them.
    file_notes = [(cs + k, m.group(1)) for cs, ce, ct in comments if ce < first
                  for k, line in enumerate(ct.splitlines())
                  if (m := _ANNOT.search(line)) and m.group(1)]
    prev_end = first - 1
    for fn in ordered:
        name = _declarator_name(fn.child_by_field_name("declarator"))
        if name is None:
            continue
        start, end = fn.start_point[0] + 1, fn.end_point[0] + 1
        is_static = any(c.type == "storage_class_specifier" and c.text == b"static"
                        for c in fn.children)
        text = fn.text.decode(errors="replace")
        has_scop = re.search(r"#\s*pragma\s+scop\b", text) is not None
        own = [(cstart + k, m.group(1)) for cstart, cend, ctext in comments
               if prev_end < cend <= end     # comments above (since the previous function) or inside
               for k, line in enumerate(ctext.splitlines()) if (m := _ANNOT.search(line)) and m.group(1)]
        marked = any(text.split() == ["kernel"] for _, text in own + (file_notes if fn is ordered[0] else []))
        sites.append(FunctionSite(name, start, fn.start_point[1] + 1, end, is_static, has_scop,
                                  tuple(file_notes + own), frozenset(_calls(fn)), marked, _reads(fn)))
        prev_end = end
    return sites


def _reads(node) -> bool:
    """Whether the function reads an array element or through a pointer: any `x[e]` or `*p`
    but the left side of a plain `=` (whose subscripts may read: `a[idx[i]] = 0`)."""
    if node.type == "subscript_expression" or node.type == "pointer_expression" and node.text[:1] == b"*":
        parent = node.parent
        if not (parent is not None and parent.type == "assignment_expression"
                and parent.child_by_field_name("left") == node
                and parent.child_by_field_name("operator").text == b"="):
            return True
        while node.type == "subscript_expression":          # a store: only its subscripts read
            if _reads(node.child_by_field_name("index")):
                return True
            node = node.child_by_field_name("argument")
        return node.type == "pointer_expression" and _reads(node.child_by_field_name("argument"))
    return any(_reads(c) for c in node.children)


def _calls(node):
    if node.type == "call_expression" and (f := node.child_by_field_name("function")) is not None \
            and f.type == "identifier":
        yield f.text.decode()
    for child in node.children:
        yield from _calls(child)


def choose(sites: list[FunctionSite], filename: str, function: str | None) -> FunctionSite:
    """The kernel to read: the named one, else the one a `t2c: kernel` comment marks, else the
    scop function, else kernel_*, else the only one that no other function calls (a function
    called by another is its helper)."""
    if function:
        for s in sites:
            if s.name == function:
                return s
        raise UserError(f"no function named '{function}'", file=filename,
                        hint=f"functions here: {', '.join(s.name for s in sites) or 'none'}")
    # `main` is the program around a kernel, never one: a drop-in replaces a function it calls.
    functions = [s for s in sites if s.name != "main"]
    scop_main = next((s for s in sites if s.name == "main" and s.has_scop), None)
    if scop_main and not any(s.has_scop for s in functions):
        raise NoKernel("no kernel function found: the #pragma scop region is in main", file=filename,
                        line=scop_main.line, hint="move the loop nest into a function that main calls")
    called = {c for s in functions if s.name != "t2c_init" for c in s.calls - {s.name}}
    # A program's own set-up and output are no kernels: a function that prints, or that fills
    # arrays without reading any (`init(void) { a[i] = 1.0 / (i + 1); }`).
    setup = lambda s: bool(s.calls & IO_FUNCTIONS) or not s.reads
    for rule in (lambda s: s.marked, lambda s: s.has_scop, lambda s: s.name.startswith("kernel_"),
                 lambda s: s.name not in called and not setup(s), lambda s: s.name not in called,
                 lambda s: True):
        picked = [s for s in functions if rule(s)]
        if len(picked) == 1:
            return picked[0]
        if len(picked) > 1:
            raise NoKernel(f"several candidate kernels: {', '.join(s.name for s in picked)}",
                            file=filename, line=picked[1].line,
                            hint="mark the kernel with a `// t2c: kernel` comment above it "
                                 "(or name it: t2c gen --function NAME)")
    raise NoKernel("no kernel function found", file=filename,
                    hint="write the kernel as a C function (t2c reads function definitions)")
