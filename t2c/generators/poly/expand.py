"""Arrays that every iteration of a host loop chain fills and then reads back, one copy per
iteration in device memory, so that the chain's loops become grid dimensions.

    expand(analysis, plan) -> Analysis | None

Takes a program and plan whose top-level host loop chain (unit steps) is joined only through
arrays each iteration writes entirely before reading (oneblock.private_arrays: doitgen's `sum`);
gives the program with `X_each[r][q][...]` in their place, which `NAME_device` takes from the
stream-ordered pool and copies back from the last iteration. `lower.expanded` keeps it only
where its plan runs fewer loops in order. Refuses (None) anything else, including an iteration
that leaves a cell unwritten. docs/poly.md, "A copy per iteration".
"""
from __future__ import annotations

import copy
import re
from dataclasses import replace
from types import SimpleNamespace

from pycparser import c_ast

from ...analysis import Analysis
from ...analysis.model import base_and_subscripts, parse_expr
from .ctext import rewrite
from .mapping import HostLoop, Plan
from .oneblock import chain_of, launches, private_arrays
from .reduce import fresh_name
from .schedule import reanalyzed

_PLAIN = re.compile(r"[\w\s+\-*()]*")        # bounds that read the same in C and in isl


def expand(an: Analysis, plan: Plan) -> Analysis | None:
    """The first top-level host loop chain of `plan` with arrays to expand, expanded."""
    prog = an.program
    p = SimpleNamespace(an=an, plan=plan, k=prog.kernel)
    for h in (it for it in plan.items if isinstance(it, HostLoop)):
        chain, _ = chain_of(h)
        if any(l.step != 1 or l.time is not None or not _PLAIN.fullmatch(f"{l.lower} {l.upper}") for l in chain):
            continue
        mine = {s for l in launches(h) for s in l.statements()}
        arrays = [x for x in private_arrays(p, h) if _only_here(prog, x, mine) and _whole(an, x, mine)]
        if arrays:
            return _expanded(an, chain, mine, arrays)
    return None


def _only_here(prog, x: str, mine: set[str]) -> bool:
    """Whether only the chain's statements touch array `x`."""
    return all(st.name in mine for st in prog.statements if any(a.name == x for a in st.accesses))


def _whole(an: Analysis, x: str, mine: set[str]) -> bool:
    """Whether the chain's statements write every cell of `x` (its final value is then the
    last iteration's copy, all of it)."""
    shape = an.program.kernel.array(x).shape
    if not shape or not all(_PLAIN.fullmatch(e) for e in shape):
        return False
    return an.model.covers(x, shape, stmts=sorted(mine))


def _expanded(an: Analysis, chain, mine: set[str], arrays: list[str]) -> Analysis:
    prog = an.program
    k = prog.kernel
    taken = set(k.params) | set(prog.locals) | {v for st in prog.statements for v in st.loops}
    extents = [_extent(l) for l in chain]
    offsets = [l.var if l.lower.strip() == "0" else f"{l.var} - ({l.lower})" for l in chain]
    each = {}
    for x in arrays:
        taken.add(name := fresh_name(f"{x}_each", taken))
        each[x] = name
    lead = [parse_expr(o) for o in offsets]

    def pick(n):
        if not isinstance(n, c_ast.ArrayRef):
            return None
        base, subs = base_and_subscripts(n)
        if not (isinstance(base, c_ast.ID) and base.name in each):
            return None
        ref = c_ast.ID(each[base.name])
        for sub in [*copy.deepcopy(lead), *subs]:
            ref = c_ast.ArrayRef(ref, sub)
        return ref

    statements = []
    for st in prog.statements:
        if st.name not in mine or not any(a.name in each for a in st.accesses):
            statements.append(st)
            continue
        node = rewrite(copy.deepcopy(st.node), pick)
        accesses = tuple(replace(a, name=each[a.name], index=(*offsets, *a.index)) if a.name in each else a
                         for a in st.accesses)
        statements.append(replace(st, node=node, accesses=accesses))
    kernel = k.replace(params=k.params + tuple(each.values()),
                       arrays=k.arrays + tuple(replace(k.array(x), name=e, intent="inout",
                                                       shape=(*extents, *k.array(x).shape)) for x, e in each.items()))
    return reanalyzed(an, statements, prog.locals, kernel=kernel,
                       expanded={e: (x, tuple(extents)) for x, e in each.items()})


def _extent(l) -> str:
    """A loop's trip count as C (`nq` for q from 0 to nq - 1)."""
    m = re.fullmatch(r"\(*\s*(\w+)\s*-\s*1\s*\)*", l.upper.strip())
    bare = m and l.upper.count("(") == l.upper.count(")")
    return m[1] if bare and l.lower.strip() == "0" else f"({l.upper}) - ({l.lower}) + 1"
