"""Which functions of a CUDA translation unit may reach a barrier or a warp operation.

Takes a tree-sitter-cuda parse tree; answers `needs_fibers(name)` for a kernel name.
A kernel that provably never reaches `__syncthreads`, `__shfl*_sync` and friends runs
its threads as a plain loop (fast); everything else runs them as fibers (always
correct).  So the analysis is conservative: a call it cannot resolve (a function not
defined here and not a known library function, a call through a pointer or a member,
a parse error) counts as a barrier.
"""
from __future__ import annotations

import re

from tree_sitter import Node

from .features import BARRIER_CALLS, SAFE_CALLS, SAFE_PREFIXES

_NAME_TYPES = ("identifier", "field_identifier", "operator_name", "destructor_name", "type_identifier")
_WORD = re.compile(rb"[A-Za-z_]\w*")


def walk(node: Node):
    """Every node under `node` (itself included), in source order, without recursion."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def declarator_name(node: Node | None) -> Node | None:
    """The identifier a (possibly nested) declarator declares, or None."""
    while node is not None:
        if node.type in _NAME_TYPES:
            return node
        if node.type in ("qualified_identifier", "template_function"):
            return declarator_name(node.child_by_field_name("name"))
        inner = node.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in node.named_children if c.type.endswith("declarator")
                          or c.type in _NAME_TYPES), None)
        node = inner
    return None


def is_function_declarator(node: Node | None) -> bool:
    while node is not None:
        if node.type == "function_declarator":
            return True
        if node.type == "parenthesized_declarator":
            return False
        node = node.child_by_field_name("declarator")
    return False


def callee_name(fn: Node) -> str | None:
    """The name a call expression calls; None when it is not a plain (qualified) name."""
    if fn.type == "identifier":
        return fn.text.decode()
    if fn.type == "template_function":
        return callee_name(fn.child_by_field_name("name"))
    if fn.type == "qualified_identifier":
        scope = fn.child_by_field_name("scope")
        name = fn.child_by_field_name("name")
        if scope is not None and scope.text == b"std":
            return "min"   # any std:: function: a library call, never a barrier
        return callee_name(name) if name is not None else None
    if fn.type in ("primitive_type", "sized_type_specifier"):
        return "static_cast"   # a functional cast such as float(x)
    return None


class CallGraph:
    """Function definitions of one translation unit and the barrier question over them."""

    def __init__(self, root: Node):
        self.defs: dict[str, list[Node]] = {}
        self.types: set[str] = set()
        self.macros: dict[str, bytes] = {}
        for n in walk(root):
            if n.type == "function_definition":
                name = declarator_name(n.child_by_field_name("declarator"))
                if name is not None:
                    self.defs.setdefault(name.text.decode(), []).append(n)
            elif n.type in ("struct_specifier", "class_specifier", "union_specifier", "enum_specifier",
                            "type_definition", "alias_declaration", "type_parameter_declaration"):
                for c in n.named_children:
                    if c.type == "type_identifier":
                        self.types.add(c.text.decode())
            elif n.type in ("preproc_def", "preproc_function_def"):
                name, value = n.child_by_field_name("name"), n.child_by_field_name("value")
                if name is not None:
                    self.macros[name.text.decode()] = value.text if value is not None else b""
        self._memo: dict[str, bool] = {}

    def needs_fibers(self, name: str) -> bool:
        """True unless every definition of `name` provably reaches no barrier."""
        if name in self._memo:
            return self._memo[name]
        if name not in self.defs:
            return True
        self._memo[name] = False   # a recursive call adds nothing new
        result = any(self._body_needs(fn) for fn in self.defs[name])
        self._memo[name] = result
        return result

    def _body_needs(self, fn: Node) -> bool:
        if fn.has_error:
            return True
        local = {d.text.decode() for d in (declarator_name(x.child_by_field_name("declarator"))
                                           for x in walk(fn) if x.type in ("declaration", "parameter_declaration",
                                                                           "init_declarator"))
                 if d is not None}
        for n in walk(fn):
            if n.type == "gnu_asm_expression":
                return True        # the modeled asm (features.MODELED_ASM) is a warp operation
            if n.type == "identifier" and n.text.decode() in self.macros and self._macro_needs(n.text.decode()):
                return True
            if n.type != "call_expression":
                continue
            name = callee_name(n.child_by_field_name("function"))
            if name is None or name in BARRIER_CALLS:
                return True
            if name in self.defs:
                if self.needs_fibers(name):
                    return True
            elif not (name in SAFE_CALLS or name.startswith(SAFE_PREFIXES) or name in self.types
                      or name in local or name in self.macros):
                return True
        return False

    def _macro_needs(self, name: str, seen: frozenset = frozenset()) -> bool:
        for w in _WORD.findall(self.macros[name]):
            word = w.decode()
            if word in BARRIER_CALLS:
                return True
            if word in self.defs and word != name and self.needs_fibers(word):
                return True
            if word in self.macros and word not in seen and word != name and \
                    self._macro_needs(word, seen | {name}):
                return True
        return False
