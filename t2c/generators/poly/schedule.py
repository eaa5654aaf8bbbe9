"""isl's own schedule as a loop tree, and the program variants that give it more freedom.

    isl_tree(analysis) -> [Loop | Stmt] | None;  variants(analysis) -> [(Analysis, what changed)]
    copy_inputs(analysis) -> Analysis | None

Takes the `Analysis`; gives isl's schedule (outer parallelism first: lu's pivot loop outermost,
parallel rows inside) as `Loop`/`Stmt` nodes the mapper and printer take like the reference's
tree (`Stmt.at`, `Stmt.bind`); variants with scalar webs folded into array cells or pivot rows
split off; and the program whose input-only reads read copies (`B_in`). Each keeps the
statement instances and their order. `lower` takes one only where it runs fewer loops in order.
Refuses (None) scalar webs, a statement placed twice, AST constructs the printer does not cover.
docs/poly.md, "isl's scheduler", "Copies of inputs".
"""
from __future__ import annotations

import copy
import re
from dataclasses import replace

from pycparser import c_ast

from ...analysis import Access, Analysis, Loop, Stmt, analyze_program, loop_paths
from ...analysis.model import NotAffine, affine, base_and_subscripts, parse_c, parse_expr
from ...ir.csyntax import cprint, names
from .ctext import rewrite, substitute
from .reduce import fresh_name

_NAME = re.compile(r"[A-Za-z_]\w*")


def _names(text: str) -> list[str]:
    return _NAME.findall(text)

_C_OPS = {"neg": "-", "min": "poly_min", "max": "poly_max", "floord": "poly_floord"}


def c_expr(e, names: dict[str, str]) -> str:
    """C text of one of `isl_bridge._expr`'s tuples, iterators renamed by `names`."""
    return _c(e, names)[0]


_PREC = {"||": 0, "&&": 1, "==": 2, "<=": 2, "<": 2, ">=": 2, ">": 2, "+": 3, "-": 3,
         "*": 4, "/": 4, "%": 4}


def _c(e, names) -> tuple[str, int]:                  # (text, precedence of its top operator)
    op, *args = e
    if op == "id":
        return names.get(args[0], args[0]), 9
    if op == "int":
        return str(args[0]), 9 if args[0] >= 0 else 5
    parts = [_c(a, names) for a in args]
    if op in _C_OPS and op != "neg":
        return f"{_C_OPS[op]}({', '.join(p for p, _ in parts)})", 9
    if op == "neg":
        return f"-{parts[0][0] if parts[0][1] > 5 else f'({parts[0][0]})'}", 5
    op = {"div": "/", "mod": "%"}.get(op, op)
    (a, pa), (b, pb) = parts
    prec = _PREC[op]
    return f"{a if pa >= prec else f'({a})'} {op} {b if pb > prec else f'({b})'}", prec


def isl_tree(an: Analysis) -> list | None:
    if an.webs:
        return None
    try:
        ast = an.model.scheduled_ast(an.all_deps)
    except ValueError:
        return None
    calls = _calls(ast)
    if len(calls) != len(set(calls)) or set(calls) != {s.name for s in an.program.statements}:
        return None
    taken = set(an.program.kernel.params) | set(an.program.locals) | {
        s.name for s in an.program.statements}
    try:
        return _convert(an, ast, {}, [], [], taken)
    except ValueError:
        return None


def _calls(ast) -> list[str]:
    out = []
    for n in ast:
        if n[0] == "call":
            out.append(n[1])
        else:
            out += _calls(n[-1])
    return out


def _iterator_names(an: Analysis, node, it: str) -> list[str]:
    """Reference iterators that loop `it` enumerates exactly, in calls beneath it."""
    out = []
    for stmt, args in _call_args(node):
        loops = an.program.statement(stmt).loops
        out += [l for l, a in zip(loops, args) if a == ("id", it)]
    return out


def _unnamed(node, it: str) -> str:
    """A loop without a free reference iterator's name: `wave` when it is a hyperplane
    (seidel's 4t + 2i + j: the instances on one of its values run in parallel), isl's name
    when it enumerates an iterator whose name is taken (trisolv's second i) or runs one
    backwards (ludcmp's i = -c0)."""
    plain = any(a in (("id", it), ("neg", ("id", it))) for _, args in _call_args(node) for a in args)
    return it if plain else "wave"


def _call_args(node):
    if node[0] == "call":
        yield node[1], node[2]
    else:
        for kid in node[-1]:
            yield from _call_args(kid)


def _convert(an, ast, names, loops, guards, taken) -> list:
    out = []
    for node in ast:
        if node[0] == "for":
            _, it, init, cond, body = node
            cands = [c for c in _iterator_names(an, node, it) if c not in names.values()]
            name = max(sorted(set(cands)), key=cands.count) if cands else _unnamed(node, it)
            if name in taken or name in names.values():
                name = it
            inner = {**names, it: name}
            lo = c_expr(init, names)
            out.append(Loop(name, lo, c_expr(cond, inner), 1,
                            _convert(an, body, inner, loops + [it], guards, taken),
                            init=f"{name} = {lo}", cond=c_expr(cond, inner), next=f"{name}++"))
        elif node[0] == "if":
            out += _convert(an, node[2], names, loops, guards + [c_expr(node[1], names)], taken)
        else:
            out.append(_placed(an, node[1], node[2], names, loops, guards))
    return out


def _placed(an, name, args, names, loops, guards) -> Stmt:
    """One statement instance under isl's loops: its C text with the iterators replaced."""
    s = an.program.statement(name)
    bind = {l: c_expr(a, names) for l, a in zip(s.loops, args)}
    # an iterator isl enumerates under another name is renamed; one it computes from
    # several loops (seidel's j = wave - 4 * t - 2 * i) is declared once, by its own name
    derived = {l: t for l, t in bind.items() if not _NAME.fullmatch(t) and len(_names(t)) > 1}
    node = substitute(copy.deepcopy(s.node), {l: parse_expr(t) for l, t in bind.items() if l not in derived})
    if derived:
        node = _declared(derived, node)
    if guards:
        node = c_ast.If(parse_expr(" && ".join(f"({g})" for g in guards)), node, None)
    at = an.model.schedule_values(name, loops, [c_expr(a, {}) for a in args])
    return Stmt(replace(s, node=node), at={names[l]: v for l, v in at.items()}, bind=bind)


def _declared(values: dict[str, str], node) -> c_ast.Compound:
    """`{ const int NAME = VALUE; ... node }`."""
    decls = "".join(f"const int {n} = {v}; " for n, v in values.items())
    body = parse_c(f"void t2c_probe(void) {{ {decls}}}", "<decl>").ext[0].body
    return c_ast.Compound(body.block_items + [node])


# -- program variants isl's scheduler may do better on -----------------------------------------

def variants(an: Analysis) -> list[tuple[Analysis, str]]:
    """(variant, what it changed): the program itself, then with private scalars folded into
    array cells, or recomputed where read, then each of those with the pivot rows and columns
    split off.  Every variant runs the same statement instances in the same original order, so
    its exact dependences are the reference's; only what the scheduler can see differs."""
    out = [(an, "")]
    if an.webs and (x := fold_scalars(an)) is not None:
        out.append((x, "scalars folded into array cells"))
    if an.webs and (x := rematerialized(an)) is not None:
        out.append((x, "scalars recomputed where read"))
    return out + [(v, "; ".join(filter(None, (how, "pivot rows and columns split off"))))
                  for v, how in [(split_pivots(x), how) for x, how in out] if v is not None]


def rematerialized(an: Analysis) -> Analysis | None:
    """Each scalar web whose one value is an expression of array cells (`l = A[i][k] / A[k][k]`),
    that expression where it is read, where isl finds no statement of the web's loops writing
    those cells in the same iteration: Gaussian elimination's multiplier, read by its row's
    update, gives lu's `A[i][j] -= (A[i][k] / A[k][k]) * A[k][j]`, whose update is then a 2-d
    grid. Where the web's next statement stores the scalar into a cell (`A[i][k] = l`), that store
    takes the expression and later reads the cell, which isl finds nothing else writes. The same
    operations on the same values. None unless every web is of that kind."""
    prog = an.program
    paths, values = loop_paths(prog.body), {}
    order = [st.name for st in prog.statements]
    for name, w in sorted(an.webs.items(), key=lambda nw: order.index(nw[1].statements[0])):
        first = prog.statement(w.statements[0])
        node = first.node
        value = node.rvalue if isinstance(node, c_ast.Assignment) and node.op == "=" and \
            isinstance(node.lvalue, c_ast.ID) and node.lvalue.name == w.scalar else None
        known = {an.webs[x].scalar: x for x in values}           # an earlier web's scalar: its expression
        reads = tuple(a for a in first.reads() if a.name != w.scalar and a.name not in known)
        if not w.private or w.exposed or value is None or first.conditional \
                or names(value) & set(prog.locals) - set(known) \
                or any(prog.statement(x).writes(w.scalar) for x in w.statements[1:]):
            return None
        used = {x: known[x] for x in names(value) & set(known)}
        if used:                                                  # `m = a[i][k] / p`, p = a[k][k]
            value = substitute(copy.deepcopy(value), {x: parse_expr(f"({cprint(values[v][1])})") for x, v in used.items()})
            reads += tuple(r for v in used.values() for r in values[v][2] if r not in reads)
        inside = [n.stmt.name for n in _leaves(_body_of(prog.body, paths[first.name][:len(w.private)]))]
        written = lambda cell, but=None: any(an.model.touches(x, wr.index, cell.index) for x in inside if x != but
                                             for wr in prog.statement(x).writes(cell.name))
        store = _store_of(prog, w)
        if any(not a.index for a in reads):
            return None
        if any(written(a) for a in reads):
            # the scalar stored into a cell right after (`m = a[i][k] / p; a[i][k] = m`): the
            # store takes the expression, later reads the cell, which nothing else writes
            if store is None or any(written(a, store[0]) for a in (*reads, store[2])):
                return None
            values[name] = (first.name, value, reads, store)
        else:
            values[name] = (first.name, value, reads, None)
    defs = {d for d, _, _, _ in values.values()}
    statements = []
    for st in prog.statements:
        if st.name in defs:
            continue
        webs = {scalar: web for (s_, scalar), web in an.web_of.items() if s_ == st.name}
        late = {x for x, w in webs.items() if values[w][3] and st.name != values[w][3][0]}   # after the store
        node = substitute(copy.deepcopy(st.node), {x: copy.deepcopy(values[w][3][1]) if x in late
                                                   else parse_expr(f"({cprint(values[w][1])})") for x, w in webs.items()})
        accesses = [a for a in st.accesses if a.name not in webs]
        accesses += [r for x, w in webs.items() for r in ((values[w][3][2],) if x in late else values[w][2])
                     if r not in accesses]
        statements.append(replace(st, node=node, accesses=tuple(accesses)))
    scalars = {w.scalar for w in an.webs.values()}
    return reanalyzed(an, statements, {n: v for n, v in prog.locals.items() if n not in scalars})


def _store_of(prog, w):
    """(statement, cell node, its read access) where the web's second statement stores the scalar
    whole into one array cell (`A[c] = s`, unconditional); None else."""
    if len(w.statements) < 2:
        return None
    st = prog.statement(w.statements[1])
    node = st.node
    if not isinstance(node, c_ast.Assignment) or node.op != "=" or st.conditional or \
            not isinstance(node.lvalue, c_ast.ArrayRef) or not (isinstance(node.rvalue, c_ast.ID) and node.rvalue.name == w.scalar):
        return None
    cells = [a for a in st.writes() if a.name != w.scalar]
    if len(cells) != 1 or not cells[0].index:
        return None
    return st.name, node.lvalue, replace(cells[0], write=False)


def fold_scalars(an: Analysis) -> Analysis | None:
    """Each scalar web lives in the array cell its last statement writes: in ludcmp
    `w = A[i][j]; w -= A[i][k] * A[k][j]; A[i][j] = w / A[j][j]` becomes lu's
    `A[i][j] -= A[i][k] * A[k][j]; A[i][j] = A[i][j] / A[j][j]`.  The scalar's false
    dependences, which pin the reference's loop order, disappear.  Legal when the web's
    statements are all the body of its private loops, its last statement writes one cell
    per iteration of them, and no other of its statements touches that cell except the
    first one reading it; None unless every web folds."""
    prog = an.program
    paths = loop_paths(prog.body)
    cells = {}
    for name, w in an.webs.items():
        if not w.private or w.exposed:
            return None
        body = _body_of(prog.body, paths[w.statements[0]][:len(w.private)])
        order = [n.stmt.name for n in _leaves(body)]
        if sorted(order) != sorted(w.statements) or len(order) < 2:
            return None                                 # other statements share the loops
        first, last = prog.statement(order[0]), prog.statement(order[-1])
        targets = [a for a in last.writes() if a.name != w.scalar and a.index]
        if len(targets) != 1 or not set(_names(" ".join(targets[0].index))) <= \
                set(w.private) | set(prog.sizes):
            return None
        cell = targets[0]
        for st_name in order:
            st = prog.statement(st_name)
            for a in st.accesses:
                if a.name != cell.name or (st is last and a.write) or (st is first and not a.write):
                    continue
                if an.model.touches(st_name, a.index, cell.index):
                    return None
        cells[name] = cell
    statements = []
    for st in prog.statements:
        webs = {scalar: web for (s_, scalar), web in an.web_of.items() if s_ == st.name}
        values = {scalar: parse_expr(_ref_text(cells[web])) for scalar, web in webs.items()}
        node = substitute(copy.deepcopy(st.node), values)
        if isinstance(node, c_ast.Assignment) and node.op == "=" and \
                cprint(node.lvalue) == cprint(node.rvalue):
            continue                                    # `w = A[i][j]` became `A[i][j] = A[i][j]`
        accesses = tuple(Access(cells[webs[a.name]].name, cells[webs[a.name]].index, a.write)
                         if a.name in webs else a for a in st.accesses)
        statements.append(replace(st, node=node, accesses=accesses))
    scalars = {w.scalar for w in an.webs.values()}
    return reanalyzed(an, statements, {n: v for n, v in prog.locals.items() if n not in scalars})


def _ref_text(a: Access) -> str:
    return a.name + "".join(f"[{i}]" for i in a.index)


def _body_of(tree, loops) -> list:
    return loops[-1].body if loops else tree


def _leaves(nodes) -> list:
    return [x for n in nodes for x in ([n] if isinstance(n, Stmt) else n.statements())]


def split_pivots(an: Analysis) -> Analysis | None:
    """Index-set splitting at pivot rows and columns: a statement that writes `X[i][j]`
    and reads `X[i][k]` (or `X[k][j]`) gets one copy each for j < k, j == k and j > k.
    In floyd-warshall the copies on the pivot row and column then run before the rest of
    their step, and each part is parallel; in the reference's loops only a wavefront is."""
    statements, changed = [], False
    for st in an.program.statements:
        pairs = []
        for w in st.writes():
            for r in st.reads(w.name):
                for a, b in zip(r.index, w.index):
                    if a != b and a in st.loops and b in st.loops and (b, a) not in pairs:
                        pairs.append((b, a))
        pieces = [()]
        for b, a in pairs:
            pieces = [p + (f"{b} {op} {a}",) for p in pieces for op in ("<", "=", ">")]
        if len(pieces) == 1:
            statements.append(st)
            continue
        changed = True
        statements += [replace(st, name=f"{st.name}_{n}", domain=st.domain + extra)
                       for n, extra in enumerate(pieces)]
    if not changed:
        return None
    v = reanalyzed(an, statements, an.program.locals)
    kept = [s for s in v.program.statements if not v.model.stmt_set([s.name]).is_empty()]
    return v if len(kept) == len(statements) else reanalyzed(an, kept, an.program.locals)


def copy_inputs(an: Analysis) -> Analysis | None:
    """Reads that only ever see the values an array had when the kernel was called read a
    copy of it made before the first launch (`B_in`, a new array the printer allocates and
    fills).  In trmm, `B[i][j] += A[k][i] * B[k][j]` for k > i reads rows that later
    iterations overwrite: the anti-dependences make i sequential; from the copy, every
    (i, j) is independent.  Exact (isl: no write reaches such a read, so it reads the input);
    a read of a cell its own statement writes stays (it is the accumulation).  None when no
    read qualifies."""
    prog = an.program
    arrays = {a.name: a for a in prog.kernel.arrays if a.shape}
    written = {a.name for st in prog.statements for a in st.writes()}
    taken = set(prog.kernel.params) | set(prog.locals) | {l for st in prog.statements for l in st.loops}
    candidates = [(st.name, a.name, a.index) for st in prog.statements for a in st.reads()
                  if a.name in arrays and a.name in written and replace(a, write=True) not in st.writes()]
    inputs = an.model.input_reads(candidates, an.schedule(prog.body)) if candidates else set()
    copies, statements = {}, []
    for st in prog.statements:
        picked = {(name, index) for s_, name, index in inputs if s_ == st.name}
        if not picked or not isinstance(st.node, c_ast.Assignment):
            statements.append(st)
            continue
        for name, _ in sorted(picked):
            if name not in copies.values():
                taken.add(fresh := fresh_name(f"{name}_in", taken))
                copies[fresh] = name
        names = {v: k for k, v in copies.items()}
        scope = set(prog.sizes) | set(st.loops)

        def pick(n):
            if not isinstance(n, c_ast.ArrayRef):
                return None
            base, subs = base_and_subscripts(n)
            try:
                idx = tuple(affine(x, scope, "subscript") for x in subs)
            except NotAffine:                  # a gather through data (field[c]): never picked
                return None
            if isinstance(base, c_ast.ID) and (base.name, idx) in picked:
                n = copy.deepcopy(n)
                base_and_subscripts(n)[0].name = names[base.name]
                return n
            return None
        node = copy.deepcopy(st.node)
        node.rvalue = rewrite(node.rvalue, pick)
        accesses = tuple(replace(a, name=names[a.name]) if not a.write and (a.name, a.index) in picked else a
                         for a in st.accesses)
        statements.append(replace(st, node=node, accesses=accesses))
    if not copies:
        return None
    k = prog.kernel
    kernel = k.replace(params=k.params + tuple(copies),
                       arrays=k.arrays + tuple(replace(arrays[a], name=c, intent="in") for c, a in copies.items()))
    return reanalyzed(an, statements, prog.locals, kernel=kernel, copies=copies)


def reanalyzed(an: Analysis, statements, locals_, **program) -> Analysis:
    """The program with its statements replaced (a statement's copies take its place in
    the loop tree, in order) and analysed again."""
    by_origin = {}
    for st in statements:
        by_origin.setdefault(st.name.split("_")[0], []).append(st)

    def tree(nodes):
        out = []
        for n in nodes:
            if isinstance(n, Stmt):
                out += [Stmt(st) for st in by_origin.get(n.stmt.name, [])]
            else:
                out.append(replace(n, body=tree(n.body)))
        return out
    prog = replace(an.program, body=tree(an.program.body), statements=list(statements),
                   locals=locals_, **program)
    return analyze_program(prog)
