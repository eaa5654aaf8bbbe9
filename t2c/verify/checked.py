"""The reference checking itself: what a suite is drawn with.

    instrument(kernel) -> (checked C, sites);  fault(kernel, stderr, driver, sites, sizes)

Takes the IS; gives the reference with every subscript computed from data checked against its
extent and signed arithmetic checked for overflow (UBSan), and reads a failed run back as a
`ReferenceFault` naming the access (None for other failures). Affine subscripts need no check:
the frontends prove them in bounds. Every drawn input lies in the declared domains, so a fault
is the spec's or the C source's, never a candidate's. The checks change no computed value. It also
counts the loop iterations a run executes (`t2c_work`): a draw's cost that no machine load changes.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np
from pycparser import c_ast

from ..errors import UserError
from ..ir import Kernel
from ..ir.kernel import eval_extent
from .compare import POISON_BITS, is_poison, poison

#: Added to the reference flags for a checked build.
CHECK_FLAGS = ("-fsanitize=signed-integer-overflow", "-fno-sanitize-recover=all")

#: Exit status of a checked reference whose subscript leaves its extent.
EXIT_BOUNDS = 5

CHECKER = rf"""
static unsigned long long t2c_work;   /* loop iterations run: a draw's cost, the same on any machine */
static long t2c_ix(long i, long n, int site, int dim)
{{
  if (i < 0 || i >= n) {{
    fprintf(stderr, "t2c-ref: out-of-bounds: site %d dimension %d index %ld extent %ld\n", site, dim, i, n);
    exit({EXIT_BOUNDS});
  }}
  return i;
}}
"""

_BOUNDS = re.compile(r"t2c-ref: out-of-bounds: site (\d+) dimension (\d+) index (-?\d+) extent (-?\d+)")
_UBSAN = re.compile(r"_driver\.c:(\d+):\d+: runtime error: (.*)")


class ReferenceFault(UserError):
    """The reference reads out of bounds or overflows on inputs from the declared domains."""


@dataclass(frozen=True)
class Site:
    access: str                # the access as the reference writes it: X[ids[e]][f]
    statement: str             # the statement holding it
    inputs: tuple[str, ...]    # the inputs its checked subscripts read


@functools.lru_cache(maxsize=16)
def instrument(k: Kernel) -> tuple[str, tuple[Site, ...]]:
    """(the reference's C with its checks, the checked sites); a pure function of the kernel,
    made once per kernel in a process: every checked reference run asks for it (a suite's draws,
    hundreds in a ladder), and instrumenting the reference is most of a draw's own work."""
    from ..ir.csyntax import clone, cprint, kernel_definition, names, parse_c
    ast = clone(k.tree)                     # its own copy: the checks edit subscripts and loops
    fn = kernel_definition(ast)
    parents, loop_vars = {}, set()
    for node in _walk(fn, parents):
        if isinstance(node, c_ast.For) and isinstance(node.init, c_ast.Assignment) \
                and isinstance(node.init.lvalue, c_ast.ID):
            loop_vars.add(node.init.lvalue.name)
    fixed = loop_vars | {s.name for s in k.sizes}
    arrays = {a.name: a for a in k.arrays if a.rank}
    inputs = {x.name for x in k.inputs}
    sites: list[Site] = []
    for top in [n for n in parents if isinstance(n, c_ast.ArrayRef)
                and not (isinstance(parents[n], c_ast.ArrayRef) and parents[n].name is n)]:
        chain, base = [], top
        while isinstance(base, c_ast.ArrayRef):
            chain.append(base)
            base = base.name
        a = arrays.get(base.name) if isinstance(base, c_ast.ID) else None
        if a is None or len(chain) != a.rank:
            continue
        dims = [(a.rank - 1 - i, ref) for i, ref in enumerate(chain)]
        # an array read or a local in a subscript names something that is not fixed
        free = [(d, ref) for d, ref in dims if not names(ref.subscript) <= fixed]
        if not free:
            continue
        stmt = top                 # the assignment, or the expression a loop or `if` holds
        while not isinstance(stmt, (c_ast.Assignment, c_ast.Return)) and \
                not isinstance(parents[stmt], (c_ast.Compound, c_ast.For, c_ast.If, c_ast.FuncDef)):
            stmt = parents[stmt]
        site = len(sites)
        sites.append(Site(cprint(top), cprint(stmt).strip().rstrip(";"),
                          tuple(sorted(set().union(*(names(r.subscript) for _, r in free)) & inputs))))
        for d, ref in free:
            extent = parse_c(f"long t2c_x = {a.shape[d]};", "<extent>").ext[0].init
            ref.subscript = c_ast.FuncCall(c_ast.ID("t2c_ix"), c_ast.ExprList(
                [ref.subscript, extent, c_ast.Constant("int", str(site)), c_ast.Constant("int", str(d))]))
    _count_iterations(fn)
    return cprint(ast) + "\n", tuple(sites)


def _count_iterations(fn) -> None:
    """Every loop body of `fn` starts with `t2c_work++;` (CHECKER declares it, the driver prints it):
    the iterations a run executes, its cost as a count, which unlike its seconds does not depend on
    the machine or its load, so that a seed draws the same suite everywhere (synth's budgets)."""
    loops = [n for n in _walk(fn, {}) if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile))]
    for loop in loops:
        count = c_ast.UnaryOp("p++", c_ast.ID("t2c_work"))
        body = loop.stmt
        if isinstance(body, c_ast.Compound):
            items = body.block_items or []
        else:
            items = [body] if body is not None else []
        loop.stmt = c_ast.Compound([count, *items])


def out_poison(k: Kernel, sizes: dict) -> dict:
    """The starting contents of a checked run's floating-point `out` arrays: the poison the
    candidate's get too (compare.POISON_BITS, a NaN payload no arithmetic produces), so that
    `unwritten` can tell an element the reference never writes.  Integer arrays start at zero as
    before: any integer may be a value the reference wrote."""
    return {a.name: poison(a.dtype, tuple(eval_extent(e, sizes) for e in a.shape)) for a in k.arrays
            if a.intent == "out" and a.dtype in POISON_BITS}


def unwritten(k: Kernel, outputs: dict, sizes: dict) -> ReferenceFault | None:
    """An `out` array whose elements the reference does not all write (after `out_poison`): the
    annotation is wrong (a candidate is held to every element), so the error says how to fix it."""
    for a in k.arrays:
        if a.intent == "out" and a.dtype in POISON_BITS:
            left = is_poison(outputs[a.name], a.dtype)
            if left.any():
                first = "".join(f"[{i}]" for i in np.argwhere(left)[0])
                o = k.origin
                return ReferenceFault(
                    f"{k.name}: `{a.name}` is annotated `out`, but the reference leaves {a.name}{first} "
                    f"unwritten at sizes {dict(sizes)} ({int(left.sum())} of {left.size} elements); an "
                    f"`out` array's every element is the kernel's result",
                    file=o.file if o else None, line=o.line if o else None,
                    hint=f"annotate it `t2c: array {a.name}{''.join(f'[{e}]' for e in a.shape)} inout` "
                         f"(the elements it does not write keep their input values), or write every element")
    return None


def fault(k: Kernel, stderr: str, driver: str, sites: tuple[Site, ...], sizes: dict) -> ReferenceFault | None:
    if m := _BOUNDS.search(stderr):
        site, dim, index, extent = sites[int(m.group(1))], *map(int, m.group(2, 3, 4))
        domains = {d.target: d for d in k.domains}
        named = [f"'{x}' ({domains[x].text()})" if x in domains else f"'{x}'" for x in site.inputs]
        whose = (f"the domain of {', '.join(named)} allows" if named else "the inputs' domains allow")
        where, statement = _statement(k, _unchecked(site.statement))
        spec = k.origin is not None and str(k.origin.file).endswith(".md")
        array = site.access.split("[", 1)[0]
        shape = next((a.shape for a in k.arrays if a.name == array), ())
        top = f"{shape[dim]} - 1" if dim < len(shape) else "n - 1"
        return ReferenceFault(
            f"{k.name}: the reference reads {site.access} out of bounds (dimension {dim} index {index}, "
            f"outside 0..{extent - 1}) in {statement} with inputs drawn at sizes {sizes}: "
            f"{whose} values past the extent, so the drawn inputs are invalid there", **where,
            hint=("narrow the domain (`domains:`) or the sizes (`constraints:`) so that every drawn value "
                  "indexes inside the array" if spec else
                  f"give the values their range, `// t2c: domain {site.inputs[0] if site.inputs else 'idx'} "
                  f"integers(0, {top})` (its bounds are inclusive, C expressions in the sizes), or '{array}' "
                  f"its extent, `// t2c: array {array}[...]`") + "; this is no candidate's fault")
    if m := _UBSAN.search(stderr):
        lines = driver.splitlines()
        line = int(m.group(1))
        where, statement = _statement(k, lines[line - 1].strip() if 0 < line <= len(lines) else "?")
        what = m.group(2).strip()
        if what.startswith("signed integer overflow"):
            detail = what.partition(":")[2].strip()
            return ReferenceFault(
                f"{k.name}: signed integer overflow in the reference: {detail}, in {statement} with "
                f"inputs drawn at sizes {sizes}: the declared types are too narrow for the inputs' "
                "domains", **where,
                hint="declare the output int64 (`long`), convert with long(...) before the arithmetic, or "
                     "narrow the domains; this is no candidate's fault")
        return ReferenceFault(f"{k.name}: the reference has undefined behaviour: {what}, in {statement} "
                              f"with inputs drawn at sizes {sizes}", **where)
    return None


def _unchecked(c_statement: str) -> str:
    """The statement as written: each `t2c_ix(e, extent, site, dim)` of the checked driver as e."""
    while (at := c_statement.find("t2c_ix(")) >= 0:
        depth, i, first = 0, at + len("t2c_ix("), None
        for j in range(i, len(c_statement)):
            ch = c_statement[j]
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0 and first is None:
                first = j
            if depth < 0:
                c_statement = c_statement[:at] + c_statement[i:first] + c_statement[j + 1:]
                break
        else:
            break
    return c_statement


def _statement(k: Kernel, c_statement: str) -> tuple[dict, str]:
    """(file/line/col for the error, the statement as the message names it).  A spec's fault
    points at the spec's statement, with the reference's C beside it (the accumulators the
    compiler made up are no names of the user's); a C source's at the statement's line where the
    reference's lines map to the file's, else at the kernel."""
    c_statement = c_statement.rstrip(";")
    if k.origin is None:
        return {}, f"`{c_statement}`"
    where = dict(file=k.origin.file, line=k.origin.line, col=k.origin.col)
    if str(k.origin.file).endswith(".md"):
        from ..frontends.prose import statement_of
        if found := statement_of(k.origin.file, c_statement):
            line, text = found
            return dict(where, line=line, col=1), f"the statement `{text}` (the reference's `{c_statement}`)"
    lines = k.reference.splitlines()
    at = next((i for i, text in enumerate(lines) if c_statement and c_statement in text), None)
    if at is not None and at < len(k.origin.lines) and k.origin.lines[at]:
        where = dict(where, line=k.origin.lines[at], col=1)     # the user's line of the statement
    return where, f"`{c_statement}`"


def _walk(node, parents: dict):
    """Every node under `node` (itself included), recording each one's parent."""
    yield node
    for _, child in node.children():
        parents[child] = node
        yield from _walk(child, parents)
