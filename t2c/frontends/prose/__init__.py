"""Prose frontend: a Markdown kernel spec (docs/specs.md) -> the IS.

    spec.md --spec.py--> front matter checked (sizes, scalars, arrays, domains, tolerance),
                         prose, ```t2c blocks
            --language.py--> statements (indexed assignments, reductions, time loops)
            --compile.py--> one C99 function with `t2c:` annotations
            --C frontend (read_c)--> the Kernel; origin and description point at the spec

Going through the C frontend is deliberate: the reference of a spec is exactly the C
frontend's form, so everything downstream (analysis, generators, verification,
reports) treats a spec like any C kernel, and a spec's IS printed as C
(`reference_file`) reads back to the same key.

`read_spec(path)` gives one validated `Kernel` or raises `UserError` naming
spec.md:LINE:COL.  A spec without a formal block needs an LLM to write its IS; none
is wired in yet, so such a spec raises `NeedsLLM` (a UserError the batch engine
reports as "needs-llm": skipped, never failed and never faked).  `load_spec(path)`
gives the parsed declarations, among them the spec's tolerance, which the IS does
not carry.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ...errors import UserError
from ...ir import Kernel, Origin
from .compile import Compiler
from .language import SpecSyntaxError, parse
from .spec import Spec, load_spec

__all__ = ["NeedsLLM", "Spec", "load_spec", "read_spec", "spec_to_c"]


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
    return notes


def spec_to_c(spec: Spec) -> tuple[str, int]:
    """(C file text, spec line of the first statement) for a spec with formal blocks."""
    try:
        statements = parse(spec.blocks)
    except SpecSyntaxError as e:
        raise UserError(e.message, file=spec.path, line=e.line, col=e.col, hint=e.hint) from None
    if not statements:
        raise UserError("the ```t2c block holds no statement", file=spec.path,
                        line=spec.blocks[0][0] - 1, col=1,
                        hint="write the kernel's statements in it, e.g. `y[i] = a*x[i] + y[i]`")
    body = Compiler(spec).function(statements)
    head = "/*\n" + "".join(f" * {n}\n" for n in annotations(spec)) + " */\n"
    return head + "#include <math.h>\n\n" + body, statements[0].line


def read_spec(path: str | Path) -> Kernel:
    from ..c import read_c
    spec = load_spec(path)
    if not spec.blocks:
        raise NeedsLLM(f"'{spec.name}' is prose only (no ```t2c block): writing its IS needs an "
                       "LLM backend, and none is configured", file=spec.path, line=1, col=1,
                       hint="add a formal ```t2c block (docs/specs.md), or run with an LLM backend")
    text, line = spec_to_c(spec)
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
    return kernel.replace(origin=Origin(spec.path, spec.name, line, 1),
                          description=spec.description)


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
