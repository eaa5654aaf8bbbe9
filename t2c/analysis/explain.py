"""Why each loop of a reference is parallel or not: what `t2c gen --explain` prints.

`loop_reasons(an)` gives one line per loop of the model: `parallel`, `carries only a reduction`
(the accumulation's order), `in order, as written` (a geometric counter), or the first dependence
it carries, named by its kind (flow: a value read later; anti: a read before an overwrite; output:
two writes), its array or scalar, its source and target statements with their lines in the
reference (the kernel as t2c reads it, which `explain` prints numbered), and its distance along
the loop."""
from __future__ import annotations

from .dependences import Analysis
from .isl_bridge import distance_text
from .model import Loop


def numbered(reference: str, origin=None) -> str:
    """The reference, each line numbered as the reasons name it: by the line of the user's file
    it comes from (blank for a line of its own, e.g. a brace), else by its own place."""
    lines = origin.lines if origin is not None else ()
    number = (lambda i: f"{lines[i - 1]:4d}" if i <= len(lines) and lines[i - 1] else "    ") if lines \
        else (lambda i: f"{i:4d}")
    return "".join(f"{number(i)}  {line}\n" for i, line in enumerate(reference.splitlines(), 1))


def explain(an: Analysis) -> str:
    """The reference, numbered, what the model's normalizations noted (`Program.notes`), then
    `loop_reasons`."""
    k = an.program.kernel
    notes = "".join(n + "\n" for n in an.program.notes)
    return numbered(k.reference, k.origin) + "\n" + notes + "\n".join(loop_reasons(an)) + "\n"


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
            if n.geometric:             # its distances would be over values it never takes
                out.append(head + f"in order, as written: a geometric counter (`{n.geometric.step}`, line "
                                  f"{n.geometric.line}; poly runs its body once per value)")
            elif f is not None and f.parallel:
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
                gap = distance_text(m, sched, src, dst, dim)
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
