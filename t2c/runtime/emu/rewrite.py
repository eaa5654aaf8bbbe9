"""Rewrite one CUDA source file into C++ that g++ compiles against the emu runtime.

    rewrite_cuda(source, filename) -> str;  EmuUnsupported

Takes the text of a `.cu` (or `.cuh`) file; gives C++ that includes `t2c_emu.h` and keeps every
original line on its own line number (a `#line` directive), so g++ errors and sanitizer reports
point into the `.cu`. Parsed with tree-sitter-cuda and edited: launches become the runtime's
launch calls, qualifiers go, `__shared__` variables become per-block storage, device variables
are registered, modelled inline PTX becomes a runtime call. Refuses (`EmuUnsupported`) features
the runtime does not model: other inline PTX, textures, cooperative groups other than the grid
and the block, CUDA libraries, dynamic parallelism. docs/verification.md, "The emu backend".
"""
from __future__ import annotations

import re
from functools import lru_cache

import tree_sitter_cuda
from tree_sitter import Language, Node, Parser

from .features import (MODELED_ASM, QUALIFIERS, SYMBOL_QUALIFIERS, UNSUPPORTED_HEADER_PREFIXES,
                       UNSUPPORTED_HEADERS, UNSUPPORTED_NAMES)
from .kernels import CallGraph, callee_name, declarator_name, is_function_declarator, walk


class EmuUnsupported(Exception):
    """The source uses a CUDA feature the emulator does not model (not a failure of the code)."""

    def __init__(self, what: str, file: str, line: int):
        super().__init__(what, file, line)
        self.what, self.file, self.line = what, file, line

    def __str__(self) -> str:
        return f"unsupported under emulation: {self.what} at {self.file}:{self.line}"


@lru_cache(maxsize=None)
def _parser() -> Parser:
    return Parser(Language(tree_sitter_cuda.language()))


# The grammar does not know `__align__(n)`; it is blanked (same length, so byte offsets
# stay valid) in the text given to the parser only.  The header defines it as an attribute.
_ALIGN = re.compile(rb"__align__\s*\([^()]*\)")


def parse(src: bytes):
    return _parser().parse(_ALIGN.sub(lambda m: b" " * len(m.group()), src))


def rewrite_cuda(source: str, filename: str) -> str:
    """The emu form of `source`; raises EmuUnsupported naming the first unsupported feature."""
    src = source.encode()
    tree = parse(src)
    unit = _Unit(src, tree.root_node, filename)
    unit.check_supported()
    body = _apply(src, unit.edits())
    name = filename.replace("\\", "\\\\").replace('"', '\\"')
    return f'#include "t2c_emu.h"\n#line 1 "{name}"\n' + body.decode()


def modeled_asm(n: Node) -> str | None:
    """The runtime call for an `asm(...)` expression the runtime models, or None."""
    def text(lit: Node) -> str:
        return "".join(c.text.decode() for c in walk(lit) if c.type in ("string_content", "escape_sequence"))
    template = "".join(text(c) for c in n.children if c.type in ("string_literal", "concatenated_string"))
    form = MODELED_ASM.get(re.sub(r"\s+|\\[ntr]", "", template))
    if form is None or any(c.type == "gnu_asm_goto_list" for c in n.children):
        return None
    operands = {}
    for kind in ("output", "input"):
        lists = [c for c in n.children if c.type == f"gnu_asm_{kind}_operand_list"]
        operands[kind] = [(text(next(x for x in op.children if x.type == "string_literal")),
                           op.named_children[-1].text.decode())
                          for op in (lists[0].named_children if lists else []) if op.type == f"gnu_asm_{kind}_operand"]
    outs, ins, fn = form
    if tuple(c for c, _ in operands["output"]) != outs or tuple(c for c, _ in operands["input"]) != ins:
        return None
    again = [e for c, e in operands["output"] if c.startswith("+")]
    args = [f"({e})" for _, e in operands["output"] + operands["input"]] + [f"({e})" for e in again]
    return f"{fn}(__FILE__, __LINE__, {', '.join(args)})"


def _apply(src: bytes, edits: list[tuple[int, int, str]], newline: bytes = b"\n") -> bytes:
    """Apply non-overlapping (start, end, text) edits; pad newlines so later lines keep their numbers."""
    out, pos = [], 0
    for start, end, text in sorted(edits, key=lambda e: (e[0], e[1])):
        if start < pos:
            continue   # nested in an edit already applied (its text was built from the original)
        out.append(src[pos:start])
        new = text.encode()
        out.append(new + newline * max(0, src.count(b"\n", start, end) - new.count(b"\n")))
        pos = end
    out.append(src[pos:])
    return b"".join(out)


def _line(node: Node) -> int:
    return node.start_point[0] + 1


def _enclosing_function(node: Node) -> Node | None:
    n = node.parent
    while n is not None and n.type not in ("function_definition", "lambda_expression"):
        n = n.parent
    return n


def _specifiers(owner: Node) -> set[str]:
    """Qualifier and storage-class words written directly on a declaration."""
    words = set()
    for c in owner.children:
        if c.type in QUALIFIERS:
            words.add(c.type)
        elif c.type in ("storage_class_specifier", "type_qualifier"):
            words.add(c.text.decode())
    return words


class _Unit:
    """One parsed source file and the edits that make it emu C++."""

    def __init__(self, src: bytes, root: Node, filename: str):
        self.src, self.root, self.filename = src, root, filename
        self.graph = CallGraph(root)
        self.bounds = _launch_bounds(root)

    # ---- refusal ----------------------------------------------------------------

    def check_supported(self) -> None:
        for n in walk(self.root):
            what = self._unsupported(n)
            if what:
                raise EmuUnsupported(what, self.filename, _line(n))

    def _unsupported(self, n: Node) -> str | None:
        if n.type == "gnu_asm_expression" and modeled_asm(n) is None:
            return "inline assembly (asm) other than the fp64 mma.sync m8n8k4"
        if n.type == "preproc_include":
            path = n.child_by_field_name("path")
            header = path.text.decode().strip('<>"') if path is not None else ""
            if header in UNSUPPORTED_HEADERS:
                return f"{UNSUPPORTED_HEADERS[header]} (#include <{header}>)"
            for prefix, what in UNSUPPORTED_HEADER_PREFIXES.items():
                if header.startswith(prefix):
                    return f"{what} (#include <{header}>)"
            return None
        if n.type in ("identifier", "type_identifier", "namespace_identifier"):
            name = n.text.decode()
            if name in UNSUPPORTED_NAMES and (name != "texture" or n.type == "type_identifier"):
                return f"{UNSUPPORTED_NAMES[name]} ({name})"
        if n.type == "kernel_call_syntax":
            fn = _enclosing_function(n)
            if fn is not None and {"__global__", "__device__"} & _specifiers(fn) and "__host__" not in _specifiers(fn):
                return "dynamic parallelism (a kernel launch inside device code)"
        return None

    # ---- edits --------------------------------------------------------------------

    def edits(self) -> list[tuple[int, int, str]]:
        edits: list[tuple[int, int, str]] = []
        shared_globals: dict[str, tuple[int, str]] = {}
        for n in walk(self.root):
            if n.type in QUALIFIERS:
                edits.append((n.start_byte, n.end_byte, self._qualifier(n)))
            elif n.type == "gnu_asm_expression":
                edits.append((n.start_byte, n.end_byte, modeled_asm(n)))
            elif n.type == "launch_bounds":
                edits.append((n.start_byte, n.end_byte, ""))
            elif n.type == "call_expression" and any(c.type == "kernel_call_syntax" for c in n.children):
                edits.append((n.start_byte, n.end_byte, self._launch(n)))
            elif n.type == "call_expression" and callee_name(n.child_by_field_name("function")) == "cudaLaunchKernelEx":
                edits.append((n.start_byte, n.end_byte, self._launch_ex(n)))
            elif n.type == "call_expression" and \
                    callee_name(n.child_by_field_name("function")) == "cudaLaunchCooperativeKernel":
                edits.append((n.start_byte, n.end_byte, self._launch_cooperative(n)))
            elif n.type == "declaration" and self._has_shared(n):
                edits.append((n.start_byte, n.end_byte, self._shared(n, shared_globals)))
            elif n.type == "declaration" and self._is_symbol_definition(n):
                edits.append((n.end_byte, n.end_byte, self._register_symbols(n)))
            elif n.type in ("preproc_def", "preproc_function_def"):
                value = n.child_by_field_name("value")
                if value is not None and b"<<<" in value.text:
                    edits.append((value.start_byte, value.end_byte, self._macro_launches(value)))
        edits += self._shared_global_uses(shared_globals)
        return edits

    def _qualifier(self, n: Node) -> str:
        owner = n.parent.parent if n.parent is not None and n.parent.type == "type_qualifier" else n.parent
        if n.type == "__noinline__":
            return "__attribute__((noinline))"
        words = _specifiers(owner) if owner is not None else set()
        if n.type == "__forceinline__":
            return " " * len(n.text) if "inline" in words else "inline"
        if n.type == "__device__" and owner is not None and owner.type in ("function_definition", "declaration") \
                and not words & {"__host__", "inline", "__forceinline__"} \
                and is_function_declarator(owner.child_by_field_name("declarator")):
            # Device functions are private to their translation unit on a GPU (without
            # -rdc); inline keeps a header's device function from clashing at link time.
            return "inline"
        return " " * len(n.text)

    def _launch(self, call: Node, site_line: str = "__LINE__") -> str:
        fn = call.child_by_field_name("function")
        config = next(c for c in call.children if c.type == "kernel_call_syntax")
        parts = [p.text.decode() for p in config.named_children if p.type != "comment"]
        args = call.child_by_field_name("arguments")
        arg_text = self.src[args.start_byte + 1:args.end_byte - 1].decode().strip() if args is not None else ""
        grid, block = parts[0], parts[1]
        smem = parts[2] if len(parts) > 2 else "0"
        stream = parts[3] if len(parts) > 3 else "0"
        return self._runtime_launch("launch", fn, f"({grid}), ({block}), ({smem}), ({stream})", arg_text, site_line)

    def _launch_ex(self, call: Node) -> str:
        """`cudaLaunchKernelEx(config, k, args...)`: `k`'s launch with the configuration's grid,
        block, shared bytes and stream (its attributes checked when it runs)."""
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(args) < 2:
            raise EmuUnsupported("cudaLaunchKernelEx without a kernel", self.filename, _line(call))
        arg_text = ", ".join(self.src[a.start_byte:a.end_byte].decode() for a in args[2:])
        return self._runtime_launch("launch_ex", args[1], f"({args[0].text.decode()})", arg_text)

    def _launch_cooperative(self, call: Node) -> str:
        """`cudaLaunchCooperativeKernel(k, grid, block, args[, smem[, stream]])`: the kernel is named
        through any casts (`(void*)k`), so that the runtime learns its parameter types from it."""
        args = [a for a in call.child_by_field_name("arguments").named_children if a.type != "comment"]
        if len(args) < 4:
            raise EmuUnsupported("cudaLaunchCooperativeKernel with fewer than 4 arguments", self.filename, _line(call))
        kernel = args[0]
        while kernel.type in ("cast_expression", "parenthesized_expression", "pointer_expression"):
            kernel = kernel.named_children[-1]     # (void*)k, (k), &k: the operand is the last child
        if callee_name(kernel) not in self.graph.defs:
            raise EmuUnsupported(f"cudaLaunchCooperativeKernel of {kernel.text.decode()}, not a kernel defined in this "
                                 "file (a function pointer variable, or a kernel from another file)",
                                 self.filename, _line(call))
        rest = [f"({a.text.decode()})" for a in args[1:6]]
        label = " ".join(kernel.text.decode().split()).replace("\\", "\\\\").replace('"', '\\"')
        return (f"::t2c_emu::launch_cooperative(::t2c_emu::LaunchSite{{__FILE__, __LINE__, \"{label}\"}}, "
                f"{kernel.text.decode()}, {', '.join(rest)})")

    def _runtime_launch(self, how: str, fn: Node, config: str, arg_text: str, site_line: str = "__LINE__") -> str:
        """The runtime's launch of kernel `fn` (FIBERS from the barrier analysis)."""
        name = callee_name(fn)
        fibers = "true" if name is None or self.graph.needs_fibers(name) else "false"
        fn_text = fn.text.decode()
        label = " ".join(fn_text.split()).replace("\\", "\\\\").replace('"', '\\"')
        bound = f", (unsigned)({self.bounds[name]})" if name in self.bounds else ""
        return (f"::t2c_emu::{how}<{fibers}>(::t2c_emu::LaunchSite{{__FILE__, {site_line}, \"{label}\"{bound}}}, "
                f"{config}, [&](auto&... t2c_a) {{ {fn_text}(t2c_a...); }}" + (f", {arg_text})" if arg_text else ")"))

    def _macro_launches(self, value: Node) -> str:
        """Launches inside a #define body: parse the body as a statement and rewrite it there."""
        text = value.text.replace(b"\\\n", b"  ")
        head = b"void t2c_macro_body() {\n"
        tree = parse(head + text + b"\n;}")
        sub = _Unit(head + text, tree.root_node, self.filename)
        sub.graph = self.graph
        launches = [(n.start_byte - len(head), n.end_byte - len(head), sub._launch(n))
                    for n in walk(tree.root_node)
                    if n.type == "call_expression" and any(c.type == "kernel_call_syntax" for c in n.children)]
        return _apply(value.text, launches, newline=b"\\\n").decode()

    # ---- __shared__ -----------------------------------------------------------------

    @staticmethod
    def _has_shared(decl: Node) -> bool:
        return any(c.type == "type_qualifier" and c.text == b"__shared__" for c in decl.children)

    def _shared(self, decl: Node, shared_globals: dict) -> str:
        declarators = decl.children_by_field_name("declarator")
        words = _specifiers(decl)
        extern = "extern" in words
        # The specifiers as written (from the original bytes: __align__ was blanked for the
        # parser), minus the words that made the variable shared.
        head = bytearray(self.src[decl.start_byte:declarators[0].start_byte])
        for c in decl.children:
            if c.start_byte < declarators[0].start_byte and (
                    c.text in (b"__shared__", b"extern", b"static") or c.type in QUALIFIERS):
                head[c.start_byte - decl.start_byte:c.end_byte - decl.start_byte] = b" " * (c.end_byte - c.start_byte)
        spec = " ".join(head.decode().split())
        in_function = _enclosing_function(decl) is not None
        out = []
        for d in declarators:
            name_node = declarator_name(d)
            name = name_node.text.decode()
            t = f"t2c_shT_{name}"
            typed = (self.src[d.start_byte:name_node.start_byte] + t.encode()
                     + self.src[name_node.end_byte:d.end_byte]).decode()
            out.append(f"typedef {spec} {typed};")
            if extern:
                ptr = f"::std::remove_extent_t<{t}>*"
                value = f"({ptr})::t2c_emu::dynamic_shared(__FILE__, __LINE__)"
                out.append(f"{ptr} {name} = {value};" if in_function
                           else f"static inline {ptr} t2c_sh_{name}() {{ return {value}; }}")
            else:
                value = f"::t2c_emu::block_shared<{t}>(&t2c_shk_{name}, __FILE__, __LINE__)"
                out.append(f"static char t2c_shk_{name};")
                out.append(f"{t}& {name} = {value};" if in_function
                           else f"static inline {t}& t2c_sh_{name}() {{ return {value}; }}")
            if not in_function:
                shared_globals[name] = (decl.end_byte, f"t2c_sh_{name}")
        return " ".join(out)

    def _shared_global_uses(self, shared_globals: dict) -> list[tuple[int, int, str]]:
        """Uses of a namespace-scope __shared__ variable call its per-block accessor."""
        if not shared_globals:
            return []
        edits = []
        for n in walk(self.root):
            if n.type == "identifier" and n.text.decode() in shared_globals:
                after, accessor = shared_globals[n.text.decode()]
                if n.start_byte >= after and (n.parent is None or n.parent.child_by_field_name("declarator") != n):
                    edits.append((n.start_byte, n.end_byte, f"({accessor}())"))
        return edits

    # ---- __device__ / __constant__ variables ---------------------------------------------

    @staticmethod
    def _is_symbol_definition(decl: Node) -> bool:
        if decl.parent is None or decl.parent.type not in ("translation_unit", "declaration_list"):
            return False
        words = _specifiers(decl)
        if not words & SYMBOL_QUALIFIERS or "extern" in words:
            return False
        return not any(is_function_declarator(d) for d in decl.children_by_field_name("declarator"))

    def _register_symbols(self, decl: Node) -> str:
        regs = []
        for d in decl.children_by_field_name("declarator"):
            name = declarator_name(d)
            if name is not None:
                v = name.text.decode()
                regs.append(f" static ::t2c_emu::Symbol t2c_sym_{v}((const void*)&{v}, sizeof({v}), "
                            f"\"{v}\", __FILE__, __LINE__);")
        return "".join(regs)


def _launch_bounds(root: Node) -> dict[str, str]:
    """Kernel name -> its `__launch_bounds__` maximum threads per block, as C text the launch site
    can evaluate: a number, or an expression of numbers and this file's object-like macros (a
    template's parameter or a namespace's constant is left out: the launch is not checked)."""
    macros = {n.child_by_field_name("name").text.decode() for n in walk(root) if n.type == "preproc_def"}
    out = {}
    for n in walk(root):
        if n.type != "launch_bounds" or n.parent is None or n.parent.type != "function_definition":
            continue
        args = [c for c in n.named_children if c.type != "comment"]
        name = declarator_name(n.parent.child_by_field_name("declarator"))
        if not args or name is None:
            continue
        words = set(re.findall(r"[A-Za-z_]\w*", args[0].text.decode()))
        if words <= macros:
            out[name.text.decode()] = args[0].text.decode()
    return out
