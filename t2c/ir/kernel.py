"""The intermediate structure (IS): the contract between understanding a kernel and running it.

Every frontend produces a `Kernel`; every generator, the verifier and the reports consume one.
A tree of frozen dataclasses: a stage can only derive a new kernel (`replace`), never edit one.
`key()` is a stable content hash of the contract and semantics (name, parameters, sizes with
presets and constraints, scalars, arrays, input domains, the reference, the original input
initialisation, the integer outputs' tolerances), leaving out `origin` and the later analysis
`facts`, so the same kernel read from two files, or re-read from its own printed reference, has
the same key.
"""
from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass, field

from ..errors import UserError
from .csyntax import reference_tree
from .dtypes import DTYPES, FLOAT_DTYPES, HALF_DTYPES

INTENTS = ("in", "out", "inout")
DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")
#: Input domain kinds: how the synthesizer may draw an input.
DOMAIN_KINDS = ("uniform", "integers", "offsets", "spd", "diagonally_dominant", "original")


class ISError(ValueError):
    """An IS that breaks its own rules (a frontend bug or a bad hand-written spec)."""


@dataclass(frozen=True)
class Origin:
    """Where a kernel comes from.  `lines[i]`: the line of `file` that the reference's line i + 1
    comes from (0: none, e.g. a brace of its own); empty where unknown (then the analysis's
    messages name the reference's own lines, as `t2c gen --explain` lists them)."""
    file: str
    function: str
    line: int
    col: int = 1
    lines: tuple[int, ...] = ()

    def where(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def source_line(self, line: int) -> int:
        """The file's line for the reference's `line`; the reference's own where none is known."""
        if not self.lines:
            return line
        before = [n for n in self.lines[:max(line, 0)] if n]     # a line of its own: the one above
        return before[-1] if before else self.line


@dataclass(frozen=True)
class Size:
    """A size parameter: an `int` passed by value that bounds loops and extents."""
    name: str
    presets: tuple[tuple[str, int], ...] = ()     # (("MINI", 20), ...), dataset order
    macro: str | None = None                      # the C macro it comes from (NI)
    ctype: str = "int"                            # its type in the user's declaration of NAME

    def preset(self, dataset: str) -> int | None:
        return dict(self.presets).get(dataset)


@dataclass(frozen=True)
class Scalar:
    """A scalar passed by value (intent in), or the function's return value (out)."""
    name: str
    dtype: str
    intent: str = "in"


@dataclass(frozen=True)
class Array:
    """An array passed as a flat pointer to `dtype`, row-major over `shape`.

    `shape` holds C expressions in the size parameters; an empty shape is a
    scalar passed by pointer (one element)."""
    name: str
    dtype: str
    shape: tuple[str, ...]
    intent: str
    const: bool = False          # the user declared its elements const (the drop-in does too)
    rows: bool = False           # the user's function takes it as a table of row pointers
                                 # (`T **a`, rank 2): the drop-in and the host drivers pass one,
                                 # over rows that are contiguous everywhere else (NAME_device)
    file_scope: bool = False     # the user's function reads it as a file-scope array: NAME takes no
                                 # parameter for it (ir/abi.py); NAME_device and the reference do

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Domain:
    """What valid values of one input look like.  A bound is a number or a C expression over
    the sizes (`integers(0, n - 1)`: the valid indices of an array a gather reads)."""
    target: str
    kind: str
    low: float | str | None = None
    high: float | str | None = None

    def bounds(self, sizes: dict[str, int]) -> tuple[float | None, float | None]:
        """The bounds at these sizes."""
        at = lambda b: b if b is None or not isinstance(b, str) else eval_extent(b, sizes)
        return at(self.low), at(self.high)

    def text(self) -> str:
        """As an annotation writes it: `uniform(-1, 1)`, `integers(0, n - 1)`, `spd`."""
        if self.low is None or self.high is None:
            return self.kind
        return f"{self.kind}({_number(self.low)}, {_number(self.high)})"


def _number(b) -> str:
    """A bound as text that reads back to the same value: short where `%g` is exact,
    every digit where it is not (`integers(0, 4294967295)`: uint32's whole range)."""
    if isinstance(b, str):
        return b
    short = f"{b:g}"
    if float(short) == b:
        return short
    return str(int(b)) if float(b).is_integer() else repr(float(b))


def eval_extent(expr: str, sizes: dict[str, int]) -> int:
    """Value of a C size expression (+ - * / % << >> and parentheses over sizes)."""
    code, names = _extent_code(expr)
    if code is None or not names <= sizes.keys():
        raise UserError(f"cannot evaluate the extent '{expr}' with sizes {sizes}")
    return int(eval(code, {"__builtins__": {}}, dict(sizes)))


@functools.lru_cache(maxsize=4096)
def _extent_code(expr: str) -> tuple:
    """(the compiled expression, the names it reads), or (None, ()) where it holds anything but
    arithmetic over names; made once per text (every array's shape is evaluated at each run)."""
    tree = ast.parse(expr.replace("/", "//"), mode="eval")
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load,
               ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd, ast.LShift, ast.RShift)
    if not all(isinstance(node, allowed) for node in ast.walk(tree)):
        return None, frozenset()
    names = frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
    return compile(tree, "<extent>", "eval"), names


@dataclass(frozen=True)
class Count:
    """The reference's exact work at one size preset: floating-point operations, and the
    compulsory bytes (each element read loaded once, each written stored once).  `bounded`:
    reads through data made them bounds (analysis.cost: bytes at most, flops at least)."""
    dataset: str
    flops: int
    bytes: int
    bounded: bool = False


@dataclass(frozen=True)
class Facts:
    """What analysis found (t2c.analysis.facts), which an IS may carry (its YAML form keeps
    them); not part of the key.  `counts` holds presets' exact flops and bytes: the bench reads
    its figures from them where they are, and counts its case itself where they are not (a
    read kernel carries none: counting at parse would cost every run, timed or not)."""
    affine: bool | None = None
    parallel_loops: tuple[str, ...] = ()
    counts: tuple[Count, ...] = ()


@dataclass(frozen=True)
class Kernel:
    name: str                          # the C function name: the ABI's NAME
    params: tuple[str, ...]            # ABI parameter order (sizes, scalars, arrays by name)
    sizes: tuple[Size, ...]
    scalars: tuple[Scalar, ...]
    arrays: tuple[Array, ...]
    reference: str                     # C99 function over VLA-typed flat arrays: the semantics
    constraints: tuple[str, ...] = ()  # C boolean expressions over the sizes
    domains: tuple[Domain, ...] = ()
    init: str | None = None            # C defining `t2c_init(...)`: the original inputs
    description: str = ""
    # (output, units): integer outputs that may differ from the reference by that many units,
    # because their value comes through a float-to-integer conversion (a candidate's FMA or
    # order may round the other way) or the source declares it; other integer outputs are exact.
    # The units are a number or a C expression over the sizes (a sum of n rounded values: `n`).
    tolerances: tuple[tuple[str, int | str], ...] = ()
    origin: Origin | None = field(default=None, compare=False)
    facts: Facts | None = field(default=None, compare=False)

    # -- access ---------------------------------------------------------------
    def replace(self, **changes) -> "Kernel":
        """A copy with `changes`; another reference drops the origin's line map (it maps the old)."""
        if changes.get("reference", self.reference) != self.reference and "origin" not in changes \
                and self.origin is not None and self.origin.lines:
            changes["origin"] = dataclasses.replace(self.origin, lines=())
        return dataclasses.replace(self, **changes)

    def units(self, name: str, sizes: dict[str, int] | None = None) -> int:
        """How many units integer output `name` may differ from the reference by (0: exact),
        at `sizes` where the bound is a size expression."""
        units = dict(self.tolerances).get(name, 0)
        return eval_extent(units, sizes or {}) if isinstance(units, str) else units

    def size(self, name: str) -> Size:
        return next(s for s in self.sizes if s.name == name)

    @property
    def half_dtypes(self) -> tuple[str, ...]:
        """The 16-bit storage types its parameters or its reference's locals use: each needs its
        conversions (and, in CUDA, its header)."""
        import re
        return tuple(t for t in HALF_DTYPES if any(x.dtype == t for x in (*self.scalars, *self.arrays))
                     or re.search(rf"\b{t}\b", self.reference))

    def array(self, name: str) -> Array:
        return next(a for a in self.arrays if a.name == name)

    @property
    def tree(self):
        """The reference parsed (a pycparser FileAST), once per text in a process and shared by
        all its readers: read it, never edit it (a reader that edits takes `csyntax.clone`).
        Not a field: no part of equality, the key, the YAML form or a pickle."""
        return reference_tree(self.reference, f"<{self.name} reference>")

    @property
    def returns(self) -> Scalar | None:
        return next((s for s in self.scalars if s.intent == "out"), None)

    @property
    def inputs(self) -> tuple[Scalar | Array, ...]:
        return tuple(x for x in (*self.scalars, *self.arrays) if x.intent in ("in", "inout"))

    @property
    def outputs(self) -> tuple[Scalar | Array, ...]:
        return tuple(x for x in (*self.scalars, *self.arrays) if x.intent in ("out", "inout"))

    def dataset_sizes(self, dataset: str) -> dict[str, int]:
        """Size values of a named preset; raises ISError when a size has none."""
        values = {}
        for s in self.sizes:
            v = s.preset(dataset)
            if v is None:
                have = sorted({d for z in self.sizes for d, _ in z.presets})
                where = f" ({self.origin.where()})" if self.origin else ""
                raise ISError(f"{self.name}{where}: size '{s.name}' has no {dataset} preset (presets: "
                              f"{', '.join(have) or 'none'}); give it with --size {s.name}=N, or in the source: "
                              f"/* t2c: size {s.name} MINI=8 SMALL=64 MEDIUM=512 LARGE=4096 EXTRALARGE=16384 */")
            values[s.name] = v
        return values

    def count_at(self, sizes: dict[str, int]) -> Count | None:
        """The facts' count at these size values, when they are one of the counted presets."""
        counts = self.facts.counts if self.facts else ()
        return next((c for c in counts if self.dataset_sizes(c.dataset) == sizes), None)

    # -- identity -------------------------------------------------------------
    def key(self) -> str:
        """Stable content hash of the contract and semantics (not origin, not facts)."""
        body = as_dict(self)
        body.pop("origin", None)
        body.pop("facts", None)
        if not body["tolerances"]:          # kernels without one keep the keys they had
            body.pop("tolerances")
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:20]


def as_dict(kernel: Kernel) -> dict:
    return dataclasses.asdict(kernel)


def validate(k: Kernel) -> Kernel:
    """Check the IS's own rules; returns the kernel or raises ISError naming the fault."""
    def fail(msg):
        where = f" ({k.origin.where()})" if k.origin else ""
        raise ISError(f"{k.name}{where}: {msg}")

    names = [s.name for s in k.sizes] + [s.name for s in k.scalars if s.intent == "in"] \
        + [a.name for a in k.arrays]
    if len(set(names)) != len(names):
        fail(f"duplicate parameter names in {names}")
    if sorted(k.params) != sorted(names):
        fail(f"params {list(k.params)} do not match the declared parameters {names}")
    outs = [s for s in k.scalars if s.intent == "out"]
    if len(outs) > 1:
        fail("at most one scalar output (the return value) is allowed")
    for x in (*k.scalars, *k.arrays):
        if x.dtype not in DTYPES:
            fail(f"'{x.name}' has element type '{x.dtype}'; known types: {', '.join(DTYPES)}")
        if x.intent not in INTENTS:
            fail(f"'{x.name}' has intent '{x.intent}'; use one of {', '.join(INTENTS)}")
    for s in k.scalars:
        if s.intent == "inout":
            fail(f"scalar '{s.name}' cannot be inout; pass it by pointer as a 0-d array")
    for d in k.domains:
        if d.kind not in DOMAIN_KINDS:
            fail(f"domain of '{d.target}' has kind '{d.kind}'; use one of {', '.join(DOMAIN_KINDS)}")
        if d.target not in names and d.kind != "original":
            fail(f"domain names '{d.target}', which is not a parameter")
        for b in (d.low, d.high):
            if isinstance(b, str) and not _size_expression(b, {z.name for z in k.sizes}):
                fail(f"the domain of '{d.target}' has the bound '{b}': a bound is a number or an "
                     "expression over the sizes (`integers(0, n - 1)`)")
    int_outputs = {x.name for x in k.outputs if x.dtype not in FLOAT_DTYPES}
    for name, units in k.tolerances:
        if name not in int_outputs:
            fail(f"a tolerance in units is for integer outputs, and '{name}' is none")
        if isinstance(units, str) and _size_expression(units, {z.name for z in k.sizes}):
            continue
        if not isinstance(units, int) or isinstance(units, bool) or units < 0:
            fail(f"the tolerance of '{name}' must be a whole number of units >= 0 or an expression "
                 f"over the sizes, not {units!r}")
    if not any(x.intent in ("out", "inout") for x in (*k.scalars, *k.arrays)):
        fail("the kernel has no output: no array is written and nothing is returned")
    for s in k.sizes:
        for d, v in s.presets:
            if v < 1:
                fail(f"size '{s.name}' has {d} = {v}; a size is at least 1")
    sizes, scalars = {s.name for s in k.sizes}, {s.name for s in k.scalars}
    for c in k.constraints:
        try:
            names = _names_in(c)
        except ValueError:
            fail(f"the constraint '{c}' is not a C expression (e.g. `n >= 2`, `m <= n`)")
        if given := sorted((names - sizes) & scalars):     # the verifier draws sizes, then inputs
            fail(f"the constraint '{c}' names {', '.join(given)}, a scalar: a constraint is over the sizes; "
                 f"say a scalar's valid values with a domain (`t2c: domain {given[0]} integers(1, 8)`)")
        if unknown := sorted(names - sizes):
            fail(f"the constraint '{c}' names {', '.join(unknown)}, which is no size of the kernel")
    return k


def preset_gap(presets: dict) -> tuple[str, str, str] | None:
    """(size, message, hint) for the first size that lacks a preset another size has, or None.

    `presets` maps each size to the datasets it has a value for, in declaration order; a size
    with none at all is left out (the kernel then has no dataset presets: the verifier draws
    random sizes).  A dataset gives every size a value, so one that some sizes lack is a
    mistake, said where the sizes are declared (both frontends), not at verify time."""
    given = {s: [d for d in DATASETS if d in ds] for s, ds in presets.items() if ds}
    for s, have in given.items():
        missing = [d for d in DATASETS if d not in have and any(d in o for o in given.values())]
        if missing:
            others = [o for o in given if missing[0] in given[o]]
            return (s, f"size '{s}' has no {' or '.join(missing)} preset, which {', '.join(others)} "
                       f"{'has' if len(others) == 1 else 'have'} (presets of {s}: {', '.join(have)}): a dataset "
                       "gives every size a value",
                    f"give {s} a {' and '.join(missing)} value too, or remove {' and '.join(missing)} from "
                    f"{', '.join(others)}")
    return None


def _size_expression(expr: str, sizes: set[str]) -> bool:
    try:
        return _names_in(expr) <= sizes
    except ValueError:
        return False


def _names_in(expr: str) -> set[str]:
    """The identifiers of a C expression (ValueError when it does not parse)."""
    from pycparser import c_ast, c_parser
    try:
        ast = c_parser.CParser().parse(f"int t2c_c = ({expr});")
    except Exception as e:
        raise ValueError(str(e)) from None
    out = set()

    class Names(c_ast.NodeVisitor):
        def visit_ID(self, node):
            out.add(node.name)

        def visit_FuncCall(self, node):          # min(n, m): the arguments, not the function
            if node.args:
                self.visit(node.args)
    Names().visit(ast.ext[0].init)
    return out
