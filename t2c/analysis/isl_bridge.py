"""All use of islpy in t2c: sets, maps and questions about them, behind plain data.

    Model(specs, ...);  StmtSpec;  budget(operations);  BudgetExceeded

Takes statements as `StmtSpec`s (name, loop variables, affine constraints, accesses: text over C
names) and schedules as a time vector per statement; answers dependences under a schedule,
legality, carried dimensions and distances, value-based flow for scalars, covering writes,
per-iteration copies, arrays living within one iteration, bounding boxes and instance counts. C
names are prefixed `v_` on the way in (isl's words may be C names) and stripped on the way out.
Nothing else in t2c imports islpy (tests/test_layers.py holds that); `budget` bounds isl's work
per kernel. docs/poly.md, "The model and its normalizations".
"""
from __future__ import annotations

import itertools
import re
from contextlib import contextmanager
from dataclasses import dataclass

import islpy as isl

_IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")
_ISL_WORDS = {"and", "or", "not", "floor", "mod"}


@dataclass(frozen=True)
class StmtSpec:
    name: str
    loops: tuple[str, ...]
    domain: tuple[str, ...]                           # constraints
    accesses: tuple[tuple[str, tuple[str, ...], bool], ...]   # (array, subscripts, write)
    may_write: bool = False
    updates: tuple[str, ...] = ()                     # arrays it updates atomically: pairs of such
    cells: tuple[str, ...] = ()                       # updates order nothing; constraints on their cells


def _v(text: str) -> str:
    return _IDENT.sub(lambda m: m.group(1) if m.group(1) in _ISL_WORDS else "v_" + m.group(1), text)


def _unv(text: str) -> str:
    return re.sub(r"\bv_(\w+)", r"\1", text)


def _inequality(terms: list[tuple[int, str]], const: int, equality: bool) -> str:
    """`sum(a * p) + const >= 0` (`== 0`) as C with the negative terms on the left: `n <= 1000`."""
    side = lambda ts: " + ".join(p if a == 1 else f"{a} * {p}" for a, p in ts)
    pos, neg = [(a, p) for a, p in terms if a > 0], [(-a, p) for a, p in terms if a < 0]
    op = "==" if equality else "<="
    if not neg:
        return f"{side(pos)} {'==' if equality else '>='} {-const}"
    right = side(pos) + (f" + {const}" if const > 0 and pos else f" - {-const}" if const < 0 and pos else "")
    return f"{side(neg)} {op} {right if pos else const}"


class BudgetExceeded(Exception):
    """isl ran past the operations a budget() block allows."""


@contextmanager
def budget(operations: int):
    """Bound the isl work of a block (0: none); raises BudgetExceeded past it.  isl checks the
    count inside its own calls, so a deep nest fails in bounded time instead of hanging.  A
    block that swallowed the failing call's error is caught by a probe at its end."""
    ctx = isl.DEFAULT_CONTEXT
    ctx.set_max_operations(operations)
    ctx.reset_operations()
    try:
        yield
        if operations:
            isl.Set("{ : }")                             # fails when the count ran out meanwhile
    except isl.Error as e:
        if "maximal number of operations" in str(e):
            raise BudgetExceeded(f"more than {operations} isl operations") from None
        raise
    finally:
        ctx.set_max_operations(0)


class Model:
    """The isl form of a set of statements over size parameters."""

    def __init__(self, specs: list[StmtSpec], params: tuple[str, ...], context: tuple[str, ...] = ()):
        self.specs = {s.name: s for s in specs}
        self.params = params
        self._stmt_sets = {}
        self.head = "[" + ", ".join(_v(p) for p in params) + "] -> "
        ctx = " and ".join(_v(c) for c in context)
        self.context = isl.Set(self.head + "{ : " + (ctx or "true") + " }")
        self.domain = isl.UnionSet.empty(self.context.get_space())
        for s in specs:
            self.domain = self.domain.union(isl.UnionSet(self._set(s)))
        self.domain = self.domain.intersect_params(self.context)
        self.reads, self.writes, self.must_writes, self.updates = (self._empty_map(),) * 4
        for s in specs:
            for name, idx, write in s.accesses:
                cons = " and ".join([self._cons(s), *(_v(c) for c in s.cells)]) if name in s.updates \
                    else self._cons(s)
                m = isl.UnionMap(self.head + f"{{ {self._tuple(s)} -> a_{name}[{', '.join(_v(e) for e in idx)}]"
                                 f" : {cons} }}")
                if name in s.updates:           # any cell: a may-access, ordered against all others
                    self.updates = self.updates.union(m)
                if write:
                    self.writes = self.writes.union(m)
                    if not s.may_write and name not in s.updates:
                        self.must_writes = self.must_writes.union(m)
                else:
                    self.reads = self.reads.union(m)

    # -- building ------------------------------------------------------------------------
    def _empty_map(self):
        return isl.UnionMap.empty(self.context.get_space())

    @staticmethod
    def _tuple(s: StmtSpec) -> str:
        return f"{s.name}[{', '.join(_v(l) for l in s.loops)}]"

    @staticmethod
    def _cons(s: StmtSpec) -> str:
        return " and ".join(_v(c) for c in s.domain) or "true"

    def _set(self, s: StmtSpec) -> str:
        return self.head + f"{{ {self._tuple(s)} : {self._cons(s)} }}"

    def stmt_set(self, names) -> isl.UnionSet:
        key = frozenset(names)                  # asked for the same few groups many times
        if key not in self._stmt_sets:
            out = isl.UnionSet.empty(self.context.get_space())
            for n in sorted(key):
                out = out.union(isl.UnionSet(self._set(self.specs[n])))
            self._stmt_sets[key] = out
        return self._stmt_sets[key]

    def schedule(self, times: dict[str, tuple[str, ...]]) -> isl.UnionMap:
        """Time vectors (affine text over each statement's loops) as one union map."""
        width = max(len(t) for t in times.values())
        out = self._empty_map()
        for name, t in times.items():
            s = self.specs[name]
            vec = [_v(e) for e in t] + ["0"] * (width - len(t))
            out = out.union(isl.UnionMap(self.head + f"{{ {self._tuple(s)} -> [{', '.join(vec)}] }}"))
        return out.intersect_domain(self.domain)

    # -- dependences ---------------------------------------------------------------------
    def dependences(self, schedule: isl.UnionMap, arrays=None) -> dict[str, isl.UnionMap]:
        """Memory-based flow, anti and output dependences under `schedule`.

        Every pair of instances touching one element, at least one writing, ordered
        by the schedule; `arrays` restricts them to some arrays.  Two atomic updates of one array
        (`updates`) commute: no dependence joins them (their statements write nothing else)."""
        reads, writes, updates = self.reads, self.writes, self.updates
        if arrays is not None:
            keep = isl.UnionSet.empty(self.context.get_space())
            for a in arrays:
                keep = keep.union(self._array_universe(a))
            reads, writes = reads.intersect_range(keep), writes.intersect_range(keep)
            updates = updates.intersect_range(keep)
        before = schedule.lex_lt_union_map(schedule)
        commute = updates.apply_range(updates.reverse())
        flow = writes.apply_range(reads.reverse()).intersect(before).subtract(commute)
        anti = reads.apply_range(writes.reverse()).intersect(before).subtract(commute)
        output = writes.apply_range(writes.reverse()).intersect(before).subtract(commute)
        return {"flow": flow.coalesce(), "anti": anti.coalesce(), "output": output.coalesce()}

    def covers(self, name: str, extents: tuple[str, ...], stmts=None) -> bool:
        """Whether unconditional writes (of the statements `stmts`; None: all) reach every
        element of `name` (extents in the sizes)."""
        idx = [f"e{i}" for i in range(len(extents))]
        cons = " and ".join(f"0 <= {i} < {_v(e)}" for i, e in zip(idx, extents)) or "true"
        full = isl.UnionSet(self.head + f"{{ a_{name}[{', '.join(idx)}] : {cons} }}")
        full = full.intersect_params(self.context)
        written = self.must_writes.intersect_domain(self.domain if stmts is None else self.stmt_set(stmts)).range()
        return full.is_subset(written)

    def _access_box(self, stmt: str, name: str, idx: tuple[str, ...], extents: tuple[str, ...]):
        """(the map from `stmt`'s instances to the cells `name[idx]` they reach, the set of cells
        `0 <= e < extent`), or None where isl cannot read an extent (n*n)."""
        s = self.specs[stmt]
        cells = [f"e{i}" for i in range(len(idx))]
        try:
            acc = isl.Map(self.head + f"{{ {self._tuple(s)} -> a_{name}[{', '.join(_v(e) for e in idx)}]"
                          f" : {self._cons(s)} }}").intersect_params(self.context)
            box = isl.Set(self.head + f"{{ a_{name}[{', '.join(cells)}] : " + " and ".join(
                f"0 <= {c} < {_v(e)}" for c, e in zip(cells, extents)) + " }")
        except isl.Error:
            return None
        return acc, box

    def outside(self, stmt: str, name: str, idx: tuple[str, ...], extents: tuple[str, ...]) -> str | None:
        """An example of `stmt`'s access `name[idx]` outside `0 <= e < extent` (None: always
        inside), as `[sizes] -> cell`; extents isl cannot read (n*n) prove nothing."""
        if (found := self._access_box(stmt, name, idx, extents)) is None:
            return None
        acc, box = found
        bad = acc.range().subtract(box)
        if bad.is_empty():
            return None
        text = _unv(str(bad.sample_point()).replace("a_", ""))     # [n = 1] -> { a[1] }
        m = re.fullmatch(r"\[(.*)\] -> \{ (.*) \}", text)
        return f"{m.group(2)} when {m.group(1)}" if m and m.group(1) else text.strip("{} ")

    def inside_when(self, stmt: str, name: str, idx: tuple[str, ...], extents: tuple[str, ...]) -> list[str]:
        """The constraints on the sizes, as C, beyond the context's, under which `stmt`'s access
        `name[idx]` stays inside `0 <= e < extent` (constant extents: a fixed array indexed up
        to the sizes gives `n <= 1000`); [] where it always does or no one convex set of sizes says when."""
        if (found := self._access_box(stmt, name, idx, extents)) is None:
            return []
        acc, box = found
        runs = self.context.intersect(acc.domain().params())     # the sizes where the statement runs
        ok = runs.subtract(acc.range().subtract(box).params()).coalesce()
        if ok.is_empty() or ok.n_basic_set() != 1 or ok.is_equal(runs):
            return []
        out = []
        for c in ok.get_basic_sets()[0].get_constraints():
            one = isl.BasicSet.universe(ok.get_space()).add_constraint(c)
            if runs.is_subset(isl.Set(one)):
                continue                                 # the context (or the loops running) holds it
            terms = [(c.get_coefficient_val(isl.dim_type.param, i).to_python(), p) for i, p in enumerate(self.params)]
            out.append(_inequality(terms, c.get_constant_val().to_python(), c.is_equality()))
        return out

    def implies(self, names, where, cond: str) -> bool:
        """Whether every point of the variables `names` (with sizes in the context) that meets all
        of `where` meets `cond` (affine text)."""
        t = "[" + ", ".join(_v(x) for x in names) + "]"
        try:
            s = isl.Set(self.head + f"{{ {t} : {' and '.join(_v(c) for c in where) or 'true'} }}")
            return s.intersect_params(self.context).is_subset(isl.Set(self.head + f"{{ {t} : {_v(cond)} }}"))
        except isl.Error:
            return False

    def necessary(self, constraints: list[str]) -> list[str]:
        """`constraints` (C over the sizes) less each that the context and the others imply."""
        out = list(constraints)
        for c in sorted(constraints, key=len, reverse=True):
            others = " and ".join(_v(x) for x in out if x != c)
            try:
                rest = self.context.intersect(isl.Set(self.head + "{ : " + (others or "true") + " }"))
                if rest.is_subset(isl.Set(self.head + "{ : " + _v(c) + " }")):
                    out.remove(c)
            except isl.Error:
                pass
        return out

    def iteration_private(self, stmts, sched: isl.UnionMap, orig: isl.UnionMap, bounds, arrays) -> list[str]:
        """Of the `arrays` that `stmts` write, those each iteration of a loop chain may keep its
        own copy of (poly's oneblock.private_arrays says when that is asked).  The chain is the
        first `len(bounds)` loops of `sched`, each bound (lower, upper, ascending) as C text.
        An array qualifies when no value of it flows from one iteration to another, every
        write of it is unconditional, and each iteration of the box writes the same cells;
        then none of the other arrays' dependences may cross iterations either (else: none)."""
        n = len(bounds)
        carried = lambda deps: any(self.carries(deps, sched, stmts, 2 * d + 1) for d in range(n))
        # the schedule's chain dimensions alone: statement instance -> its iteration of the chain
        to_chain = self._empty_map()
        for m in _maps(sched):
            m = m.project_out(isl.dim_type.out, 2 * n, m.dim(isl.dim_type.out) - 2 * n)
            for i in reversed(range(0, 2 * n, 2)):
                m = m.project_out(isl.dim_type.out, i, 1)
            to_chain = to_chain.union(isl.UnionMap.from_map(m))
        t = [f"t{d}" for d in range(n)]
        box = isl.UnionSet(self.head + "{ [" + ", ".join(t) + "] : " + " and ".join(
            f"{_v(lo)} <= {t[d]} <= {_v(hi)}" if up else f"-({_v(hi)}) <= {t[d]} <= -({_v(lo)})"
            for d, (lo, hi, up) in enumerate(bounds)) + " }").intersect_params(self.context)
        mine = self.stmt_set(stmts)
        written = sorted({acc[0] for s in stmts for acc in self.specs[s].accesses if acc[2] and acc[0] in arrays})
        chosen = []
        for x in written:
            pairs, _ = self.value_flow(orig, [x])
            flow = self._empty_map()
            for a, b, m in pairs:
                if a in stmts and b in stmts:
                    flow = flow.union(isl.UnionMap.from_map(m))
            if carried(flow):
                continue
            cells = self._array_universe(x)
            must = self.must_writes.intersect_domain(mine).intersect_range(cells)
            if not must.is_equal(self.writes.intersect_domain(mine).intersect_range(cells)):
                continue                   # a conditional write: the cells written may differ
            w = must.apply_domain(to_chain).intersect_params(self.context)
            if not (w.is_equal(isl.UnionMap.from_domain_and_range(w.domain(), w.range()))
                    and w.domain().is_equal(box)):
                continue                   # some iteration writes other cells than the last one
            chosen.append(x)
        if not chosen:
            return []
        names = {acc[0] for s in self.specs.values() for acc in s.accesses}
        rest = self.dependences(orig, arrays=sorted(names - set(chosen)))
        return [] if carried(rest["flow"].union(rest["anti"]).union(rest["output"])) else chosen

    def _array_universe(self, name):
        for m in (self.reads, self.writes):
            for space_map in _maps(m):
                sp = space_map.get_space()
                if sp.get_tuple_name(isl.dim_type.out) == f"a_{name}":
                    return isl.UnionSet(isl.Set.universe(sp.range()))
        return isl.UnionSet.empty(self.context.get_space())

    def value_flow(self, schedule: isl.UnionMap, arrays) -> tuple[list, list]:
        """Value-based flow on some arrays (local scalars): [(src, dst, map)], [read stmts
        that may read a value written before the kernel]."""
        keep = isl.UnionSet.empty(self.context.get_space())
        for a in arrays:
            keep = keep.union(self._array_universe(a))
        reads = self.reads.intersect_range(keep)
        must = self.must_writes.intersect_range(keep)
        may = self.writes.intersect_range(keep)
        info = isl.UnionAccessInfo.from_sink(reads).set_must_source(must).set_may_source(may) \
            .set_schedule_map(schedule)
        flow = info.compute_flow()
        deps = flow.get_may_dependence()
        pairs = []
        for m in _maps(deps):
            sp = m.get_space()
            pairs.append((sp.get_tuple_name(isl.dim_type.in_), sp.get_tuple_name(isl.dim_type.out), m))
        exposed = sorted({m.get_space().get_tuple_name(isl.dim_type.in_)
                          for m in _maps(flow.get_may_no_source()) if not m.is_empty()})
        return pairs, exposed

    @staticmethod
    def equal_dims(dep_map, dims) -> bool:
        """Whether a dependence map S->T keeps the listed (src dim, dst dim) pairs equal."""
        sp = dep_map.get_space()
        for a, b in dims:
            c = isl.Constraint.equality_alloc(sp)
            c = c.set_coefficient_val(isl.dim_type.in_, a, 1).set_coefficient_val(isl.dim_type.out, b, -1)
            eq = isl.Map.universe(sp).add_constraint(c)
            if dep_map.subtract(eq).is_empty():
                continue
            return False
        return True

    def respects(self, deps: isl.UnionMap, schedule: isl.UnionMap) -> bool:
        """Every dependence runs forward in `schedule`: its pairs' times (one padded, anonymous
        time space) lie in that space's lexicographic order, which costs far less than ordering
        every pair of statements (`lex_lt_union_map`)."""
        times = deps.apply_domain(schedule).apply_range(schedule)
        return all(m.is_subset(isl.Map.lex_lt(m.get_space().domain())) for m in _maps(times))

    def carries(self, deps: isl.UnionMap, schedule: isl.UnionMap, stmts, dim: int) -> bool:
        """Whether schedule dimension `dim` carries a dependence among `stmts` (those under
        one loop): a pair equal on the dimensions before `dim` and different at `dim`."""
        dom = self.stmt_set(stmts)
        d = deps.intersect_domain(dom).intersect_range(dom)
        if d.is_empty():
            return False
        times = d.apply_domain(schedule).apply_range(schedule)
        for m in _maps(times):
            sp = m.get_space()
            eq = isl.Map.universe(sp)
            for i in range(dim):
                c = isl.Constraint.equality_alloc(sp)
                c = c.set_coefficient_val(isl.dim_type.in_, i, 1).set_coefficient_val(isl.dim_type.out, i, -1)
                eq = eq.add_constraint(c)
            c = isl.Constraint.equality_alloc(sp)
            c = c.set_coefficient_val(isl.dim_type.in_, dim, 1).set_coefficient_val(isl.dim_type.out, dim, -1)
            same = eq.add_constraint(c)
            if not m.intersect(eq).subtract(same).is_empty():
                return True
        return False

    def meets(self, deps: isl.UnionMap, schedule: isl.UnionMap, srcs, dsts, dims: int) -> bool:
        """Whether a dependence between `srcs` and `dsts` (either way) joins two instances equal
        on the first `dims` dimensions of `schedule` (the same iteration of the loops there)."""
        a, b = self.stmt_set(srcs), self.stmt_set(dsts)
        d = deps.intersect_domain(a).intersect_range(b).union(deps.intersect_domain(b).intersect_range(a))
        if d.is_empty():
            return False
        times = d.apply_domain(schedule).apply_range(schedule)
        for m in _maps(times):
            sp = m.get_space()
            for i in range(dims):
                c = isl.Constraint.equality_alloc(sp)
                m = m.add_constraint(c.set_coefficient_val(isl.dim_type.in_, i, 1)
                                     .set_coefficient_val(isl.dim_type.out, i, -1))
            if not m.is_empty():
                return True
        return False

    def reaches(self, stmt: str, cons) -> bool:
        """Whether some instance of `stmt` meets the constraints `cons` (affine text; floor allowed)
        for some sizes in the context."""
        s = self.specs[stmt]
        where = " and ".join([self._cons(s), *(_v(c) for c in cons)])
        return not isl.Set(self.head + f"{{ {self._tuple(s)} : {where} }}").intersect_params(self.context).is_empty()

    def parallel_order(self, deps: isl.UnionMap, pieces, outer: int, par: int) -> bool:
        """Whether a piecewise schedule runs `deps` forward with dimensions [outer, outer + par)
        parallel: `pieces` are (statement, constraints, time vector) covering each statement's
        domain once (affine text; floor allowed); every dependence's pair is in the vectors'
        lexicographic order, and no pair equal on the first `outer` dimensions differs on the
        next `par` (those run as different threads of one launch)."""
        width = max(len(t) for _, _, t in pieces)
        schedule = self._empty_map()
        for name, cons, t in pieces:
            s = self.specs[name]
            vec = [_v(e) for e in t] + ["0"] * (width - len(t))
            where = " and ".join([self._cons(s), *(_v(c) for c in cons)])
            schedule = schedule.union(isl.UnionMap(self.head + f"{{ {self._tuple(s)} -> [{', '.join(vec)}] : {where} }}"))
        if not self.respects(deps, schedule):
            return False
        for m in _maps(deps.apply_domain(schedule).apply_range(schedule)):
            sp = m.get_space()
            for dims in (outer, outer + par):
                eq = isl.Map.universe(sp)
                for i in range(dims):
                    c = isl.Constraint.equality_alloc(sp)
                    eq = eq.add_constraint(c.set_coefficient_val(isl.dim_type.in_, i, 1)
                                           .set_coefficient_val(isl.dim_type.out, i, -1))
                if dims == outer:
                    apart = m.intersect(eq)
                else:
                    apart = apart.subtract(eq)
            if not apart.is_empty():
                return False
        return True

    def same_cell(self, stmt: str, index: tuple[str, ...]) -> isl.UnionMap:
        """{S[x] -> S[y]} of instance pairs of one statement touching one element S[x] names."""
        s = self.specs[stmt]
        primed = {l: l + "_p" for l in s.loops}
        rhs = [_IDENT.sub(lambda m: primed.get(m.group(1), m.group(1)), e) for e in index]
        eq = " and ".join(f"{_v(a)} = {_v(b)}" for a, b in zip(index, rhs)) or "true"
        src = f"{s.name}[{', '.join(_v(l) for l in s.loops)}]"
        dst = f"{s.name}[{', '.join(_v(primed[l]) for l in s.loops)}]"
        return isl.UnionMap(self.head + f"{{ {src} -> {dst} : {eq} }}")

    def between(self, deps: isl.UnionMap, srcs, dsts) -> isl.UnionMap:
        return deps.intersect_domain(self.stmt_set(srcs)).intersect_range(self.stmt_set(dsts))

    def nonempty(self, m) -> bool:
        return not m.is_empty()

    def deps_of(self, deps: isl.UnionMap):
        """[(src stmt, dst stmt, map)] of a union map."""
        out = []
        for m in _maps(deps):
            sp = m.get_space()
            out.append((sp.get_tuple_name(isl.dim_type.in_), sp.get_tuple_name(isl.dim_type.out), m))
        return out

    def band_bounds(self, stmts, outer: tuple[str, ...], order: tuple[str, ...]) -> list | None:
        """The bounds of loops of `stmts` when they run in `order` inside the loops `outer`:
        for each loop of `order`, (first, last) as C text over the loops before it and the
        sizes (`box`: isl's projection of the domains).  None when the statements disagree on
        a loop's range or a bound is not one affine expression free of divisions."""
        out = []
        for n, var in enumerate(order):
            try:
                (lows, highs), = self.box(stmts, (var,), (*outer, *order[:n]))
            except ValueError:                         # a rational coefficient
                return None
            if len(lows) != 1 or len(highs) != 1 or "poly_floord" in lows[0] + highs[0]:
                return None
            out.append((lows[0], highs[0]))
        return out

    def fills_box(self, stmt: str, bounds) -> bool:
        """Whether the domain of `stmt` is exactly the box `bounds`: (first, last) C text over
        the sizes for each of its iterators, outermost first (no corner cut, no hole)."""
        s = self.specs[stmt]
        if len(bounds) != len(s.loops):
            return False
        cons = " and ".join(f"{_v(lo)} <= {_v(l)} <= {_v(hi)}" for l, (lo, hi) in zip(s.loops, bounds)) or "true"
        try:
            box = isl.Set(self.head + f"{{ {self._tuple(s)} : {cons} }}")
        except isl.Error:                              # a bound isl cannot read back
            return False
        return box.intersect_params(self.context).is_equal(isl.Set(self._set(s)).intersect_params(self.context))

    def tile_order(self, deps: isl.UnionMap, order, skew=None) -> bool:
        """Whether the statements `order` (all with the same number of iterators) may run in
        tiles of their iterators, a tile's points by any order that grows in every iterator:
        each dependence among them goes to an instance no smaller in any iterator (distances
        componentwise >= 0: the band is fully permutable), and one between two instances of
        the same iteration goes from the earlier statement of `order` to the later.  With
        `skew` (rows of integers, one per iterator) the iterators are first mapped to
        coordinate k = sum of skew[k][m] * iterator m, and the question is about those."""
        k = self._band_depth(order)
        if k is None:
            return False
        rows = skew or tuple(tuple(int(m == n) for m in range(k)) for n in range(k))
        return self._none_back(deps, order, [self._row_back(r) for r in rows], True)

    def tile_skew(self, deps: isl.UnionMap, order, most: int = 3) -> tuple | None:
        """The least unit lower-triangular skew (entries 0..`most` below the diagonal, fewest in
        sum first, row by row) under which `tile_order` holds; None where none does.  Coordinate
        k of an instance is iterator k plus skew[k][m] times each iterator m before it."""
        k = self._band_depth(order)
        if k is None:
            return None
        rows = []
        for n in range(k):
            tail = (1,) + (0,) * (k - n - 1)
            for head in sorted(itertools.product(range(most + 1), repeat=n), key=sum):
                if self._none_back(deps, order, [self._row_back(head + tail)], False):
                    rows.append(head + tail)
                    break
            else:
                return None
        return tuple(rows) if self.tile_order(deps, order, tuple(rows)) else None

    def _band_depth(self, order) -> int | None:
        """The statements' common number of iterators, None where they differ."""
        depths = {len(self.specs[s].loops) for s in order}
        return depths.pop() if len(depths) == 1 else None

    @staticmethod
    def _row_back(row) -> str:
        """The isl condition that a dependence x -> y goes back along coordinate `row`."""
        return " + ".join(f"{c} * (y{m} - x{m})" for m, c in enumerate(row) if c) + " < 0"

    def _none_back(self, deps: isl.UnionMap, order, backs: list[str], same: bool) -> bool:
        """Whether no dependence among `order` meets any of the conditions `backs` (over x, the
        source's iterators, and y, the target's), nor, with `same`, goes from a statement to an
        earlier one of `order` (or itself) in the same iteration."""
        for n, src in enumerate(order):
            for m, dst in enumerate(order):
                d = self.between(deps, [src], [dst])
                if d.is_empty():
                    continue
                k = len(self.specs[src].loops)
                xs, ys = [f"x{i}" for i in range(k)], [f"y{i}" for i in range(k)]
                pair = f"{src}[{', '.join(xs)}] -> {dst}[{', '.join(ys)}]"
                conds = list(backs)
                if same and n >= m:                    # the same iteration: only forward in `order`
                    conds.append(" and ".join(f"{y} = {x}" for x, y in zip(xs, ys)) or "true")
                for cond in conds:
                    if not d.intersect(isl.UnionMap(self.head + f"{{ {pair} : {cond} }}")).is_empty():
                        return False
        return True

    def input_reads(self, reads, schedule: isl.UnionMap) -> set:
        """Those of `reads` ((statement, array, subscripts) triples) whose every instance
        reads a value no write under `schedule` put there before it: the value the kernel was
        called with."""
        before = schedule.lex_lt_union_map(schedule)
        out = set()
        for stmt, name, index in reads:
            s = self.specs[stmt]
            read = isl.UnionMap(self.head + f"{{ {self._tuple(s)} -> a_{name}[{', '.join(_v(e) for e in index)}]"
                                f" : {self._cons(s)} }}")
            writes = self.writes.intersect_range(self._array_universe(name))
            if writes.apply_range(read.reverse()).intersect(before).intersect_params(self.context).is_empty():
                out.add((stmt, name, index))
        return out

    def pointwise(self, name: str, schedule: isl.UnionMap, dims: int) -> bool:
        """Whether array `name` lives within single iterations of the loops that the first `dims`
        dimensions of `schedule` hold: every access in one such iteration touches one cell, and
        every read takes its value (exact last writer, value-based) from a write of the same
        iteration, none from before the kernel or from another iteration.  Then one scalar per
        iteration holds everything the array carries (array contraction)."""
        cells = self._array_universe(name)
        touched = self.reads.union(self.writes).intersect_range(cells)
        if touched.is_empty():
            return False
        to_point = self._empty_map()           # statement instance -> its iteration of those loops
        for m in _maps(schedule.intersect_domain(touched.domain())):
            m = m.project_out(isl.dim_type.out, dims, m.dim(isl.dim_type.out) - dims)
            to_point = to_point.union(isl.UnionMap.from_map(m))
        if not touched.apply_domain(to_point).intersect_params(self.context).is_single_valued():
            return False                       # one iteration touches two cells
        pairs, exposed = self.value_flow(schedule, [name])
        if exposed:
            return False                       # some read may see a value no write of the kernel put there
        for _, _, m in pairs:
            points = isl.UnionMap.from_map(m).apply_domain(to_point).apply_range(to_point)
            for p in _maps(points.intersect_params(self.context)):
                if not p.is_subset(isl.Map.identity(p.get_space())):
                    return False               # a value written in one iteration, read in another
        return True

    def touches(self, stmt: str, index: tuple[str, ...], cell: tuple[str, ...]) -> bool:
        """Whether some instance of `stmt` has subscripts `index` equal to `cell` (both
        affine text over the statement's iterators and the sizes)."""
        s = self.specs[stmt]
        eqs = " and ".join(f"{_v(a)} = {_v(b)}" for a, b in zip(index, cell))
        st = isl.Set(self.head + f"{{ [{', '.join(_v(l) for l in s.loops)}] : {self._cons(s)} and {eqs} }}")
        return not st.intersect_params(self.context).is_empty()

    # -- isl's own schedule ---------------------------------------------------------------
    def scheduled_ast(self, deps: isl.UnionMap) -> list:
        """isl's schedule for these statements, outer parallelism first, as a plain AST.

        The scheduler (Pluto-style, `outer_coincidence`) looks for schedules whose outer
        band members carry no dependence; `deps` are its validity, coincidence and
        proximity constraints.  The AST is lists of ("for", iterator, init, cond, body),
        ("if", cond, body) and ("call", statement, args), expressions as nested tuples
        (see `_expr`); isl's iterators are `c0`, `c1`, ...  Raises ValueError for what
        the plain form does not cover (steps other than 1, else branches)."""
        ctx = isl.DEFAULT_CONTEXT
        saved = (ctx.get_schedule_outer_coincidence(), ctx.get_schedule_maximize_coincidence(),
                 ctx.get_schedule_serialize_sccs())
        ctx.set_schedule_outer_coincidence(1)
        ctx.set_schedule_maximize_coincidence(1)
        ctx.set_schedule_serialize_sccs(0)
        try:
            sc = isl.ScheduleConstraints.on_domain(self.domain).set_validity(deps) \
                .set_coincidence(deps).set_proximity(deps)
            schedule = sc.compute_schedule()
        finally:
            ctx.set_schedule_outer_coincidence(saved[0])
            ctx.set_schedule_maximize_coincidence(saved[1])
            ctx.set_schedule_serialize_sccs(saved[2])
        node = isl.AstBuild.from_context(self.context).node_from_schedule(schedule)
        return _plain(node)

    def schedule_values(self, stmt: str, loops: list[str], args: list[str]) -> dict[str, str]:
        """The inverse of a call `stmt(args)` under `loops`: each loop's value as affine
        text over the statement's own iterators (args are affine C text over loops and
        sizes).  ValueError when it is not one affine function."""
        s = self.specs[stmt]
        names = [f"x_{l}" for l in s.loops]
        eqs = " and ".join(f"{n} = {_v(a)}" for n, a in zip(names, args)) or "true"
        m = isl.Map(self.head + f"{{ [{', '.join(names)}] -> [{', '.join(_v(l) for l in loops)}] : {eqs} }}")
        pieces = []
        try:
            m.lexmin_pw_multi_aff().foreach_piece(lambda _set, maff: pieces.append(maff))
        except isl.Error as e:         # a loop the call's arguments do not bound: not a function
            raise ValueError(f"{stmt}: schedule values: {e}") from e
        if len(pieces) != 1:
            raise ValueError(f"{stmt}: schedule values in {len(pieces)} pieces")
        maff = pieces[0]
        out = {}
        for d, loop in enumerate(loops):
            aff = maff.get_aff(d)
            out[loop] = _aff_c(aff, {f"x_{l}": l for l in s.loops})
        return out

    # -- code generation helpers ------------------------------------------------------------
    def box(self, stmts, loops: tuple[str, ...], outer: tuple[str, ...], at: dict | None = None):
        """Bounding box of `loops` over the statements' domains, as C text in the sizes and
        the `outer` loop variables: [(lowers, uppers)] per loop, each a list of affine
        expressions whose max (lowers: min) over-approximates the range.  `at` gives, for
        statements placed by a new schedule, each loop's value over their own iterators
        (statement -> {loop: affine text}); other statements' loops are their iterators."""
        out = []
        for var in loops:
            lows, highs = [], []
            for n in stmts:
                s = self.specs[n]
                values = (at or {}).get(n)
                if values is not None:
                    if var not in values:
                        continue
                    o = {l: _v(l) + "__o" for l in (*outer, var)}      # loop names apart from iterators
                    names = ", ".join([_v(p) for p in self.params] + [o[l] for l in outer])
                    eqs = " and ".join(f"{o[l]} = {_v(values[l])}" for l in (*outer, var))
                    inner = ", ".join(_v(l) for l in s.loops) or "q_"
                    text = f"[{names}] -> {{ [{o[var]}] : exists ({inner} : {self._cons(s)} and {eqs}) }}"
                    ctx = isl.Set(f"[{names}] -> {{ : }}").intersect_params(_align(self.context, names))
                    st = isl.Set(text).intersect_params(ctx)
                elif var not in s.loops:
                    continue
                else:
                    keep = list(outer) + [var]
                    names = ", ".join(_v(p) for p in (*self.params, *outer))
                    text = (f"[{names}] -> {{ [{_v(var)}] : exists ({', '.join(_v(l) for l in s.loops if l not in keep) or 'q_'}"
                            f" : {self._cons(s)}) }}") if any(l not in keep for l in s.loops) else \
                        f"[{names}] -> {{ [{_v(var)}] : {self._cons(s)} }}"
                    st = isl.Set(text).intersect_params(self._lift_context(outer))
                if st.is_empty():
                    continue
                for which, into in ((st.dim_min(0), lows), (st.dim_max(0), highs)):
                    for _, aff in which.get_pieces():
                        into.append(_aff_c(aff))
            out.append((sorted(set(lows)), sorted(set(highs))))
        return out

    def _lift_context(self, outer):
        """The size constraints, in a parameter space that also holds the outer loops."""
        names = ", ".join(_v(p) for p in (*self.params, *outer))
        return isl.Set(f"[{names}] -> {{ : }}").intersect_params(_align(self.context, names))

    def footprint(self, array: str, sizes: dict[str, int]) -> tuple[int, int]:
        """(elements read, elements written) of an array at given sizes."""
        keep = self._array_universe(array)
        fixed = _fix(self.params, sizes, self.head)
        out = []
        for rel in (self.reads, self.writes):
            img = self.domain.intersect_params(fixed).apply(rel.intersect_range(keep))
            total = 0
            sets = []
            img.foreach_set(sets.append)
            for st in sets:
                total += int(st.count_val().to_python())
            out.append(total)
        return out[0], out[1]

    def count(self, stmt: str, sizes: dict[str, int]) -> int:
        """Number of instances of a statement at given sizes."""
        s = self.specs[stmt]
        fixed = " and ".join(f"{_v(p)} = {sizes[p]}" for p in self.params if p in sizes) or "true"
        st = isl.Set(self._set(s)).intersect_params(isl.Set(self.head + f"{{ : {fixed} }}"))
        return int(st.count_val().to_python())


def always_within(params, context, loops, domain, expr: str, low: str, high: str) -> bool:
    """Whether `low <= expr <= high` at every point of the domain (affine text over the loops
    and the size parameters, under the context's constraints); False where isl cannot read one."""
    head = "[" + ", ".join(_v(p) for p in params) + "] -> "
    point = "[" + ", ".join(_v(l) for l in loops) + "]"
    where = " and ".join(_v(c) for c in (*context, *domain)) or "true"
    try:
        points = isl.Set(head + f"{{ {point} : {where} }}")
        inside = isl.Set(head + f"{{ {point} : {_v(low)} <= {_v(expr)} <= {_v(high)} }}")
    except isl.Error:
        return False
    return points.is_subset(inside)


def never_holds(params, context, cond: str) -> bool:
    """Whether the isl condition over the size parameters holds for no sizes the context's
    constraints allow; False where isl cannot read it."""
    head = "[" + ", ".join(_v(p) for p in params) + "] -> "
    where = " and ".join(_v(c) for c in (*context, cond))
    try:
        return isl.Set(head + f"{{ : {where} }}").is_empty()
    except isl.Error:
        return False


def constant_value(params, loops, expr: str) -> int | None:
    """The one value of expr (affine text over the loops and the size parameters) at every point,
    or None where it has several or isl cannot read it."""
    head = "[" + ", ".join(_v(p) for p in params) + "] -> "
    try:
        pieces = isl.PwAff(head + f"{{ [{', '.join(_v(l) for l in loops)}] -> [({_v(expr)})] }}").get_pieces()
    except isl.Error:
        return None
    if len(pieces) != 1 or not pieces[0][1].is_cst() or not pieces[0][0].complement().is_empty():
        return None
    v = pieces[0][1].get_constant_val()
    return v.to_python() if v.is_int() else None


def _fix(params, sizes, head) -> isl.Set:
    fixed = " and ".join(f"{_v(p)} = {sizes[p]}" for p in params if p in sizes) or "true"
    return isl.Set(head + f"{{ : {fixed} }}")


def _maps(umap) -> list:
    out = []
    umap.foreach_map(out.append)
    return out


def _align(ctx: isl.Set, names: str) -> isl.Set:
    target = isl.Set(f"[{names}] -> {{ : }}").get_space()
    return ctx.align_params(target)


def _aff_c(aff: isl.Aff, names: dict[str, str] | None = None) -> str:
    """C text of an integer affine expression (floor divisions as `poly_floord`) over its parameters and,
    when `names` maps them, its input dimensions; other names lose their `v_` prefix
    and a `__o` suffix (loop names kept apart from iterators, see `box`)."""
    names = names or {}
    terms = []
    for kind in (isl.dim_type.param, isl.dim_type.in_):
        for i in range(aff.dim(kind)):
            c = aff.get_coefficient_val(kind, i).to_python()
            if c:
                raw = aff.get_dim_name(kind, i)
                name = names.get(raw) or re.sub(r"__o$", "", _unv(raw))
                terms.append((c, name))
    for i in range(aff.dim(isl.dim_type.div)):         # floor((numerator) / denominator)
        c = aff.get_coefficient_val(isl.dim_type.div, i).to_python()
        if c:
            d = aff.get_div(i)
            den = d.get_denominator_val()
            terms.append((c, f"poly_floord({_aff_c(d.scale_val(den), names)}, {den.to_python()})"))
    const = aff.get_constant_val().to_python()
    if aff.get_denominator_val().to_python() != 1:
        raise ValueError(f"affine bound with a rational coefficient: {aff}")
    text = ""
    for c, name in terms:
        mag = abs(c)
        part = name if mag == 1 else f"{mag} * {name}"
        text += (part if not text and c > 0 else (f"-{part}" if not text else (f" + {part}" if c > 0 else f" - {part}")))
    if const or not text:
        text += (str(const) if not text else (f" + {const}" if const > 0 else f" - {-const}"))
    return text


# -- isl's AST as plain data ----------------------------------------------------------------

_OPS = {"add": "+", "sub": "-", "mul": "*", "eq": "==", "le": "<=", "lt": "<", "ge": ">=",
        "gt": ">", "and_": "&&", "and_then": "&&", "or_": "||", "or_else": "||"}


def _expr(e: isl.AstExpr):
    """("id", name) | ("int", value) | (op, arg, ...) with op one of `_OPS`' values,
    "neg", "min", "max", "floord" (floor division), "div" (exact) or "mod"."""
    kind = e.get_type()
    if kind == isl.ast_expr_type.id:
        return ("id", _unv(e.get_id().get_name()))
    if kind == isl.ast_expr_type.int:
        return ("int", e.get_val().to_python())
    op = e.get_op_type()
    args = [_expr(e.get_op_arg(i)) for i in range(e.get_op_n_arg())]
    t = isl.ast_expr_op_type
    names = {t.minus: "neg", t.min: "min", t.max: "max", t.fdiv_q: "floord", t.pdiv_q: "div",
             t.div: "div", t.pdiv_r: "mod", t.zdiv_r: "mod"}
    for attr, sym in _OPS.items():
        if op == getattr(t, attr):
            return (sym, *args)
    if op in names:
        return (names[op], *args)
    raise ValueError(f"isl AST expression {e.to_C_str()} is not supported")


def _plain(node: isl.AstNode) -> list:
    kind = node.get_type()
    t = isl.ast_node_type
    if kind == t.block:
        kids = node.block_get_children()
        return [x for i in range(kids.n_ast_node()) for x in _plain(kids.get_at(i))]
    if kind == t.for_:
        inc = _expr(node.for_get_inc())
        if inc != ("int", 1):
            raise ValueError("isl AST loop with a step other than 1")
        it = _unv(node.for_get_iterator().get_id().get_name())
        return [("for", it, _expr(node.for_get_init()), _expr(node.for_get_cond()),
                 _plain(node.for_get_body()))]
    if kind == t.if_:
        if node.if_has_else_node():
            raise ValueError("isl AST with an else branch")
        return [("if", _expr(node.if_get_cond()), _plain(node.if_get_then_node()))]
    if kind == t.user:
        call = node.user_get_expr()
        args = [_expr(call.get_op_arg(i)) for i in range(call.get_op_n_arg())]
        return [("call", args[0][1], args[1:])]
    if kind == t.mark:
        return _plain(node.mark_get_node())
    raise ValueError(f"isl AST node of type {kind}")


def distance_text(dep: isl.Map, schedule: isl.UnionMap, src: str, dst: str, dim: int) -> str | None:
    """The distances at time dimension `dim` of `schedule` between the pairs of the dependence
    `dep` (`src` -> `dst`) that are equal before it and apart at it, as text (None: no pair)."""
    times = dep.apply_domain(_one(schedule, src)).apply_range(_one(schedule, dst))
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


def _one(sched, stmt: str):
    return next(m for m in _maps(sched) if m.get_space().get_tuple_name(isl.dim_type.in_) == stmt)
