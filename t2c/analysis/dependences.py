"""Exact dependences of a reference, scalar privatization, and per-loop facts.

    analyze_program(program) -> Analysis

Takes a `Program` (model.py); gives an `Analysis`: `webs` (each local scalar's def-use chains
and the loops each is private to, modelled as an array over them), `deps` (memory-based flow,
anti and output dependences of that expanded model under the original schedule, exact through
isl), `loops` (whether each loop carries a dependence, and whether only a reduction) and
`times`, `legal`, `carries` for any transformed tree over the same statements. Schedules are the
2d+1 form (loop values interleaved with body positions, a descending loop contributing `-v`).
docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .isl_bridge import Model, StmtSpec
from .model import Access, Loop, Program, Stmt, affine, parse_expr


@dataclass
class Web:
    """One live range of a local scalar: the statements that share its values."""
    name: str                      # unique C name (the scalar's, or name_2, name_3, ...)
    scalar: str
    statements: tuple[str, ...]
    private: tuple[str, ...]       # loop variables it is private to, outermost first
    exposed: bool                  # some read may see a value from before any write


@dataclass
class LoopFacts:
    var: str
    depth: int
    statements: tuple[str, ...]
    parallel: bool
    reduction: bool


@dataclass
class Analysis:
    program: Program
    model: Model
    deps: dict                     # "flow" | "anti" | "output" -> isl union map
    webs: dict[str, Web]           # web name -> Web
    web_of: dict[tuple[str, str], str]   # (statement, scalar) -> web name
    loops: list[LoopFacts] = field(default_factory=list)

    @property
    def all_deps(self):
        d = self.deps
        return d["flow"].union(d["anti"]).union(d["output"])

    # -- schedules of loop trees ------------------------------------------------------------
    def times(self, tree: list) -> dict[str, tuple[str, ...]]:
        return tree_times(tree)

    def schedule(self, tree):
        return self.model.schedule(self.times(tree))

    def legal(self, tree) -> bool:
        """Whether running `tree` respects every dependence of the reference."""
        return self.model.respects(self.all_deps, self.schedule(tree))

    def carries(self, tree, loop: Loop, depth: int) -> bool:
        """Whether `loop` (at `depth` in `tree`) carries a dependence; a geometric counter always
        does (its domain holds values it never takes: model._Builder.geometric)."""
        if loop.geometric:
            return True
        stmts = [s.stmt.name for s in loop.statements()]
        return self.model.carries(self.all_deps, self.schedule(tree), stmts, 2 * depth + 1)

    def pointwise(self, tree, array: str, depth: int) -> bool:
        """Whether local array `array` lives within single iterations of the `depth` outermost
        loops around its statements in `tree` (Model.pointwise: one cell an iteration, every
        value read written in the same iteration)."""
        return self.model.pointwise(array, self.schedule(tree), 2 * depth)

    def deps_apart_from(self, webs):
        """`all_deps` but for those through the scalar webs `webs` (held apart, a copy per thread)."""
        skip = {"t2c_" + w for w in webs}
        names = {acc[0] for s in self.model.specs.values() for acc in s.accesses} - skip
        d = self.model.dependences(self.schedule(self.program.body), arrays=sorted(names))
        return d["flow"].union(d["anti"]).union(d["output"])

    def deps_between(self, srcs, dsts):
        return self.model.deps_of(self.model.between(self.all_deps, srcs, dsts))


# -- building -------------------------------------------------------------------------------

def tree_times(tree: list, before: dict | None = None) -> dict[str, tuple[str, ...]]:
    """Each statement's schedule vector in `tree`: per enclosing loop its position and its time
    (negated for a descending loop), then the statement's position.  `before`: id(loop) -> extra
    time dimensions placed ahead of that loop's own, each at position 0 after the first, as
    (the loop variable it reads, its text): the tile loops a hand-tiled nest had above it
    (untiling.py); 0, the first tile, for a statement outside that variable's loop (a declaration
    hoisted above it, which the tiled nest runs again in each tile, alike)."""
    out = {}

    def go(nodes, path):
        for pos, n in enumerate(nodes):
            if isinstance(n, Stmt):
                vec, mine = [], {loop.var for _, loop in path}
                for p, loop in path:
                    for var, dim in (before or {}).get(id(loop), ()):
                        vec += [str(p), dim if var in mine else "0"]
                        p = 0
                    value = n.at[loop.var] if n.at is not None else (loop.time or loop.var)
                    vec += [str(p), value if loop.step > 0 else f"-({value})"]
                out[n.stmt.name] = (*vec, str(pos))
            else:
                go(n.body, path + [(pos, n)])
    go(tree, [])
    return out


def loop_paths(tree) -> dict[str, list[Loop]]:
    """Statement name -> its enclosing Loop nodes, outermost first."""
    out = {}

    def go(nodes, path):
        for n in nodes:
            if isinstance(n, Stmt):
                out[n.stmt.name] = list(path)
            else:
                go(n.body, path + [n])
    go(tree, [])
    return out


def isl_model(prog: Program, rename=None) -> Model:
    """The program's statements as an isl model; `rename(s, a)` gives a scalar access its
    privatized (name, index)."""
    return Model(_specs(prog, rename), prog.sizes, prog.context)


def _specs(prog: Program, rename=None) -> list[StmtSpec]:
    specs = []
    for s in prog.statements:
        acc = []
        for a in s.accesses:
            name, idx = (rename(s, a) if rename and not a.index and a.name in prog.locals
                         and not prog.locals[a.name].shape else (a.name, a.index))
            acc.append((name, idx, a.write))
        updates = (s.atomic,) if s.atomic else ()
        specs.append(StmtSpec(s.name, s.loops, s.domain, tuple(acc), s.conditional, updates,
                              _cells(prog, s) if s.atomic else ()))
    return specs


def _cells(prog: Program, s) -> tuple[str, ...]:
    """Bounds of the cells an atomic update may reach: its array's extents, where affine."""
    local = prog.locals.get(s.atomic)
    shape = local.shape if local else prog.kernel.array(s.atomic).shape
    index = next(a.index for a in s.accesses if a.atomic)
    out = []
    for d, ext in enumerate(shape):
        if index[d] == f"t2c_cell{d}":
            try:
                out.append(f"0 <= t2c_cell{d} < {affine(parse_expr(ext), set(prog.sizes), 'extent')}")
            except Exception:                  # an extent isl cannot read: the cell stays unbounded
                pass
    return tuple(out)


def _scalars(prog: Program) -> list[str]:
    return [n for n, v in prog.locals.items() if not v.shape]


def _common_prefix(paths: list[list[Loop]]) -> list[Loop]:
    out = []
    for level in zip(*paths):
        if all(l is level[0] for l in level):
            out.append(level[0])
        else:
            break
    return out


def analyze_program(prog: Program) -> Analysis:
    """Dependences and loop facts of a program (see the module docstring)."""
    base = isl_model(prog)
    empty = Analysis(prog, base, {}, {}, {})
    original = base.schedule(empty.times(prog.body))
    webs, web_of = {}, {}
    for scalar in _scalars(prog):                 # one scalar at a time: flows stay apart
        w, wo = find_webs_one(prog, base, original, scalar)
        webs.update(w)
        web_of.update(wo)

    def rename(s, a: Access):
        w = webs[web_of[(s.name, a.name)]]
        return "t2c_" + w.name, tuple(w.private)
    model = isl_model(prog, rename)
    an = Analysis(prog, model, {}, webs, web_of)
    an.deps = model.dependences(model.schedule(an.times(prog.body)))
    an.loops = loop_facts(an)
    return an


def find_webs_one(prog: Program, base: Model, schedule, scalar: str):
    paths = loop_paths(prog.body)
    pairs, exposed = base.value_flow(schedule, [scalar])
    users = [s.name for s in prog.statements if any(a.name == scalar for a in s.accesses)]
    parent = {u: u for u in users}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for a, b, _ in pairs:
        parent[find(a)] = find(b)
    groups: dict[str, list[str]] = {}
    for u in users:
        groups.setdefault(find(u), []).append(u)
    webs, web_of = {}, {}
    for i, members in enumerate(sorted(groups.values(), key=lambda g: int(g[0][1:]))):
        name = scalar if i == 0 else f"{scalar}_{i + 1}"
        reads_exposed = any(m in exposed for m in members)
        common = _common_prefix([paths[m] for m in members])
        private = []
        if not reads_exposed:
            mine = [m for a, b, m in pairs if a in members]
            for d, loop in enumerate(common):
                if all(Model.equal_dims(m, [(d, d)]) for m in mine):
                    private.append(loop.var)
                else:
                    break
        webs[name] = Web(name, scalar, tuple(members), tuple(private), reads_exposed)
        for m in members:
            web_of[(m, scalar)] = name
    return webs, web_of


def loop_facts(an: Analysis) -> list[LoopFacts]:
    out = []
    sched = an.schedule(an.program.body)
    deps = an.all_deps

    def go(nodes, depth):
        for n in nodes:
            if isinstance(n, Loop):
                stmts = tuple(s.stmt.name for s in n.statements())
                if n.geometric:                  # in order, as written (Analysis.carries)
                    out.append(LoopFacts(n.var, depth, stmts, False, False))
                else:
                    carried = an.model.carries(deps, sched, stmts, 2 * depth + 1)
                    out.append(LoopFacts(n.var, depth, stmts, not carried,
                                         carried and _only_reductions(an, n, depth)))
                go(n.body, depth + 1)
    go(an.program.body, 0)
    return out


def _only_reductions(an: Analysis, loop: Loop, depth: int) -> bool:
    """A carried loop whose carried dependences are all between instances of one
    statement that accumulates into one element (X op= ..., X = X op ...) not indexed
    by the loop: the order of the accumulation is all that the loop carries."""
    sched = an.schedule(an.program.body)
    stmts = [s.stmt for s in loop.statements()]
    names = [s.name for s in stmts]
    deps = an.all_deps
    for st in stmts:
        others = [n for n in names if n != st.name]
        if others:
            cross = an.model.between(deps, [st.name], others).union(
                an.model.between(deps, others, [st.name]))
            if an.model.carries(cross, sched, names, 2 * depth + 1):
                return False
        own = an.model.between(deps, [st.name], [st.name])
        if not an.model.carries(own, sched, [st.name], 2 * depth + 1):
            continue
        w = st.writes()
        if len(w) != 1 or loop.var in _names(" ".join(w[0].index)):
            return False
        acc = w[0]
        if not any(r.name == acc.name and r.index == acc.index for r in st.reads()):
            return False
        name = acc.name
        index = acc.index
        if not acc.index and name in an.program.locals:      # an expanded scalar web
            web = an.webs[an.web_of[(st.name, name)]]
            index = web.private
        rest = own.subtract(an.model.same_cell(st.name, index))
        if an.model.carries(rest, sched, [st.name], 2 * depth + 1):
            return False
    return True


def _names(text: str) -> set[str]:
    import re
    return set(re.findall(r"[A-Za-z_]\w*", text))
