"""Exchange networks: host control around loops whose iterations touch disjoint cells.

    network_of(kernel, target) -> Network | None;  candidate(kernel, network, options, why)

Takes a reference the model refused, or one whose geometric level loops it reads
(geometric.networked), whose body is host code (scalar assignments; loops and ifs reading only
scalars, doubling and halving included) around perfect nests whose points touch
disjoint cells: each written array indexed by each loop variable once, or by the innermost
one's XOR partner `j = i ^ E` under one `if (j > i)`. Gives the host code as written with a
launch per nest instance (sorts, butterflies, compiled specs' levels), tilings run on
shared-memory tiles (network_tiles.py), and swapped buffers instead of copies. Refuses (None:
one thread) anything else. docs/poly.md, "Outside the model: exchange networks".
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from pycparser import c_ast

from ...analysis.scalars import step_of
from ...ir import Kernel, abi
from ...ir.csyntax import array_name, block_items, cprint, is_name, kernel_definition, name_subscripts, walk as _walk
from . import network_tiles, select as selects, sorts, tree as trees
from .cuda import Renderer, device_pointer, helper_note, local_buffer, own_helpers, point, short_name
from .scratch import entries, give_back, scratch_head
from ...runtime.target import SM90, Target
from .options import PolyOptions

_SCALAR_TYPES = {"int", "unsigned", "long", "short", "char", "size_t", "float", "double", "signed"}
_CONTROL = (c_ast.Break, c_ast.Continue)


@dataclass(frozen=True)
class Exchange:
    """A perfect nest of exchange loops `for (int v = lo; v < hi; v++)`, outermost first, the last
    one pairing its indices; launched per instance, a thread per point of the nest."""
    loop: c_ast.For                    # the outermost loop: what the launch replaces
    body: c_ast.Node                   # the innermost loop's body
    vars: tuple[str, ...]
    los: tuple[c_ast.Node, ...]
    counts: tuple[c_ast.Node, ...]     # hi - lo (+ 1 for `<=`) of each
    host: tuple[tuple[str, str], ...]  # (name, C type) of the host scalars (not parameters) it reads
    partner: str | None                # j of `int j = i ^ E`, when the innermost loop pairs its indices
    single: c_ast.Node | None = None   # a top-level statement on arrays that this one-point nest runs
    distance: c_ast.Node | None = None # E of `int j = i ^ E` (host scalars only)
    bounded: bool = False              # the guard keeps j in the loop's range (`j > i && j < hi`)
    writes: tuple = ()                 # (array, the loop's position of each subscript) of each array it writes
    tiling: int | None = None          # its Network.tilings entry, when its steps may run on shared tiles
    private: tuple[tuple[str, str], ...] = ()   # (name, C type) of host scalars each point writes before reading (`_private`)

    @property
    def var(self) -> str:
        return self.vars[-1]


@dataclass(frozen=True)
class Tiling:
    """Exchange nests whose instances run as steps of one launch on tiles in shared memory.

    The members (one of them at least pairing its indices: a network) write the same arrays at the same subscripts (`arrays`), so an aligned run of
    `tile` innermost indices (a power of two) at fixed outer indices holds every cell a point
    touches when its partner i ^ E stays in the run: E < tile, the tile being the host's choice
    for the instance's range (the least power of two past its end, at most `tile`).  The host
    queues such instances (the values of the host scalars each reads) while their ranges agree,
    and launches the queue as one kernel: a block per tile loads it into shared memory, runs
    the steps in order with a barrier between them, and stores it back.  Any other launch, an
    instance with E >= its tile, or a partner that may leave the range launches the queue
    first (then the instance as a launch of its own), so launches keep the reference's order.
    This is the shared-memory stage of a bitonic sort: every merge step below the tile in one
    launch, a row shorter than a tile sorted in one launch."""
    members: tuple[int, ...]           # their indices in Network.loops
    arrays: tuple[tuple[str, str, tuple[int, ...]], ...]   # (array, C element type, its `writes` positions)
    tile: int                          # cells of each array per tile (a power of two)
    threads: int                       # threads per block
    capacity: int                      # steps per launch (the queue is a kernel parameter)


@dataclass(frozen=True)
class Network:
    body: tuple                        # the function's items (host code around the exchange loops)
    loops: tuple[Exchange, ...]
    local_arrays: dict                 # name -> (C element type, extents): the body's local arrays
    tilings: tuple[Tiling, ...] = ()   # exchange nests that may share launches (`tiled`)
    trees: tuple = ()                  # level loops that fold a buffer pairwise (tree.py): block trees
    selects: tuple = ()                # sorts read only at their first K positions (select.py): top-K
    sorts: tuple = ()                  # other sorts of 32-bit keys (sorts.py): radix sorts, no network


def network_of(k: Kernel, target: Target = SM90) -> Network | None:
    """The reference as host code around exchange loops, or None when it is not of that form."""
    if k.returns:
        return None
    fn = kernel_definition(k.tree)
    arrays = {a.name for a in k.arrays}
    values = {p: abi.param(k, p).ctype for p in k.params if p not in arrays}
    if {d.name for d in _walk(fn.body) if isinstance(d, c_ast.Decl)} & set(k.params):
        return None                    # a parameter shadowed: the kernels take every parameter
    local_arrays = {d.name: (" ".join(t.names), _extents(d)) for d in fn.body.block_items or []
                    if (t := _array_decl(d, values)) is not None}
    loops: list[Exchange] = []
    uses: dict[str, set] = {}
    for x in _walk(fn.body):
        if isinstance(x, c_ast.ID):
            uses.setdefault(x.name, set()).add(id(x))
    names = _Names(frozenset(arrays | set(local_arrays)), _loop_only(fn.body), frozenset(k.params),
                   {n: frozenset(u) for n, u in uses.items()})
    if not _host(fn.body.block_items or [], dict(values), names, loops, top=True) or not loops:
        return None
    own = lambda ex: tuple((v, t) for v, t in ex.host if v not in values)   # parameters are passed anyway
    net = Network(tuple(fn.body.block_items), tuple(replace(ex, host=own(ex)) for ex in loops), local_arrays)
    chosen = selects.selects_of(net)                           # the first K of a sort: a selection per row
    net = replace(net, selects=chosen, sorts=sorts.sorts_of(net, chosen))   # a whole sort: a radix sort
    net = tiled(net, k, target)
    copy_of = lambda ex: _copy(ex, net.local_arrays)
    dtypes = {a.name: a.dtype for a in k.arrays} | {n: t for n, (t, _) in net.local_arrays.items()}
    return replace(net, trees=trees.trees_of(net, copy_of, dtypes))   # pairwise trees: a block tree, not a launch per level


_PARAM_BYTES = 4000         # a kernel's parameters (the queued steps travel as one)
_MOST_STEPS = 128           # steps per launch: a full sort's steps within one tile of 4096 are 78


def tiled(net: Network, k: Kernel, target: Target) -> Network:
    """The network with its exchange nests (but its sorts') grouped into `Tiling`s: the nests that write the same
    arrays in the same subscript order form a group, a tiling when one of them pairs its indices
    (a sorting or butterfly network, with the nests that fill its arrays).  The tile is the largest
    power of two whose cells of all those arrays fill at most half the target's static shared
    memory (two blocks per multiprocessor), and at most four per thread of a full block."""
    dtypes = {a.name: a.dtype for a in k.arrays} | {n: t for n, (t, _) in net.local_arrays.items()}
    groups: dict = {}
    sorted_ = {n for s in net.sorts for n in (s.init, *s.steps)}   # no launches: the radix sort's
    for n, ex in enumerate(net.loops):
        if ex.single is None and ex.writes and n not in sorted_ and not ex.private:
            groups.setdefault((len(ex.vars), ex.writes), []).append(n)   # tiles print no private scalars
    loops, tilings = list(net.loops), []
    for (depth, writes), members in groups.items():
        if all(net.loops[m].partner is None for m in members):
            continue                   # own cells only (level loops): tiles would only copy them through shared memory
        arrays = tuple((a, dtypes[a], at) for a, at in writes)
        cell = sum(_bytes(t) for _, t, _ in arrays)
        tile = 1 << ((min(4 * target.max_threads, target.shared_static // (2 * cell))).bit_length() - 1)
        per_step = 1 + sum(_bytes(t) for m in members for _, t in net.loops[m].host)
        capacity = min(_MOST_STEPS, (_PARAM_BYTES - 8 * (depth + 1)) // per_step)
        for m in members:
            loops[m] = replace(loops[m], tiling=len(tilings))
        tilings.append(Tiling(tuple(members), arrays, tile, min(target.max_threads, max(32, tile // 4)), capacity))
    return replace(net, loops=tuple(loops), tilings=tuple(tilings))


def _bytes(ctype: str) -> int:
    words = ctype.split()
    return 8 if {"double", "long", "size_t"} & set(words) else 2 if {"short", "half", "__half", "__nv_bfloat16"} & \
        set(words) else 1 if "char" in words else 4


@dataclass(frozen=True)
class _Names:
    arrays: frozenset           # the kernel's arrays (device pointers on the host)
    loop_only: frozenset        # host ints that only serve as loop variables (`_loop_only`)
    params: frozenset = frozenset()     # the kernel's parameters
    uses: dict = field(default_factory=dict)   # name -> ids of its ID nodes in the function body


def _loop_only(body) -> frozenset:
    """Ints declared without a value whose every use is inside a `for` that assigns them first
    (`int i; ... for (i = 0; i < n; i++) ...`): no value crosses from a launch back to the host."""
    declared = {d.name for d in _walk(body) if isinstance(d, c_ast.Decl) and d.init is None and _scalar_decl(d)
                and "int" in d.type.type.names}
    inside: dict[str, set] = {v: set() for v in declared}
    for f in _walk(body):
        if isinstance(f, c_ast.For) and isinstance(f.init, c_ast.Assignment) and f.init.op == "=" and \
                isinstance(f.init.lvalue, c_ast.ID) and f.init.lvalue.name in declared:
            inside[f.init.lvalue.name] |= {id(x) for x in _walk(f)}
    uses: dict[str, list] = {v: [] for v in declared}
    for x in _walk(body):
        if isinstance(x, c_ast.ID) and x.name in uses:
            uses[x.name].append(id(x))
    return frozenset(v for v in declared if all(u in inside[v] for u in uses[v]))


def _array_decl(d, scope) -> c_ast.IdentifierType | None:
    """The element type of `T name[E]...;` with extents over scope and no initializer, or None."""
    if not isinstance(d, c_ast.Decl) or d.init is not None or not isinstance(d.type, c_ast.ArrayDecl):
        return None
    t = d.type
    while isinstance(t, c_ast.ArrayDecl):
        if t.dim is None or not _reads_only(t.dim, scope):
            return None
        t = t.type
    ok = isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType) and \
        set(t.type.names) <= _SCALAR_TYPES
    return t.type if ok else None


def _extents(d) -> tuple[str, ...]:
    out, t = [], d.type
    while isinstance(t, c_ast.ArrayDecl):
        out.append(cprint(t.dim))
        t = t.type
    return tuple(out)


def _host(items, scope: dict[str, str], names: _Names, loops: list, top=False) -> bool:
    """Whether items are host code (appending their exchange loops); scope grows with declarations.
    `top`: items of the function body (only there does a statement on arrays run as one thread: in a
    host loop it would be a launch per step)."""
    for it in items:
        if isinstance(it, c_ast.Decl) and it.name in names.arrays:
            continue                   # a local array: a device buffer (`_array_decl`)
        if isinstance(it, (c_ast.Assignment, c_ast.UnaryOp)) and top and _target(it) in names.arrays:
            if (ex := _single(it, scope, names)) is None:
                return False
            loops.append(ex)
        elif isinstance(it, c_ast.Decl):
            if not (_scalar_decl(it) and (it.init is None or _reads_only(it.init, scope))):
                return False
            scope[it.name] = " ".join(it.type.type.names)
        elif isinstance(it, (c_ast.Assignment, c_ast.UnaryOp)):
            if not (_reads_only(it, scope) and _target(it) in scope):
                return False
        elif isinstance(it, c_ast.Compound):
            if not _host(it.block_items or [], dict(scope), names, loops):
                return False
        elif isinstance(it, c_ast.If):
            if not (_reads_only(it.cond, scope) and all(
                    b is None or _host(block_items(b), dict(scope), names, loops) for b in (it.iftrue, it.iffalse))):
                return False
        elif isinstance(it, (c_ast.While, c_ast.DoWhile)):
            if not (_reads_only(it.cond, scope) and _host(block_items(it.stmt), dict(scope), names, loops)):
                return False
        elif isinstance(it, c_ast.For):
            inner = dict(scope)
            init = it.init.decls if isinstance(it.init, c_ast.DeclList) else [it.init] if it.init else []
            if (ex := _exchange(it, inner, names)) is not None:
                loops.append(ex)
                continue
            if not _host(init, inner, names, loops) or any(
                    x is not None and not _reads_only(x, inner) for x in (it.cond, it.next)) or \
                    not _host(block_items(it.stmt), inner, names, loops):
                return False
        elif not isinstance(it, (*_CONTROL, c_ast.EmptyStatement)):
            return False
    return True


def _exchange(f: c_ast.For, scope: dict[str, str], names: _Names) -> Exchange | None:
    """The exchange nest `for (int r = lo; r < hi; r++) ... for (int i = ...) body`, or None."""
    nest, los, counts, top = [], [], [], f
    while True:
        got = _header(f, scope, names)
        if got is None:
            return None
        nest.append(got[0]), los.append(got[1]), counts.append(got[2])
        inner = block_items(f.stmt)
        if len(inner) == 1 and isinstance(inner[0], c_ast.For) and _header(inner[0], scope, names) is not None and \
                any(isinstance(x, c_ast.ArrayRef) for x in _walk(inner[0])):
            f = inner[0]
            continue
        break
    var, stmt, body = nest[-1], f.stmt, block_items(f.stmt)
    if not any(isinstance(x, c_ast.ArrayRef) for x in _walk(stmt)):
        return None                                        # no array: host code
    own = {d.name for d in _walk(stmt) if isinstance(d, c_ast.Decl)}
    partner = _partner(body, var, scope)
    called = {x.name.name for x in _walk(stmt) if isinstance(x, c_ast.FuncCall) and isinstance(x.name, c_ast.ID)}
    ids = {x.name for x in _walk(stmt) if isinstance(x, c_ast.ID)}
    if not ids <= set(scope) | own | names.arrays | called | set(nest) or own & set(nest) or any(
            isinstance(x, (c_ast.Return, c_ast.Goto, c_ast.Break)) for x in _walk(stmt)):
        return None
    written, private = set(), {}
    for x in _walk(stmt):
        if isinstance(x, (c_ast.Assignment, c_ast.UnaryOp)) and (t := _target(x)) is not None:
            if t in names.arrays:
                written.add(t)
            elif t in scope and t not in nest and t != partner and _private(t, stmt, body, names):
                private[t] = scope[t]                      # each point's own (a fold's accumulator, a loop variable)
            elif t not in own or t == partner:
                return None                                # writes a host scalar, a loop variable or the partner
        elif isinstance(x, (c_ast.Assignment, c_ast.UnaryOp)) and _writes(x):
            return None                                    # a write through anything else
    guard = _guard(body, var, partner)
    inside = {id(x) for x in _walk(guard)} if guard is not None else set()
    forms: dict[str, tuple] = {}
    every = [x for x in _walk(stmt) if isinstance(x, c_ast.ArrayRef)]
    parts = {id(x.name) for x in every}                    # X[r] of X[r][i]: part of a reference
    refs = [x for x in every if id(x) not in parts and array_name(x) in written]
    for x in refs:
        subs = name_subscripts(x)
        if subs is None or sorted(s if s != partner else var for s in subs) != sorted(nest):
            return None                                    # each loop variable once, as a plain subscript
        form = tuple(s if s != partner else var for s in subs)
        if forms.setdefault(array_name(x), form) != form:
            return None                                    # one order of the subscripts per array
        paired = any(partner in (name_subscripts(y) or ()) for y in refs if array_name(y) == array_name(x)) if partner else False
        if paired and id(x) not in inside:
            return None                                    # an access outside the pair's one owner
    reads = {x.name for x in _walk(f) if isinstance(x, c_ast.ID)} | \
        {x.name for lo, n in zip(los, counts) for x in (*_walk(lo), *_walk(n)) if isinstance(x, c_ast.ID)}
    writes = tuple(sorted((a, tuple(nest.index(v) for v in form)) for a, form in forms.items() if a in written))
    distance = _distance(body, var, partner)
    bounded = guard is not None and _bounds(body, var, partner, f.cond)
    return Exchange(top, stmt, tuple(nest), tuple(los), tuple(counts),
                    tuple((n, scope[n]) for n in sorted(reads & set(scope) - set(nest) - set(private))), partner,
                    distance=distance, bounded=bounded, writes=writes, private=tuple(sorted(private.items())))


def _private(t: str, stmt, body: list, names: _Names) -> bool:
    """Whether host scalar t (no parameter) is each point's own in a nest whose innermost body is
    `body` (the items of `stmt`): every item of it that names t starts by writing t, from values
    that are not t (`t = E`, or a `for` whose init is that), and either every use of t in the
    function lies in stmt (a reduction's accumulator, which the host never reads) or t only ever
    serves as a loop variable (`_loop_only`, an inner loop's counter). Then no point reads a value
    another point or the host left in t, and the host reads none a point leaves: a thread's own
    copy computes what the reference computes."""
    if t in names.params:
        return False
    def first_writes(item) -> bool:
        w = item.init if isinstance(item, c_ast.For) else item
        return isinstance(w, c_ast.Assignment) and w.op == "=" and is_name(w.lvalue, t) and not _touches(w.rvalue, t)
    naming = [x for x in body if _touches(x, t)]
    inside = {id(x) for x in _walk(stmt)}
    if t in names.loop_only:
        return all(isinstance(x, c_ast.For) and first_writes(x) for x in naming)
    return bool(naming) and first_writes(naming[0]) and names.uses.get(t, frozenset()) <= inside


def _single(it, scope: dict[str, str], names: _Names) -> Exchange | None:
    """A top-level write of an array cell as a nest of one point (one thread, in its place)."""
    ids = {x.name for x in _walk(it) if isinstance(x, c_ast.ID)}
    if not ids <= set(scope) | names.arrays or any(isinstance(x, c_ast.FuncCall) for x in _walk(it)):
        return None
    zero = c_ast.Constant("int", "0")
    loop = c_ast.For(c_ast.DeclList([c_ast.Decl("poly_one", [], [], [], [], c_ast.TypeDecl(
        "poly_one", [], None, c_ast.IdentifierType(["int"])), zero, None)]), None, None, it)
    reads = tuple((n, scope[n]) for n in sorted(ids & set(scope)))
    return Exchange(loop, it, ("poly_one",), (zero,), (c_ast.Constant("int", "1"),), reads, None, it)


def _header(f, scope, names) -> tuple | None:
    """(v, lo, count) of `for (int v = lo; v < hi; v++)` (or `<=`) with lo and hi read from scope;
    also `for (v = lo; ...)` of a host int that only loops read (`_loop_only`)."""
    got = step_of(f) if isinstance(f, c_ast.For) else None
    if got is None or got[2] != 1 or isinstance(f.init, c_ast.Assignment) and got[0] not in names.loop_only:
        return None
    var, lo, _ = got
    c = f.cond
    if not (isinstance(c, c_ast.BinaryOp) and c.op in ("<", "<=") and is_name(c.left, var)
            and _reads_only(lo, scope) and _reads_only(c.right, scope)):
        return None
    count = c_ast.BinaryOp("-", c.right, lo)
    if c.op == "<=":
        count = c_ast.BinaryOp("+", count, c_ast.Constant("int", "1"))
    return var, lo, count




def _partner(body, var: str, scope) -> str | None:
    """j of a top-level `int j = i ^ E;` (E host scalars only), or None."""
    for d in body:
        if isinstance(d, c_ast.Decl) and _scalar_decl(d) and isinstance(d.init, c_ast.BinaryOp) and d.init.op == "^":
            a, b = d.init.left, d.init.right
            other = b if is_name(a, var) else a if is_name(b, var) else None
            if other is not None and _reads_only(other, scope):
                return d.name
    return None


def _guard(body, var: str, partner: str | None):
    """The then-branch of the one top-level `if (j > i)` (or `i < j`, `j < i`, `i > j`, each also as
    a conjunct of `&&`) with no else, or None: inside it, one index of each pair runs."""
    if partner is None:
        return None
    def owner(c):
        return isinstance(c, c_ast.BinaryOp) and (c.op == "&&" and (owner(c.left) or owner(c.right)) or
                                                  c.op in ("<", ">") and {_name(c.left), _name(c.right)} == {var, partner})
    found = [x for x in body if isinstance(x, c_ast.If) and x.iffalse is None and owner(x.cond)]
    return found[0].iftrue if len(found) == 1 else None


def _distance(body, var: str, partner: str | None):
    """E of the partner's `int j = i ^ E;`, or None."""
    for d in body:
        if partner is not None and isinstance(d, c_ast.Decl) and d.name == partner:
            return d.init.right if is_name(d.init.left, var) else d.init.left
    return None


def _bounds(body, var: str, partner: str, cond) -> bool:
    """Whether the guard's conjuncts hold j in the loop's range: `j > i` (so j >= lo) and `j < hi`
    with hi the loop's own bound (`j <= hi` for a loop to `<= hi`)."""
    def conjuncts(c):
        return conjuncts(c.left) + conjuncts(c.right) if isinstance(c, c_ast.BinaryOp) and c.op == "&&" else [c]
    def holds(c, small, op, big):     # `small op big`, either way round
        flip = {"<": ">", "<=": ">="}[op]
        return isinstance(c, c_ast.BinaryOp) and (c.op == op and small(c.left) and big(c.right) or
                                                  c.op == flip and small(c.right) and big(c.left))
    guard = next(x for x in body if isinstance(x, c_ast.If) and x.iffalse is None and x.iftrue is _guard(body, var, partner))
    found = conjuncts(guard.cond)
    hi = cprint(cond.right)
    return any(holds(c, lambda x: is_name(x, var), "<", lambda x: is_name(x, partner)) for c in found) and \
        any(holds(c, lambda x: is_name(x, partner), cond.op, lambda x: cprint(x) == hi) for c in found)


def _scalar_decl(d: c_ast.Decl) -> bool:
    return isinstance(d.type, c_ast.TypeDecl) and isinstance(d.type.type, c_ast.IdentifierType) and \
        set(d.type.type.names) <= _SCALAR_TYPES


def _reads_only(node, scope) -> bool:
    """Node reads names of scope only: no array, pointer, call or member."""
    return all(not isinstance(x, (c_ast.ArrayRef, c_ast.FuncCall, c_ast.StructRef)) and
               not (isinstance(x, c_ast.UnaryOp) and x.op in ("*", "&")) and
               (not isinstance(x, c_ast.ID) or x.name in scope) for x in _walk(node))


def _target(x) -> str | None:
    """The name an assignment or increment writes (the array's, for a subscript), else None."""
    lv = x.lvalue if isinstance(x, c_ast.Assignment) else x.expr if x.op in ("++", "p++", "--", "p--") else None
    if isinstance(lv, c_ast.ID):
        return lv.name
    return array_name(lv) if isinstance(lv, c_ast.ArrayRef) else None


def _writes(x) -> bool:
    return isinstance(x, c_ast.Assignment) or x.op in ("++", "p++", "--", "p--")






def _name(node) -> str | None:
    return node.name if isinstance(node, c_ast.ID) else None


# -- double buffers ------------------------------------------------------------------------

def swaps(net: Network) -> dict[int, tuple[str, str]]:
    """id(exchange) -> (A, B) for a copy `A[v..] = B[v..]` between two local arrays of one type and
    shape, over their whole extent, that the device buffers can do by trading places: the copy is
    the last item of a top-level host `for` whose first item touching B is an exchange writing every
    cell of B (`B[v..] = e` directly in its body, no `continue`, B read nowhere in it), and nothing
    after that loop touches B.  B's old contents, now A's, are then never read (the next iteration
    rewrites them first, and none comes after the loop), so the copy's pass over memory goes (a
    pairwise tree's levels, a doubling scan's: `b[i] = f(a); a[i] = b[i]`)."""
    by_loop = {id(ex.loop): ex for ex in net.loops}
    out = {}
    for at, top in enumerate(net.body):
        items = block_items(top.stmt) if isinstance(top, c_ast.For) else []
        ex = by_loop.get(id(items[-1])) if items else None
        pair = _copy(ex, net.local_arrays) if ex is not None else None
        if pair is None or any(_touches(it, pair[1]) for it in net.body[at + 1:]):
            continue
        first = next(it for it in items if _touches(it, pair[1]))
        if first is not items[-1] and id(first) in by_loop and _rewrites(by_loop[id(first)], pair[1], net.local_arrays):
            out[id(ex)] = pair
    return out


def _copy(ex: Exchange, local_arrays: dict) -> tuple[str, str] | None:
    """(A, B) of an exchange that is `A[v..] = B[v..]` over the whole of both, else None."""
    body = block_items(ex.body)
    if ex.single is not None or ex.partner or len(body) != 1 or not (
            isinstance(body[0], c_ast.Assignment) and body[0].op == "=" and all(
                isinstance(x, c_ast.ArrayRef) and name_subscripts(x) == ex.vars for x in (body[0].lvalue, body[0].rvalue))):
        return None
    a, b = array_name(body[0].lvalue), array_name(body[0].rvalue)
    ok = a != b and a in local_arrays and local_arrays.get(b) == local_arrays[a] and _whole(ex, local_arrays[a][1])
    return (a, b) if ok else None


def _rewrites(ex: Exchange, b: str, local_arrays: dict) -> bool:
    """Whether every point of the exchange writes its cell of b, which it reads nowhere, and the
    points cover b."""
    writes = [x for x in block_items(ex.body) if isinstance(x, c_ast.Assignment) and x.op == "=" and
              isinstance(x.lvalue, c_ast.ArrayRef) and array_name(x.lvalue) == b and name_subscripts(x.lvalue) == ex.vars]
    refs = [x for x in _walk(ex.body) if isinstance(x, c_ast.ID) and x.name == b]
    return ex.single is None and not ex.partner and len(writes) == 1 and len(refs) == 1 and         not _touches(writes[0].rvalue, b) and not any(isinstance(x, c_ast.Continue) for x in _walk(ex.body)) and         _whole(ex, local_arrays[b][1])


def _whole(ex: Exchange, shape: tuple[str, ...]) -> bool:
    """Whether the nest's loops run 0 .. each extent of `shape`, in order."""
    return len(shape) == len(ex.vars) and all(
        cprint(lo) == "0" and isinstance(n, c_ast.BinaryOp) and n.op == "-" and cprint(n.left) == e
        for lo, n, e in zip(ex.los, ex.counts, shape))


def _touches(node, name: str) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in _walk(node))


# -- printing ------------------------------------------------------------------------------

def candidate(k: Kernel, net: Network, opt: PolyOptions, reason: str) -> str:
    """The `.cu` text: a kernel per exchange loop, NAME_device running the host code, the drop-in NAME;
    `reason` (a sentence) says why the network rather than the model's plan."""
    name, (threads,) = short_name(k), opt.grid.block_1d
    local_arrays = net.local_arrays
    r = Renderer(k, {n: shape for n, (_, shape) in local_arrays.items()})
    # not `dev_NAME` as the model's printer names them: `dev_t` is a type of <sys/types.h>
    r.rename_arrays = {n: f"poly_buf_{n}" for n in local_arrays}
    r.shapes.update({f"poly_buf_{n}": shape for n, (_, shape) in local_arrays.items()})
    params, args = abi.param_list(k), abi.call_args(k)
    kernels, launch, traded = [], {}, swaps(net)
    for t in range(len(net.tilings)):
        kernels += network_tiles.declarations(net, t, name, r, params, args)
    folded = {n: t for t, tree in enumerate(net.trees) for n in tree.gone}
    sorted_ = {n: t for t, s in enumerate(net.sorts) for n in (s.init, *s.steps)}
    for t, s in enumerate(net.sorts):
        kernels += sorts.declarations(s, t, name, r, params)
        launch[id(s.loop)] = sorts.site(s, t, name, args, network_tiles.flush_all(net, name, args, "  "), opt.pool)
    for t, tree in enumerate(net.trees):
        kernels += trees.declarations(tree, t, name, r, params)
        launch[id(tree.loop)] = [*network_tiles.flush_all(net, name, args, ""), *trees.site(tree, t, name, args)]
    for n, ex in enumerate(net.loops):
        kname, depth = f"{name}_exchange{n}", len(ex.vars)
        if n in folded or n in sorted_:   # part of a pairwise tree or a sort: their launches do this work
            launch[id(ex.single or ex.loop)] = []
            continue
        if id(ex) in traded:
            launch[id(ex.loop)] = _trade(*traded[id(ex)], local_arrays[traded[id(ex)][0]][0])
            continue
        extra = "".join(f", {t} {v}" for v, t in ex.host)
        extents = "".join(f", int poly_lo{d}, int poly_n{d}" for d in range(depth))
        decode = []
        for d in reversed(range(depth)):          # the innermost loop fastest: neighbouring threads, neighbouring i
            at = "poly_q" if d == 0 else f"poly_q % poly_n{d}"
            decode.append(f"    const int {ex.vars[d]} = poly_lo{d} + (int)({at});")
            if d:
                decode.append(f"    poly_q /= poly_n{d};")
        body = [f"    {t} {v};   /* this thread's own */" for v, t in ex.private] + \
            [line for it in block_items(ex.body) for line in r.statement(it, {}, "    ")]
        kernels += [f"/* {kname}: {_describe(ex)} */",
                    f"__global__ void __launch_bounds__({threads}) {kname}({params}{extra}{extents}, long long poly_count)",
                    "{",
                    "  for (long long poly_t = (long long)blockIdx.x * blockDim.x + threadIdx.x; poly_t < poly_count; "
                    "poly_t += (long long)gridDim.x * blockDim.x) {",
                    "    long long poly_q = poly_t;", *decode, *body, "  }", "}", ""]
        call = "".join(f", {v}" for v, _ in ex.host) + "".join(f", {cprint(lo)}, poly_n{d}" for d, lo in enumerate(ex.los))
        sizes = [f"  const int poly_n{d} = {cprint(c)};   /* {v} */" for d, (v, c) in enumerate(zip(ex.vars, ex.counts))]
        total = " * ".join(f"(long long)poly_n{d}" for d in range(depth))
        grid = (f"{kname}<<<poly_count < {threads} * 65535LL ? (unsigned)((poly_count + {threads - 1}) / {threads}) "
                f": 65535u, {threads}>>>({args}{call}, poly_count);")
        if ex.tiling is not None:      # queued for its tiling's launch, or launched on its own
            launch[id(ex.loop)] = network_tiles.site(net, n, name, args, [f"const long long poly_count = {total};", grid])
            continue
        launch[id(ex.single or ex.loop)] = ["{", *sizes, f"  const long long poly_count = {total};",
                                            *network_tiles.flush_all(net, name, args, "  "),
                                            f"  if ({' && '.join(f'poly_n{d} > 0' for d in range(depth))})",
                                            f"    {grid}", "}"]
    sorting = {n: f" Only past {name}_select{t}'s reach ({cprint(sel.first)} > {sel.most})."
               for t, sel in enumerate(net.selects) for n in (sel.init, *sel.steps)}
    for t, sel in enumerate(net.selects):   # the network stays for K past the selection's reach
        kernels += selects.declarations(sel, t, name, r, params)
        fill = net.loops[sel.init]
        launch[id(fill.loop)] = selects.skipped(sel, launch[id(fill.loop)])
        launch[id(sel.loop)] = selects.site(sel, t, name, args, _host_lines(sel.loop, launch, ""),
                                            network_tiles.flush_all(net, name, args, "  "))
    host = [line for it in net.body if not (isinstance(it, c_ast.Decl) and it.name in local_arrays)
            for line in _host_lines(it, launch, "  ")]
    buffers = [line for n, (t, _) in local_arrays.items() for line in device_pointer(t, f"poly_buf_{n}")]
    pool = opt.pool
    host = (scratch_head(pool, bool(local_arrays)) if local_arrays or net.sorts else []) \
        + [line for n, (t, shape) in local_arrays.items() for line in local_buffer(t, n, shape, f"poly_buf_{n}", pool)] \
        + network_tiles.queues(net, name) + host + network_tiles.flush_all(net, name, args, "  ") \
        + [f"  {give_back(f'poly_local_{n}', pool)}" for n in local_arrays]
    out = [f"// t2c poly candidate for {k.name} (generated by `t2c gen`; do not edit).", "//",
           "// Mapping: host code (the reference's own control over its scalars, run on the host as written)",
           "//   around exchange loops, one launch per instance, a thread per iteration:",
           *(f"//   {name}_exchange{n}: " + (f"no launch: folded into {name}_tree{folded[n]}." if n in folded else
                                          f"no launch: {name}_sort{sorted_[n]} sorts instead." if n in sorted_ else
                                          _describe(ex, traded.get(id(ex))) + sorting.get(n, ""))
             for n, ex in enumerate(net.loops)),
           *(f"//   {name}_sort{t}: {sorts.describe(s, t, name)}" for t, s in enumerate(net.sorts)),
           *(f"//   {name}_tree{t}: {trees.describe(tree, t, name)}" for t, tree in enumerate(net.trees)),
           *(f"//   {name}_select{t}: {selects.describe(sel, t, name)}" for t, sel in enumerate(net.selects)),
           *(f"//   {name}_tiles{t}: {network_tiles.describe(net, t, name)}" for t in range(len(net.tilings))),
           f"// {reason}",
           *("// " + line for line in helper_note(k)), "",
           "#include <cuda_runtime.h>", "#include <math.h>",
           *(["#include <string.h>"] if any(t.chunked for t in net.trees) else []), *abi.headers(k), ""]
    out += [line for f in own_helpers(k) for line in (f, "")]
    out += buffers + ([""] if buffers else [])
    out += network_tiles.helpers(net)
    out += sorts.helpers(name) if net.sorts else []
    out += kernels
    out += entries(k, host, pool, bool(local_arrays or net.sorts))
    return "\n".join(out) + "\n"


def _trade(a: str, b: str, dtype: str) -> list[str]:
    """Host lines doing the copy `a = b` of `swaps` by trading the buffers."""
    return [f"{{   /* {a} = {b}: the buffers trade places ({b} is rewritten before it is read again) */",
            f"  {dtype} *poly_held = poly_local_{a};", f"  poly_local_{a} = poly_local_{b};",
            f"  poly_local_{b} = poly_held;", *point(f"poly_buf_{a}", f"poly_local_{a}"),
            *point(f"poly_buf_{b}", f"poly_local_{b}"), "}"]


def _describe(ex: Exchange, traded: tuple | None = None) -> str:
    if traded:
        a, b = traded
        return f"the copy {a} = {b} of the whole arrays: no launch, the buffers trade places ({b} is rewritten first)."
    if ex.single is not None:
        return f"one thread runs `{cprint(ex.single)}` (outside the loops)."
    point = ", ".join(ex.vars)
    head = f"loop{'s' if len(ex.vars) > 1 else ''} {point}, a thread per ({point})" if len(ex.vars) > 1 else \
        f"loop {ex.var}, a thread per {ex.var}"
    if ex.partner:
        return (f"{head}; {ex.var} and its partner {ex.partner} = {ex.var} ^ ... pair the cells, and only one of "
                f"each pair touches them (its guard), so no two threads share a cell.")
    own = f" ({', '.join(v for v, _ in ex.private)}: each thread's own)" if ex.private else ""
    return f"{head}; each writes only its own cells{own}."


def _host_lines(it, launch: dict, ind: str) -> list[str]:
    """Host C for a host-code item; an exchange loop becomes its launch."""
    if id(it) in launch:
        return [ind + line for line in launch[id(it)]]
    if isinstance(it, c_ast.For):
        init = cprint(it.init) if it.init is not None else ""
        head = f"for ({init}; {cprint(it.cond) if it.cond else ''}; {cprint(it.next) if it.next else ''})"
        return [ind + head + " {", *_block(it.stmt, launch, ind), ind + "}"]
    if isinstance(it, c_ast.While):
        return [ind + f"while ({cprint(it.cond)}) {{", *_block(it.stmt, launch, ind), ind + "}"]
    if isinstance(it, c_ast.DoWhile):
        return [ind + "do {", *_block(it.stmt, launch, ind), ind + f"}} while ({cprint(it.cond)});"]
    if isinstance(it, c_ast.If):
        out = [ind + f"if ({cprint(it.cond)}) {{", *_block(it.iftrue, launch, ind)]
        if it.iffalse is not None:
            out += [ind + "} else {", *_block(it.iffalse, launch, ind)]
        return out + [ind + "}"]
    if isinstance(it, c_ast.Compound):
        return [ind + "{", *_block(it, launch, ind), ind + "}"]
    return [ind + cprint(it) + ";"]


def _block(s, launch, ind) -> list[str]:
    return [line for x in block_items(s) for line in _host_lines(x, launch, ind + "  ")]
