"""Prose frontend: a Markdown kernel spec (docs/specs.md) -> the IS.

    read_spec(path) -> Kernel;  load_spec(path) -> Spec;  NeedsLLM
    kernel_from_statements(spec, statements, where), kernel_from_c(spec, function, where)

Takes a spec: the front matter is checked (spec.py), the ```t2c blocks parsed (language.py) and
compiled to one annotated C99 function (compile.py), which the C frontend reads, so everything
downstream treats a spec like any C kernel. Gives one validated `Kernel`, or raises `UserError`
naming spec.md:LINE:COL. A spec without a formal block raises `NeedsLLM` (reported
"needs-llm", never faked) unless the `llm` or `hybrid` generator writes its formal part, read
with the two `kernel_from_*`; the front matter stays the spec's own. docs/specs.md.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ...errors import UserError
from ...ir import Kernel, Origin
from .compile import Compiler
from .language import SpecSyntaxError, parse
from .spec import Spec, load_spec

__all__ = ["NeedsLLM", "Spec", "kernel_from_c", "kernel_from_statements", "load_spec",
           "read_spec", "spec_to_c", "statement_of"]


class NeedsLLM(UserError):
    """The spec is prose only: writing its IS needs an LLM backend, and none is configured."""


def annotations(spec: Spec) -> list[str]:
    """The `t2c:` annotation lines that carry the spec's declarations to the C frontend."""
    notes = []
    if spec.description:
        notes.append(f"t2c: description {spec.description}")
    for s, presets in spec.sizes.items():
        notes.append(f"t2c: size {s} " + " ".join(f"{d}={v}" for d, v in presets.items()))
    for a in spec.arrays.values():
        notes.append(f"t2c: array {a.name}{''.join(f'[{e}]' for e in a.shape)} {a.intent}")
    notes += [f"t2c: constraint {c}" for c in spec.constraints]
    notes += [f"t2c: domain {name} {text}" for name, text in spec.domains.items()]
    notes += [f"t2c: tolerance {a.name} {a.tolerance}" for a in spec.arrays.values() if a.tolerance is not None]
    return notes


def spec_to_c(spec: Spec) -> tuple[str, int]:
    """(C file text, spec line of the first statement) for a spec with formal blocks."""
    text, line, _ = _spec_to_c(spec)
    return text, line


def _spec_to_c(spec: Spec) -> tuple[str, int, tuple[int, ...]]:
    """spec_to_c's, and the spec line each line of the C text compiles from (0: none)."""
    try:
        statements = parse(spec.blocks)
    except SpecSyntaxError as e:
        raise UserError(e.message, file=spec.path, line=e.line, col=e.col, hint=e.hint) from None
    if not statements:
        raise UserError("the ```t2c block holds no statement", file=spec.path,
                        line=spec.blocks[0][0] - 1, col=1,
                        hint="write the kernel's statements in it, e.g. `y[i] = a*x[i] + y[i]`")
    compiler = Compiler(spec)
    body = compiler.function(statements)
    head = "/*\n" + "".join(f" * {n}\n" for n in annotations(spec)) + " */\n#include <math.h>\n\n"
    return head + body, statements[0].line, (0,) * head.count("\n") + tuple(compiler.spec_lines)


def statement_of(path: str | Path, c_statement: str) -> tuple[int, str] | None:
    """(line, text) of the spec statement that compiled to the reference's `c_statement`, or
    None (no such statement, a prose-only spec, a spec that no longer compiles).

    A fault found in the reference (an overflow, a read out of bounds) names C the user never
    wrote (`acc_r3 += x[k]`); this turns it back into the statement of the spec.  The
    compiler is deterministic, so compiling again gives the same C; the C frontend may
    re-parenthesize it, so the two are compared without blanks and parentheses."""
    import re
    flat = lambda text: re.sub(r"[\s();]", "", text)
    try:
        spec = load_spec(path)
        compiler = Compiler(spec)
        compiler.function(parse(spec.blocks))
    except (UserError, SpecSyntaxError, OSError):
        return None
    want = flat(c_statement)
    line = next((n for text, n in compiler.sources if flat(text) == want), None)
    if line is None:
        return None
    source = Path(path).read_text(encoding="utf-8").splitlines()
    return line, source[line - 1].strip() if 0 < line <= len(source) else ""


def read_spec(path: str | Path) -> Kernel:
    spec = load_spec(path)
    if not spec.blocks:
        raise NeedsLLM(f"'{spec.name}' is prose only (no ```t2c block): writing its IS needs an "
                       "LLM backend, and none is configured", file=spec.path, line=1, col=1,
                       hint="add a formal ```t2c block (docs/specs.md), or run with --generator llm "
                            "(docs/llm.md)")
    return _compiled(spec)


def _compiled(spec: Spec) -> Kernel:
    from ..c import read_c
    text, line, spec_lines = _spec_to_c(spec)
    with tempfile.TemporaryDirectory(prefix="t2c-spec-") as tmp:
        c_file = Path(tmp) / f"{spec.name}.c"
        c_file.write_text(text)
        try:
            kernel = read_c(c_file, spec.name)
        except UserError as e:
            # The C is ours: a refusal here is a t2c bug or a construct the C frontend lacks.
            raise UserError(f"the C frontend refused the reference compiled from this spec: {e}",
                            file=spec.path, line=line, col=1,
                            hint="report this with the spec; `python -m t2c.frontends.prose "
                                 "SPEC` prints the generated C") from None
    # The reference's lines name the spec's statements (a declaration t2c adds: the first one's).
    lines = tuple(spec_lines[n - 1] if 0 < n <= len(spec_lines) else 0 for n in kernel.origin.lines)
    return kernel.replace(origin=Origin(spec.path, spec.name, line, 1, lines if any(lines) else ()),
                          description=spec.description)


def kernel_from_statements(spec: Spec, statements: str, where: str) -> Kernel:
    """The IS of a prose-only spec whose formal statements someone else (a model) wrote.

    Errors name `where` (e.g. "histogram: the model's IS") and the statement's line there."""
    from dataclasses import replace
    return _compiled(replace(spec, path=where, blocks=((1, statements),))).replace(
        origin=Origin(spec.path, spec.name, 1, 1))


def kernel_from_c(spec: Spec, function: str, where: str) -> Kernel:
    """The IS of a prose-only spec from a C99 reference function someone else (a model) wrote.

    The spec's front matter becomes the function's `t2c:` annotations, so shapes, intents,
    presets, constraints and domains are the spec's; the function must have the ABI's
    signature (sizes, scalars, then arrays, as the front matter lists them) and may not
    carry annotations of its own.  Errors name `where` and the line in `function`."""
    from ..c import read_c
    if "t2c:" in function:
        raise UserError("the reference may not carry `t2c:` annotations", file=where, line=1, col=1,
                        hint="the spec's front matter gives shapes, intents and domains; remove them")
    head = "/*\n" + "".join(f" * {n}\n" for n in annotations(spec)) + " */\n#include <math.h>\n\n"
    offset = head.count("\n")
    with tempfile.TemporaryDirectory(prefix="t2c-spec-") as tmp:
        c_file = Path(tmp) / f"{spec.name}.c"
        c_file.write_text(head + function)
        try:
            kernel = read_c(c_file, spec.name)
        except UserError as e:
            line = (e.line - offset) if e.line and e.line > offset else 1
            raise UserError(e.message.replace(str(c_file), where), file=where, line=line,
                            col=e.col, hint=e.hint) from None
    want = [*spec.sizes, *spec.scalars, *spec.arrays]
    if list(kernel.params) != want:
        raise UserError(f"the function's parameters are ({', '.join(kernel.params)})", file=where,
                        line=1, col=1, hint=f"write `{spec.name}({', '.join(want)})`: sizes, scalars, "
                        "then arrays, as the front matter lists them")
    for a in kernel.arrays:
        d = spec.arrays[a.name]
        if (a.dtype, a.intent) != (d.dtype, d.intent):
            raise UserError(f"array '{a.name}' is {a.dtype} {a.intent} in the function, "
                            f"{d.dtype} {d.intent} in the spec", file=where, line=1, col=1,
                            hint="declare every array with the spec's element type")
    for s in kernel.scalars:
        if s.intent == "in" and spec.scalars.get(s.name) != s.dtype:
            raise UserError(f"scalar '{s.name}' is {s.dtype} in the function, "
                            f"{spec.scalars.get(s.name)} in the spec", file=where, line=1, col=1)
    return kernel.replace(origin=Origin(spec.path, spec.name, 1, 1), description=spec.description)


def main(argv=None):
    """`python -m t2c.frontends.prose SPEC.md`: print the C a spec compiles to."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    try:
        print(spec_to_c(load_spec(args[0]))[0], end="")
    except UserError as e:
        print(f"t2c: {e}", file=sys.stderr)
        return 2
    return 0
