"""Why each loop of a reference is parallel or not: what `t2c gen --explain` prints.

`loop_reasons(an)` gives one line per loop of the model: `parallel`, `carries only a reduction`
(the accumulation's order), or the first dependence it carries, named by its kind (flow: a value
read later; anti: a read before an overwrite; output: two writes), its array or scalar, its source
and target statements with their lines in the reference (the kernel as t2c reads it, which
`explain` prints numbered), and its distance along the loop."""
from __future__ import annotations

import islpy as isl

from .dependences import Analysis
from .model import Loop


def numbered(reference: str) -> str:
    return "".join(f"{i:4d}  {line}\n" for i, line in enumerate(reference.splitlines(), 1))


def explain(an: Analysis) -> str:
    """The reference, numbered, then `loop_reasons`."""
    return numbered(an.program.kernel.reference) + "\n" + "\n".join(loop_reasons(an)) + "\n"


def loop_reasons(an: Analysis) -> list[str]:
    facts = {(f.var, f.depth, f.statements): f for f in an.loops}
    sched = an.schedule(an.program.body)
    out = []

    def go(nodes, depth):
        for n in nodes:
            if not isinstance(n, Loop):
                continue
            stmts = tuple(s.stmt.name for s in n.statements())
            f = facts.get((n.var, depth, stmts))
            head = f"{'  ' * depth}loop {n.var}: "
            if f is not None and f.parallel:
                out.append(head + "parallel")
            elif f is not None and f.reduction:
                out.append(head + "carries only a reduction (the order of an accumulation)")
            else:
                out.append(head + (carried(an, sched, stmts, 2 * depth + 1, n.var) or "carries a dependence"))
            go(n.body, depth + 1)
    go(an.program.body, 0)
    return out


def carried(an: Analysis, sched, stmts, dim: int, var: str) -> str | None:
    names = sorted({acc[0] for s in an.model.specs.values() for acc in s.accesses})
    for kind in ("flow", "anti", "output"):
        for name in names:
            deps = an.model.dependences(sched, arrays=[name])[kind]
            for src, dst, m in an.model.deps_of(an.model.between(deps, stmts, stmts)):
                gap = _distances(m.apply_domain(_one(sched, src)).apply_range(_one(sched, dst)), dim)
                if gap is None:
                    continue
                shown = name[4:] if name.startswith("t2c_") else name
                a, b = an.program.statement(src), an.program.statement(dst)
                what = {"flow": f"{b.name} reads {shown} after {a.name} writes it",
                        "anti": f"{b.name} overwrites {shown} after {a.name} reads it",
                        "output": f"{b.name} writes {shown} again after {a.name}"}[kind]
                where = [f"{x.name} `{' '.join(x.text.split())}` line {x.line}" for x in ([a] if a is b else [a, b])]
                return f"carries {'an' if kind != 'flow' else 'a'} {kind} dependence: {what} ({'; '.join(where)}), {gap} along {var}"
    return None


def _one(sched, stmt: str):
    maps = []
    sched.foreach_map(maps.append)
    return next(m for m in maps if m.get_space().get_tuple_name(isl.dim_type.in_) == stmt)


def _distances(times: isl.Map, dim: int) -> str | None:
    """The distances at time dimension `dim` of pairs equal before it and apart at it, as text."""
    sp = times.get_space()
    for i in range(dim):
        c = isl.Constraint.equality_alloc(sp)
        times = times.add_constraint(c.set_coefficient_val(isl.dim_type.in_, i, 1)
                                     .set_coefficient_val(isl.dim_type.out, i, -1))
    delta = times.deltas()
    n = delta.dim(isl.dim_type.set)
    delta = delta.project_out(isl.dim_type.set, dim + 1, n - dim - 1).project_out(isl.dim_type.set, 0, dim)
    delta = delta.subtract(isl.Set.read_from_str(delta.get_ctx(), "{ [0] }").align_params(delta.get_space()))
    if delta.is_empty():
        return None
    lo = delta.lexmin()
    if lo.is_singleton():
        value = lo.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
        return f"distance {abs(value)}" if delta.is_singleton() else f"distances from {abs(value)}"
    sample = delta.sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
    return f"distances that depend on the sizes (e.g. {abs(sample)})"
