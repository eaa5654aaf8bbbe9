"""Normalize one C kernel function (pycparser AST) into the IS.

Takes the preprocessed translation unit and the chosen function; gives the
parameters (sizes, scalars, arrays with symbolic shapes and intents) and the
reference: the same function printed as C99 over VLA-typed array parameters and
runtime sizes, without pragmas.  Refuses, with `file:line:col`, what t2c cannot
run as a reference: goto, I/O, calls other than math functions and the file's own helpers
(helpers.py carries those), function pointers, globals, a written `static` local (state kept
from one call to the next), pointer arithmetic, structs, and modified size parameters; a local pointer at a fixed offset into an array parameter
(`T *row = a + i*n`) is read as that array first (pointers.py).  Writes through data-dependent subscripts are read; the analysis
decides what poly makes of them.
"""
from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass
from typing import NamedTuple

from pycparser import c_ast

from ...analysis.commas import normalize_commas
from ...analysis.model import parse_expr
from ...analysis.scalars import normalize_scalars
from ...analysis.whiles import normalize_whiles
from ...errors import UnsupportedC, UserError
from ...ir import HALF_DTYPES, Array, Scalar
from ...ir.csyntax import array_name, cprint, walk
from ...ir.extents import Bounds, NotPolynomial, Poly, at_least, loop_range, quotient, quotient_numerator, to_poly
from .bounds import offset_bounds, split_min_bounds, unequal_bounds, whole_steps, whole_tiles
from .countdown import count_down_loops
from .indices import inline_index_names
from .libcalls import memory_calls_as_loops, preconditions, scratch_as_arrays
from .pingpong import alternated_steps
from .pointers import exchanged, fold_fixed_pointers
from .stored import read_stored
from .unrolled import rolled_loops
from .walks import walked_pointers

MATH_FUNCTIONS = {
    f + s for f in ("sqrt", "exp", "log", "pow", "fabs", "sin", "cos", "tan", "tanh", "atan",
                    "atan2", "floor", "ceil", "fmin", "fmax", "fmod", "erf", "erfc", "log2", "log10",
                    "exp2", "expm1", "log1p", "round", "trunc", "cbrt", "fma", "hypot", "copysign",
                    "asin", "acos", "sinh", "cosh") for s in ("", "f")} | {"abs", "labs"} \
    | {"isnan", "isinf", "isfinite"}     # C99 classification macros: an int of a real value
MATH_FUNCTIONS |= {f for pair in HALF_DTYPES.values() for f in pair}   # 16-bit storage <-> float
#: Calls that do I/O or touch the process: a reference with them is no function of its inputs.
IO_FUNCTIONS = {
    "printf", "fprintf", "sprintf", "snprintf", "vprintf", "vfprintf", "puts", "putchar", "fputs",
    "fputc", "putc", "scanf", "fscanf", "sscanf", "getchar", "getc", "fgetc", "fgets", "gets",
    "fopen", "fclose", "fread", "fwrite", "fflush", "fseek", "remove", "rename", "perror",
    "exit", "abort", "system", "rand", "srand", "time", "clock", "getenv", "malloc", "calloc",
    "realloc", "free"}
INT_TYPES = {"int", "long", "unsigned", "unsigned int", "long int", "short"}
# Integer types a size parameter may have besides these (`size_t n` in library code): the size
# is an int to t2c; the drop-in declares it as written (Size.ctype).
SIZE_TYPES = {" ".join(sorted(t.split())) for t in (
    "short int", "unsigned short", "unsigned short int", "unsigned long", "unsigned long int",
    "long long", "long long int", "unsigned long long", "unsigned long long int", "signed long")}
TYPE_NAMES = {"double": "double", "float": "float", "int": "int", "signed int": "int",
              "unsigned": "unsigned", "unsigned int": "unsigned", "long": "long",
              "long int": "long", "signed long": "long", "long long": "long", "long long int": "long",
              "unsigned long": "unsigned long", "unsigned long int": "unsigned long",
              "unsigned long long": "unsigned long", "unsigned long long int": "unsigned long",
              "short": "short", "short int": "short", "signed short": "short", "unsigned short": "unsigned short",
              "unsigned short int": "unsigned short", "char": "char", "signed char": "char",
              "unsigned char": "unsigned char", "_Bool": "bool", "bool": "bool", **{t: t for t in HALF_DTYPES}}


def fail(node, message, hint=None, cls=UnsupportedC):
    coord = getattr(node, "coord", None)
    raise cls(message, file=coord.file if coord else None, line=coord.line if coord else None,
              col=coord.column if coord else None, hint=hint)


@dataclass
class Param:
    name: str
    dtype: str
    kind: str                 # "int" | "scalar" | "array" | "pointer"
    dims: tuple = ()          # pycparser dim expressions for arrays
    node: c_ast.Decl = None
    size_only: bool = False   # an integer type t2c takes for a size only (SIZE_TYPES)
    rows: bool = False        # `T **a`: a table of row pointers, the rows' extent from a[i][j]'s j


def base_type(type_node, typedefs, where) -> str:
    if not isinstance(type_node, c_ast.IdentifierType):       # struct, union or enum
        fail(where, f"'{where.name}' has a struct, union or enum type",
             "pass each field as its own scalar or array")
    written = " ".join(type_node.names)
    names = resolved(written, typedefs)
    if names.split()[0] in ("struct", "union"):            # a typedef of one (_read_c)
        fail(where, f"'{where.name}' has the type '{written}', a {names.split()[0]}",
             "pass each field as its own scalar or array (an array of structs as one array per field)")
    names = next((t for t in TYPE_NAMES if sorted(t.split()) == sorted(names.split())), names)   # `long unsigned`
    if names not in TYPE_NAMES:
        fail(where, f"'{where.name}' has the type '{written}'" + (f" ({names})" if names != written else "")
             + ", which t2c does not take for a parameter or a result",
             "declare it double, float, an integer type (char to long, signed or unsigned) or bool "
             "(__half, __nv_bfloat16 for 16-bit floats)")
    return TYPE_NAMES[names]


def resolved(names: str, typedefs: dict) -> str:
    """The type a typedef name stands for (`size_t` -> `unsigned long`); other names as given."""
    while names in typedefs:
        names = typedefs[names]
    return names


def resolve_typedefs(node, typedefs: dict):
    """Every type name under `node` written as the type it stands for: a reference is read
    without the file's typedefs (nor t2c's stand-in headers), so `size_t i` reads `unsigned long i`."""
    for n in walk(node):
        if isinstance(n, c_ast.IdentifierType):
            n.names = resolved(" ".join(n.names), typedefs).split()
    return node


def pointer_typedefs(ast: c_ast.FileAST, fn: c_ast.FuncDef) -> None:
    """Each parameter and local of `fn` declared through a typedef of a pointer (`typedef double
    *vec; void f(vec x)`) declared as the pointer it names (`double *x`), in place; a qualifier on
    the name (`const vec x`) qualifies the pointer itself, as in C."""
    pointers = {e.name: e.type for e in ast.ext if isinstance(e, c_ast.Typedef) and isinstance(e.type, c_ast.PtrDecl)}
    if not pointers:
        return
    for d in walk(fn):
        t = d.type if isinstance(d, c_ast.Decl) else None
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                and len(t.type.names) == 1 and t.type.names[0] in pointers:
            new = copy.deepcopy(pointers[t.type.names[0]])
            new.quals = [*new.quals, *t.quals]
            inner = new
            while not isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            inner.declname = d.name
            d.type, d.quals = new, [q for q in d.quals if q not in t.quals]


def reset_statics(body: c_ast.Compound) -> None:
    """A `static` scalar local that every call sets before it reads it (f2c's `static integer i__;`
    loop counters) is an ordinary local, in place: the first top-level statement naming it is
    `x = E;` or a for loop starting `x = E`, E without x. Any other static stays, for the check."""
    items = body.block_items or []
    for d in [s for s in items if isinstance(s, c_ast.Decl) and "static" in (s.storage or [])
              and isinstance(s.type, c_ast.TypeDecl) and "const" not in s.quals]:
        first = next((s for s in items[items.index(d) + 1:]
                      if any(isinstance(n, c_ast.ID) and n.name == d.name for n in walk(s))), None)
        start = first.init if isinstance(first, c_ast.For) else first
        if isinstance(start, c_ast.Assignment) and start.op == "=" and isinstance(start.lvalue, c_ast.ID) \
                and start.lvalue.name == d.name \
                and not any(isinstance(n, c_ast.ID) and n.name == d.name for n in walk(start.rvalue)):
            d.storage = [x for x in d.storage if x != "static"]


def variable_types(fn: c_ast.FuncDef) -> dict[str, str]:
    """The type of each of the function's integer or floating parameters and locals, as written
    (`size_t`, `unsigned int`); "" for a name declared twice with different types."""
    out = {}
    for d in walk(fn):
        if isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.TypeDecl) \
                and isinstance(d.type.type, c_ast.IdentifierType):
            written = " ".join(d.type.type.names)
            out[d.name] = written if out.get(d.name, written) == written else ""
    return out


def unsigned_names(fn: c_ast.FuncDef, typedefs: dict) -> dict[str, str]:
    """The function's unsigned integer parameters and locals, each with its type as written."""
    return {n: t for n, t in variable_types(fn).items() if "unsigned" in resolved(t, typedefs).split()}


def declared_const(decl: c_ast.Decl) -> bool:
    """Whether an array or pointer parameter's elements are declared const (`const float *x`)."""
    t = decl.type
    while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl)):
        t = t.type
    return "const" in getattr(t, "quals", ())


def read_param(decl: c_ast.Decl, typedefs) -> Param:
    if isinstance(decl.type, c_ast.PtrDecl) and isinstance(decl.type.type, c_ast.ArrayDecl):
        decl.type = c_ast.ArrayDecl(decl.type.type, None, [], decl.type.coord)   # `T (*a)[M]` is `T a[][M]`
    t = decl.type
    dims = []
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        t = t.type
    if isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.PtrDecl) and not dims \
            and isinstance(t.type.type, c_ast.TypeDecl):               # `T **a`: a[i][j], row i's j
        return Param(decl.name, base_type(t.type.type.type, typedefs, decl), "array", (None, None), decl, rows=True)
    if isinstance(t, c_ast.PtrDecl):
        if isinstance(t.type, c_ast.FuncDecl):
            fail(decl, f"parameter '{decl.name}' is a function pointer", "inline the function instead")
        if dims or not isinstance(t.type, c_ast.TypeDecl):
            fail(decl, f"parameter '{decl.name}' is a pointer to a pointer or to an array",
                 "pass arrays as flat pointers (double *a), row tables (double **a) or C99 arrays (double a[n][m])")
        return Param(decl.name, base_type(t.type.type, typedefs, decl), "pointer", node=decl)
    if isinstance(t, c_ast.FuncDecl):
        fail(decl, f"parameter '{decl.name}' is a function pointer", "inline the function instead")
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        fail(decl, f"parameter '{decl.name}' has a struct or union type",
             "pass each field as its own scalar or array")
    if not dims and " ".join(sorted(resolved(" ".join(t.type.names), typedefs).split())) in SIZE_TYPES:
        return Param(decl.name, "long", "int", node=decl, size_only=True)
    dtype = base_type(t.type, typedefs, decl)
    if dims == [None]:
        return Param(decl.name, dtype, "pointer", node=decl)        # `double a[]` is `double *a`
    if dims:
        if any(d is None for d in dims[1:]):
            fail(decl, f"array parameter '{decl.name}' has an unsized dimension",
                 "give every dimension but the first, e.g. double a[][m]")
        return Param(decl.name, dtype, "array", tuple(dims), decl)   # `a[][M]`: rows from the subscripts
    is_int = " ".join(t.type.names) in INT_TYPES or dtype in ("int", "long", "unsigned")
    return Param(decl.name, dtype, "int" if is_int else "scalar", node=decl)


def prototyped(fn: c_ast.FuncDef) -> None:
    """A K&R definition, `f(n, a) int n; double *a; {...}`, as its prototype `f(int n, double *a)`
    (in place): the same function for a caller that declares that prototype. An undeclared
    parameter is int, as K&R C takes it. A float, char or short parameter is refused: a caller
    without a prototype passes it promoted, so no prototype states how the function is called."""
    if not fn.param_decls:
        return
    declared = {d.name: d for d in fn.param_decls}
    params = []
    for p in fn.decl.type.args.params:
        d = declared.get(p.name) or c_ast.Decl(p.name, [], [], [], [], c_ast.TypeDecl(
            p.name, [], None, c_ast.IdentifierType(["int"])), None, None, coord=p.coord)
        t = d.type
        if isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) \
                and set(t.type.names) & {"float", "char", "short", "_Bool", "bool"}:
            fail(d, f"K&R parameter '{d.name}' of type '{' '.join(t.type.names)}' is passed promoted (to "
                    "double or int) by callers without a prototype", "write a prototype with the promoted type")
        params.append(d)
    fn.decl.type.args.params, fn.param_decls = params, None


def simplify_dim(node) -> str:
    """`ni + 0` (PolyBench padding) -> `ni`; other extents print as written."""
    if isinstance(node, c_ast.BinaryOp) and node.op == "+" and isinstance(node.right, c_ast.Constant) \
            and node.right.value == "0":
        return simplify_dim(node.left)
    return cprint(node)


class BodyCheck(c_ast.NodeVisitor):
    """Refuses unsupported constructs; records names used in loop bounds and extents.  `helpers`:
    the functions it may call (a helper itself where helpers.py bounded its recursion)."""

    def __init__(self, fn_name, params: dict[str, Param], local_names: set[str], globals_ok: set[str],
                 helpers=frozenset(), unsigned: dict[str, str] | None = None):
        self.fn_name, self.params, self.locals, self.globals_ok = fn_name, params, local_names, globals_ok
        self.helpers = helpers
        self.statics: set[str] = set()                      # its `static` locals
        self.unsigned = unsigned or {}                      # unsigned name -> its type as written
        self.bound_names: set[str] = set()
        self.written_ints: dict[str, c_ast.Node] = {}      # int parameter -> its first write

    def visit_Goto(self, node):
        fail(node, "goto is not supported", "rewrite the jump as structured loops and ifs")

    def visit_Label(self, node):
        fail(node, "labels are not supported", "rewrite the jump as structured loops and ifs")

    def visit_FuncCall(self, node):
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        if name == self.fn_name and name not in self.helpers:
            fail(node, f"recursive call to '{name}'", "write the recursion as a loop")
        if name in ("__asm__", "__asm", "asm"):
            fail(node, "inline assembly is not supported in a kernel", "write the computation in C")
        if name in IO_FUNCTIONS:
            fail(node, f"call to '{name}' in '{self.fn_name}': I/O and process calls make the reference "
                 "no function of its inputs", "remove it; a kernel and its helpers compute from their "
                 "parameters alone")
        if name not in MATH_FUNCTIONS and name not in self.helpers:
            fail(node, f"call to '{name or cprint(node.name)}' is not supported: it is neither defined in "
                 "this file nor a math function", "define it in this file (t2c carries the file's own "
                 "functions into the reference), or call only math functions (sqrt, exp, pow, fabs, ...)")
        if node.args is not None:
            self.visit(node.args)

    def visit_StructRef(self, node):
        fail(node, "struct member access is not supported", "pass each field as its own parameter")

    def visit_Decl(self, node):
        if "static" in (node.storage or ()):
            self.statics.add(node.name)
        self.generic_visit(node)

    def _never_ends(self, loop):
        """A loop whose test is `u >= 0` on an unsigned u (alone or under `||`): always true in C,
        so counting u down past 0 wraps around and the loop never ends, where the analysis would
        read a finite loop.  Refused at the test; under `&&` it is only redundant."""
        tests = [loop.cond] if loop.cond is not None else []
        while tests:
            n = tests.pop()
            if isinstance(n, c_ast.BinaryOp) and n.op == "||":
                tests += [n.left, n.right]
            elif isinstance(n, c_ast.BinaryOp) and n.op in (">=", "<="):
                var, zero = (n.left, n.right) if n.op == ">=" else (n.right, n.left)
                if isinstance(var, c_ast.ID) and var.name in self.unsigned \
                        and isinstance(zero, c_ast.Constant) and zero.value.rstrip("uUlL") == "0":
                    fail(n, f"`{cprint(n)}` is always true in C: '{var.name}' is declared "
                         f"{self.unsigned[var.name]}, never negative (counting it down past 0 wraps "
                         "around), so this loop never ends",
                         f"declare '{var.name}' a signed type (int, long, ptrdiff_t) to count down to 0, "
                         f"e.g. for (long {var.name} = n - 1; {var.name} >= 0; {var.name}--)")

    def visit_While(self, node):
        self._never_ends(node)
        self.generic_visit(node)

    visit_DoWhile = visit_While

    def visit_For(self, node):
        self._never_ends(node)
        if node.cond is not None:
            self._names_in(node.cond, self.bound_names)
            if node.init is not None and all(n.name == array_name(node.cond.left) for n in walk(node.cond)
                                             if isinstance(n, c_ast.ID)) if isinstance(node.cond, c_ast.BinaryOp) else False:
                self._names_in(node.init, self.bound_names)     # `for (i = n; i > 0; i--)`: its start bounds it
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if node.op == "*" and not (isinstance(node.expr, c_ast.ID)
                                   and self.params.get(node.expr.name, Param("", "", "")).kind == "pointer"):
            fail(node, "pointer dereference of an expression is not supported",
                 "index the array instead: a[i] rather than *(a + i)")
        if node.op == "&":
            fail(node, "taking an address is not supported in a kernel",
                 "index arrays directly instead of passing pointers around")
        if node.op in ("++", "--", "p++", "p--"):
            self._write(node.expr, node)
        self.generic_visit(node)

    def visit_Assignment(self, node):
        self._write(node.lvalue, node)
        self.generic_visit(node)

    def visit_ID(self, node):
        n = node.name
        if n not in self.params and n not in self.locals and n not in MATH_FUNCTIONS \
                and n not in self.globals_ok:
            fail(node, f"'{n}' is a global variable", "pass it to the kernel as a parameter")

    def _write(self, target, by=None):
        if (name := array_name(target)) in self.statics:
            fail(target, f"'{self.fn_name}' writes its static local '{name}': it keeps its value from one call "
                 "to the next, so the result would depend on the calls before this one, as with a written global",
                 "make it an ordinary local, or a table it only reads (static const)")
        if isinstance(target, c_ast.ID):
            p = self.params.get(target.name)
            if p is None and target.name not in self.locals:
                fail(target, f"'{self.fn_name}' writes the global variable '{target.name}': the reference "
                     "must compute from its parameters alone", "pass it as a parameter, or use a local")
            if p and p.kind == "int":
                self.written_ints.setdefault(target.name, target)
            if p and p.kind == "pointer" and self._moves(by):
                fail(target, f"pointer parameter '{p.name}' is moved in a way t2c does not read as subscripts",
                     f"index it from where it starts ({p.name}[i]), or move it once per iteration of a for "
                     f"loop (`*{p.name}++` or `{p.name} += step` in the loop's body), with a size parameter "
                     "for the count")
        elif isinstance(target, c_ast.ArrayRef):
            pass              # a data-dependent subscript is the analysis's to judge (analysis/model.py)
        elif isinstance(target, c_ast.UnaryOp) and target.op == "*":
            pass
        elif isinstance(target, c_ast.StructRef):
            self.visit_StructRef(target)
        else:
            fail(target, f"assignment to '{cprint(target)}' is not supported",
                 "assign to a local variable, an array element (a[i]) or *p of a pointer parameter")

    @staticmethod
    def _moves(by) -> bool:
        """Whether write `by` of a pointer is arithmetic on it (`p++`, `p += k`), not one pointer
        assigned another (ping-pong buffers, pointers.exchanged)."""
        return isinstance(by, c_ast.UnaryOp) or isinstance(by, c_ast.Assignment) and (
            by.op != "=" or not isinstance(by.rvalue, (c_ast.ID, c_ast.TernaryOp)))

    @staticmethod
    def _names_in(node, into):
        for n in walk(node):
            if isinstance(n, c_ast.ID):
                into.add(n.name)


def local_names(body) -> set[str]:
    return {n.name for n in walk(body) if isinstance(n, c_ast.Decl) and n.name}


class Intents:
    """Which arrays are read, written, and read before this call wrote them.

    Walks the body in program order, keeping the element references written so far
    in the current block; a write inside a loop or branch covers later reads in that
    block and its nested blocks only.  An array whose every read is covered is `out`
    (its initial contents cannot matter), one with an uncovered read is `inout`."""

    def __init__(self, arrays: set[str], helpers: dict = None):
        self.arrays = arrays
        self.helpers = helpers or {}                       # name -> helpers.Helper: what it does through its pointers
        self.read, self.written, self.uncovered = set(), set(), set()

    def run(self, body):
        self.stmt(body, set())
        return {a: ("inout" if a in self.uncovered else "out") if a in self.written else "in"
                for a in self.arrays if a in self.read or a in self.written}

    def stmt(self, node, covered: set):
        if isinstance(node, c_ast.Compound):
            inner = set(covered)
            for s in node.block_items or ():
                self.stmt(s, inner)
        elif isinstance(node, c_ast.For):
            for part in (node.init, node.cond):
                if part is not None:
                    self.expr(part, covered)
            inner = set(covered)
            self.stmt(node.stmt, inner)
            if node.next is not None:
                self.expr(node.next, inner)
        elif isinstance(node, (c_ast.While, c_ast.DoWhile)):
            inner = set(covered)
            self.expr(node.cond, inner)
            self.stmt(node.stmt, inner)
        elif isinstance(node, c_ast.If):
            self.expr(node.cond, covered)
            for branch in (node.iftrue, node.iffalse):
                if branch is not None:
                    self.stmt(branch, set(covered))
        elif node is not None:
            self.expr(node, covered)

    def expr(self, node, covered: set):
        if isinstance(node, c_ast.Assignment):
            self.expr(node.rvalue, covered)
            self.lvalue(node.lvalue, covered, read=node.op != "=")
            return
        if isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
            self.lvalue(node.expr, covered, read=True)
            return
        if isinstance(node, (c_ast.ArrayRef, c_ast.UnaryOp)) and array_name(node) in self.arrays \
                and (isinstance(node, c_ast.ArrayRef) or node.op == "*"):
            self._subscripts(node, covered)
            self._read(node, covered)
            return
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in self.helpers:
            for arg, p in zip(node.args.exprs if node.args else (), self.helpers[node.name.name].params):
                if p.rank and isinstance(arg, c_ast.ID) and arg.name in self.arrays:
                    if p.reads:                            # which elements, t2c does not follow: none covered
                        self.read.add(arg.name)
                        self.uncovered.add(arg.name)
                    if p.writes:
                        self.written.add(arg.name)
                else:
                    self.expr(arg, covered)
            return
        for _, child in node.children():
            self.expr(child, covered)

    def lvalue(self, node, covered, read):
        name = array_name(node)
        if name not in self.arrays:
            for _, child in node.children():
                self.expr(child, covered)
            return
        self._subscripts(node, covered)
        if read:
            self._read(node, covered)
        self.written.add(name)
        covered.add(cprint(node))

    def _subscripts(self, node, covered):
        while isinstance(node, c_ast.ArrayRef):
            self.expr(node.subscript, covered)
            node = node.name

    def _read(self, node, covered):
        name = array_name(node)
        self.read.add(name)
        if cprint(node) not in covered:
            self.uncovered.add(name)


class Accesses(c_ast.NodeVisitor):
    """Largest and smallest subscript of each pointer parameter, as Polys in the sizes."""

    def __init__(self, pointers: set[str], sizes: set[str], helpers: dict = None, strides=frozenset(),
                 data_names=frozenset()):
        self.pointers, self.sizes = pointers, sizes
        self.data_names = data_names                        # locals, which may hold values read from arrays
        self.read_through: dict[str, c_ast.Node] = {}       # pointer -> a subscript read from the data
        self.helpers = helpers or {}
        self.strides = strides                              # int parameters tried as leading dimensions
        self.rows_within: dict[str, list] = {p: [] for p in strides}   # stride -> what it must cover, or None
        self.passed: dict[str, c_ast.FuncCall] = {}        # pointer -> a call passing it to a helper
        self.bounds = Bounds()
        self.max: dict[str, list] = {p: [] for p in pointers}
        self.subscripts: dict[str, list[Poly]] = {p: [] for p in pointers}
        self.scalar_only = {p: True for p in pointers}
        self.unknown: dict[str, c_ast.Node] = {}
        self.assumed: list[Poly] = []                       # row lengths of no one sign, taken as >= 0

    def visit_For(self, node):
        r = loop_range(node, self.sizes | set(self.bounds.ranges), self.sizes)
        for part in (node.init, node.cond, node.next):
            if part is not None:
                self.visit(part)
        if r:
            self.bounds.push(*r)
        self.visit(node.stmt)
        if r:
            self.bounds.pop()

    def visit_FuncCall(self, node):
        callee = node.name.name if isinstance(node.name, c_ast.ID) else None
        for arg in node.args.exprs if node.args and callee in self.helpers else ():
            if isinstance(arg, c_ast.ID) and arg.name in self.pointers:
                self.passed.setdefault(arg.name, node)
        self.generic_visit(node)

    def visit_ArrayRef(self, node):
        name = array_name(node)
        if isinstance(node.name, c_ast.ArrayRef) and isinstance(node.name.name, c_ast.ID) \
                and f"{name}[]" in self.pointers:
            name = f"{name}[]"                             # `a[i][j]` of a row table: its rows' j
        if name in self.pointers and (isinstance(node.name, c_ast.ID) or name.endswith("[]")):
            sub = node.subscript
            if not (isinstance(sub, c_ast.Constant) and sub.value == "0"):
                self.scalar_only[name] = False
            try:
                p = to_poly(sub, self.sizes | set(self.bounds.ranges), self.sizes)
                lo, hi = (self.bounds.extreme(p, want_max=w, assume=self.assumed) for w in (False, True))
                if {v for v in lo.vars() - self.sizes if not quotient(v)} or (lo.sign() < 0 and lo.terms):
                    raise NotPolynomial("may be negative")
                if any(quotient(v) and not quotient_numerator(v).vars() <= self.sizes for v in hi.vars()):
                    raise NotPolynomial("a quotient of a variable no loop bounds")
                self.max[name].append((hi, node))
                self.subscripts[name].append(p)
                for ld in self.strides & p.vars():
                    self.rows_within[ld].append(self._within(p, ld))
            except NotPolynomial:
                data = any(isinstance(n, c_ast.ArrayRef) or isinstance(n, c_ast.ID) and n.name in self.data_names
                           for n in walk(sub))
                (self.read_through if data else self.unknown).setdefault(name, node)
        self.generic_visit(node)


    def merge(self, classes: dict[str, frozenset[str]]) -> None:
        """Each name of a class (pointers.exchanged) gets the subscripts of all its names."""
        for name, members in classes.items():
            self.max[name] = [m for x in sorted(members) for m in self.max[x]]
            self.subscripts[name] = [p for x in sorted(members) for p in self.subscripts[x]]
            self.scalar_only[name] = all(self.scalar_only[x] for x in members)
            for seen in (self.unknown, self.read_through, self.passed):
                if found := next((seen[x] for x in sorted(members) if x in seen), None):
                    seen.setdefault(name, found)

    def _within(self, p: Poly, ld: str) -> Poly | None:
        """b where subscript p is ld * a + r, a a loop variable's expression, r in [0, b) over the
        loops (b in the sizes): p moves in rows of ld elements when ld >= b; else None."""
        try:
            a, r = p.split(ld)
            lo, hi = self.bounds.extreme(r, want_max=False), self.bounds.extreme(r, want_max=True) + Poly.const(1)
        except NotPolynomial:
            return None
        if not a.vars() - self.sizes or a.sign() <= 0 or ld in r.vars() or not at_least(lo, Poly()) \
                or not hi.vars() <= self.sizes - self.strides:
            return None
        return hi


def leading_dimensions(body, pointers: set[str], sizes: set[str], candidates: set[str], helpers) -> dict[str, tuple]:
    """Integer parameters that subscripts step by as rows (`a[i + j*lda]`, `x[i*incx]`): each with
    what its rows must hold, `lda >= m` (`incx >= 1`), as BLAS documents its leading dimensions
    and increments. Only where every subscript that holds it does so."""
    acc = Accesses(pointers, sizes | candidates, helpers, candidates)
    acc.visit(body)
    return {ld: tuple({b.to_c(): b for b in found}.values()) for ld, found in acc.rows_within.items()
            if found and None not in found}


def pointer_extent(name: str, acc: Accesses, annotated: dict, ints=(), strides=None, floors=None,
                   flat: bool = False) -> tuple[str, ...]:
    """The shape of pointer parameter `name`: annotated, or inferred from its subscripts (those
    through the data, `hist[v]` with v read from an array, are left to the checked reference
    runs, which name an access past the extent); `ints` (the kernel's integer parameters, in
    order) name the extent the error's example gives;
    `strides`: the leading dimensions, each with what its rows hold (leading_dimensions); an
    inferred extent that may be negative for some sizes (`n - k + 1`), or a largest subscript
    that falls below a fixed one for small sizes (`u[n]` beside `u[2]`: n - 2), goes into
    `floors`, each a Poly the sizes keep >= 0; `flat`: one extent (no rows read from the subscripts)."""
    example = f"`// t2c: array {name}[{ints[0] if ints else 100}]` (one extent per dimension, " \
              f"C expressions in the integer parameters{': ' + ', '.join(ints) if ints else ''})"
    if name in annotated:                   # a declared extent that may be negative is a floor too
        return _floored(annotated[name], acc.sizes, floors)
    if name in acc.passed:                   # the helper's subscripts are its own
        call = acc.passed[name]
        raise UserError(f"cannot tell the extent of pointer parameter '{name}': it is passed to the helper "
                        f"'{call.name.name}', whose subscripts t2c does not follow",
                        file=call.coord.file, line=call.coord.line, col=call.coord.column,
                        hint=f"declare it with a comment such as {example}")
    if acc.scalar_only[name] and name not in acc.unknown:
        return ()                            # used as *p or p[0]: one element
    if name in acc.unknown or not acc.max[name]:         # (data subscripts alone tell no extent)
        node = acc.unknown.get(name, acc.read_through.get(name))
        why = ""
        if isinstance(node, c_ast.ArrayRef):
            sub = node.subscript
            loose = [n.name for n in walk(sub) if isinstance(n, c_ast.ID) and n.name not in acc.sizes]
            why = f": `{cprint(sub)}` reads the data" if any(isinstance(n, c_ast.ArrayRef) for n in walk(sub)) \
                else f": `{cprint(sub)}` depends on '{loose[0]}', which t2c cannot bound by the integer " \
                     "parameters (a local, or a loop variable whose bound is no polynomial in them: one that " \
                     "divides by a parameter is not)" if loose else ""
        raise UserError(f"cannot tell the extent of pointer parameter '{name}' from its subscripts" + why,
                        file=node.coord.file if node is not None else None,
                        line=node.coord.line if node is not None else None,
                        col=node.coord.column if node is not None else None,
                        hint=f"declare it with a comment such as {example}")
    maxes = acc.max[name]
    for best, _ in sorted(maxes, key=lambda m: not m[0].vars()):
        below = [p for p, _ in maxes if not at_least(best, p)]
        if below and (floors is None or not best.vars() or any(p.vars() for p in below)):
            continue
        extent = best + Poly.const(1)       # fixed elements too (`r[1]`, `u[2]` beside `u[n]`): the
        if below:                            # sizes that reach them, `n >= 2`, are a constraint
            floors += [best - p for p in below]
        rows = not flat and row_major_shape(extent, acc.subscripts[name], acc.sizes, strides)
        if rows:
            return _floored(rows, acc.sizes, floors)
        if floors is not None and not at_least(extent, Poly()):
            floors.append(extent)
        return (extent.to_c(),)
    node = next((n2 for i, (p1, _) in enumerate(maxes) for p2, n2 in maxes[i + 1:]
                 if not at_least(p1, p2) and not at_least(p2, p1)), maxes[0][1])
    raise UserError(f"the largest subscript of '{name}' depends on the sizes' values",
                    file=node.coord.file, line=node.coord.line, col=node.coord.column,
                    hint=f"declare it with a comment such as {example}")


def _floored(shape: tuple[str, ...], sizes: set[str], floors: list | None) -> tuple[str, ...]:
    """`shape`, each extent that may be negative for some sizes (`h - kh + 1`) added to `floors`."""
    for e in shape if floors is not None else ():
        try:
            extent = to_poly(parse_expr(e), sizes, sizes)
        except (NotPolynomial, ValueError):
            continue
        if not at_least(extent, Poly()) and extent not in floors:
            floors.append(extent)
    return shape


def row_major_shape(extent: Poly, subscripts: list[Poly], sizes: set[str], strides=None) -> tuple[str, ...] | None:
    """[rows][cols] of a pointer that the kernel indexes as rows of `cols` elements, as a
    `t2c: array a[rows][cols]` annotation would declare it: the one size that multiplies a loop
    variable in its subscripts is cols (`a[r*cols + c]`, `a[(r + 1)*cols + c]`), and its extent
    is cols times an affine expression of the sizes, rows (`h*w - w`: h - 1 rows), less a
    constant where the last row is reached only in part (an interior written, `h*w - w - 1`: the
    h - 1 rows it touches, whole). None otherwise (the extent stays flat). The model then reads
    each subscript as a[r][c] where c provably stays in its row (analysis/delinearize.py), and
    keeps the kernel's flat indexing where not. A leading dimension (`strides`: cols >= b) has its
    last row reached to b: `lda*n - lda + m`, with lda >= m, is n rows (as BLAS sizes a matrix,
    lda * n); an increment (b = 1) keeps the flat extent, as BLAS sizes a vector. Where every loop
    variable's term in every subscript has a common factor k > 1 (`out[2*(i*m + j) + u]`:
    interleaved pairs), a row is k * cols elements. The rows split again where each subscript's row
    part does (`a[(i*n + j)*n + k]` over n * n * n: [n][n][n])."""
    inner = {v for p in subscripts for m in p.terms if len(m) == 2 and set(m) - sizes for v in set(m) & sizes}
    if len(inner) != 1 or (shape := _one_size_rows(extent, subscripts, sizes, inner.pop(), strides)) is False:
        return _derived_rows(extent, subscripts, sizes)      # a row length of several sizes (`r * (w - kw + 1)`)
    return shape


def _one_size_rows(extent: Poly, subscripts: list[Poly], sizes: set[str], cols: str, strides) -> tuple | None | bool:
    """row_major_shape where one size multiplies the loop variables; False where the extent is no
    multiple of it (then perhaps of an expression: `_derived_rows`)."""
    for b in (strides or {}).get(cols, ()):          # a leading dimension: its last row, to b, in part
        if b.terms == {(): 1}:                        # an increment (`x[i*incx]`): BLAS sizes the vector
            return None                              # 1 + (n - 1) * incx, its flat extent, not n rows
        rows = _rows(extent - b, cols, sizes)
        if rows is not None and rows.vars():
            return (rows + Poly.const(1)).to_c(), cols
    k = math.gcd(*(c for p in subscripts for m, c in p.terms.items() if set(m) - sizes))   # rows of k * cols
    k = max(k, 1)                                                                         # (`2*(i*m + j) + u`)
    rows = _rows(extent, cols, sizes, k)
    if rows is None or not rows.vars():
        return False
    if k == 1:                                       # each subscript's row part: its terms over cols
        parts = [{e: a for e, a in p.powers(cols).items() if e} for p in subscripts]
        outer = [sum((a * _power(cols, e - 1) for e, a in part.items()), Poly()) for part in parts]
        if (split := row_major_shape(rows, outer, sizes)) is not None:
            return (*split, cols)
    return rows.to_c(), f"{k} * {cols}" if k > 1 else cols


def _derived_rows(extent: Poly, subscripts: list[Poly], sizes: set[str]) -> tuple[str, ...] | None:
    """[rows][cols] where the loop variables' coefficients in the subscripts are 1 and expressions
    of the sizes that one of them, cols, divides (`(b * oh + r) * ow + c`, oh = h - kh + 1, ow =
    w - kw + 1), and the extent is cols times rows over the sizes, less at most a constant (the
    last row in part); the rows split again where the subscripts' quotients by cols do."""
    if any(max(p.powers(v)) > 1 for p in subscripts for v in p.vars() - sizes):
        return None
    coefficients = {c.to_c(): c for p in subscripts for v in p.vars() - sizes
                    for c in [p.powers(v).get(1, Poly())] if c.vars()}
    cols = next((c for c in coefficients.values() if c.vars() <= sizes and all(
        not o.divided(c)[1].terms for o in coefficients.values())), None)
    if cols is None:
        return None
    rows, rest = extent.divided(cols)
    if not rows.vars() or not rows.vars() <= sizes or rest.vars() or rest.sign() > 0 and rest.terms:
        return None
    outer = [p.divided(cols)[0] for p in subscripts]
    split = _derived_rows(rows, outer, sizes) if len(coefficients) > 1 else None
    return (*split, cols.to_c()) if split else (rows.to_c(), cols.to_c())


def _power(v: str, e: int) -> Poly:
    out = Poly.const(1)
    for _ in range(e):
        out = out * Poly.var(v)
    return out


def _rows(extent: Poly, cols: str, sizes: set[str], k: int = 1) -> Poly | None:
    """R where `extent` is k * cols * R, less a constant (the last row in part), R over the sizes."""
    rows = {}
    for m, c in extent.terms.items():
        if m == () and c < 0:
            continue                                 # the last row, in part
        if cols not in m or c % k or not all(v in sizes or quotient(v) for v in m):
            return None                              # (`n * n`: a square's n rows of n)
        rest = list(m)
        rest.remove(cols)
        rows[tuple(rest)] = c // k
    return Poly(rows)


def reference_function(fn: c_ast.FuncDef, arrays: dict[str, Array], typedefs: dict) -> str:
    """The function printed as the IS reference: VLA array parameters, no pragmas, not static,
    no typedef names."""
    fn = resolve_typedefs(copy.deepcopy(fn), typedefs)
    fn.decl.storage = []
    fn.decl.funcspec = []
    params = [p for p in (fn.decl.type.args.params if fn.decl.type.args else ()) if getattr(p, "name", None)]
    for i, p in enumerate(params):
        a = arrays.get(p.name)
        if a is not None and a.rank > 1 and isinstance(p.type, c_ast.PtrDecl):
            continue          # a flat pointer with an annotated shape: its body indexes it flat
        later = {q.name for q in params[i + 1:]}
        if a is not None and (isinstance(p.type, c_ast.PtrDecl) or isinstance(p.type, c_ast.ArrayDecl) and p.type.dim is None) \
                and later & set(re.findall(r"[A-Za-z_]\w*", " ".join(a.shape))):
            continue          # before its size (`f(double *a, int n)`, `a[][M]`): C knows no n there yet
        if a is not None and a.shape:
            typ = p.type
            while not isinstance(typ, c_ast.TypeDecl):
                typ = typ.type
            typ = c_ast.TypeDecl(p.name, ["const"] if a.const else [], None, c_ast.IdentifierType(a.dtype.split()))
            for ext in reversed(a.shape):
                typ = c_ast.ArrayDecl(typ, c_ast.ID(ext), [])
            p.type = typ
    fn.body = strip_pragmas(fn.body)
    return cprint(fn).strip() + "\n"


def strip_pragmas(node):
    if isinstance(node, c_ast.Compound):
        node.block_items = [strip_pragmas(s) for s in node.block_items or ()
                            if not isinstance(s, c_ast.Pragma)] or None
    else:
        for name in ("stmt", "iftrue", "iffalse"):
            if getattr(node, name, None) is not None:
                setattr(node, name, strip_pragmas(getattr(node, name)))
    return node


class Normalized(NamedTuple):
    params: list                  # the parameter names, in order
    sizes: list                   # the size names
    scalars: list
    arrays: list
    reference: str                # the function as the IS reference prints it
    strides: dict                 # leading dimension -> what its rows hold (Polys)
    implied: list                 # the constraints the reading implies (`lda >= m`, `n >= k - 1`)
    function: c_ast.FuncDef       # the function the reference prints (its nodes keep the file's lines)


def normalize(fn: c_ast.FuncDef, typedefs: dict, enum_names: set[str], annotated_shapes: dict,
              annotated_intents: dict, annotated_sizes=(), helpers: dict | None = None, given_domains=()):
    """Gives the kernel's `Normalized` reading; `helpers`: the file's functions it may call, by
    name (helpers.Helper: what each does through its pointers); `given_domains`: the names a
    `t2c: domain` declares (scalars, never sizes)."""
    args = fn.decl.type.args.params if fn.decl.type.args else []
    params = {}
    for d in args:
        if isinstance(d, c_ast.EllipsisParam):
            fail(d, "variadic functions are not supported")
        if isinstance(d, c_ast.Typename) and d.name is None:
            continue                                    # f(void)
        if isinstance(d, c_ast.ID):
            fail(d, "K&R-style parameters (types declared after the parentheses) are not supported",
                 "write a prototype: void f(int n, double *a)")
        params[d.name] = read_param(d, typedefs)
    fn = c_ast.FuncDef(fn.decl, fn.param_decls, copy.deepcopy(fn.body), fn.coord)
    reset_statics(fn.body)                              # `static int i;` set before read: a local
    count_down_loops(fn.body)                           # `for (i = n; i-- > 0;)`: i > 0, reading i - 1
    inline_index_names(fn.body, variable_types(fn))     # `int idx = i*m + j; a[idx]`: a[i*m + j]
    walked_pointers(fn.body, {p.name for p in params.values() if p.kind == "pointer"})   # `*y++ = ...`: y[i]
    fold_fixed_pointers(fn.body, params)                # `T *row = a + i*n`: row[j] is a[i*n + j]
    read_stored(fn.body, {**{v: TYPE_NAMES.get(resolved(t, typedefs)) for v, t in variable_types(fn).items()},
                          **{p.name: p.dtype for p in params.values() if p.kind in ("array", "pointer")}})   # `w[i] = s; ... s`: w[i]
    scratch_as_arrays(fn.body, lambda names: resolved(names, typedefs))   # malloc'd and freed: T w[count]
    memory_calls_as_loops(fn.body, params, lambda names: resolved(names, typedefs))   # memset, memcpy
    asserted = preconditions(fn.body)                   # `assert(n > 0);`: a constraint, where on sizes
    rolled_loops(fn.body)                               # unrolled by hand, and its remainder: one loop
    alternated_steps(fn, {p.name for p in params.values() if p.kind == "pointer"})   # ping-pong: two steps
    split_min_bounds(fn.body)                           # `i < MIN(ii + T, n)`: i < ii + T && i < n
    ints = {p.name for p in params.values() if p.kind == "int"}
    asserted += whole_tiles(fn, ints)                   # `i < ii + T`: && i < n, n % T == 0
    asserted += whole_steps(fn, ints)                   # `i += 2` reading i + 1: i < n - 1, n % 2 == 0
    unequal_bounds(fn.body)                             # `i != n; ++i`: i < n
    offset_bounds(fn.body, unsigned_names(fn, typedefs))   # `i + k <= n`: i <= n - k
    # The sizes, extents and intents are read as the model will read the loops: counted while
    # and do-while loops, comma headers, inductions (its normalizations, on a copy: the model
    # runs them on the reference itself, where it can prove more).
    seen = copy.deepcopy(fn)
    normalize_whiles(seen)                              # `i = 0; while (i < n) {...; i++;}`: its for loop
    normalize_commas(seen)                              # `for (i = 0, j = n - 1; i < j; i++, j--)`: over i
    normalize_scalars(seen, {p.name for p in params.values() if p.kind == "int"}, lambda *_: False)   # `k += 2`
    check = BodyCheck(fn.decl.name, params, local_names(seen.body), enum_names, helpers or {},
                      unsigned_names(fn, typedefs))
    check.visit(seen.body)

    # Sizes: int parameters that bound loops or give extents, or that a `t2c: size` names (a band
    # width, an iteration cap), and are never assigned.
    extent_names = set()
    for p in params.values():
        for dim in p.dims:
            if dim is not None:
                BodyCheck._names_in(dim, extent_names)
    for shape in annotated_shapes.values():
        extent_names |= {w for e in shape for w in e.replace("*", " ").replace("+", " ").split()}
    sizes = [p.name for p in params.values() if p.kind == "int"
             and (p.name in check.bound_names or p.name in extent_names or p.name in annotated_sizes)]
    rows = {p.name for p in params.values() if p.kind == "array" and p.dims[0] is None}    # `a[][M]`
    pointers = {p.name for p in params.values() if p.kind == "pointer"} | rows | \
        {f"{p.name}[]" for p in params.values() if p.rows}          # a row table's rows: `a[i][j]`'s j
    strides = leading_dimensions(seen.body, pointers - set(annotated_shapes), set(sizes), {
        p.name for p in params.values() if p.kind == "int" and p.name not in sizes
        and p.name not in check.written_ints and p.name not in given_domains}, helpers)
    sizes += [p for p in params if p in strides]
    for p in params.values():
        if p.size_only and p.name not in sizes:            # a scalar of its own type (`size_t k`: unsigned long)
            p.dtype = base_type(p.node.type.type, typedefs, p.node)
    for s in sizes:
        if s in check.written_ints:
            fail(check.written_ints[s], f"size parameter '{s}' is modified in the kernel",
                 "copy it into a local variable and modify the copy")

    aliases = exchanged(seen.body, pointers)           # ping-pong buffers: one extent per class
    acc = Accesses(pointers | set(aliases), set(sizes), helpers, data_names=local_names(seen.body) - set(aliases))
    acc.visit(seen.body)
    acc.merge(aliases)
    floors = list({e.to_c(): e for e in acc.assumed}.values())     # a derived row length: no negative count
    arrays, scalars = {}, []
    intents = Intents({p.name for p in params.values() if p.kind in ("array", "pointer")} | set(aliases),
                      helpers).run(seen.body)
    for name, members in aliases.items():              # each array of a class is read and written
        if name in pointers and any(intents.get(m) in ("out", "inout") for m in members):
            intents[name] = "inout"
    for p in params.values():
        if p.kind in ("array", "pointer"):
            ints = [q.name for q in params.values() if q.kind == "int"]
            if p.rows:                  # a row table: how many rows, how long each
                shape = annotated_shapes.get(p.name) or tuple(
                    pointer_extent(x, acc, {}, ints, None, floors, flat=True)[0] for x in (p.name, f"{p.name}[]"))
            elif p.name in rows:        # its rows: the extent of its first subscript, as a pointer's
                first = annotated_shapes[p.name][:1] if p.name in annotated_shapes else \
                    pointer_extent(p.name, acc, {}, ints, strides, floors)[:1] or ("1",)
                shape = (*first, *(simplify_dim(d) for d in p.dims[1:]))
            else:
                shape = tuple(simplify_dim(d) for d in p.dims) if p.kind == "array" \
                    else pointer_extent(p.name, acc, annotated_shapes, ints, strides, floors)
            intent = annotated_intents.get(p.name, intents.get(p.name, "in"))
            arrays[p.name] = Array(p.name, p.dtype, shape, intent, declared_const(p.node), p.rows)
        elif p.kind == "scalar" or p.name not in sizes:
            scalars.append(Scalar(p.name, p.dtype, "in"))
    ret = fn.decl.type.type
    if not (isinstance(ret, c_ast.TypeDecl) and ret.type.names == ["void"]):
        if not isinstance(ret, c_ast.TypeDecl):
            fail(fn.decl, "the kernel returns a pointer", "return results through array parameters")
        scalars.append(Scalar("return", base_type(ret.type, typedefs, fn.decl), "out"))
    derived = [f"{ld} >= {b.to_c()}" for ld, bounds in strides.items() for b in bounds] + \
        [never_negative(e) for e in floors] + [cprint(c) for c in asserted if _on_sizes(c, set(sizes))]
    return Normalized(list(params), sizes, scalars, list(arrays.values()), reference_function(fn, arrays, typedefs),
                      strides, list(dict.fromkeys(derived)), fn)


def _on_sizes(cond, sizes: set[str]) -> bool:
    """Whether an asserted condition compares the sizes alone, with what a constraint may hold."""
    return all(isinstance(n, (c_ast.ID, c_ast.Constant)) or isinstance(n, c_ast.BinaryOp) and n.op in (
        "+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||") for n in walk(cond)) \
        and {n.name for n in walk(cond) if isinstance(n, c_ast.ID)} <= sizes and any(
            isinstance(n, c_ast.ID) for n in walk(cond))


def never_negative(extent: Poly) -> str:
    """The constraint that an extent is no negative count, as a bound on one size where it reads
    as one: `n - k + 1` gives `n >= k - 1` (the verifier raises n to meet it; at n = k - 1 the
    array is empty and the loop runs no step)."""
    for (v,), c in ((m, c) for m, c in extent.terms.items() if len(m) == 1):
        rest = extent - Poly.var(v)
        if c == 1 and v not in rest.vars() and not quotient(v):
            return f"{v} >= {(-rest).to_c()}"
    return f"{extent.to_c()} >= 0"
