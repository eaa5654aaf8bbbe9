"""Formal statements of a spec -> one C99 function: the IS reference, deterministically.

    Compiler(spec).function(statements) -> C text with `t2c:` annotations

Takes a checked `Spec` and its parsed statements; gives the kernel function (VLA array
parameters, runtime sizes) with the annotations the C frontend reads (sizes, shapes, intents,
constraints, domains, description). Statements run in order, each over its whole index domain;
reductions are accumulators from their identity, float sums in double; literals and math follow
the kernel's real type. Refuses, as a UserError at spec.md:LINE:COL, what has no single meaning:
undeclared names, unbound indices, mismatched ranks, uninferable reduction ranges, writes to
`in` arrays, unwritten outputs, reads of an array it writes at another element, ranges bounded
by data (naming the masked range and `--generator llm`, which work).
docs/specs.md, "Semantics", "Errors".
"""
from __future__ import annotations

from ...errors import UserError
from ...ir import FLOAT_DTYPES, HALF_DTYPES
from .language import (REDUCERS, SORTS, Assign, BinOp, Binder, Call, Compact, For, Name, Num, Reduce, Ref, UnOp,
                       While, walk)
from .spec import C_RESERVED, DTYPE_NAMES, ArrayDecl, Spec

#: Math functions of C99 <math.h> that CUDA also has, name -> arity; a float kernel calls
#: the float form (`expf`).
MATH = {
    "exp": 1, "log": 1, "sqrt": 1, "tanh": 1, "erf": 1, "sin": 1, "cos": 1, "floor": 1,
    "ceil": 1, "pow": 2, "log1p": 1, "expm1": 1, "erfc": 1, "tan": 1, "asin": 1, "acos": 1,
    "atan": 1, "sinh": 1, "cosh": 1, "cbrt": 1, "log2": 1, "exp2": 1, "log10": 1, "round": 1,
    "trunc": 1, "copysign": 2, "fmod": 2, "hypot": 2, "atan2": 2,
}
#: Cast name -> the C type it converts to, with C's semantics (an integer narrows modulo
#: 2^width; a float converts toward zero, undefined outside the target's range).
CASTS = {"float": "float", "double": "double", "int": "int", "long": "long",
         "float32": "float", "float64": "double", "int8": "char", "uint8": "unsigned char",
         "int32": "int", "uint32": "unsigned", "int64": "long",
         "float16": "__half", "bfloat16": "__nv_bfloat16"}
#: Conditions on a real value: they give an int, 1 or 0.
CLASSIFIERS = ("isnan", "isinf", "isfinite")
#: Named constants of the real type: name -> C text.
CONSTANTS = {"INFINITY": "INFINITY", "NAN": "NAN"}
#: The compaction statement's simplest form, which its errors show.
COMPACT_FORM = "`y[k], n = compact(i: x[i] where x[i] > 0)`"
#: name -> arity, every function a statement may call.
FUNCTIONS = {**MATH, "abs": 1, "min": 2, "max": 2, "where": 3,
             **{c: 1 for c in CASTS}, **{c: 1 for c in CLASSIFIERS}}
BIT_OPS = ("<<", ">>", "&", "|", "^")
#: promotion order of the C usual arithmetic conversions, for the types a spec has
RANK = {"char": 0, "unsigned char": 0, "int": 1, "unsigned": 2, "long": 3, "float": 4, "double": 5}
INT_LIMITS = {"int": ("(-2147483647 - 1)", "2147483647"), "unsigned": ("0U", "4294967295U"),
              "long": ("(-9223372036854775807L - 1)", "9223372036854775807L")}


def promote(*types) -> str:
    best = max(types, key=lambda t: RANK[t])
    return "int" if RANK[best] < RANK["int"] else best


class Compiler:
    def __init__(self, spec: Spec):
        self.spec = spec
        self.real = "double" if any(t == "double" for t in spec.scalars.values()) or \
            any(a.dtype == "double" for a in spec.arrays.values()) else "float"
        self.lines: list[str] = []
        self.depth = 1
        self.count = 0
        self.scope: dict[str, str] = {}           # index name -> "for" | "index" | "binder"
        self.ranges: dict[int, tuple[str, str]] = {}   # id(Binder) -> (lo C, hi C)
        self.hoisted: dict[int, str] = {}          # id(Reduce) -> accumulator
        self.types: dict[int, str] = {}            # id(expr node) -> C type
        self.written: set[str] = set()
        self.bound_sizes: set[str] = set()         # sizes used by a loop bound or an extent
        self.loop_vars: dict[str, None] = {}      # every loop variable, in first-use order
        self.locals: list[str] = []                # accumulator and temporary declarations (function top)
        self.temps: dict[str, ArrayDecl] = {}      # temporaries in scope (`let`), intent "temp"
        self.declared: set[str] = set()            # every temporary's name: one C local each
        self.in_while = False                      # compiling a while body: its `let`s are block locals
        self.target = "int"                        # element type of the statement's target
        self.line = 0                              # spec line of the statement being emitted
        self.sources: list[tuple[str, int]] = []   # (C statement emitted, its spec statement's line)
        self.at = 0                                # spec line of the statement being compiled
        self.spec_lines: list[int] = []            # spec line of each of self.lines (0: none)
        self.rename: dict[str, str] = {}           # index name -> C name while a sort key prints

    # -- errors -------------------------------------------------------------------------
    def fail(self, node, message, hint=None):
        line, col = (node.line, node.col) if node is not None else (self.spec.name_line, 1)
        raise UserError(message, file=self.spec.path, line=line, col=col, hint=hint)

    # -- entry --------------------------------------------------------------------------
    def function(self, statements) -> str:
        for s in statements:
            self.statement(s)
        for a in self.spec.arrays.values():
            if a.intent != "in" and a.name not in self.written:
                raise UserError(f"array '{a.name}' is declared {a.intent} but no statement writes it",
                                file=self.spec.path, line=a.line, col=1,
                                hint="declare it `in`, or write it in the ```t2c block")
        for a in self.spec.arrays.values():
            for e in a.shape:
                self.bound_sizes |= {w for w in _words(e)}
        for s in self.spec.sizes:
            if s not in self.bound_sizes:
                raise UserError(f"size '{s}' gives no array extent and bounds no loop",
                                file=self.spec.path, line=self.spec.lines.get(s, 1), col=1,
                                hint="remove it, or use it in a shape or a range")
        params = [f"int {s}" for s in self.spec.sizes]
        params += [f"{t} {n}" for n, t in self.spec.scalars.items()]
        for a in self.spec.arrays.values():
            params.append(f"{a.dtype} {a.name}" + "".join(f"[{e}]" for e in a.shape)
                          if a.shape else f"{a.dtype} *{a.name}")
        # Locals are declared at the top: the polyhedral model refuses declarations in loops.
        decls = [f"  int {v};" for v in self.loop_vars] + [f"  {d}" for d in self.locals]
        self.spec_lines = [0] * (2 + len(decls)) + self.spec_lines + [0]   # the function's text, line by line
        return (f"void {self.spec.name}({', '.join(params)})\n{{\n"
                + "\n".join(decls + self.lines) + "\n}\n")

    def emit(self, text):
        self.lines.append("  " * self.depth + text)
        self.spec_lines.append(self.line or self.at)
        if self.line and text.endswith(";"):
            self.sources.append((text, self.line))

    def open_loop(self, var, lo, hi):
        self.loop_vars.setdefault(var)
        self.emit(f"for ({var} = {lo}; {var} < {hi}; {var}++) {{")

    # -- statements -----------------------------------------------------------------------
    def statement(self, s):
        self.at = getattr(s, "line", 0) or self.at
        if isinstance(s, For):
            self.for_loop(s)
        elif isinstance(s, While):
            self.while_loop(s)
        elif isinstance(s, Compact):
            self.compact(s)
        else:
            self.assign(s)

    def array(self, name) -> ArrayDecl | None:
        """The declared array or the temporary in scope called `name`."""
        return self.spec.arrays.get(name) or self.temps.get(name)

    def block(self, body):
        """The statements of a loop body; its temporaries are visible to the end of the body."""
        outer = dict(self.temps)
        self.depth += 1
        for inner in body:
            self.statement(inner)
        self.depth -= 1
        self.temps = outer

    def fresh(self, node, name, what):
        if name in self.scope:
            self.fail(node, f"{what} '{name}' is already bound here",
                      "use another name for the inner index")
        if name in self.declared:
            self.fail(node, f"{what} '{name}' has the name of a temporary (`let {name}`)",
                      "choose another name for one of them")
        if name in self.spec.sizes or name in self.spec.scalars or name in self.spec.arrays \
                or name in FUNCTIONS or name in CONSTANTS or name == self.spec.name \
                or name.startswith(("t2c_", "acc_", "net_", "cmp_")):
            self.fail(node, f"{what} '{name}' has the name of a declared parameter or function",
                      "choose an index name that is not declared in the front matter")

    def for_loop(self, s: For):
        self.fresh(s, s.var, "the loop variable")
        lo, hi = self.range_bounds(s.var, s.lo, s.hi, "for")
        if s.step is None:
            self.open_loop(s.var, lo, hi)
        else:
            # A geometric loop ends only when its variable stays away from 0: doubling starts
            # at a positive literal, halving stops at a literal >= 0.
            bound, hint = (s.lo, f"for {s.var} in 1..n doubling") if s.step == "doubling" else \
                (s.hi, f"for {s.var} in n/2..0 halving")
            value = _literal(bound)
            if value is None or value < (1 if s.step == "doubling" else 0):
                self.fail(bound, f"a {s.step} loop needs a {'start >= 1' if s.step == 'doubling' else 'stop >= 0'} "
                          "written as an integer literal, or it may never end", f"write `{hint}:`")
            self.loop_vars.setdefault(s.var)
            cond, step = (f"{s.var} < {hi}", f"{s.var} *= 2") if s.step == "doubling" else \
                (f"{s.var} > {hi}", f"{s.var} /= 2")
            self.emit(f"for ({s.var} = {lo}; {cond}; {step}) {{")
        self.scope[s.var] = "for"
        self.block(s.body)
        del self.scope[s.var]
        self.emit("}")

    def while_loop(self, s: While):
        """`while COND: body` per instance of the loops around it.  Bounded: COND is a
        conjunction with a term `it < E` (or `<=`), `it` an integer scalar temporary that the body
        adds 1 to and E over sizes, scalars and enclosing indices, so the reference always
        ends.  The body assigns scalar temporaries only (no arrays, loops or reductions): the
        whole loop is then one step of its element, which a candidate runs in one thread."""
        if self.check(s.cond) in FLOAT_DTYPES:
            self.fail(s.cond, "the condition of a while loop is not a truth value",
                      "compare: `while x * x < 4.0 && it < maxit:`")
        for st in s.body:
            target = self.temps.get(st.array) if isinstance(st, Assign) else None
            if not isinstance(st, Assign) or st.subs or (target is None and not st.let) \
                    or (target is not None and target.rank):
                self.fail(st, "the body of a while loop assigns scalar temporaries only",
                          "declare them before the loop (`let z = 0.0`) and write whole-array "
                          "statements after it")
            for n in walk(st.value):
                if isinstance(n, Reduce):
                    self.fail(n, "a reduction inside a while loop",
                              "compute it before the loop with `let`")
        # a counter: stepped by 1 and assigned nothing else in the body
        counters = {st.array for st in s.body if _adds_one(st)} - \
            {st.array for st in s.body if not _adds_one(st)}
        fixed = set(self.spec.sizes) | set(self.spec.scalars) | set(self.scope)
        bounded = [c for c in _conjuncts(s.cond) if isinstance(c, BinOp) and c.op in ("<", "<=")
                   and isinstance(c.left, Name) and c.left.id in counters
                   and self.temps.get(c.left.id, ArrayDecl("", "double", (), "", 0)).dtype
                   not in FLOAT_DTYPES
                   and all(n.id in fixed for n in walk(c.right) if isinstance(n, Name))
                   and not any(isinstance(n, (Ref, Reduce)) for n in walk(c.right))]
        if not bounded:
            self.fail(s, "this while loop has no bound: its condition needs a term `it < E` "
                      "(joined with &&) for an integer temporary `it` that the body increments",
                      "write e.g. `let it = 0` before and `while ... && it < maxit:` with "
                      "`it += 1` in the body; E uses sizes, scalars and enclosing indices")
        self.bound_sizes |= {n.id for c in bounded for n in walk(c.right) if isinstance(n, Name)}
        self.emit(f"while ({self.expr(s.cond)}) {{")
        self.in_while = True
        self.block(s.body)
        self.in_while = False
        self.emit("}")

    def assign(self, s: Assign):
        spec = self.spec
        arr = self.declare(s) if s.let else self.array(s.array)
        if arr is None:
            what = "a scalar (scalars are inputs)" if s.array in spec.scalars else \
                "a size" if s.array in spec.sizes else "not a declared array"
            self.fail(s, f"assigns to '{s.array}', which is {what}",
                      "declare outputs under `arrays:` with intent out or inout "
                      "(a single value is an array of shape [])")
        if arr.intent == "in":
            self.fail(s, f"writes '{s.array}', which is declared in",
                      "declare it out (or inout when its initial contents are read)")
        if len(s.subs) != arr.rank:
            self.fail(s, f"'{s.array}' has rank {arr.rank} but is written with {len(s.subs)} "
                      f"subscript{'s' if len(s.subs) != 1 else ''}",
                      f"write {s.array}[{', '.join('i' + str(d) for d in range(arr.rank))}]"
                      if arr.rank else f"write it without subscripts: {s.array} = ...")

        free, loops, target = [], [], []
        for d, ix in enumerate(s.subs):
            e = ix.expr
            new_index = ix.lo is not None or (
                isinstance(e, Name) and e.id not in self.scope and e.id not in spec.sizes
                and e.id not in spec.scalars and self.array(e.id) is None)
            if new_index:
                self.fresh(ix, e.id, "the index")
                if e.id in free:
                    self.fail(ix, f"index '{e.id}' appears twice on the left side",
                              "a diagonal is written with a loop: `for i in 0..n: D[i, i] = ...`")
                if ix.lo is not None:
                    lo, hi = self.range_bounds(e.id, ix.lo, ix.hi)
                else:
                    lo, hi = "0", _paren(arr.shape[d])
                self.scope[e.id] = "index"
                free.append(e.id)
                loops.append((e.id, lo, hi))
                target.append(e.id)
            elif s.op in ("+=", "-=") and _reads_data(e, spec):
                self._bound_target_names(s, arr, d, e)   # a scatter: additions commute, any order is the sum
                target.append(self.int_expr(e, data=True))
            else:
                self._no_array_in(e, "a subscript of the written array",
                                  "t2c writes through subscripts made of indices and sizes only, "
                                  "or adds through data (`h[x[i]] += 1` inside `for i in 0..n:`)")
                self._bound_target_names(s, arr, d, e)
                target.append(self.int_expr(e))
        if isinstance(s.value, Reduce) and s.value.op in SORTS:
            try:
                return self.sort(s, arr, free, loops)
            finally:
                for v in free:
                    self.scope.pop(v, None)
        try:
            if s.let:
                if arr.dtype is None:            # the type of its expression
                    self.target = "int"
                    arr = ArrayDecl(arr.name, self.check(s.value), arr.shape, arr.intent, arr.line)
                self.temps[s.array] = arr
                self.declared.add(s.array)
                if not self.in_while:
                    self.locals.append(f"{arr.dtype} {s.array}{''.join(f'[{e}]' for e in arr.shape)};")
            self.target, self.line = arr.dtype, s.line
            self.check(s.value)
            self.check_in_place(s, arr, free)
            self.check_reads(s, arr)
            self.written.add(s.array)
            # reductions go to the outermost loop level where their indices are bound
            levels = {}
            for r in _top_reductions(s.value):
                used = {n.id for n in walk(r) if isinstance(n, Name) and n.id in free}
                levels.setdefault(max((free.index(u) + 1 for u in used), default=0), []).append(r)
            opened = 0
            for level in range(len(loops) + 1):
                for r in levels.get(level, []):
                    self.hoisted[id(r)] = self.reduction(r)
                if level < len(loops):
                    v, lo, hi = loops[level]
                    self.open_loop(v, lo, hi)
                    self.depth += 1
                    opened += 1
            lhs = s.array + ("".join(f"[{t}]" for t in target) if target else
                             "" if arr.intent == "temp" else "[0]")
            if s.let and self.in_while:
                # declared in the loop body: each step's value, which no other step reads
                # (a function-level local would carry it from one element's loop to the next)
                lhs = f"{arr.dtype} {lhs}"
            self.emit(self.store(s, arr, lhs) if arr.dtype in HALF_DTYPES else
                      f"{lhs} {s.op} {self.expr(s.value)};")
            for _ in range(opened):
                self.depth -= 1
                self.emit("}")
        finally:
            self.line = 0
            for v in free:
                self.scope.pop(v, None)

    # -- 16-bit floating storage (docs/specs.md, "float16 and bfloat16") ---------------------
    def stored_type(self, name) -> str | None:
        """The 16-bit storage type of a scalar, array or temporary called `name`, or None."""
        a = self.array(name)
        t = a.dtype if a is not None else self.spec.scalars.get(name)
        return t if t in HALF_DTYPES else None

    def load(self, name, text) -> str:
        """C text of a read of `name` (C text `text`): a 16-bit value converts to float."""
        t = self.stored_type(name) if name not in self.scope else None
        return f"{HALF_DTYPES[t][0]}({text})" if t else text

    def rounded(self, dtype, text) -> str:
        """C text of the value `text` as stored into a `dtype` cell (rounded when 16-bit)."""
        return f"{HALF_DTYPES[dtype][1]}({text})" if dtype in HALF_DTYPES else text

    def store(self, s: Assign, arr, lhs) -> str:
        """A store to a 16-bit cell: the float value rounds to nearest even, once, here.  An
        update `x[i] += v` is x[i] = round(x[i] + v); through data (a scatter) it has no such
        single rounding, as the additions' order would decide the result."""
        if s.op != "=" and any(_reads_data(ix.expr, self.spec) for ix in s.subs):
            self.fail(s, f"'{s.array}' is {'float16' if arr.dtype == '__half' else 'bfloat16'}: adding "
                      "through data into it would round in the order of the additions",
                      "accumulate into a float array and convert it in a statement after the loop")
        value = self.expr(s.value)
        if s.op != "=":
            value = f"{HALF_DTYPES[arr.dtype][0]}({lhs}) {s.op[0]} ({value})"
        return f"{lhs} = {self.rounded(arr.dtype, value)};"

    def sort(self, s: Assign, arr, free, loops):
        """`Y[r.., q] = sort(i: KEY)` (also sort_desc, argsort, argsort_desc): along the target's last
        dimension, the keys in order (or their indices, ties by the smaller index: a stable sort).
        Emitted as a bitonic network for any length: each merge's first step compares q with its
        mirror q ^ (k - 1), the later ones q with q ^ s, always moving the smaller key to the smaller
        position, so the positions past the length act as +infinity and their comparisons are
        skipped.  Poly runs such host loops around launches (network.py)."""
        r, shape = s.value, "`Y[r, q] = sort(i: X[r, i])`"
        if s.op != "=" or len(r.binders) != 1 or not free or len(free) != arr.rank:
            self.fail(r, f"{r.op}(...) is the whole right side of a statement whose target's subscripts are all "
                      f"new indices, {shape}", f"write {shape}; the sorted positions are the last index")
        b = r.binders[0]
        self.fresh(b, b.name, "the sorted index")
        lo, hi = self.range_bounds(b.name, b.lo, b.hi) if b.lo is not None else ("0", self.infer_range(b, r.body))
        q, qlo, n = loops[-1]
        if (lo, hi) != (qlo, n) or qlo != "0":
            self.fail(b, f"'{b.name}' ranges over 0..{n}, the target's last extent, the positions it sorts into",
                      f"write {b.name} in 0..{n}, or declare the target's last extent as the range of '{b.name}'")
        if any(isinstance(x, Reduce) for x in walk(r.body)):
            self.fail(r.body, "a sort key takes no reduction", "compute it into an array first, then sort that")
        self.scope[b.name] = "binder"
        try:
            self.target, self.line = arr.dtype, s.line
            key_type = self.check(r.body)
        finally:
            self.scope.pop(b.name, None)
        arg, desc = r.op.startswith("argsort"), r.op.endswith("_desc")
        if s.let:                                  # a temporary: indices are int, values the keys' type
            if arr.dtype is None:
                arr = ArrayDecl(arr.name, "int" if arg else key_type, arr.shape, arr.intent, arr.line)
            self.temps[s.array] = arr
            self.declared.add(s.array)
            self.locals.append(f"{arr.dtype} {s.array}{''.join(f'[{e}]' for e in arr.shape)};")
        if arg and arr.dtype not in ("int", "long"):
            self.fail(s, f"{r.op} gives indices, but '{s.array}' is {arr.dtype}", f"declare '{s.array}' int")
        if arr.dtype in HALF_DTYPES:
            self.fail(s, f"{r.op} writes its keys into a 16-bit array '{s.array}'",
                      f"sort into a float array, and convert it in a statement after the sort")
        self.check_reads(s, arr)
        self.written.add(s.array)
        try:
            self._sort_code(s.array, loops, b.name, r.body, key_type if arg else arr.dtype, arg, desc)
        finally:
            self.line = 0

    def _sort_code(self, y, loops, binder, key, kt, arg, desc):
        cell = lambda pos: y + "".join(f"[{v}]" for v, _, _ in loops[:-1]) + f"[{pos}]"
        q, _, n = loops[-1]
        less = ">" if desc else "<"

        def key_at(var):
            self.rename = {binder: var}
            try:
                return self.expr(key)
            finally:
                self.rename = {}

        def nest(body):
            for v, lo, hi in loops:
                self.open_loop(v, lo, hi)
                self.depth += 1
            body()
            for _ in loops:
                self.depth -= 1
                self.emit("}")

        def exchange(partner):
            def body():
                self.emit(f"int net_j = {partner};")
                self.emit(f"if (net_j > {q} && net_j < {n}) {{")
                self.depth += 1
                if arg:
                    self.emit(f"int net_a = {cell(q)};")
                    self.emit(f"int net_b = {cell('net_j')};")
                    self.emit(f"{kt} net_x = {key_at('net_a')};")
                    self.emit(f"{kt} net_y = {key_at('net_b')};")
                    self.emit(f"if (net_y {less} net_x || (net_y == net_x && net_b < net_a)) {{")
                    self.emit(f"  {cell(q)} = net_b;")
                    self.emit(f"  {cell('net_j')} = net_a;")
                else:
                    self.emit(f"if ({cell('net_j')} {less} {cell(q)}) {{")
                    self.emit(f"  {kt} net_t = {cell(q)};")
                    self.emit(f"  {cell(q)} = {cell('net_j')};")
                    self.emit(f"  {cell('net_j')} = net_t;")
                self.emit("}")
                self.depth -= 1
                self.emit("}")
            nest(body)

        nest(lambda: self.emit(f"{cell(q)} = {q if arg else key_at(q)};"))
        self.count += 1
        k, st = f"net_k{self.count}", f"net_s{self.count}"
        self.locals += [f"int {k};", f"int {st};"]
        self.emit(f"for ({k} = 2; {k} / 2 < {n}; {k} *= 2) {{")
        self.depth += 1
        exchange(f"{q} ^ ({k} - 1)")
        self.emit(f"for ({st} = {k} / 4; {st} > 0; {st} /= 2) {{")
        self.depth += 1
        exchange(f"{q} ^ {st}")
        self.depth -= 1
        self.emit("}")
        self.depth -= 1
        self.emit("}")

    def compact(self, s: Compact):
        """`y[k], ..., n = compact(i: E, ... where P)`: for i over its range in increasing order, where
        P holds, the values E at the next position k of the array targets; n the number kept.  The
        array targets are inout and their cells from n on keep their values (no order-free value
        fills them: the reference and any candidate agree on them).  Emitted as the loop
        `if (P) { y[c] = E; ...; c++; }` with a fresh counter c and index, which poly's
        compact.py runs as a parallel scan when it stands at the function's top level."""
        form = COMPACT_FORM
        arrays, count, position = self.compact_targets(s)
        self.fresh(position, position.id, "the position index")
        b = s.binder
        self.fresh(b, b.name, "the compacted index")
        if b.name == position.id:
            self.fail(b, f"'{b.name}' names both the positions of the targets and the compacted index",
                      f"name the positions with another index: {form}")
        every = Call(s.line, s.col, "compact", s.values + (s.cond,))
        lo, hi = self.range_bounds(b.name, b.lo, b.hi) if b.lo is not None else ("0", self.infer_range(b, every))
        extents = {_bare(self.spec.arrays[t.array].shape[0]) for t in arrays}
        start = 0 if b.lo is None else _literal(b.lo)
        if len(extents) > 1 or _bare(hi) not in extents or start is None or start < 0:
            self.fail(b, f"'{b.name}' ranges over {lo}..{hi}: compact keeps up to one element per value of "
                      f"'{b.name}', so its range ends at the targets' extent ({', '.join(sorted(extents))}), "
                      "the same for every array target, and starts at an integer >= 0",
                      f"write compact({b.name} in 0..N: ...) with N the targets' extent")
        written = {t.array for t in s.targets}
        for n in walk(every):
            if isinstance(n, Reduce):
                self.fail(n, "compact's values and condition take no reduction",
                          "compute it first (`let m = max(j: x[j])`) and read that")
            if isinstance(n, (Ref, Name)) and (n.array if isinstance(n, Ref) else n.id) in written:
                self.fail(n, "compact's values and condition read one of its own targets, which it is writing",
                          "read its inputs only; copy a target into another array first if needed")
        self.scope[b.name] = "binder"
        try:
            self.line = s.line
            if self.check(s.cond) in FLOAT_DTYPES:
                self.fail(s.cond, "the condition of compact is not a truth value", f"compare: {form}")
            for t, v in zip(arrays, s.values):
                self.target = self.spec.arrays[t.array].dtype
                self.check(v)
                self.check_reads(Assign(t.line, t.col, t.array, t.subs, "=", v), self.spec.arrays[t.array])
            self.count += 1
            kept, var = f"cmp_kept{self.count}", f"cmp_i{self.count}"
            self.rename = {b.name: var}
            self.locals.append(f"int {kept};")
            self.emit(f"{kept} = 0;")
            self.open_loop(var, lo, hi)
            self.emit(f"  if ({self.expr(s.cond)}) {{")
            for t, v in zip(arrays, s.values):
                self.emit(f"    {t.array}[{kept}] = {self.rounded(self.spec.arrays[t.array].dtype, self.expr(v))};")
            self.emit(f"    {kept}++;")
            self.emit("  }")
            self.emit("}")
            self.emit(f"{count.array}[0] = {kept};")
        finally:
            self.scope.pop(b.name, None)
            self.rename, self.line = {}, 0
        self.written |= written

    def compact_targets(self, s: Compact):
        """(the array targets, the count, the position index) of a compact statement, checked."""
        form = COMPACT_FORM
        *arrays, count = s.targets
        if not arrays:
            self.fail(s, "compact gives the kept values and their count: it needs an array target and the count",
                      f"write {form}, `n` a declared int[] (a single value) out")
        if len(s.values) != len(arrays):
            self.fail(s.values[0], f"compact has {len(arrays)} array target{'s' if len(arrays) > 1 else ''} "
                      f"but {len(s.values)} value{'s' if len(s.values) > 1 else ''}",
                      "give one value per array target, in the targets' order: "
                      "`v[k], at[k], n = compact(i: x[i], i where x[i] > t)`")
        c = self.spec.arrays.get(count.array)
        if c is None or c.rank or count.subs or c.intent == "in" or c.dtype in FLOAT_DTYPES:
            self.fail(count, f"the last target of compact, '{count.array}', is the count of kept elements: "
                      "a declared integer array of shape [] (a single value), out or inout, written without subscripts",
                      f"declare `{count.array}: int[] out` and write {form}")
        position = arrays[0].subs[0].expr if arrays[0].subs else None
        for t in arrays:
            a = self.spec.arrays.get(t.array)
            ix = t.subs[0] if len(t.subs) == 1 else None
            if a is None or a.rank != 1 or ix is None or ix.lo is not None or not isinstance(ix.expr, Name) \
                    or ix.expr.id != position.id:
                self.fail(t, f"'{t.array}' is no array target of compact: each array target is a declared "
                          "1-d array written at a new position index, the same for all",
                          f"write {form}; compact keeps elements along one dimension (no per-row form)")
            if a.intent != "inout":
                self.fail(t, f"'{t.array}' is declared {a.intent}, but compact writes only its first "
                          f"{count.array} cells (the cells from the count on keep their values)",
                          f"declare it `{t.array}: {a.dtype}[{a.shape[0]}] inout`")
        if len({t.array for t in s.targets}) < len(s.targets):
            self.fail(s, "a target appears twice in compact", "give each array and the count once")
        return arrays, count, position

    def declare(self, s: Assign) -> ArrayDecl:
        """The temporary a `let` declares: its shape from its indices' ranges (given `i in 0..E`
        over sizes, or the extent of an array the value indexes with `i`); its element type as
        written, or None (the value's type, found once its indices are bound)."""
        spec, name = self.spec, s.array
        if name in spec.sizes or name in spec.scalars or name in spec.arrays or name in FUNCTIONS \
                or name in C_RESERVED or name == spec.name or name.startswith(("t2c_", "acc_", "net_", "cmp_")):
            self.fail(s, f"the temporary '{name}' has the name of a declared parameter, a function "
                      "or a reserved word", "choose another name")
        if name in self.declared or name in self.loop_vars or name in self.scope:
            self.fail(s, f"'{name}' is already {'a temporary' if name in self.declared else 'an index'}",
                      "each `let` declares a new name; assign it again without `let`")
        shape = []
        for ix in s.subs:
            if not isinstance(ix.expr, Name) or ix.expr.id in self.scope or ix.expr.id in spec.sizes \
                    or ix.expr.id in spec.scalars or self.array(ix.expr.id) is not None:
                self.fail(ix, "a temporary's subscripts are its own new indices",
                          f"write `let {name}[i, ...] = ...` (or `i in 0..n` for a stated extent)")
            if ix.lo is None:
                shape.append(self.infer_range(Binder(ix.line, ix.col, ix.expr.id), s.value))
                continue
            if _literal(ix.lo) != 0 or any(isinstance(n, Name) and n.id not in spec.sizes
                                           for n in walk(ix.hi)):
                self.fail(ix, "the range of a temporary's index is its extent: 0..E with E over sizes",
                          f"write `{ix.expr.id} in 0..n`; assign a part of it later without `let`")
            shape.append(_paren(self.int_expr(ix.hi)))
        dtype = None
        if s.dtype is not None:
            dtype = DTYPE_NAMES.get(s.dtype)
            if dtype is None:
                self.fail(s, f"unknown element type '{s.dtype}'", f"known: {', '.join(DTYPE_NAMES)}")
        return ArrayDecl(name, dtype, tuple(shape), "temp", s.line)

    # -- checks -------------------------------------------------------------------------
    def _no_array_in(self, e, where, hint):
        for n in walk(e):
            if isinstance(n, (Ref, Reduce)) or (isinstance(n, Name) and self.array(n.id) is not None):
                self.fail(n, f"data-dependent subscript: {where} reads an array", hint)

    def _bound_target_names(self, s: Assign, arr, d: int, e):
        """A computed subscript of the target (`b[j*n + i]`) may use only names already bound:
        the statement's own indices are plain names, one per dimension."""
        spec = self.spec
        unbound = [n for n in walk(e) if isinstance(n, Name) and n.id not in self.scope
                   and n.id not in spec.sizes and n.id not in spec.scalars]
        if not unbound:
            return
        names = ", ".join(dict.fromkeys(f"'{n.id}'" for n in unbound))
        plain = ", ".join(dict.fromkeys(n.id for n in unbound))
        self.fail(unbound[0], f"subscript {d} of the target '{s.array}' computes with {names}, bound nowhere: "
                  f"a target's subscripts must be the statement's own indices (plain new names, one per "
                  f"dimension) or expressions over names already bound (sizes, enclosing `for` variables)",
                  f"give each index its own dimension (declare '{s.array}' with one extent per index and write "
                  f"{s.array}[{plain}] = ...), or bind it with a loop first: "
                  f"`for {unbound[0].id} in 0..N: {s.array}[...] = ...`")

    def range_bounds(self, var: str, lo, hi, form: str = "", reduction: Reduce | None = None) -> tuple[str, str]:
        """C text of the bounds of `var in lo..hi`. A bound that reads an array (a CSR row's
        `ptr[i]..ptr[i+1]`) is refused, saying what works: the whole range under a mask (for a
        reduction, `form` its operator, or a `for`), or the prose with `--generator llm`."""
        for bound in (lo, hi):
            data = next((n for n in walk(bound) if isinstance(n, (Ref, Reduce)) or
                         (isinstance(n, Name) and self.array(n.id) is not None)), None)
            if data is None:
                continue
            name = data.array if isinstance(data, Ref) else getattr(data, "id", None) or data.op
            whole = "N"
            if reduction is not None:
                try:                       # the extent the body indexes with var, when it says one
                    whole = _bare(self.infer_range(Binder(reduction.line, reduction.col, var), reduction.body))
                except UserError:
                    pass
            mask = f"where({var} >= {_spelled(lo)} && {var} < {_spelled(hi)}, "
            if form in REDUCERS:
                identity = {"sum": "0", "prod": "1", "max": "-INFINITY", "min": "INFINITY"}[form]
                instead = (f"the {form} over the whole range under a mask, "
                           f"`{form}({var} in 0..{whole}: {mask}{_spelled(reduction.body)}, {identity}))` "
                           f"(every element is visited, the others add nothing), ")
            elif form == "for":
                instead = (f"the loop over the whole range with each step masked, `for {var} in 0..N:` (N the "
                           f"extent that {var} indexes) and `{mask}..., 0)` in what it adds, ")
            else:
                instead = ""
            self.fail(data, f"data-dependent range: '{var}' runs over {_spelled(lo)}..{_spelled(hi)}, and "
                      f"'{name}' is an array: a range bounded by data (a CSR row's `ptr[i]..ptr[i+1]`) is not "
                      f"expressible; range bounds use sizes, enclosing indices and integers",
                      f"write {instead}or keep the task in prose and generate with `--generator llm` "
                      f"(docs/specs.md, \"Ranges bounded by data\")")
        return self.int_expr(lo), self.int_expr(hi)

    def int_expr(self, e, data=False) -> str:
        """C text of an index expression (bounds, fixed subscripts; with data, a scatter's cell,
        which may read arrays): integers only."""
        if not data:
            self._no_array_in(e, "a range or fixed subscript", "ranges use sizes, loop indices and integers")
        t = self.check(e)
        if t in FLOAT_DTYPES:
            self.fail(e, "this index expression is not an integer",
                      "ranges and subscripts use sizes, indices and integer literals")
        for n in walk(e):
            if isinstance(n, Name) and n.id in self.spec.sizes:
                self.bound_sizes.add(n.id)
        return self.expr(e)

    def check(self, e) -> str:
        """Resolves every name of e, checks ranks and arities; gives its C type."""
        spec = self.spec
        if isinstance(e, Num):
            t = self.real if e.is_real else _literal_type(self, e)
        elif isinstance(e, Name):
            if e.id in self.scope or e.id in spec.sizes:
                t = "int"
            elif e.id in CONSTANTS:
                t = self.real
            elif e.id in spec.scalars:
                t = spec.scalars[e.id]
            elif self.array(e.id) is not None:
                a = self.array(e.id)
                if a.rank:
                    self.fail(e, f"'{e.id}' is an array of rank {a.rank}; index it",
                              f"write {e.id}[{', '.join('ijkl'[d % 4] for d in range(a.rank))}]")
                t = a.dtype
            else:
                self.fail(e, f"'{e.id}' is bound nowhere: not a declared size, scalar or array, "
                          "nor an index in scope",
                          f"declare it in the front matter, bind it on the left side "
                          f"(y[{e.id}] = ...) or in a reduction (sum({e.id}: ...))")
        elif isinstance(e, Ref):
            a = self.array(e.array)
            if a is None:
                self.fail(e, f"'{e.array}' is not a declared array",
                          "declare it under `arrays:` in the front matter")
            if len(e.subs) != a.rank:
                self.fail(e, f"'{e.array}' has rank {a.rank} but is read with {len(e.subs)} "
                          f"subscript{'s' if len(e.subs) != 1 else ''}",
                          f"its shape is [{', '.join(a.shape)}]; give one subscript per dimension")
            for sub in e.subs:
                if self.check(sub) in FLOAT_DTYPES:
                    self.fail(sub, f"a subscript of '{e.array}' is not an integer",
                              "convert explicitly with int(...)")
            t = a.dtype
        elif isinstance(e, Call):
            if e.func not in FUNCTIONS:
                self.fail(e, f"unknown function '{e.func}'",
                          f"known: {', '.join(sorted(FUNCTIONS))}; reductions: sum, prod, max, min")
            if len(e.args) != FUNCTIONS[e.func]:
                self.fail(e, f"{e.func}() takes {FUNCTIONS[e.func]} argument"
                          f"{'s' if FUNCTIONS[e.func] != 1 else ''}, not {len(e.args)}",
                          "a reduction binds an index: max(k: x[k])" if e.func in ("min", "max")
                          else "see docs/specs.md for the functions and their arguments")
            ts = [self.check(a) for a in e.args]
            if e.func in CASTS:
                t = CASTS[e.func]
            elif e.func in CLASSIFIERS:
                if ts[0] not in FLOAT_DTYPES:
                    self.fail(e, f"{e.func}() needs a real operand",
                              "an integer is always finite; convert with float(...) if needed")
                t = "int"
            elif e.func == "where":
                t = promote(ts[1], ts[2])
            elif e.func in ("min", "max"):
                t = promote(*ts)
            elif e.func == "abs" and ts[0] not in FLOAT_DTYPES:
                t = promote(ts[0])
            else:
                t = promote(self.real, *ts)
        elif isinstance(e, Reduce):
            if e.op not in REDUCERS + SORTS:
                self.unknown_reduction(e)
            if e.op in SORTS:
                self.fail(e, f"{e.op}(...) is a whole statement, not part of an expression",
                          "write it alone on the right side: `Y[r, q] = sort(i: X[r, i])`")
            bound = []
            try:
                for b in e.binders:
                    self.fresh(b, b.name, "the reduction index")
                    if b.lo is not None:
                        lo, hi = self.range_bounds(b.name, b.lo, b.hi, e.op, e)
                    else:
                        lo, hi = "0", self.infer_range(b, e.body)
                    self.ranges[id(b)] = (lo, hi)
                    self.scope[b.name] = "binder"
                    bound.append(b.name)
                t = promote(self.check(e.body))
                if e.op in ("sum", "prod") and t not in FLOAT_DTYPES and self.target not in FLOAT_DTYPES:
                    # An integer sum accumulates in the type of the output it feeds (int64 sums
                    # of int32 values must not wrap at 2^31), or wider.
                    t = promote(t, self.target)
            finally:
                for n in bound:
                    self.scope.pop(n, None)
        elif isinstance(e, BinOp):
            lt, rt = self.check(e.left), self.check(e.right)
            if e.op in ("<", "<=", ">", ">=", "==", "!=", "&&", "||"):
                t = "int"
            elif e.op == "%" and (lt in FLOAT_DTYPES or rt in FLOAT_DTYPES):
                self.fail(e, "'%' needs integer operands", "it is the C remainder of integers; "
                          "fmod(a, b) is the remainder of reals")
            elif e.op in BIT_OPS and (lt in FLOAT_DTYPES or rt in FLOAT_DTYPES):
                self.fail(e, f"'{e.op}' needs integer operands",
                          "bit operations act on integers: convert with uint32(...) or int(...)"
                          + ("; for a power write pow(x, 2)" if e.op == "^" else ""))
            elif e.op in ("<<", ">>"):
                t = promote(lt)                 # C: the type of the promoted left operand
            else:
                t = promote(lt, rt)
        elif isinstance(e, UnOp):
            t = self.check(e.operand)
            if e.op == "~" and t in FLOAT_DTYPES:
                self.fail(e, "'~' needs an integer operand", "bit operations act on integers")
            t = "int" if e.op == "!" else promote(t)
        else:                                       # pragma: no cover - parser makes no others
            raise TypeError(e)
        t = "float" if t in HALF_DTYPES else t     # 16-bit storage: its values compute in float
        self.types[id(e)] = t
        return t

    def unknown_reduction(self, e: Reduce):
        """`mean(j: X[r, j])`: a reduction the language lacks, refused with the ones it has and the
        same reduction written with them (the extent of a mean's indices from their ranges)."""
        inner = e.text[e.text.find("(") + 1:-1] if e.text else ""
        names, body = inner.split(":", 1) if ":" in inner else (", ".join(b.name for b in e.binders), "...")
        names, body = names.strip(), body.strip()
        op = e.op.lower()
        try:
            integer = self.check(Reduce(e.line, e.col, "sum", e.binders, e.body)) not in FLOAT_DTYPES
            ranges = [self.ranges[id(b)] for b in e.binders]
            extents = [hi if lo == "0" else f"({hi} - {lo})" for lo, hi in ranges]
            count = extents[0] if len(extents) == 1 else "(" + " * ".join(extents) + ")"
        except UserError:                 # its ranges are no clearer as a sum: name the count
            integer, count = False, "N"
        flag = f"where({body}, 1, 0)"
        recipes = {
            "mean": f"sum({names}: {body}) / {f'float({count})' if integer else count}",
            "count": f"sum({names}: {flag})", "any": f"max({names}: {flag})", "all": f"min({names}: {flag})",
            "norm": f"sqrt(sum({names}: ({body}) * ({body})))",
            "logsumexp": f"log(sum({names}: exp({body})))"}
        recipes.update(avg=recipes["mean"], average=recipes["mean"], nnz=recipes["count"])
        form = recipes.get(op)
        self.fail(e, f"unknown reduction '{e.op}' in `{e.text or e.op + '(...)'}`: the reductions are "
                  f"{', '.join(REDUCERS)} (and {', '.join(SORTS)} as a whole statement)",
                  (f"write it with them: `{form}`" if form else
                   f"write it with them and the functions, e.g. a mean as `sum({names}: {body}) / {count}`")
                  + (", N the number of terms" if count == "N" else ""))

    def infer_range(self, b: Binder, body) -> str:
        """Upper bound of a reduction index from the extents where it is a plain subscript."""
        seen = {}
        for n in walk(body):
            if isinstance(n, Ref) and self.array(n.array) is not None:
                a = self.array(n.array)
                for d, sub in enumerate(n.subs):
                    if isinstance(sub, Name) and sub.id == b.name and d < a.rank:
                        seen.setdefault(a.shape[d], f"{n.array} (dimension {d})")
        if not seen:
            self.fail(b, f"cannot infer the range of '{b.name}': it is no plain subscript of an array",
                      f"give it explicitly: sum({b.name} in 0..n: ...) or sum({b.name} < n: ...)")
        if len(seen) > 1:
            self.fail(b, f"the range of '{b.name}' is ambiguous: it indexes extents "
                      + ", ".join(f"{ext} in {where}" for ext, where in seen.items()),
                      f"give it explicitly: {b.name} in 0..EXTENT")
        return _paren(next(iter(seen)))

    def check_in_place(self, s: Assign, arr, free):
        """Whole-array semantics: with a domain of its own, a statement may read the array
        it writes only at the element it writes, or at elements it provably never writes."""
        if not free:
            return
        lhs = [ix.expr for ix in s.subs]
        for n in walk(s.value):
            if isinstance(n, Ref) and n.array == s.array:
                if all(_same(a, b) for a, b in zip(lhs, n.subs)):
                    continue
                fixed = {v for v, kind in self.scope.items() if kind == "for"} | set(self.spec.sizes)
                if any(_disjoint(a, b, fixed) or _outside(ix, b, fixed) for ix, a, b in zip(s.subs, lhs, n.subs)):
                    continue
                loop = (f"make the order explicit with a sequential loop, e.g. `for {free[0]} in 1..n: "
                        f"{s.array}[{free[0]}] = {s.array}[{free[0]}-1] + ...`")
                inside = next((r for r in _top_reductions(s.value) if any(m is n for m in walk(r))), None)
                hoisted = self.hoist_hint(s, arr, free, inside) if inside is not None else None
                if hoisted:
                    # reading its own row (the subscripts free of the reduction's indices are the
                    # target's): no recurrence is meant, the reduction of the values before the write is
                    binders = {b.name for r in walk(inside) if isinstance(r, Reduce) for b in r.binders}
                    row = all(_same(a, b) for a, b in zip(lhs, n.subs)
                              if not any(isinstance(m, Name) and m.id in binders for m in walk(b)))
                    recurrence = f"; or, for a recurrence (each element reading those written before it), {loop}"
                    self.fail(n, f"this statement writes '{s.array}' over its whole index domain and reads it "
                              f"at other elements in `{inside.text}`: elements written first would change "
                              f"what the later ones read (the result would depend on the loop order)",
                              hoisted + ("" if row else recurrence))
                self.fail(n, f"this statement writes '{s.array}' over its whole index domain and "
                          f"reads it at another element: the result would depend on the loop order",
                          f"write the result into another array, or {loop}")

    def hoist_hint(self, s: Assign, arr, free, r: Reduce) -> str | None:
        """The form that works for a statement whose reduction reads the array it writes
        (`X[r, j] = X[r, j] / sqrt(sum(l: X[r, l] * X[r, l]))`): the reduction first, into a
        temporary over the statement's indices it uses, then the statement reading that.  None
        where a temporary cannot hold it (an index it uses ranges from other than 0: a
        temporary's range is 0..E)."""
        used = {m.id for m in walk(r) if isinstance(m, Name)}
        plain = {sub.id for m in walk(r) if isinstance(m, Ref) for sub in m.subs if isinstance(sub, Name)}
        dims = []
        for d, ix in enumerate(s.subs):
            v = ix.expr.id if isinstance(ix.expr, Name) else None
            if v in free and v in used:
                if ix.lo is not None and _literal(ix.lo) != 0:
                    return None
                hi = self.expr(ix.hi) if ix.lo is not None else arr.shape[d]
                dims.append(v if v in plain and ix.lo is None else f"{v} in 0..{hi}")
        taken = {*self.spec.sizes, *self.spec.scalars, *self.spec.arrays, *self.declared, *self.scope}
        name = next(c for c in (f"{r.op}_{s.array}", *(f"{r.op}_{s.array}{k}" for k in range(2, 99)))
                    if c not in taken)
        cell = name + (f"[{', '.join(d.split(' in ')[0] for d in dims)}]" if dims else "")
        let = f"let {name}" + (f"[{', '.join(dims)}]" if dims else "") + f" = {r.text}"
        line = self.spec_line(s.line).split("#")[0].strip()
        then = f"`{line.replace(r.text, cell, 1)}`" if r.text and r.text in line else \
            f"read `{cell}` in its place"
        return (f"compute the reduction first into a temporary, which keeps the values from before "
                f"the write (docs/specs.md, Temporaries): `{let}`, then {then}")

    def spec_line(self, line: int) -> str:
        """The text of a spec line inside the formal blocks ('' when none)."""
        for first, text in self.spec.blocks:
            rows = text.split("\n")
            if first <= line < first + len(rows):
                return rows[line - first]
        return ""

    def check_reads(self, s: Assign, arr):
        reads = [n for n in walk(s.value) if isinstance(n, Ref)
                 or (isinstance(n, Name) and n.id in self.spec.arrays)]
        reads = [n for n in reads if (n.array if isinstance(n, Ref) else n.id) in self.spec.arrays]
        if s.op != "=" and s.array in self.spec.arrays:
            reads.append(Name(s.line, s.col, s.array))
        for n in reads:
            name = n.array if isinstance(n, Ref) else n.id
            a = self.spec.arrays[name]
            if a.intent == "out" and name not in self.written:
                self.fail(n, f"reads '{name}' before any statement writes it, but '{name}' is "
                          "declared out (its initial contents are not an input)",
                          "declare it inout if its initial contents matter, or write it first")

    # -- C text ---------------------------------------------------------------------------
    def expr(self, e) -> str:
        if isinstance(e, Num):
            if e.is_real and self.real == "float":
                return e.text + ("f" if "." in e.text or "e" in e.text.lower() else "")
            return e.text
        if isinstance(e, Name):
            if e.id in self.spec.arrays:
                return self.load(e.id, f"{e.id}[0]")
            return self.load(e.id, CONSTANTS.get(e.id, self.rename.get(e.id, e.id)))   # also a scalar temporary, a C local
        if isinstance(e, Ref):
            return self.load(e.array, e.array + "".join(f"[{self.expr(s)}]" for s in e.subs))
        if isinstance(e, Call):
            return self.call(e)
        if isinstance(e, Reduce):
            return self.hoisted.get(id(e)) or self.reduction(e)
        if isinstance(e, BinOp):
            return f"({self.expr(e.left)} {e.op} {self.expr(e.right)})"
        if isinstance(e, UnOp):
            return f"({e.op}{self.expr(e.operand)})"
        raise TypeError(e)

    def call(self, e: Call) -> str:
        args = [self.expr(a) for a in e.args]
        t = self.types[id(e)]
        f = "f" if t == "float" else ""
        if CASTS.get(e.func) in HALF_DTYPES:     # rounded to the type, and its value read back
            load, store = HALF_DTYPES[CASTS[e.func]]
            return f"{load}({store}({args[0]}))"
        if e.func in CASTS:
            return f"(({CASTS[e.func]}) {args[0]})"
        if e.func in CLASSIFIERS:
            return f"({e.func}({args[0]}) != 0)"        # C99 gives some nonzero int: make it 1
        if e.func == "where":
            return f"({args[0]} ? {args[1]} : {args[2]})"
        if e.func in ("min", "max"):
            if t in FLOAT_DTYPES:
                return f"f{e.func}{f}({args[0]}, {args[1]})"
            op = "<" if e.func == "min" else ">"
            return f"({args[0]} {op} {args[1]} ? {args[0]} : {args[1]})"
        if e.func == "abs":
            return f"fabs{f}({args[0]})" if t in FLOAT_DTYPES else \
                f"{'labs' if t == 'long' else 'abs'}({args[0]})"
        return f"{e.func}{f}({', '.join(args)})"

    def reduction(self, r: Reduce) -> str:
        """Emits the accumulator and its loops before the current statement; gives its name."""
        self.count += 1
        number = self.count                # nested reductions in the body count on
        acc = f"acc_r{number}"
        t = self.types[id(r)]
        if r.op in ("sum", "prod") and t == "float":
            # A float accumulator added to in order drifts by far more than any tolerance
            # at LARGE sizes (1e7 terms); in double the reference stays the true value,
            # whatever order a candidate adds in.  max and min are exact in any type.
            t = "double"
        floating = t in FLOAT_DTYPES
        suffix = "f" if t == "float" else ""
        zero, one = ("0.0" + suffix, "1.0" + suffix) if floating else ("0", "1")
        lo_hi = INT_LIMITS.get(t, INT_LIMITS["int"])
        init = {"sum": zero, "prod": one,
                "max": "-INFINITY" if floating else lo_hi[0],
                "min": "INFINITY" if floating else lo_hi[1]}[r.op]
        self.locals.append(f"{t} {acc};")
        self.emit(f"{acc} = {init};")
        for b in r.binders:
            lo, hi = self.ranges[id(b)]
            self.open_loop(b.name, lo, hi)
            self.scope[b.name] = "binder"
            self.depth += 1
        body = self.expr(r.body)
        if r.op == "sum":
            self.emit(f"{acc} += {body};")
        elif r.op == "prod":
            self.emit(f"{acc} *= {body};")
        elif floating:
            self.emit(f"{acc} = f{r.op}{suffix}({acc}, {body});")
        else:                              # integers: no fmax; name the value once
            value = f"acc_v{number}"
            self.locals.append(f"{t} {value};")
            self.emit(f"{value} = {body};")
            self.emit(f"{acc} = ({value} {'>' if r.op == 'max' else '<'} {acc} ? {value} : {acc});")
        for b in reversed(r.binders):
            self.depth -= 1
            self.scope.pop(b.name, None)
            self.emit("}")
        return acc


# -- helpers ---------------------------------------------------------------------------------

def _reads_data(e, spec) -> bool:
    """Whether an expression reads an array element (a subscript through data)."""
    return any(isinstance(n, (Ref, Reduce)) or isinstance(n, Name) and n.id in spec.arrays for n in walk(e))


def _literal_type(compiler, e: Num) -> str:
    """C's type of an integer literal: the first of int, unsigned (hexadecimal or with a `u`
    suffix), long (not with a `u` suffix: that would be unsigned long), that holds its value."""
    suffix, hexadecimal = e.text[-1] in "uU", e.text.lower().startswith("0x")
    kinds = (("unsigned", 2**32 - 1),) if suffix else \
        (("int", 2**31 - 1),) + ((("unsigned", 2**32 - 1),) if hexadecimal else ()) + (("long", 2**63 - 1),)
    for t, hi in kinds:
        if e.value <= hi:
            return t
    compiler.fail(e, f"the integer {e.text} fits none of int, uint32, int64",
                  "use a smaller constant (a u suffix makes a uint32 constant)")


def _words(text):
    import re
    return re.findall(r"[A-Za-z_]\w*", text)


def _literal(e):
    """The value of an integer literal (`0`, `-1`), or None."""
    if isinstance(e, Num) and not e.is_real:
        return int(e.text)
    if isinstance(e, UnOp) and e.op == "-" and isinstance(e.operand, Num) and not e.operand.is_real:
        return -int(e.operand.text)
    return None


def _conjuncts(e):
    if isinstance(e, BinOp) and e.op == "&&":
        return _conjuncts(e.left) + _conjuncts(e.right)
    return [e]


def _adds_one(st) -> bool:
    """`v += 1` or `v = v + 1` (a counter's step) to a scalar."""
    one = lambda e: isinstance(e, Num) and e.text == "1"
    if not isinstance(st, Assign) or st.subs:
        return False
    if st.op == "+=":
        return one(st.value)
    v = st.value
    return st.op == "=" and isinstance(v, BinOp) and v.op == "+" and (
        isinstance(v.left, Name) and v.left.id == st.array and one(v.right)
        or isinstance(v.right, Name) and v.right.id == st.array and one(v.left))


def _bare(text: str) -> str:
    """C text without parentheses around the whole of it: `(n - 1)` -> `n - 1`."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for n, ch in enumerate(text):
            depth += (ch == "(") - (ch == ")")
            if depth == 0 and n < len(text) - 1:
                return text                  # `(a) + (b)`: the first pair closes early
        text = text[1:-1].strip()
    return text


def _paren(extent: str) -> str:
    return extent if extent.replace("_", "").isalnum() else f"({extent})"


def _top_reductions(e):
    """Reductions of e that are not inside another reduction."""
    if isinstance(e, Reduce):
        return [e]
    out = []
    children = {Ref: lambda n: n.subs, Call: lambda n: n.args, BinOp: lambda n: (n.left, n.right),
                UnOp: lambda n: (n.operand,)}
    for kind, get in children.items():
        if isinstance(e, kind):
            for c in get(e):
                out.extend(_top_reductions(c))
    return out


def _canon(e) -> str:
    """Position-free text of an expression, for syntactic comparison."""
    if isinstance(e, Num):
        return e.text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, BinOp):
        return f"({_canon(e.left)}{e.op}{_canon(e.right)})"
    if isinstance(e, UnOp):
        return f"({e.op}{_canon(e.operand)})"
    if isinstance(e, Ref):
        return f"{e.array}[{','.join(_canon(s) for s in e.subs)}]"
    if isinstance(e, Call):
        return f"{e.func}({','.join(_canon(a) for a in e.args)})"
    return repr(id(e))                               # reductions never compare equal


def _same(a, b) -> bool:
    return _canon(a) == _canon(b)


def _linear(e):
    """{name: coefficient, "": constant} of an affine integer expression, or None."""
    if isinstance(e, Num) and not e.is_real:
        return {"": e.value}
    if isinstance(e, Name):
        return {e.id: 1}
    if isinstance(e, UnOp) and e.op in ("-", "+"):
        inner = _linear(e.operand)
        return None if inner is None else {k: (-v if e.op == "-" else v) for k, v in inner.items()}
    if isinstance(e, BinOp) and e.op in ("+", "-", "*"):
        left, right = _linear(e.left), _linear(e.right)
        if left is None or right is None:
            return None
        if e.op == "*":
            if set(left) <= {""}:
                left, right = right, left
            if not set(right) <= {""}:
                return None
            c = right.get("", 0)
            return {k: v * c for k, v in left.items()}
        sign = 1 if e.op == "+" else -1
        out = dict(left)
        for k, v in right.items():
            out[k] = out.get(k, 0) + sign * v
        return out
    return None


def _disjoint(a, b, fixed) -> bool:
    """a and b, made only of `fixed` names (sequential loop variables, sizes) and
    integers, differ by a nonzero constant: they never name the same element."""
    d = _difference(a, b, fixed)
    return d is not None and all(v == 0 for k, v in d.items() if k) and d.get("", 0) != 0


def _outside(ix, b, fixed) -> bool:
    """b, made only of `fixed` names and integers, lies outside the explicit range `lo..hi` (hi
    excluded) of a new index written as its own subscript (`x[i in j+1..n]` reading `x[j]`)."""
    if not isinstance(ix.expr, Name) or ix.lo is None or ix.hi is None:
        return False
    return _at_least(ix.lo, b, fixed, 1) or _at_least(b, ix.hi, fixed, 0)


def _at_least(x, y, fixed, least: int) -> bool:
    """x - y is a constant of at least `least`."""
    d = _difference(x, y, fixed)
    return d is not None and all(v == 0 for k, v in d.items() if k) and d.get("", 0) >= least


def _difference(x, y, fixed) -> dict | None:
    """{name: coefficient, "": constant} of x - y, both affine over `fixed` names and integers,
    or None."""
    if not {n.id for e in (x, y) for n in walk(e) if isinstance(n, Name)} <= fixed:
        return None
    lx, ly = _linear(x), _linear(y)
    if lx is None or ly is None:
        return None
    return {k: lx.get(k, 0) - ly.get(k, 0) for k in set(lx) | set(ly)}


def _spelled(e) -> str:
    """A statement's expression as a spec writes it, for messages (operands of an operator in
    parentheses when they are operators themselves)."""
    if isinstance(e, Num):
        return e.text
    if isinstance(e, Name):
        return e.id
    if isinstance(e, Ref):
        return f"{e.array}[{', '.join(_spelled(x) for x in e.subs)}]"
    if isinstance(e, Call):
        return f"{e.func}({', '.join(_spelled(x) for x in e.args)})"
    if isinstance(e, Reduce):
        return e.text or f"{e.op}(...)"
    if isinstance(e, BinOp):
        side = lambda x: f"({_spelled(x)})" if isinstance(x, BinOp) else _spelled(x)
        return f"{side(e.left)} {e.op} {side(e.right)}"
    if isinstance(e, UnOp):
        return f"{e.op}{'(' + _spelled(e.operand) + ')' if isinstance(e.operand, BinOp) else _spelled(e.operand)}"
    return "..."
