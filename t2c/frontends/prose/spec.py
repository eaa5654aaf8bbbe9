"""A prose kernel spec file: YAML front matter, Markdown prose, optional ```t2c blocks.

`load_spec(path)` gives a `Spec`: the checked front matter (name, sizes with presets,
constraints, scalars, arrays, domains, tolerance, class), the prose description and the
formal blocks with the spec line each starts on, and the text a model may read.
`<!-- comments -->` are notes for the spec's authors, anywhere (also before the front
matter): they are blanked out first, and lines keep their numbers.  Every mistake is a
`UserError` at `spec.md:LINE:COL` (the line of the offending YAML key or value).  This module
reads and checks declarations only; language.py parses the blocks and compile.py
turns them into C.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from ...errors import UserError
from ...ir import DATASETS, FLOAT_DTYPES, INTENTS, preset_gap

#: Element type spellings a spec may use -> the IS dtype.
DTYPE_NAMES = {
    "float": "float", "float32": "float", "f32": "float",
    "double": "double", "float64": "double", "f64": "double",
    "int": "int", "int32": "int", "i32": "int",
    "long": "long", "int64": "long", "i64": "long",
    "unsigned": "unsigned", "uint32": "unsigned",
    "char": "char", "int8": "char", "uint8": "unsigned char", "unsigned char": "unsigned char",
    "float16": "__half", "f16": "__half", "half": "__half",
    "bfloat16": "__nv_bfloat16", "bf16": "__nv_bfloat16",
    "bool": "bool",
}
FRONT_KEYS = ("name", "class", "description", "sizes", "constraints", "scalars", "arrays",
              "domains", "tolerance")
#: The classes of loop nests, as corpora/loops/README.md names them: `affine` (loops and
#: subscripts the polyhedral model reads), `gather` (reads through data, or a division or modulo
#: by a constant of an index) and `data-dependent` (writes, orders or exits chosen by the data).
NEST_CLASSES = ("affine", "gather", "data-dependent")
C_RESERVED = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "main", "in", "t2c_init", "INFINITY",
    "NAN", "sum", "prod", "max", "min", "where", "exp", "log", "sqrt", "tanh", "erf", "abs",
    "pow", "sin", "cos", "floor", "ceil", "fabs", "fmin", "fmax", "log1p", "expm1", "erfc",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "cbrt", "log2", "exp2", "log10", "round",
    "trunc", "copysign", "fmod", "hypot", "atan2", "isnan", "isinf", "isfinite", "int8",
    "uint8", "int32", "uint32", "int64", "float32", "float64", "float16", "bfloat16", "sort", "sort_desc", "argsort", "argsort_desc"}
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DOMAIN = re.compile(r"(uniform|integers|offsets)\s*\([^,()]+(\([^()]*\)[^,()]*)*,[^,()]+(\([^()]*\)[^,()]*)*\)"
                     r"|(spd|diagonally_dominant)")      # bounds: numbers or expressions over the sizes
_ARRAY_SHORT = re.compile(r"\s*([\w ]+?)\s*\[([^\]]*)\]\s*(\w+)?\s*")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_CALL = re.compile(r"([A-Za-z_]\w*)\s*\(")


def split_top(text: str) -> list[str]:
    """The comma-separated items of `text`, cut only at commas outside parentheses
    (`min(m, n), k` is two items)."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    return [*items, text[start:]]


def rejoin(items) -> list[str]:
    """A YAML flow list's items with the cuts inside parentheses undone: YAML reads
    `[min(m, n)]` as the two items `min(m` and `n)`."""
    return split_top(", ".join(str(x).strip() for x in items)) if items else []


@dataclass(frozen=True)
class ArrayDecl:
    name: str
    dtype: str
    shape: tuple[str, ...]
    intent: str
    line: int
    tolerance: int | None = None     # units an integer output may differ by (None: the default)

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass(frozen=True)
class Spec:
    path: str
    name: str
    description: str
    sizes: dict                      # name -> {dataset: value}, in declaration order
    constraints: tuple[str, ...]
    scalars: dict                    # name -> dtype
    arrays: dict                     # name -> ArrayDecl, in declaration order
    domains: dict                    # name -> annotation text, e.g. "uniform(-1, 1)"
    tolerance: dict | None           # {"rtol": x, "atol": y} or None
    blocks: tuple = ()               # ((first spec line, text), ...)
    text: str = ""                   # the file without its <!-- comments -->: what a model reads
    name_line: int = 1
    lines: dict = field(default_factory=dict)    # declared name -> spec line, for errors
    nest_class: str | None = None    # `class:`, one of NEST_CLASSES; None: not declared (a user's spec)


class _Where:
    """file:line:col errors for one spec file."""

    def __init__(self, path: str):
        self.path = path

    def fail(self, message, line=1, col=1, hint=None):
        raise UserError(message, file=self.path, line=line, col=col, hint=hint)


def without_comments(text: str) -> str:
    """text with every <!-- comment --> blanked out; each keeps its newlines, so lines keep
    their numbers.  Comments are notes for the spec's authors: no part of the spec."""
    return _COMMENT.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def front_matter_line(text: str) -> int | None:
    """0-based line of the opening '---' (after blank lines and comments), or None: no spec."""
    lines = without_comments(text).split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    return first if first is not None and lines[first].strip() == "---" else None


def split_markdown(text: str, where: _Where):
    """(front matter text, its first line, prose, t2c blocks) of a spec file."""
    start = front_matter_line(text)
    lines = without_comments(text).split("\n")
    if start is None:
        where.fail("a spec starts with YAML front matter between '---' lines",
                   hint="begin the file with '---', the declarations, and '---'")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        where.fail("the front matter is never closed", start + 1, hint="end it with a line '---'")
    front = "\n".join(lines[start + 1:end])
    prose, blocks, i = [], [], end + 1
    while i < len(lines):
        m = re.match(r"\s*(```+|~~~+)\s*(\S*)", lines[i])
        if m:
            fence, info = m.group(1), m.group(2)
            j = i + 1
            while j < len(lines) and not lines[j].strip().startswith(fence[:3]):
                j += 1
            if j == len(lines):
                where.fail("this fenced block is never closed", i + 1, 1, f"close it with {fence}")
            if info == "t2c":
                blocks.append((i + 2, "\n".join(lines[i + 1:j]) + "\n"))
            i = j + 1
            continue
        prose.append(lines[i])
        i += 1
    return front, start + 2, "\n".join(prose), tuple(blocks)


def first_paragraph(prose: str) -> str:
    """The first paragraph of the prose that is not a heading, on one line."""
    para = []
    for line in prose.split("\n"):
        s = line.strip()
        if s.startswith("#") and not para:
            continue
        if not s:
            if para:
                break
            continue
        para.append(s)
    return " ".join(" ".join(para).split())


def load_spec(path: str | Path) -> Spec:
    path = Path(path)
    where = _Where(str(path))
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        where.fail(f"cannot read the spec: {getattr(e, 'strerror', None) or e}")
    front, first, prose, blocks = split_markdown(text, where)
    try:
        root = yaml.compose(front, Loader=yaml.SafeLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where.fail(f"the front matter is not valid YAML: {getattr(e, 'problem', None) or e}",
                   (mark.line + first) if mark else first, (mark.column + 1) if mark else 1,
                   "check the indentation and the ':' after each key")
    if root is None or not isinstance(root, yaml.MappingNode):
        where.fail("the front matter must be a YAML mapping", first,
                   hint="declare name, sizes, arrays, ... as `key: value` lines")
    spec = _read_front(root, first, where, prose, blocks)
    model_text = re.sub(r"\n{3,}", "\n\n", without_comments(text)).strip() + "\n"
    return replace(spec, text=model_text)


def _line(node, first):
    return node.start_mark.line + first, node.start_mark.column + 1


def _value(node):
    return yaml.SafeLoader("").construct_object(node, deep=True) if node is not None else None


def _mapping(node, first, where, what):
    if not isinstance(node, yaml.MappingNode):
        where.fail(f"{what} must be a mapping", *_line(node, first))
    out = {}
    for k, v in node.value:
        key = _value(k)
        if not isinstance(key, str):
            where.fail(f"{what}: key {key!r} is not a name", *_line(k, first))
        if key in out:
            where.fail(f"{what}: '{key}' is declared twice", *_line(k, first))
        out[key] = (k, v)
    return out


def _ident(name, knode, first, where, what):
    if not _IDENT.fullmatch(name) or name in C_RESERVED or name.startswith(("t2c_", "acc_", "net_", "cmp_")):
        where.fail(f"{what} '{name}' is not a usable name", *_line(knode, first),
                   "use a C identifier that is not a keyword, a math function, t2c_*, acc_*, net_* or cmp_* "
                   "(the names of the reference's own locals)")


def _dtype(text, node, first, where):
    t = " ".join(str(text).split())
    if t not in DTYPE_NAMES:
        where.fail(f"unknown element type '{t}'", *_line(node, first),
                   f"use one of {', '.join(sorted(DTYPE_NAMES))}")
    return DTYPE_NAMES[t]


def _read_front(root, first, where, prose, blocks) -> Spec:
    top = _mapping(root, first, where, "the front matter")
    for key, (knode, _) in top.items():
        if key not in FRONT_KEYS:
            where.fail(f"unknown front matter key '{key}'", *_line(knode, first),
                       f"known keys: {', '.join(FRONT_KEYS)}")
    lines = {}
    if "name" not in top:
        where.fail("the front matter has no 'name'", first, hint="add `name: my_kernel`")
    nk, nv = top["name"]
    name = _value(nv)
    if not isinstance(name, str):
        where.fail("'name' must be a C identifier", *_line(nv, first))
    _ident(name, nv, first, where, "the kernel name")

    # sizes: {n: {MINI: 16, ...}}
    sizes = {}
    if "sizes" not in top:
        where.fail("the front matter declares no 'sizes'", first,
                   hint="declare each size with its presets: `n: {MINI: 16, LARGE: 16777216}`")
    for s, (k, v) in _mapping(top["sizes"][1], first, where, "'sizes'").items():
        _ident(s, k, first, where, "the size")
        presets = {}
        for d, (dk, dv) in _mapping(v, first, where, f"the presets of size '{s}'").items():
            val = _value(dv)
            if d not in DATASETS:
                where.fail(f"size '{s}': unknown preset '{d}'", *_line(dk, first),
                           f"presets are {', '.join(DATASETS)}")
            if not isinstance(val, int) or isinstance(val, bool) or val < 0:
                where.fail(f"size '{s}': preset {d} must be a non-negative integer", *_line(dv, first))
            presets[d] = val
        sizes[s] = presets
        lines[s] = _line(k, first)[0]
    if gap := preset_gap(sizes):
        where.fail(gap[1], lines[gap[0]], _line(top["sizes"][1], first)[1], gap[2])

    constraints = []
    if "constraints" in top:
        cnode = top["constraints"][1]
        items = cnode.value if isinstance(cnode, yaml.SequenceNode) else [cnode]
        texts = rejoin(_value(c) for c in items)
        if len(texts) != len(items):       # YAML cut an item inside parentheses: point at the list
            items = [cnode] * len(texts)
        for c, text in zip(items, texts):
            text = text.strip()
            calls = sorted(set(_CALL.findall(text)))
            bad = {w for w in _IDENT.findall(text) if w not in sizes and w not in calls}
            if calls or bad or not re.fullmatch(r"[\w\s()+\-*/%<>=!&|]+", text):
                where.fail(f"constraint '{text}' must be a C condition over the sizes"
                           + (f" ({', '.join(sorted(bad))} is not a size)" if bad else "")
                           + (f"; it calls {', '.join(f + '()' for f in calls)}, and a constraint takes no "
                              "functions" if calls else ""), *_line(c, first),
                           "compare sizes with + - * / % and && ||: `k <= m && k <= n` for `k <= min(m, n)`"
                           if calls else None)
            constraints.append(text)

    scalars = {}
    if "scalars" in top:
        for s, (k, v) in _mapping(top["scalars"][1], first, where, "'scalars'").items():
            _ident(s, k, first, where, "the scalar")
            val = _value(v)
            if isinstance(val, dict):
                val = val.get("type")
            scalars[s] = _dtype(val, v, first, where)
            lines[s] = _line(k, first)[0]

    arrays = {}
    if "arrays" not in top:
        where.fail("the front matter declares no 'arrays'", first,
                   hint="declare each array: `x: float[n] in`")
    for a, (k, v) in _mapping(top["arrays"][1], first, where, "'arrays'").items():
        _ident(a, k, first, where, "the array")
        arrays[a] = _array(a, v, sizes, constraints, first, where)
        lines[a] = _line(k, first)[0]

    seen = {}
    for group in (sizes, scalars, arrays):
        for n in group:
            if n in seen:
                where.fail(f"'{n}' is declared twice (as a {seen[n]} and again)", lines[n], 1)
            seen[n] = "size" if group is sizes else "scalar" if group is scalars else "array"
    if name in seen:
        where.fail(f"the kernel name '{name}' is also a parameter's name", *_line(nv, first))

    domains = {}
    if "domains" in top:
        for d, (k, v) in _mapping(top["domains"][1], first, where, "'domains'").items():
            text = str(_value(v)).strip()
            target_ok = d in scalars or (d in arrays and arrays[d].intent != "out")
            if not target_ok:
                where.fail(f"domain for '{d}', which is not an input scalar or array",
                           *_line(k, first), "domains describe inputs (intent in or inout)")
            if not _DOMAIN.fullmatch(text):
                where.fail(f"cannot read the domain '{text}'", *_line(v, first),
                           "write uniform(LO, HI), integers(LO, HI), offsets(LO, HI) (numbers, or expressions over the sizes such as "
                           "n - 1), spd or diagonally_dominant")
            domains[d] = text

    tolerance = None
    if "tolerance" in top:
        tnode = top["tolerance"][1]
        val = _value(tnode)
        val = {k2: _number(x) for k2, x in val.items()} if isinstance(val, dict) else _number(val)
        if isinstance(val, (int, float)) and not isinstance(val, bool):
            val = {"rtol": float(val)}
        if not isinstance(val, dict) or not val or set(val) - {"rtol", "atol"} or \
                not all(isinstance(x, (int, float)) and x >= 0 for x in val.values()):
            where.fail("tolerance must be a number or {rtol: X, atol: Y}", *_line(tnode, first))
        tolerance = {k2: float(x) for k2, x in val.items()}

    nest_class = None
    if "class" in top:
        cnode = top["class"][1]
        nest_class = _value(cnode)
        if nest_class not in NEST_CLASSES:
            where.fail(f"class {nest_class!r} is not one of {', '.join(NEST_CLASSES)}", *_line(cnode, first),
                       "affine: loops and subscripts the polyhedral model reads; gather: reads through an "
                       "index array, or an index divided by a constant (i / 2, i % 2); data-dependent: "
                       "writes through data, sorts, compactions, while loops (corpora/loops/README.md)")

    description = _value(top["description"][1]) if "description" in top else first_paragraph(prose)
    description = " ".join(str(description or "").replace("*/", "* /").split())
    return Spec(where.path, name, description, sizes, tuple(constraints), scalars, arrays,
                domains, tolerance, blocks, name_line=_line(nv, first)[0], lines=lines, nest_class=nest_class)


def _number(x):
    """YAML 1.1 reads 1e-4 (no dot) as a string; a tolerance means the number."""
    if isinstance(x, str):
        try:
            return float(x)
        except ValueError:
            return x
    return x


def _array(a, node, sizes, constraints, first, where) -> ArrayDecl:
    line = _line(node, first)
    val = _value(node)
    if isinstance(val, str):
        m = _ARRAY_SHORT.fullmatch(val)
        if not m:
            where.fail(f"cannot read the declaration of array '{a}'", *line,
                       "write `TYPE[EXTENT, ...] INTENT`, e.g. `float[m, n] in`")
        dtype_text, shape_text, intent = m.group(1), m.group(2), m.group(3) or "in"
        shape = [e.strip() for e in split_top(shape_text)] if shape_text.strip() else []
    elif isinstance(val, dict):
        dtype_text, shape, intent = val.get("type"), val.get("shape", []), val.get("intent", "in")
        if unknown := sorted(set(val) - {"type", "shape", "intent", "tolerance"}):
            where.fail(f"array '{a}': unknown key '{unknown[0]}'", *line,
                       "an array declares type, shape, intent and (integer outputs) tolerance")
        if not isinstance(shape, list):
            where.fail(f"array '{a}': shape must be a list of extents", *line)
        shape = [e.strip() for e in rejoin(shape)]
    else:
        where.fail(f"cannot read the declaration of array '{a}'", *line,
                   "write `TYPE[EXTENT, ...] INTENT` or {type: T, shape: [..], intent: I}")
    dtype = _dtype(dtype_text, node, first, where)
    if intent not in INTENTS:
        where.fail(f"array '{a}' has intent '{intent}'", *line, f"use one of {', '.join(INTENTS)}")
    units = val.get("tolerance") if isinstance(val, dict) else None
    if units is not None and (dtype in FLOAT_DTYPES or intent == "in" or not isinstance(units, int)
                              or isinstance(units, bool) or units < 0):
        where.fail(f"array '{a}': `tolerance: {units}` is for integer outputs, in whole units >= 0", *line,
                   "float outputs follow the tolerance model; give an integer out/inout array "
                   "`tolerance: 1` to accept one unit of rounding difference, or 0 for exact")
    for e in shape:
        if calls := sorted(set(_CALL.findall(e))):
            where.fail(f"array '{a}': extent '{e}' calls {', '.join(f + '()' for f in calls)}, but an extent "
                       "takes no functions: it is an expression over the sizes with + - * / % and parentheses",
                       *line, _extent_hint(a, e, sizes, constraints))
        bad = {w for w in _IDENT.findall(e) if w not in sizes}
        if not e or bad or not re.fullmatch(r"[\w\s()+\-*/%]+", e):
            where.fail(f"array '{a}': extent '{e}' must be an expression in the sizes"
                       + (f" ({', '.join(sorted(bad))} is not a size)" if bad else ""), *line,
                       "declare every size under `sizes:`")
    return ArrayDecl(a, dtype, tuple(" ".join(e.split()) for e in shape), intent, line[0], units)


def _extent_hint(array, extent, sizes, constraints) -> str:
    """How to write an extent that calls a function: with a size of its own, or for the min
    (max) of two sizes, the one that a constraint says is never larger (smaller)."""
    m = re.fullmatch(r"\s*(min|max)\s*\((.*)\)\s*", extent)
    args = [" ".join(x.split()) for x in split_top(m.group(2))] if m else []
    k = next(c for c in (f"{array}_len", f"{array}_extent") if c not in sizes)
    if len(args) == 2:
        a, b = args
        op, flip = ("<=", ">=") if m.group(1) == "min" else (">=", "<=")
        said = {" ".join(c.split()) for c in constraints}
        for x, y in ((a, b), (b, a)):
            if f"{x} {op} {y}" in said or f"{y} {flip} {x}" in said:
                return f"the constraints say `{x} {op} {y}`, so the extent is `{x}`: write `[{x}]`"
        return (f"if one of them is never {'larger' if op == '<=' else 'smaller'}, say so under "
                f"`constraints:` and use it as the extent (`constraints: [{a} {op} {b}]`, then `[{a}]`); "
                f"otherwise declare a size for it under `sizes:` (`{k}: {{MINI: ..., SMALL: ...}}`) with "
                f"`constraints: [{k} {op} {a}, {k} {op} {b}]`, and write `[{k}]`")
    return (f"declare a size for it under `sizes:` (`{k}: {{MINI: ..., SMALL: ...}}`), relate it to the "
            f"others under `constraints:` (`{k} <= n`), and write `[{k}]`")
