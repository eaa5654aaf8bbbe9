"""Pairwise trees: a level loop that folds a buffer pairwise, printed as a block tree reduction.

The class: in host code around exchange loops (network.py), a top-level doubling loop

    for (h = 1; h < N; h *= 2) {
      for (i = 0; i < N; i++) b[i] = (i % (2 * h) == 0 && i + h < N) ? f(a[i], a[i + h]) : a[i];
      for (i = 0; i < N; i++) a[i] = b[i];
    }

over two local arrays a, b of extent N, after which nothing touches b and a is read only at
a[0] (a spec's `for h in 1..n doubling:` pairwise tree: a sum, a maximum, any `f` of the pair).
After level h, a[j] for j a multiple of h holds the tree of the leaves [j, min(j + h, N)), so
a[0] is the tree of all N leaves.  A block tree keeps exactly that association (the pair's
order included), so the result is bit for bit the reference's, whatever `f` is: a chunk is an
aligned run of THREADS * RUN leaves folded with the same pairing (RUN leaves in a thread's
registers, then strides across lanes by shuffles, then across warps); a block folds an aligned
run of a power of two of chunks, chunk by chunk, then their values the same way, so that at most
BLOCKS blocks remain; one more block folds their values into a[0] and runs the one-thread
statements right after the loop (`s[0] = a[0]`).  Two launches however large N is, one pass over
the leaves, and no buffer copy.

The leaves are a's cells, or, when the last write of a before the loop is an exchange
`a[i] = E` over 0..N reading only parameters (a spec's `let a[i] = x[i]`) and nothing between
it and the loop touches a or writes what E reads, E itself: that launch goes.  Exchanges before
the loop that write only b go too (the first level rewrites b before it is read).  Anything
else (b or a[1..] read after the loop, h read outside it, a level loop of another shape) is
no tree: the level loop stays a launch per level.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, replace

from pycparser import c_ast

from ...ir import DTYPES
from ...ir.csyntax import array_name, block_items, conjuncts, cprint, name_subscripts, walk
from ...analysis.model import parse_expr
from .ctext import rewrite

THREADS = 256            # threads of a block
RUN = 8                  # leaves a thread folds in registers
BLOCKS = 1024            # at most this many blocks (about one wave of a large GPU's): a chunk holds their values


@dataclass(frozen=True)
class Tree:
    """A pairwise tree of `acc` over 0..count, replacing the host level loop `loop`."""
    loop: c_ast.For                    # the level loop: host code the tree's launches replace
    count: c_ast.Node                  # N: the leaves 0..N
    acc: str                           # a: its cell 0 gets the result
    scratch: str                       # b: the level loop's second buffer, free for the runs' values
    dtype: str                         # their element type
    pair: c_ast.Node                   # f(poly_x, poly_y): a[i] as poly_x, a[i + h] as poly_y
    var: str                           # i, the leaf index `leaf` reads
    leaf: c_ast.Node | None            # E of the fused `a[i] = E`, or None: the leaves are a's cells
    gone: tuple[int, ...]              # Network.loops indices that no longer launch (the level's, fused ones)
    threads: int = THREADS             # a block's threads (a multiple of 32, at most 1024)
    run: int = RUN                     # leaves a thread folds in registers (a power of two)
    then: tuple = ()                   # one-thread statements right after the loop: the top launch runs them
    chunked: tuple = ()                # (array, C type) of the leaf's reads B[i]: a thread's run by 16-byte loads

    @property
    def chunk(self) -> int:
        return self.threads * self.run


def trees_of(net, copy_of, dtypes: dict) -> tuple[Tree, ...]:
    """The pairwise trees among the network's top-level level loops (`copy_of(exchange)`: the
    (A, B) of an exchange that is `A[v..] = B[v..]` over the whole of both, else None; `dtypes`:
    array -> C element type)."""
    by_loop = {id(ex.loop): n for n, ex in enumerate(net.loops)}
    out = []
    for at, top in enumerate(net.body):
        if isinstance(top, c_ast.For) and (t := _tree(net, at, top, by_loop, copy_of)) is not None:
            out.append(replace(t, chunked=_chunked(t, dtypes)))
    return tuple(out)


def _chunked(t: Tree, dtypes: dict) -> tuple:
    """(array, C type) of the arrays the leaf reads at [i] (a's cells when there is no leaf) whose
    run of a thread's leaves is a whole number of 16-byte words: those reads take a thread's run
    by 16-byte loads (the chunk and the run start at multiples of RUN leaves)."""
    node = t.leaf if t.leaf is not None else c_ast.ArrayRef(c_ast.ID(t.acc), c_ast.ID(t.var))
    out = []
    for x in walk(node):
        if isinstance(x, c_ast.ArrayRef) and cprint(x) == f"{array_name(x)}[{t.var}]":
            a = array_name(x)
            size = DTYPES.get(dtypes.get(a, ""), (0,))[0]
            if size and 16 % size == 0 and t.run * size % 16 == 0 and (a, dtypes[a]) not in out:
                out.append((a, dtypes[a]))
    return tuple(out)


def _tree(net, at: int, top: c_ast.For, by_loop: dict, copy_of) -> Tree | None:
    level = _doubling(top)
    items = block_items(top.stmt)
    if level is None or len(items) != 2 or not all(id(x) in by_loop for x in items):
        return None
    h, bound = level
    fold, back = (net.loops[by_loop[id(x)]] for x in items)
    pair = copy_of(back)
    if pair is None or fold.single is not None or fold.partner or len(fold.vars) != 1:
        return None
    a, b = pair
    dtype, shape = net.local_arrays[a]
    n, i = cprint(bound), fold.var
    body = block_items(fold.body)
    if shape != (n,) or cprint(fold.los[0]) != "0" or cprint(fold.counts[0].left) != n or len(body) != 1:
        return None
    st = body[0]
    if not (isinstance(st, c_ast.Assignment) and st.op == "=" and isinstance(st.lvalue, c_ast.ArrayRef)
            and array_name(st.lvalue) == b and name_subscripts(st.lvalue) == (i,)
            and isinstance(st.rvalue, c_ast.TernaryOp)):
        return None
    cond, then, other = st.rvalue.cond, st.rvalue.iftrue, st.rvalue.iffalse
    wanted = {cprint(parse_expr(f"{i} % (2 * {h}) == 0")), cprint(parse_expr(f"{i} + {h} < {n}"))}
    if {cprint(c) for c in conjuncts(cond)} != wanted or cprint(other) != f"{a}[{i}]":
        return None
    f = _pair(then, a, i, h)
    rest = net.body[:at] + net.body[at + 1:]
    if f is None or any(_reads(x, h) for x in rest if not _declares(x, h)):
        return None
    after = net.body[at + 1:]
    if any(_reads(x, b) for x in after) or not all(_only_first(x, a) for x in after):
        return None
    gone = [by_loop[id(x)] for x in items]
    for x in net.body[:at]:           # what fills b before the loop: never read
        if _reads(x, b) and not isinstance(x, c_ast.Decl):
            n_ex = by_loop.get(id(x))
            if n_ex is None or {w for w, _ in net.loops[n_ex].writes} != {b}:
                return None
            gone.append(n_ex)
    leaf, var = _leaf(net, at, a, n, by_loop)
    if leaf is not None:
        gone.append(leaf[1])
    then = _then(net, after)
    gone += [n_ex for n_ex, _ in then]
    return Tree(top, bound, a, b, dtype, f, var if leaf else i, leaf[0] if leaf else None, tuple(sorted(gone)),
                THREADS, RUN, tuple(st for _, st in then))


def _then(net, after) -> list:
    """(Network.loops index, statement) of the one-thread statements (`s[0] = a[0]`) that follow
    the level loop directly: the tree's top launch runs them in its thread 0, once that thread has
    written a[0], instead of a launch each."""
    single = {id(ex.single): n for n, ex in enumerate(net.loops) if ex.single is not None and not ex.host}
    out = []
    for x in after:
        if id(x) not in single:
            break
        out.append((single[id(x)], x))
    return out


def _doubling(f: c_ast.For) -> tuple[str, c_ast.Node] | None:
    """(h, N) of `for (h = 1; h < N; h *= 2)` (or `h = h * 2`, `int h = 1`)."""
    init, cond, nxt = f.init, f.cond, f.next
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        var, first = init.decls[0].name, init.decls[0].init
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var, first = init.lvalue.name, init.rvalue
    else:
        return None
    if first is None or cprint(first) != "1" or not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<"
                                                     and cprint(cond.left) == var):
        return None
    doubles = isinstance(nxt, c_ast.Assignment) and cprint(nxt.lvalue) == var and (
        nxt.op == "*=" and cprint(nxt.rvalue) == "2" or
        nxt.op == "=" and cprint(nxt.rvalue) in (f"{var} * 2", f"2 * {var}"))
    return (var, cond.right) if doubles else None


def _pair(then: c_ast.Node, a: str, i: str, h: str) -> c_ast.Node | None:
    """f(poly_x, poly_y) of `f(a[i], a[i + h])` reading nothing else (constants and functions
    aside), or None."""
    f = copy.deepcopy(then)
    names = {f"{a}[{i}]": "poly_x", f"{a}[{i} + {h}]": "poly_y", f"{a}[{h} + {i}]": "poly_y"}
    def go(node):
        if isinstance(node, c_ast.ArrayRef):
            return c_ast.ID(names[cprint(node)]) if cprint(node) in names else None
        if isinstance(node, c_ast.ID):
            return node
        for attr in node.__slots__:
            child = getattr(node, attr, None)
            if isinstance(child, c_ast.Node):
                got = go(child)
                if got is None:
                    return None
                setattr(node, attr, got)
            elif isinstance(child, list):
                kids = [go(c) if isinstance(c, c_ast.Node) else c for c in child]
                if any(k is None for k in kids):
                    return None
                setattr(node, attr, kids)
        return node
    f = go(f)
    if f is None:
        return None
    called = {id(x.name) for x in walk(f) if isinstance(x, c_ast.FuncCall)}
    free = {x.name for x in walk(f) if isinstance(x, c_ast.ID) and id(x) not in called}
    return f if free <= {"poly_x", "poly_y"} and free else None


def _leaf(net, at: int, a: str, n: str, by_loop: dict):
    """((E, its Network.loops index), i) of the last write of a before the loop when it is an
    exchange `a[i] = E` over 0..N that E can replace, else (None, None)."""
    before = [x for x in net.body[:at] if not isinstance(x, c_ast.Decl)]
    last = max((k for k, x in enumerate(before) if _reads(x, a)), default=None)
    if last is None or id(before[last]) not in by_loop:
        return None, None
    n_ex = by_loop[id(before[last])]
    ex = net.loops[n_ex]
    body = block_items(ex.body)
    if ex.single is not None or ex.partner or ex.host or len(ex.vars) != 1 or cprint(ex.los[0]) != "0" or \
            cprint(ex.counts[0].left) != n or len(body) != 1:
        return None, None
    st = body[0]
    if not (isinstance(st, c_ast.Assignment) and st.op == "=" and isinstance(st.lvalue, c_ast.ArrayRef)
            and array_name(st.lvalue) == a and name_subscripts(st.lvalue) == ex.vars) or _reads(st.rvalue, a):
        return None, None
    read = {x.name for x in walk(st.rvalue) if isinstance(x, c_ast.ID)}
    between = before[last + 1:]
    if any(_reads(x, a) for x in between) or any(w in read for x in between if id(x) in by_loop
                                                   for w, _ in net.loops[by_loop[id(x)]].writes):
        return None, None
    return (st.rvalue, n_ex), ex.var


def _reads(node, name: str) -> bool:
    return any(isinstance(x, c_ast.ID) and x.name == name for x in walk(node))


def _declares(node, name: str) -> bool:
    return isinstance(node, c_ast.Decl) and node.name == name


def _only_first(node, a: str) -> bool:
    """Whether node touches a only by reading a[0]."""
    refs = [x for x in walk(node) if isinstance(x, c_ast.ArrayRef) and array_name(x) == a]
    ids = [x for x in walk(node) if isinstance(x, c_ast.ID) and x.name == a]
    written = any(isinstance(x, c_ast.Assignment) and isinstance(x.lvalue, c_ast.ArrayRef) and array_name(x.lvalue) == a
                  for x in walk(node))
    return not written and len(refs) == len(ids) and all(cprint(r.subscript) == "0" for r in refs)


# -- printing ------------------------------------------------------------------------------

def declarations(tree: Tree, t: int, name: str, r, params: str) -> list[str]:
    """The tree's two kernels.  NAME_treeT: block b folds `poly_per` consecutive chunks of the
    leaves (a power of two: an aligned run of the tree), each to a value in shared memory, then
    those values the same way, to poly_dst[b]; a thread takes its own run of leaves, loaded by
    16-byte chunks when every chunked pointer is aligned (`Tree.chunked`), the next chunk's loads
    issued before this one folds.  NAME_treeT_top: one block folds the blocks' values (at most a
    chunk of them) to poly_out[0] = a[0], then thread 0 runs the statements after the loop."""
    ty, threads, chunk, run, i = tree.dtype, tree.threads, tree.chunk, tree.run, tree.var
    node = tree.leaf if tree.leaf is not None else c_ast.ArrayRef(c_ast.ID(tree.acc), c_ast.ID(i))
    leaf = cprint(r.node(node, {}))
    chunks_node = _from_chunks(node, tree)
    from_chunks = cprint(r.node(chunks_node, {}))
    pointer = {a: r.rename_arrays.get(a, a) for a, _ in tree.chunked}
    pad = chunk + chunk // 32
    then = [line for st in tree.then for line in r.statement(st, {}, "    ")]
    shared = [f"  __shared__ {ty} poly_s[{pad}];   /* value j at j + j / 32: no bank conflicts */",
              f"  __shared__ {ty} poly_w[{threads // 32}];"]
    aligned = " && ".join(f"((unsigned long long)({pointer[a]}) & 15) == 0" for a, _ in tree.chunked) or "false"

    def loads(cond: str, at: str, indent: str) -> list[str]:
        out = [f"{indent}if ({cond}) {{"]
        for a, dt in tree.chunked:
            words = run * DTYPES[dt][0] // 16
            out += [f"{indent}  const uint4 *poly_q_{a} = (const uint4 *)&{pointer[a]}[{at}];   /* {words} x 16 bytes */",
                    *(f"{indent}  {{ const uint4 poly_c = poly_q_{a}[{w}]; memcpy((char *)poly_c_{a} + {16 * w}, &poly_c, 16); }}"
                      for w in range(words))]
        return out + [f"{indent}}}"]
    return [f"/* {name}_tree{t}: {describe(tree, t, name)} */",
            f"__global__ void __launch_bounds__({threads}) {name}_tree{t}({params}, long long poly_n, int poly_per, "
            f"{ty} *poly_dst)", "{", shared[1],
            f"  __shared__ {ty} poly_up[{pad}];   /* the block's chunks' values, value j at j + j / 32 */",
            f"  const long long poly_base = (long long)blockIdx.x * poly_per * {chunk};",
            f"  const bool poly_vec = {aligned};   /* whole chunks by 16-byte loads */",
            *(f"  {dt} poly_c_{a}[{run}];   /* {a} of this thread's leaves in the next whole chunk */" for a, dt in tree.chunked),
            *loads(f"poly_vec && poly_base + {chunk} <= poly_n", f"poly_base + {run} * threadIdx.x", "  "),
            "  int poly_chunks = 0;",
            "  for (int poly_g = 0; poly_g < poly_per; poly_g++) {",
            f"    const long long poly_first = poly_base + (long long)poly_g * {chunk};",
            "    if (poly_first >= poly_n)",
            "      break;",
            "    const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;",
            f"    const long long poly_at = poly_first + {run}LL * poly_t;   /* this thread's first leaf */",
            f"    {ty} poly_v[{run}] = {{}};",
            f"    if (poly_vec && poly_first + {chunk} <= poly_n) {{",
            "#pragma unroll",
            f"      for (int poly_k = 0; poly_k < {run}; poly_k++) {{",
            *([f"        const int {i} = (int)(poly_at + poly_k);"] if _reads(chunks_node, i) else []),
            f"        poly_v[poly_k] = {from_chunks};", "      }",
            "    } else",
            "#pragma unroll",
            f"      for (int poly_k = 0; poly_k < {run}; poly_k++)",
            "        if (poly_at + poly_k < poly_n) {",
            f"          const int {i} = (int)(poly_at + poly_k);", f"          poly_v[poly_k] = {leaf};", "        }",
            "    /* the next chunk's loads, in flight during this one's fold */",
            *loads(f"poly_vec && poly_g + 1 < poly_per && poly_first + {2 * chunk} <= poly_n",
                   f"poly_first + {chunk} + {run} * threadIdx.x", "    "),
            *_fold(tree, r, "poly_up[poly_g + poly_g / 32]", "    ", None),
            "    __syncthreads();", "    poly_chunks++;", "  }",
            "  {   /* the chunks' values, the levels above them */",
            "    const long long poly_first = 0, poly_n = poly_chunks;",
            *_fold(tree, r, "poly_dst[blockIdx.x]", "    ", "poly_up"), "  }", "}", "",
            f"/* {name}_tree{t}_top: the levels above {name}_tree{t}'s values, one block; then the statements after the loop. */",
            f"__global__ void __launch_bounds__({threads}) {name}_tree{t}_top({params}, long long poly_n, const {ty} *poly_src, "
            f"{ty} *poly_out)", "{", *shared,
            "  const long long poly_first = 0;",
            f"  for (int poly_k = threadIdx.x; poly_k < {chunk}; poly_k += {threads})",
            "    if (poly_k < poly_n)",
            "      poly_s[poly_k + poly_k / 32] = poly_src[poly_k];",
            "  __syncthreads();", *_fold(tree, r, "poly_out[0]", "  "),
            *(["  if (threadIdx.x == 0) {   /* (the thread that wrote a[0]) */", *then, "  }"] if then else []),
            "}", ""]


def _from_chunks(node, tree: Tree):
    """A copy of the leaf with each read `B[i]` of a chunked array as poly_c_B[poly_k]."""
    names = {f"{a}[{tree.var}]": a for a, _ in tree.chunked}
    return rewrite(copy.deepcopy(node), lambda x: c_ast.ArrayRef(c_ast.ID(f"poly_c_{names[cprint(x)]}"), c_ast.ID("poly_k"))
                   if isinstance(x, c_ast.ArrayRef) and cprint(x) in names else None)


def _fold(tree: Tree, r, dst: str, indent: str, src: str | None = "poly_s") -> list[str]:
    """A block's fold of the values poly_first .. poly_n - 1 in the shared array `src` (None: a
    thread's run already in poly_v, beside poly_t, poly_lane, poly_at), in the reference's
    pairing, to `dst`."""
    ty, f, run, warps = tree.dtype, cprint(r.node(tree.pair, {})), tree.run, tree.threads // 32
    head = [] if src is None else [
        "  const int poly_t = threadIdx.x, poly_lane = threadIdx.x % 32;",
        f"  const long long poly_at = poly_first + {run}LL * poly_t;   /* this thread's first leaf */",
        f"  {ty} poly_v[{run}] = {{}};",
        "#pragma unroll",
        f"  for (int poly_k = 0; poly_k < {run}; poly_k++)",
        "    if (poly_at + poly_k < poly_n) {",
        f"      const int poly_j = {run} * poly_t + poly_k;",
        f"      poly_v[poly_k] = {src}[poly_j + poly_j / 32];",
        "    }"]
    return [line if line.startswith("#") else indent[2:] + line for line in [
        *head,
        "#pragma unroll",
        f"  for (int poly_h = 1; poly_h < {run}; poly_h *= 2)   /* the levels within a thread's run */",
        "#pragma unroll",
        f"    for (int poly_k = 0; poly_k < {run}; poly_k += 2 * poly_h)",
        "      if (poly_at + poly_k + poly_h < poly_n) {",
        f"        const {ty} poly_x = poly_v[poly_k], poly_y = poly_v[poly_k + poly_h];",
        f"        poly_v[poly_k] = {f};",
        "      }",
        f"  {ty} poly_r = poly_v[0];",
        "#pragma unroll",
        "  for (int poly_d = 1; poly_d < 32; poly_d *= 2) {   /* the levels across a warp's runs */",
        f"    const {ty} poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);",
        f"    if (poly_lane % (2 * poly_d) == 0 && poly_at + {run}LL * poly_d < poly_n) {{",
        f"      const {ty} poly_x = poly_r;",
        f"      poly_r = {f};",
        "    }",
        "  }",
        "  if (poly_lane == 0)",
        "    poly_w[poly_t / 32] = poly_r;",
        "  __syncthreads();",
        "  if (poly_t < 32) {   /* the levels across the block's warps */",
        f"    poly_r = poly_w[poly_lane % {warps}];",
        "#pragma unroll",
        f"    for (int poly_d = 1; poly_d < {warps}; poly_d *= 2) {{",
        f"      const {ty} poly_y = __shfl_down_sync(0xffffffffu, poly_r, poly_d);",
        f"      if (poly_lane % (2 * poly_d) == 0 && poly_first + {32 * run}LL * (poly_lane + poly_d) < poly_n) {{",
        f"        const {ty} poly_x = poly_r;",
        f"        poly_r = {f};",
        "      }",
        "    }",
        "    if (poly_lane == 0 && poly_first < poly_n)   /* (a block of no leaves writes nothing) */",
        f"      {dst} = poly_r;",
        "  }"]]


def site(tree: Tree, t: int, name: str, args: str) -> list[str]:
    """Host lines in place of the level loop and the statements after it: the chunks per block
    doubled until at most `BLOCKS` blocks remain (their values fit one chunk of the top), the
    blocks' values in b (free after the loop); the top launch when there are several of them or
    statements to run."""
    a, b, threads, chunk = f"poly_local_{tree.acc}", f"poly_local_{tree.scratch}", tree.threads, tree.chunk
    most = min(BLOCKS, chunk)      # (and a block's chunks, fewer than chunk * BLOCKS for int leaves, fit poly_up)
    if tree.then:                  # the top runs them, even with no leaves (it then writes no a[0])
        dst, top = b, []
    else:                          # a single block's value is the sum
        dst, top = f"poly_blocks == 1 ? {a} : {b}", ["  if (poly_blocks > 1)"]
    return ["{   /* the pairwise tree: a pass over the leaves, then one block over the blocks' values */",
            f"  const long long poly_n = {cprint(tree.count)};",
            f"  const long long poly_chunks = poly_n > 0 ? (poly_n + {chunk - 1}) / {chunk} : 0;",
            "  int poly_per = 1;   /* chunks a block folds */",
            f"  while (poly_chunks > (long long)poly_per * {most})",
            "    poly_per *= 2;",
            "  const long long poly_blocks = (poly_chunks + poly_per - 1) / poly_per;",
            "  if (poly_blocks > 0)",
            f"    {name}_tree{t}<<<(unsigned)poly_blocks, {threads}>>>({args}, poly_n, poly_per, {dst});", *top,
            f"  {'  ' if top else ''}{name}_tree{t}_top<<<1, {threads}>>>({args}, poly_blocks, {b}, {a});",
            "}"]


def describe(tree: Tree, t: int, name: str) -> str:
    what = f"{cprint(tree.leaf)} for {tree.var}" if tree.leaf is not None else f"{tree.acc}[{tree.var}]"
    then = "; then " + "; ".join(f"`{cprint(st)}`" for st in tree.then) if tree.then else ""
    return (f"the pairwise tree of {what} < {cprint(tree.count)} into {tree.acc}[0], the reference's pairing: "
            f"chunks of {tree.chunk} leaves ({tree.run} a thread, then warp shuffles), a power of two of them a block "
            f"(at most {BLOCKS} blocks), then one block over the blocks' values{then}.")
