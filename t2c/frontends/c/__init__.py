"""C frontend: a C file (PolyBench/C 4.2.1 style or a plain function) -> the IS.

    read_c(path, function=None) -> Kernel

Takes a C file: tree-sitter-c finds the function sites, `#pragma scop` and the `t2c:`
annotations; cpp and pycparser give the chosen function's AST; normalization gives the sizes,
scalars, arrays and reference, the presets from dataset macros and the original input
initialisation from `main`. Gives one validated `Kernel`, or raises `UserError` naming
file:line:col for what t2c refuses or cannot read. The annotations: docs/annotations.md;
reading C: docs/usage.md, "Reading C".
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from pycparser import c_ast

from ...analysis import fully_written
from ...errors import UserError
from ...ir import DATASETS, FLOAT_DTYPES, Domain, ISError, Kernel, Origin, Size, preset_gap, validate
from ...ir.kernel import eval_extent
from . import locate as _locate
from ...ir.csyntax import cprint, parse_c, reference_tree, walk as _walk
from .constants import inline_constants
from .filescope import file_scope_arrays
from .structs import flat_structs
from .helpers import carried, defined_functions
from .inline import inline_array_helpers
from .normalize import normalize, pointer_typedefs, prototyped, resolved
from .preprocess import FAKE_INCLUDE, compiler_error, int_value, macros, preprocess

INIT_NAME = "t2c_init"


def canonical(text: str, filename: str = "<t2c>") -> str:
    """C text printed the way t2c prints it (so that re-reading it is a fixed point)."""
    return cprint(parse_c(text, filename)).strip() + "\n"


# -- annotations -------------------------------------------------------------------------

def parse_annotations(notes, filename, tolerances=None):
    """The annotations' declarations; `tolerance` lines go into the dict `tolerances`."""
    shapes, intents, sizes, constraints, domains, description = {}, {}, {}, [], [], []
    tolerances = {} if tolerances is None else tolerances
    for line, text in notes:
        words = text.split(None, 1)
        verb, rest = words[0], (words[1] if len(words) > 1 else "")
        try:
            if verb == "array":
                m = re.fullmatch(r"(\w+)((?:\s*\[[^\]]+\])*)\s*(in|out|inout)?", rest.strip())
                shapes[m.group(1)] = tuple(e.strip() for e in re.findall(r"\[([^\]]+)\]", m.group(2)))
                if m.group(3):
                    intents[m.group(1)] = m.group(3)
            elif verb == "intent":
                name, intent = rest.split()
                if intent not in ("in", "out", "inout"):
                    raise ValueError
                intents[name] = intent
            elif verb == "size":
                name, *kv = rest.split()
                entry = sizes.setdefault(name, {})
                for item in kv:
                    k, v = item.split("=")
                    if k != "macro" and k not in DATASETS:
                        raise ValueError
                    entry[k] = v if k == "macro" else int(v)
            elif verb == "constraint":
                constraints.append(rest.strip())
            elif verb == "domain":
                m = re.fullmatch(r"(\w+)\s+(\w+)\s*(?:\((.+)\))?", rest.strip())
                domains.append(Domain(m.group(1), m.group(2), *_bounds(m.group(3))))
            elif verb == "description":
                description.append(rest.strip())
            elif verb == "kernel" and not rest:
                pass                                   # locate.choose reads it: this function is the kernel
            elif verb == "tolerance":
                name, units = rest.split(None, 1)      # units: a number or a size expression
                tolerances[name] = int(units) if units.strip().lstrip("-").isdigit() else units.strip()
            else:
                raise ValueError
        except (AttributeError, ValueError, TypeError):
            raise UserError(f"cannot read the annotation 't2c: {text}'", file=filename, line=line,
                            hint="see docs/annotations.md for the forms t2c reads") from None
    return shapes, intents, sizes, constraints, domains, " ".join(description)


# -- presets, domains and the original init ----------------------------------------------

def _bounds(inner: str | None) -> tuple:
    """`LO, HI` of a domain: numbers, or C expressions over the sizes (checked by ir.validate)."""
    if inner is None:
        return None, None
    depth, cut = 0, None
    for i, ch in enumerate(inner):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            if cut is not None:
                raise ValueError
            cut = i
    if cut is None:
        raise ValueError

    def one(text: str):
        text = " ".join(text.split())
        try:
            return float(text)
        except ValueError:
            return text or None
    return one(inner[:cut]), one(inner[cut + 1:])


def has_datasets(base: dict) -> bool:
    """A file with PolyBench-style dataset blocks: some `X_DATASET` is defined by default."""
    return any(m.endswith("_DATASET") for m in base)


def read_presets(path: Path, size_names, annotated, ctypes: dict | None = None) -> tuple[Size, ...]:
    """The sizes with their presets (macros of the dataset blocks, annotations) and `ctypes`'
    declared C types."""
    base = macros(path, None)
    polybench = has_datasets(base)
    out = []
    for name in size_names:
        note = annotated.get(name, {})
        macro = note.get("macro") or (name.upper() if name.upper() in base else None)
        presets = {}
        if macro and polybench:
            named = {m for f in _local_files(path) for m in re.findall(r"\b(\w+)_DATASET\b", f.read_text(errors="replace"))}
            if not named & set(DATASETS):             # --dataset could not choose among its sizes
                raise UserError(f"the dataset macros here ({', '.join(sorted(d + '_DATASET' for d in named))}) "
                                f"are none of PolyBench's ({', '.join(DATASETS)}), so {macro} would be the "
                                "same under every dataset",
                                **_site(path, r"\b\w+_DATASET\b"),
                                hint="name the dataset blocks MINI_DATASET … EXTRALARGE_DATASET, or annotate "
                                     f"`t2c: size {name} MINI=… LARGE=…`")
            for d in DATASETS:
                defs = macros(path, d)
                if macro in defs and d not in note:
                    presets[d] = dataset_value(path, name, macro, d, defs)
        presets.update({k: v for k, v in note.items() if k != "macro"})
        out.append(Size(name, tuple((d, presets[d]) for d in DATASETS if d in presets), macro,
                        (ctypes or {}).get(name, "int")))
    if gap := preset_gap({s.name: dict(s.presets) for s in out}):
        size = next(s for s in out if s.name == gap[0])
        # where the size's presets are given: its annotation, else its macro's definition
        site = _site(path, rf"t2c:\s*size\s+{size.name}\b", None) or \
            _site(path, rf"#\s*define\s+{size.macro}\b" if size.macro else r"(?!)")
        raise UserError(gap[1], **site, hint=gap[2])
    return tuple(out)


def stride_presets(sizes: tuple[Size, ...], strides: dict) -> tuple[Size, ...]:
    """A leading dimension without presets of its own gets, per dataset, the least its rows may
    hold there (`lda = m`: a matrix stored without padding); the verifier draws padded ones."""
    out = []
    for s in sizes:
        if s.name in strides and not s.presets:
            given = {x.name: dict(x.presets) for x in sizes}
            presets = []
            for d in DATASETS:
                at = {n: p[d] for n, p in given.items() if d in p}
                try:
                    presets.append((d, max(eval_extent(b.to_c(), at) for b in strides[s.name])))
                except UserError:
                    continue                        # a bound's size without this dataset
            s = Size(s.name, tuple(presets), s.macro, s.ctype)
        out.append(s)
    return tuple(out)


def _local_files(path: Path) -> list[Path]:
    """The file and the headers beside it or in its utilities/ folder: where its macros are."""
    from .preprocess import include_dirs
    return [path, *(h for d in include_dirs(path) for h in sorted(d.glob("*.h")))]


def _site(path: Path, pattern: str, default=...) -> dict | None:
    """file= and line= of the first line of the local files matching `pattern` (none: the
    file's first line, or `default` when given)."""
    for f in _local_files(path):
        for i, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            if re.search(pattern, line):
                return {"file": str(f), "line": i, "col": 1}
    return {"file": str(path), "line": 1, "col": 1} if default is ... else default


def dataset_value(path: Path, size: str, macro: str, dataset: str, defs: dict) -> int:
    """A size macro's value under a dataset: an integer constant of at least 1, through other
    macros (`#define N (2 * M)`); anything else is refused where it is defined."""
    text = defs[macro]
    for _ in range(8):
        if (v := int_value(text)) is not None or not re.search(r"[A-Za-z_]", text):
            break
        text = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: f"({defs[m.group()]})" if m.group() in defs else m.group(), text)
    if v is not None and v >= 1:
        return v
    raise UserError(f"size macro {macro} is '{defs[macro]}' under {dataset}_DATASET; a size is an "
                    "integer constant of at least 1",
                    **_site(path, rf"^\s*#\s*define\s+{macro}\s+{re.escape(defs[macro])}\s*$"),
                    hint=f"define {macro} as a positive integer there, or annotate its size "
                         f"`t2c: size {size} {dataset}=…`")


def default_domains(scalars, arrays, annotated, has_init) -> tuple[Domain, ...]:
    given = {d.target: d for d in annotated}
    out = []
    for x in (*scalars, *arrays):
        if x.intent == "out":
            continue
        if x.name in given:
            out.append(given.pop(x.name))
        elif x.dtype in FLOAT_DTYPES:
            out.append(Domain(x.name, "uniform", -1.0, 1.0))
        else:                                          # a bool: false or true
            out.append(Domain(x.name, "integers", 0.0, 1.0 if x.dtype == "bool" else 16.0))
    out.extend(given.values())
    if has_init:
        out.append(Domain("*", "original"))
    return tuple(out)


def _arg_var(node):
    """The variable an argument in main names: x, *x (POLYBENCH_ARRAY), &x, (T)x."""
    while isinstance(node, (c_ast.Cast, c_ast.UnaryOp)) and (
            isinstance(node, c_ast.Cast) or node.op in ("*", "&")):
        node = node.expr
    return node.name if isinstance(node, c_ast.ID) else None


def original_init(ast: c_ast.FileAST, kernel: str, params: list[str], types: dict,
                  helpers=frozenset(), sizes=frozenset()) -> str | None:
    """`t2c_init(params...)`: main's own initialisation, callable with the kernel's parameters.

    Scalars become pointers so that the init can set them.  An init argument written as the
    kernel call's argument for a size (`init(N, x); saxpy(N, a, x)` with `#define N 1000`) is
    that size, so the init follows the sizes it is called with.  None when main does not
    initialise through functions whose arguments all map to the kernel's parameters, or when
    one constant is the argument of two sizes (which one it means is unknown)."""
    funcs = {e.decl.name: e for e in ast.ext if isinstance(e, c_ast.FuncDef)}
    typedefs = "".join(cprint(e) + ";\n" for e in ast.ext if isinstance(e, c_ast.Typedef)
                       and e.coord and not e.coord.file.startswith(str(FAKE_INCLUDE)))
    if INIT_NAME in funcs:                               # a printed reference file
        return canonical(typedefs + "".join(cprint(f) + "\n" for n, f in funcs.items()
                                            if n != kernel and n not in helpers))
    main = funcs.get("main")
    if main is None:
        return None
    calls = [n for n in _walk(main.body) if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID)]
    kcall = next((c for c in calls if c.name.name == kernel), None)
    if kcall is None or kcall.args is None:
        return None
    var_to_param, as_size = {}, {}
    for arg, p in zip(kcall.args.exprs, params):
        v = _arg_var(arg)
        if v:
            var_to_param[v] = p
        elif p in sizes:
            as_size.setdefault(cprint(arg), []).append(p)
    inits = [c for c in calls[:calls.index(kcall)]
             if c.name.name in funcs and c.name.name not in (kernel, "main")]
    if not inits:
        return None
    body = []
    for c in inits:
        args = []
        for a in (c.args.exprs if c.args else ()):
            v = _arg_var(a)
            if len(as_size.get(cprint(a), ())) > 1:
                return None
            if cprint(a) in as_size:
                args.append(as_size[cprint(a)][0])
            elif isinstance(a, c_ast.Constant):
                args.append(cprint(a))
            elif v in var_to_param:
                args.append(var_to_param[v])
            else:
                return None
        body.append(f"  {c.name.name}({', '.join(args)});")
    helpers = "".join(cprint(funcs[c.name.name]) + "\n" for c in {c.name.name: c for c in inits}.values())
    sig = ", ".join(types[p] for p in params)
    return canonical(typedefs + helpers + f"void {INIT_NAME}({sig})\n{{\n" + "\n".join(body) + "\n}\n")


def _param_types(kernel_fn: c_ast.FuncDef, scalars, arrays) -> dict[str, str]:
    """C parameter declarations for t2c_init: arrays as in the reference, scalars by pointer."""
    out = {}
    ref = {a.name: a for a in arrays}
    sc = {s.name: s for s in scalars}
    for p in kernel_fn.decl.type.args.params if kernel_fn.decl.type.args else ():
        if p.name in ref:
            a = ref[p.name]
            out[p.name] = f"{a.dtype} " + (p.name + "".join(f"[{e}]" for e in a.shape)
                                            if a.shape else f"*{p.name}")
        elif p.name in sc:
            out[p.name] = f"{sc[p.name].dtype} *{p.name}"
        else:
            out[p.name] = f"int {p.name}"
    return out


# -- the frontend ------------------------------------------------------------------------

def read_c(path: str | Path, function: str | None = None) -> Kernel:
    path = Path(path)
    try:
        return _read_c(path, function)
    except RecursionError:
        raise UserError("an expression or block nests too deeply for t2c's parsers", file=str(path),
                        hint="split it into several statements") from None
    except UserError as e:
        if e.file and e.file == str(path.resolve()):     # cpp/pycparser name the resolved path
            e.file = str(path)
        raise


def _read_c(path: Path, function: str | None) -> Kernel:
    shown = str(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise UserError(f"cannot read the file: {e.strerror}", file=shown) from None
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[:e.start].count(b"\n") + 1
        col = e.start - (raw.rfind(b"\n", 0, e.start) + 1) + 1
        raise UserError(f"byte 0x{raw[e.start]:02x} is not UTF-8 text", file=shown, line=line, col=col,
                        hint="save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
    site = _locate.choose(_locate.locate(raw, shown), shown, function)
    declared = {}
    shapes, intents, size_notes, constraints, dom_notes, description = \
        parse_annotations(site.annotations, shown, declared)

    text = preprocess(path.resolve())
    try:
        ast = parse_c(text, shown)
    except UserError as e:
        if e.line is None and (found := compiler_error(path.resolve())):
            e.line, e.col, e.message = found[0], found[1], f"parse error: {found[2]}"
        lines = raw.decode().splitlines()
        if "Illegal character" in e.message and e.line and e.line <= len(lines) \
                and not lines[e.line - 1].isascii():
            e.message, e.hint = "a name with non-ASCII letters", "t2c reads C99 names: letters a-z, A-Z, digits, _"
        elif e.line and e.line <= len(lines) and (t := _undeclared_type(lines[e.line - 1], text)):
            e.hint = f"`{t[0]}` is not declared here: include {t[1]} (as a C compiler needs it)"
        raise
    bound = size_bindings(path.resolve(), _find_function(ast, site.name), size_notes)
    if bound:                                            # again, each size macro its parameter
        text = preprocess(path.resolve(), defines=bound)
        ast = parse_c(text, shown)
    for n in _walk(ast):                                 # C's _Bool as CUDA and stdbool.h spell it
        if isinstance(n, c_ast.IdentifierType) and "_Bool" in n.names:
            n.names = ["bool" if x == "_Bool" else x for x in n.names]
    inline_constants(ast)                                # `static const double EPS = 1e-9;`: its value
    typedefs, enums = {}, set()
    for e in ast.ext:
        if isinstance(e, c_ast.Typedef) and isinstance(e.type, c_ast.TypeDecl) \
                and isinstance(e.type.type, c_ast.IdentifierType):
            typedefs[e.name] = " ".join(e.type.type.names)
        elif isinstance(e, c_ast.Typedef) and isinstance(e.type, c_ast.TypeDecl) \
                and isinstance(e.type.type, (c_ast.Struct, c_ast.Union)):   # refused where it is used
            typedefs[e.name] = f"{type(e.type.type).__name__.lower()} {e.name}"
        for n in _walk(e):
            if isinstance(n, c_ast.Enumerator):
                enums.add(n.name)
    fn = _find_function(ast, site.name)
    if fn is None:
        raise UserError(f"function '{site.name}' disappears after preprocessing", file=shown,
                        line=site.line, hint="do not hide the kernel's definition behind macros")
    prototyped(fn)                                       # K&R `f(n, a) int n; double *a;`: f(int n, double *a)
    pointer_typedefs(ast, fn)                            # `typedef double *vec; f(vec x)`: double *x
    scoped = file_scope_arrays(ast, fn)                  # `float a[LEN]; void s000(void)`: a as a parameter
    flat = flat_structs(ast, fn, typedefs)               # `const body *b` (double x, y, z): b[i].y is b[i * 3 + 1]

    unknown = sorted(set(size_notes) - {p.name for p in (fn.decl.type.args.params if fn.decl.type.args else ())
                                         if getattr(p, "name", None)})
    if unknown:
        raise UserError(f"a `t2c: size` names '{unknown[0]}', which is no parameter of {site.name}",
                        file=shown, line=site.line, hint="name an int parameter of the kernel")
    inline_array_helpers(fn, defined_functions(ast), lambda t: resolved(t, typedefs))   # `dot(&A[i * n], x, n)`
    helpers = carried(ast, fn, typedefs, enums)          # the file's functions it calls, checked
    names = {h.name for h in helpers}
    read = normalize(fn, typedefs, enums, shapes, intents, set(size_notes), {h.name: h for h in helpers},
                     {d.target for d in dom_notes})
    params, size_names, scalars, arrays, strides = read.params, read.sizes, read.scalars, read.arrays, read.strides
    arrays = [replace(a, file_scope=True) if a.name in scoped else a for a in arrays]
    reference = "".join(h.text for h in helpers) + read.reference
    lines = reference_lines(reference, [_find_function(ast, h.name) for h in helpers] + [read.function],
                            str(path.resolve()), shown, site.name)
    sizes = stride_presets(read_presets(path.resolve(), size_names, size_notes, declared_types(fn, typedefs)),
                           strides)
    init = None if flat or any(a.rows or a.file_scope for a in arrays) else \
        original_init(ast, site.name, params, _param_types(fn, scalars, arrays), names, set(size_names))   # (a row table: its init builds rows of its own)
    if not constraints:
        constraints = [f"{s} >= 1" for s in size_names if s not in strides]
    constraints = [*constraints, *(c for c in read.implied if c not in constraints)]
    kernel = Kernel(
        name=site.name, params=tuple(params), sizes=sizes, scalars=tuple(scalars),
        arrays=tuple(arrays), reference=reference, constraints=tuple(constraints),
        domains=default_domains(scalars, arrays, dom_notes, init is not None), init=init,
        description=description, origin=Origin(shown, site.name, site.line, site.col, lines))
    kernel = _outs_fully_written(kernel, intents)
    kernel = kernel.replace(domains=default_domains(kernel.scalars, kernel.arrays, dom_notes,
                                                    init is not None))
    from .rounding import rounded_units
    tolerances = dict(sorted(rounded_units(kernel).items())) | declared
    kernel = kernel.replace(tolerances=tuple(tolerances.items()))
    try:
        validate(kernel.replace(origin=None))
    except ISError as e:                                 # e.g. nothing is written or returned
        raise UserError(str(e), file=shown, line=site.line, col=site.col) from None
    from ...analysis import implied_by_extents, out_of_bounds
    if fixed := [c for c in implied_by_extents(kernel) if c not in kernel.constraints]:
        kernel = kernel.replace(constraints=(*kernel.constraints, *fixed))   # `n <= 1000` over a[1000]
    if bad := out_of_bounds(kernel):
        raise UserError(f"{kernel.name}: {bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""),
                        file=shown, line=site.line, col=site.col,
                        hint="fix the loop bounds or subscripts, the array's extent (`t2c: array`), or bound the "
                             "sizes (`t2c: constraint n <= 100`)")
    return kernel


_TYPE_NODES = (c_ast.Pragma, c_ast.TypeDecl, c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.FuncDecl,
               c_ast.IdentifierType, c_ast.Typename, c_ast.ParamList)


def _marks(fn: c_ast.FuncDef) -> list:
    """The nodes of a function that printing keeps as they are: its statements and expressions
    (the reference retypes parameters, resolves typedefs and drops pragmas)."""
    return [fn.decl, *(n for n in _walk(fn.body) if not isinstance(n, _TYPE_NODES))]


def reference_lines(reference: str, functions: list, resolved: str, shown: str, name: str) -> tuple[int, ...]:
    """For each line of the reference, the line of the user's file it was printed from (0 for
    none: a brace of its own); () where the printed functions do not pair node for node with
    the file's `functions` (helpers, then the kernel).  Refuses, naming the user's line, a
    reference that t2c cannot read back (a t2c bug: the file's own text parsed).  Reads it as
    kernel `name`'s readers will (`Kernel.tree`): its one parse."""
    try:
        printed = [e for e in reference_tree(reference, f"<{name} reference>").ext if isinstance(e, c_ast.FuncDef)]
    except UserError as e:
        raise UserError(f"t2c cannot read back its reference of this code ({e.message}); this is a t2c "
                        "bug", file=shown, line=_line_of_text(reference, e.line, functions, resolved),
                        hint="report it with this file; rewriting the line differently may avoid it") from None
    out = [0] * len(reference.splitlines())
    if len(printed) != len(functions):
        return ()
    for new, old in zip(printed, functions):
        a, b = _marks(new), _marks(old)
        if [type(x) for x in a] != [type(x) for x in b]:
            return ()
        for x, y in zip(a, b):
            if x.coord and y.coord and y.coord.file == resolved and not out[x.coord.line - 1]:
                out[x.coord.line - 1] = y.coord.line
    return tuple(out)


def _line_of_text(reference: str, line, functions, resolved: str) -> int | None:
    """The user's line whose statement prints as the reference's `line` (its first)."""
    lines = reference.splitlines()
    want = lines[line - 1].strip() if line and 0 < line <= len(lines) else None
    for fn in functions:
        for n in _marks(fn):
            if n.coord and n.coord.file == resolved and cprint(n).splitlines()[:1] == [want]:
                return n.coord.line
    return functions[-1].coord.line if functions and functions[-1].coord else None


#: the standard headers' type names a kernel may use without including them (a compiler refuses it too)
_STANDARD_TYPES = {**dict.fromkeys(("size_t", "ptrdiff_t"), "<stddef.h>"),
                   **{f"{u}int{b}_t": "<stdint.h>" for u in ("", "u") for b in (8, 16, 32, 64)},
                   "bool": "<stdbool.h>"}


def _undeclared_type(line: str, text: str) -> tuple[str, str] | None:
    """(name, header) of a standard type name the error's line uses that the preprocessed file never declares."""
    for name, header in _STANDARD_TYPES.items():
        if re.search(rf"\b{name}\b", line) and not re.search(rf"\btypedef\b[^;]*\b{name}\s*;", text):
            return name, header
    return None


def _find_function(ast: c_ast.FileAST, name: str) -> c_ast.FuncDef | None:
    return next((e for e in ast.ext if isinstance(e, c_ast.FuncDef) and e.decl.name == name), None)


def declared_types(fn: c_ast.FuncDef, typedefs: dict) -> dict[str, str]:
    """Each integer parameter's type as the user's declaration of the kernel has it, so that the
    drop-in declares the same function: `size_t` kept (CUDA knows it), other typedefs resolved."""
    out = {}
    for p in fn.decl.type.args.params if fn.decl.type.args else ():
        if isinstance(p, c_ast.Decl) and isinstance(p.type, c_ast.TypeDecl) \
                and isinstance(p.type.type, c_ast.IdentifierType):
            written = " ".join(p.type.type.names)
            out[p.name] = written if written == "size_t" else resolved(written, typedefs)
    return out


def size_bindings(path: Path, fn: c_ast.FuncDef | None, annotated) -> tuple[str, ...]:
    """`-D` bindings that make each size macro the kernel's runtime size parameter.

    A PolyBench file's sizes are macros (`N`) with runtime twins (`n`); its init functions
    and some kernels (heat-3d's `t <= TSTEPS`) use the macro, and `_PB_N` means either one
    depending on the header's POLYBENCH_LOOP_BOUND semantics.  Binding `N=n` makes every
    one of them the parameter, so the reference and the original init follow the sizes they
    are called with.  The header's own size block is skipped once any size is defined, so a
    size macro without a parameter keeps its default value explicitly.  Only for files with
    dataset macros, or sizes annotated `t2c: size NAME macro=M`; none elsewhere."""
    if fn is None or fn.decl.type.args is None:
        return ()
    ints = [p.name for p in fn.decl.type.args.params if isinstance(p, c_ast.Decl)
            and isinstance(p.type, c_ast.TypeDecl) and isinstance(p.type.type, c_ast.IdentifierType)
            and p.type.type.names[-1] in ("int", "long", "unsigned", "size_t", "short")]
    base = macros(path, None)
    explicit = {note["macro"]: name for name, note in annotated.items() if "macro" in note}
    if not has_datasets(base):
        return tuple(f"{m}={n}" for m, n in explicit.items() if n in ints and m in base)
    small = macros(path, DATASETS[0])
    binding = {p.upper(): p for p in ints if p.upper() in base} | \
        {m: n for m, n in explicit.items() if n in ints and m in base}
    for m, v in base.items():                            # dataset-dependent sizes left unbound
        if m not in binding and int_value(v) is not None and small.get(m) != v and not m.startswith("_"):
            binding[m] = v
    return tuple(f"{m}={n}" for m, n in binding.items())


def _outs_fully_written(k: Kernel, annotated: dict) -> Kernel:
    """`out` arrays the reference does not write entirely are `inout` (the rest keeps its values)."""
    if not any(a.intent == "out" and a.name not in annotated for a in k.arrays):
        return k
    try:
        written = fully_written(k)
    except Exception:                                  # the model cannot tell: stay safe
        written = {}
    arrays = tuple(a if a.intent != "out" or a.name in annotated or written.get(a.name)
                   else replace(a, intent="inout") for a in k.arrays)
    return k.replace(arrays=arrays)


def reference_file(k: Kernel) -> str:
    """The IS as one C file: annotations, the original init, the reference.

    Reading this file with `read_c` gives back a kernel with the same key."""
    notes = [f"t2c reference for {k.name}" + (f" (from {k.origin.where()})" if k.origin else "")]
    if k.description:
        notes.append(f"t2c: description {k.description}")
    for s in k.sizes:
        parts = ([f"macro={s.macro}"] if s.macro else []) + [f"{d}={v}" for d, v in s.presets]
        notes.append(f"t2c: size {s.name} {' '.join(parts)}".rstrip())
    for a in k.arrays:
        notes.append(f"t2c: array {a.name}{''.join(f'[{e}]' for e in a.shape)} {a.intent}")
    notes += [f"t2c: constraint {c}" for c in k.constraints]
    for d in k.domains:
        if d.kind != "original":
            notes.append(f"t2c: domain {d.target} {d.text()}")
    notes += [f"t2c: tolerance {name} {units}" for name, units in k.tolerances]
    head = "/*\n" + "".join(f" * {n}\n" for n in notes) + " */\n"
    return head + "#include <math.h>\n\n" + (k.init + "\n" if k.init else "") + k.reference
