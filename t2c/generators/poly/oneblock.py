"""A host loop of small launches as one block: the launches' work, without a launch each.

    loops_of(plan) -> [HostLoop];  threads, thread_scalars, unsynced, private_arrays: facts;
    block_kernel, resident_kernel, blocks_kernel, host_code: printing

Takes a top-level host loop whose launches are plain 1-d grids or one thread; gives a kernel
running the whole loop in one block (each launch a block-strided loop, barriers where needed),
a form with its arrays resident in shared memory, and a block per iteration where arrays
private to an iteration allow. The host takes the block when no launch asks for more than
`one_block.max_threads` threads, the launches otherwise; both run the same instances in the
same order. Why: each launch costs more than its work. docs/poly.md, "One-block host loops".
"""
from __future__ import annotations

import re

from ...analysis import Loop
from ...ir import abi
from .ctext import WORD, balanced, extent_text, names_used, parens
from .mapping import HostLoop, Launch
from . import substitution
from .reduce import fresh_name


def launches(h: HostLoop) -> list[Launch]:
    out = []
    for it in h.items:
        out += launches(it) if isinstance(it, HostLoop) else [it]
    return out


def _loops(h: HostLoop) -> list[str]:
    return [h.loop.var] + [v for it in h.items if isinstance(it, HostLoop) for v in _loops(it)]


def loops_of(plan) -> list[HostLoop]:
    """The top-level host loops whose launches are all plain (see the module docstring)."""
    def plain(l: Launch) -> bool:        # a column reduction is a plain loop in each thread too
        return not l.reduction and not (l.row and not l.row.column) and len(l.grid) <= 1 and not l.tiles
    return [it for it in plan.items if isinstance(it, HostLoop) and all(map(plain, launches(it)))]


def launch_axes(launch: Launch) -> list[str]:
    return [ax for ax in ("x", "y", "z") if ax in launch.axes.values()]


def at_function(p, launch: Launch, text: str, at_params: str, suffix: str = "_at") -> str:
    """A launch's body as `NAME_at(at_params, idx_x, ...)`: the thread's grid index as arguments
    (a one-block loop's items and a merged launch's parts call it; a 2-d time tile, NAME_tile)."""
    index = ", ".join(f"int idx_{ax}" for ax in launch_axes(launch))
    return "\n".join([f"/* {p.describe(launch)} */",
                      f"static __device__ void {launch.name}{suffix}({', '.join(x for x in (at_params, index) if x)})",
                      "{", text, "}"])


def device_and_kernel(p, launch: Launch, text: str, args: list[str], params: str, at_params: str) -> str:
    """`NAME_at` (`at_params`: the kernel's and the local arrays' pointers) and the launch's
    kernel calling it (with `args`)."""
    threads = [f"(int)(blockIdx.{ax} * blockDim.{ax} + threadIdx.{ax})" for ax in launch_axes(launch)]
    return "\n".join([at_function(p, launch, text, at_params), "",
                      f"__global__ void {launch.name}({params})", "{", *p.waits(launch.name, launch.host_loops, params),
                      f"  {launch.name}_at({', '.join(args + threads)});", "}"])


def _block(p, h: HostLoop, calls) -> tuple[list[str], list[str]]:
    """The one-block kernel's body and its arguments (every name the body uses that is a
    parameter of the kernel or a host scalar: the loops' bounds need sizes the launches may not)."""
    item = fresh_name("item", set(p.k.params) | set(p.an.program.locals) | set(_loops(h)))
    mine = sorted(h.thread_webs)
    body = [f"  {p.web_type[w]} dev_{w} = ::dev_{w};   /* this thread's own copy */" for w in mine] + \
        [f"  int {v};" for v in dict.fromkeys(_loops(h))] + _items(p, [h], "  ", calls, item) + \
        [f"  if (threadIdx.x == 0)\n    ::dev_{w} = dev_{w};" for w in mine]
    used = names_used("\n".join(body)) - set(_loops(h))
    order = list(p.k.params) + [w for w, s in p.plan.storage.items() if s == "host"]
    return body, [a for a in order if a in used]


def threads(p, h: HostLoop) -> int:
    """The one-block kernel's threads: `one_block.threads`, or where that is None (the default)
    1024, and 512 for a loop with a block sum: the fastest measured for each (durbin; jacobi-1d,
    trisolv: docs/poly-options.md, `one_block.threads`)."""
    if p.opt.one_block.threads:
        return p.opt.one_block.threads
    return 512 if any(l.block_sum for l in launches(h)) else p.target.max_threads


def block_kernel(p, h: HostLoop, calls) -> str:
    """The one-block kernel; `__launch_bounds__` keeps its registers within one SM's file for
    a block of `h.threads` (64 each for 1024), so the launch cannot fail for them."""
    name = f"{p.short}_loop_{h.loop.var}"
    body, args = _block(p, h, calls)
    return "\n".join([f"/* {name}: host loop {h.loop.var} in one block of threads, for sizes where no launch in it "
                      f"needs more than {p.opt.one_block.max_threads} threads: each launch a block-strided loop, "
                      "then __syncthreads(). */",
                      f"__global__ void __launch_bounds__({h.threads}) "
                      f"{name}({', '.join(param_decl(p, h, a) for a in args)})", "{", *body, "}"])


def _resident(p, h: HostLoop, calls) -> list[str] | None:
    """The arrays the one-block kernel can keep in shared memory for the whole loop (all of
    its array arguments: the block is the only one running the loop, so no other thread
    reads or writes them meanwhile; with `one_block.resident.locals` also the reference's local arrays
    it uses, `dev_X`), or None when the option is off or it has none."""
    if not p.opt.one_block.resident:
        return None
    body, args = _block(p, h, calls)
    arrays = [a for a in args if any(x.name == a for x in p.k.arrays)]
    if p.opt.one_block.resident.locals:
        used = names_used("\n".join(body))
        arrays += [f"dev_{n}" for n in p.local_arrays if f"dev_{n}" in used]
    return arrays or None


def _dtype(p, a: str) -> str:
    """An array's element type: a kernel array's, or a local array's (`dev_X`)."""
    return p.an.program.locals[a[4:]].dtype if _is_local(p, a) else p.k.array(a).dtype


def _is_local(p, a: str) -> bool:
    return a.startswith("dev_") and a[4:] in p.local_arrays


def _resident_bytes(p, a: str) -> str:
    """An array's bytes in the resident kernel's shared memory, as C: 32-byte aligned."""
    return f"({abi.nbytes(_dtype(p, a), _count(p, a))} + 31) / 32 * 32"


def _sized_args(p, h: HostLoop, calls, arrays: list[str]) -> list[str]:
    """The one-block kernel's arguments and the sizes `arrays`' counts need."""
    args = _block(p, h, calls)[1]
    words = set(WORD.findall(" ".join(_count(p, a) for a in arrays)))
    return [a for a in p.k.params if a in args or (a in words and a not in args)] + \
        [a for a in args if a not in p.k.params]


def resident_kernel(p, h: HostLoop, calls) -> str | None:
    """The one-block kernel with its arrays in dynamic shared memory: copied in at the start,
    the loop on the copies (the parameters' names now point there), the written ones copied
    back at the end.  The host takes it when the arrays fit in a block's shared memory."""
    arrays = _resident(p, h, calls)
    if not arrays:
        return None
    name = f"{p.short}_loop_{h.loop.var}"
    body, _ = _block(p, h, calls)
    args = _sized_args(p, h, calls, arrays)
    decl = lambda a: param_decl(p, h, a).replace(f"*{a}", f"*{a}_global") if a in arrays else param_decl(p, h, a)
    written = [a for a in arrays if _is_local(p, a) or not param_decl(p, h, a).startswith("const")]
    home = lambda a: f"::{a}" if _is_local(p, a) else f"{a}_global"     # a local array's __device__ one
    head = ["  extern __shared__ double4 poly_resident[];   /* 32-byte aligned */", "  size_t poly_at = 0;"]
    for a in arrays:
        t = _dtype(p, a)
        head += [f"  {t} *{a} = ({t} *)((char *)poly_resident + poly_at);",
                 f"  for (size_t poly_e = threadIdx.x; poly_e < {_count(p, a)}; poly_e += blockDim.x)",
                 f"    {a}[poly_e] = {home(a)}[poly_e];",
                 f"  poly_at += {_resident_bytes(p, a)};"]
    tail = ["  __syncthreads();"] + [line for a in written for line in (
        f"  for (size_t poly_e = threadIdx.x; poly_e < {_count(p, a)}; poly_e += blockDim.x)",
        f"    {home(a)}[poly_e] = {a}[poly_e];")]
    return "\n".join([f"/* {name}_resident: {name} with arrays {', '.join(arrays)} in shared memory for the whole "
                      "loop (copied in first, the written ones back at the end), for sizes where they fit. */",
                      f"__global__ void __launch_bounds__({h.threads}) "
                      f"{name}_resident({', '.join(decl(a) for a in args)})", "{",
                      *head, "  __syncthreads();", *body, *tail, "}"])


def param_decl(p, h: HostLoop, a: str) -> str:
    """A parameter of a kernel that runs a whole host loop (one block, persistent.py): an array
    `const` unless a launch of the loop writes it."""
    writers = launches(h)
    arr = next((x for x in p.k.arrays if x.name == a), None)
    if arr is None:
        return p.param_decl(a, writers[0])
    written = any(w.name == a for l in writers for s in l.statements()
                  for w in p.an.program.statement(s).writes())
    return f"{'' if written else 'const '}{arr.dtype} *{a}"


def _items(p, items, indent, calls, item) -> list[str]:
    out = []
    for it in items:
        if isinstance(it, HostLoop):
            l = it.loop
            out += [f"{indent}for ({l.init}; {l.cond}; {l.next})", indent + "{",
                    *_items(p, it.items, indent + "  ", calls, item), indent + "}"]
            continue
        call = ", ".join(calls[it.name] + p.at_locals.get(it.name, []))
        sync = [] if it.unsynced else [f"{indent}__syncthreads();"]
        if not it.grid and it.block_sum:          # a sum the whole block shares (reduce.BlockSum)
            out += [f"{indent}{it.name}_block({call});", *sync]
            continue
        if not it.grid and it.every_thread:
            out += [f"{indent}{it.name}_at({call});   /* every thread: its own scalars */", *sync]
            continue
        if not it.grid:
            out += [f"{indent}if (threadIdx.x == 0)", f"{indent}  {it.name}_at({call});", *sync]
            continue
        ext = p.extents(it)
        if ext is None:
            out.append(f"{indent}/* {it.name}: empty iteration domain */")
            continue
        axes = list(ext)
        total = " * ".join(f"extent_{ax}" for ax in axes)
        index = {1: [item], 2: [f"{item} % extent_x", f"{item} / extent_x"],
                 3: [f"{item} % extent_x", f"{item} / extent_x % extent_y", f"{item} / (extent_x * extent_y)"]}
        args = ", ".join(x for x in (call, *index[len(axes)]) if x)
        loop = f"for (int {item} = threadIdx.x; {item} < {total}; {item} += blockDim.x)"
        out += [f"{indent}{{"]
        out += [f"{indent}  const int extent_{ax} = {ext[ax][0]};   /* {ext[ax][1]} */" for ax in axes]
        if len(axes) > 1:                 # a product of two negative extents is positive
            out += [f"{indent}  if ({' && '.join(f'extent_{ax} > 0' for ax in axes)})",
                    f"{indent}    {loop}", f"{indent}      {it.name}_at({args});"]
        else:
            out += [f"{indent}  {loop}", f"{indent}    {it.name}_at({args});"]
        out += ["  " + x for x in sync] + [f"{indent}}}"]
    return out


def substitution_kernel(p, h: HostLoop, calls) -> str:
    """The loop's chained or blocked substitution kernel (substitution.py), with the one-block kernel's arguments."""
    kernel = substitution.chained_kernel if h.substitution.chained else substitution.kernel
    return "\n\n".join(substitution.read_functions(p, h, at_function) +
                       [kernel(p, h, calls, _sized_args(p, h, calls, [h.substitution.array]), lambda a: param_decl(p, h, a))])


def _shared_launch(p, h: HostLoop, indent: str, kernel: str, size: str, args: list[str]) -> list[str]:
    """`kernel` with `size` bytes of dynamic shared memory (a variable) where they fit; an `else` follows."""
    return [f"{indent}if ({size} <= (size_t)poly_shared &&",
            f"{indent}    cudaFuncSetAttribute({kernel}, cudaFuncAttributeMaxDynamicSharedMemorySize, (int){size}) == cudaSuccess)",
            f"{indent}  {kernel}<<<1, {h.threads}, {size}>>>({', '.join(args)});"]


def _shared_limit(indent: str) -> list[str]:
    return [f"{indent}int poly_device = 0, poly_shared = 0;",
            f"{indent}cudaGetDevice(&poly_device);",
            f"{indent}cudaDeviceGetAttribute(&poly_shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, poly_device);"]


def host_code(p, h: HostLoop, indent: str, calls) -> list[str]:
    """The walk for the most threads a launch asks for, then one block or the launches; before
    both, substitution wherever its array fits (its threads take any length of it)."""
    name, i = f"{p.short}_loop_{h.loop.var}", indent + "    "
    plain = f"{name}<<<1, {h.threads}>>>({', '.join(_block(p, h, calls)[1])});"
    one = [f"{i}{plain}"]
    arrays = _resident(p, h, calls)
    if arrays:
        one = [f"{i}const size_t poly_bytes = {' + '.join(_resident_bytes(p, a) for a in arrays)};   "
               f"/* {', '.join(arrays)} in shared memory */",
               *([] if h.substitution else _shared_limit(i)),      # asked once, before substitution
               *_shared_launch(p, h, i, f"{name}_resident", "poly_bytes", _sized_args(p, h, calls, arrays)),
               f"{i}else", f"{i}  {plain}"]
    fits = f"if (most <= {p.opt.one_block.max_threads}) {{"
    pick = [f"{indent}  {fits}", *one]
    if h.substitution and h.substitution.chained:
        pick = [*_shared_limit(indent + "  "),
                *substitution.chained_host(p, h, indent + "  ", _sized_args(p, h, calls, [h.substitution.array])),
                f"{indent}  else {fits}", *one]
    elif h.substitution:
        x = h.substitution.array
        pick = [f"{indent}  const size_t poly_blocked = {substitution.shared_bytes(p, h)};   /* {x} and a shadow in shared memory */",
                *_shared_limit(indent + "  "),
                *_shared_launch(p, h, indent + "  ", substitution.name(p, h), "poly_blocked", _sized_args(p, h, calls, [x])),
                f"{indent}  else {fits}", *one]
    return [f"{indent}{{",
            f"{indent}  long long most = 0;   /* the most threads a launch of loop {h.loop.var} asks for */",
            *_walk(p, [h], indent + "  "),
            *pick,
            f"{indent}  }} else {{",
            *p.host_loop(h, indent + "    ", calls),
            f"{indent}  }}",
            f"{indent}}}"]


def _walk(p, items, indent) -> list[str]:
    out = []
    for it in items:
        if isinstance(it, HostLoop):
            l = it.loop
            out += [f"{indent}for ({l.init}; {l.cond}; {l.next})", indent + "{",
                    *_walk(p, it.items, indent + "  "), indent + "}"]
        elif it.grid and (ext := p.extents(it)) is not None:
            threads = " * ".join(f"(long long)poly_max({e}, 0)" for e, _ in ext.values())
            if _heavy(it):       # as many threads as one block of the launch, no more
                out.append(f"{indent}most = poly_max_ll(most, {_weight(p)} * {threads});   /* {it.name}: "
                           f"a loop in each thread: at most {p.opt.grid.block_1d[0]} threads, one block of its launch */")
            else:
                out.append(f"{indent}most = poly_max_ll(most, {threads});   /* {it.name} */")
    return out


def _heavy(l: Launch) -> bool:
    return any(isinstance(n, Loop) for n in l.body)


def _weight(p) -> int:
    """A launch whose threads each run a loop takes the block only when it has at most one
    block of the launch path's threads (`grid.block_1d`): one SM's worth either way (adi's 998
    threads of 2000-step sweeps would lose the other SMs; doitgen's 160 lose nothing)."""
    return max(1, p.opt.one_block.max_threads // p.opt.grid.block_1d[0])


# -- every thread's own scalars; barriers that order nothing -----------------------------------

def _writes(p, l: Launch) -> tuple[set[str], bool]:
    """The scalar webs a launch's statements write, and whether they write anything else."""
    webs, other = set(), False
    for s in l.statements():
        for w in p.an.program.statement(s).writes():
            web = p.an.web_of.get((s, w.name))
            if w.index or web is None:
                other = True
            else:
                webs.add(web)
    return webs, other


def thread_scalars(p, h: HostLoop) -> tuple[set[str], set[int]]:
    """Scalars carried in `__device__` memory (durbin's alpha and beta) that the one-block kernel
    keeps in every thread instead, and the one-thread launches every thread then runs: those
    that write nothing but such scalars and their own.  Every thread runs them on the same
    values in the same order, so every copy holds the same value and no barrier has to publish
    it (a block sum's total reaches every thread by the same shuffle tree in each warp); a
    launch that writes an array (durbin's y[k] = alpha) stays thread 0's, on thread 0's copy.
    The kernel copies the scalars in at its start and thread 0 writes them back at its end."""
    ls = launches(h)
    writes = {id(l): _writes(p, l) for l in ls}
    webs = {w for l in ls for w in writes[id(l)][0] if p.plan.storage[w] == "global"}
    while True:
        every = {id(l) for l in ls if not l.grid and not writes[id(l)][1]
                 and all(w in webs or p.plan.storage[w] == "local" for w in writes[id(l)][0])}
        kept = {w for w in webs if all(id(l) in every for l in ls if w in writes[id(l)][0])}
        if kept == webs:
            return (webs, every) if webs else (set(), set())
        webs = kept


def unsynced(p, h: HostLoop, webs: set[str]) -> set[int]:
    """The launches of the loop after which the one-block kernel needs no `__syncthreads()`: the
    next launch in the same body is independent of it (no dependence joins their instances in
    the same iteration of the loops around them, isl `Model.meets`, but for one through the
    scalars each thread keeps), is not a block sum (whose parts would overwrite the shared cells
    this one's threads may still read), and keeps its own barrier (never two left out in a row:
    that barrier still orders this launch before everything after it)."""
    deps, schedule, out = p.an.deps_apart_from(webs), p.an.schedule(p.plan.tree), set()

    def walk(items):
        for n, a in enumerate(items):
            if isinstance(a, HostLoop):
                walk(a.items)
                continue
            b = items[n + 1] if n + 1 < len(items) else None
            if isinstance(b, Launch) and not b.block_sum and not (n and id(items[n - 1]) in out) and \
                    not p.an.model.meets(deps, schedule, a.statements(), b.statements(), 2 * len(a.host_loops)):
                out.add(id(a))
    walk(h.items)
    return out


# -- a block per iteration: host loops carried only through a scratch array ------------------

def chain_of(h: HostLoop) -> tuple[list, list]:
    """The perfectly nested host loops from `h` down, and the launches inside them."""
    chain, items = [h.loop], h.items
    while len(items) == 1 and isinstance(items[0], HostLoop):
        chain.append(items[0].loop)
        items = items[0].items
    return chain, items


def _box_text(l) -> tuple[str, str] | None:
    """(first, last) C values of a loop whose bounds are sizes only, in execution order."""
    lo, hi = l.lower, l.upper
    if l.time is not None or l.geometric or not all(re.fullmatch(r"[\w\s+\-*()]*", t) for t in (lo, hi)):
        return None
    return (lo, hi) if l.step > 0 else (hi, lo)


def private_arrays(p, h: HostLoop) -> list[str]:
    """Arrays that, copied into each iteration of `h`'s loop chain, leave the chain's loops
    carrying nothing (doitgen's `sum`: every (r, q) fills it, then reads it back): no value
    flows through them from one iteration to another, every other dependence stays inside an
    iteration, and each iteration writes the same cells of them, so the last iteration's copy
    is the array's final value.  Empty when that does not hold (or the chain is not a box)."""
    chain, items = chain_of(h)
    sizes = set(p.an.program.sizes)
    if any(not isinstance(it, Launch) for it in items) or any(_box_text(l) is None for l in chain) \
            or any(set(WORD.findall(l.lower + " " + l.upper)) - sizes for l in chain):   # a triangle: no box
        return []
    if any(l.block_sum for l in items):
        return []
    model, an = p.an.model, p.an
    stmts = [s for l in launches(h) for s in l.statements()]
    if any(p.plan.storage.get(w) != "local" for (s, _), w in an.web_of.items() if s in stmts):
        return []                      # a scalar kept on the host or in one global cell: shared
    sched, orig = an.schedule([h.loop]), an.schedule(an.program.body)
    return model.iteration_private(stmts, sched, orig, [(l.lower, l.upper, l.step > 0) for l in chain],
                                   {a.name for a in p.k.arrays})


def _extent_of(l) -> str:
    bare = lambda t: t.strip()[1:-1] if t.strip().startswith("(") and balanced(t.strip()[1:-1]) else t
    return extent_text(bare(l.upper), bare(l.lower))


def _count(p, x: str) -> str:
    """The element count of array `x` (or local array `dev_X`) as C (size_t)."""
    shape = p.local_arrays[x[4:]] if _is_local(p, x) else p.k.array(x).shape
    return abi.count(shape) if shape else "(size_t)1"


def _shared_words(p, x: str) -> str:
    return f"({abi.nbytes(p.k.array(x).dtype, f'({_count(p, x)})')} + 7) / 8"


def blocks_kernel(p, h: HostLoop, calls, private: list[str]) -> str:
    """A block per iteration of the loop chain, each with its own copy of the `private` arrays
    in shared memory: copied in, the iteration's launches as block-strided loops, and the
    last iteration (in the reference's order) copies its arrays out."""
    chain, items = chain_of(h)
    name = f"{p.short}_blocks_{h.loop.var}"
    args = _block(p, h, calls)[1]
    taken = set(p.k.params) | set(p.an.program.locals) | {l.var for l in chain}
    own = {x: fresh_name(f"{x}_own", taken) for x in private}
    item = fresh_name("item", taken | set(own.values()))
    mine = {n: [own.get(a, a) for a in c] for n, c in calls.items()}
    body = ["  extern __shared__ unsigned long long poly_own[];   /* this block's copies, 8-byte words */",
            "  const long long block = blockIdx.x;"]
    at = "0"
    for x in private:
        dtype = p.k.array(x).dtype
        body += [f"  {dtype} *{own[x]} = ({dtype} *)(poly_own + {at});"]
        at = f"{at} + {_shared_words(p, x)}"
    stride = []
    for l in reversed(chain):          # the block's index in mixed radix, the innermost loop fastest
        first = _box_text(l)[0]
        ext = parens(_extent_of(l))
        step = f"(int)({f'block / {parens(chr(42).join(stride))}' if stride else 'block'} % {ext})"
        value = step if first.strip() == "0" and l.step > 0 else f"({first}) {'+' if l.step > 0 else '-'} {step}"
        body.insert(2, f"  const int {l.var} = {value};")
        stride.append(ext)
    for x in private:
        body += [f"  for (size_t {item} = threadIdx.x; {item} < {_count(p, x)}; {item} += blockDim.x)",
                 f"    {own[x]}[{item}] = {x}[{item}];"]
    body += ["  __syncthreads();", *_items(p, items, "  ", mine, item),
             "  if (block == (long long)gridDim.x - 1) {   /* the last iteration: its copies are the results */"]
    for x in private:
        body += [f"    for (size_t {item} = threadIdx.x; {item} < {_count(p, x)}; {item} += blockDim.x)",
                 f"      {x}[{item}] = {own[x]}[{item}];"]
    body += ["  }"]
    loops = ", ".join(l.var for l in chain)
    return "\n".join([f"/* {name}: one block per iteration of host loops {loops}, which carry nothing once each "
                      f"iteration has its own copy of {', '.join(private)} (in shared memory): the values "
                      f"through {'it' if len(private) == 1 else 'them'} never cross iterations, and every "
                      "iteration writes the same cells, so the last one's copy is the result. */",
                      f"__global__ void __launch_bounds__({p.opt.grid.block_1d[0]}) "
                      f"{name}({', '.join(param_decl(p, h, a) for a in args)})", "{", *body, "}"])


def blocks_host_code(p, h: HostLoop, calls, private: list[str], indent: str, otherwise: list[str]) -> list[str]:
    """One block per iteration when the copies fit in 48 KiB of shared memory, else `otherwise`."""
    chain, _ = chain_of(h)
    name = f"{p.short}_blocks_{h.loop.var}"
    count = " * ".join(f"(long long)poly_max({_extent_of(l)}, 0)" for l in chain)
    words = " + ".join(_shared_words(p, x) for x in private)
    return [f"{indent}{{",
            f"{indent}  const long long blocks = {count};   /* iterations of {', '.join(l.var for l in chain)} */",
            f"{indent}  const size_t shared = ({words}) * 8;   /* their own {', '.join(private)} */",
            f"{indent}  if (blocks > 0 && blocks < 2147483647LL && shared <= {p.target.shared_static}) {{",
            f"{indent}    {name}<<<(unsigned)blocks, {p.opt.grid.block_1d[0]}, shared>>>({', '.join(_block(p, h, calls)[1])});",
            f"{indent}  }} else {{",
            *otherwise,
            f"{indent}  }}",
            f"{indent}}}"]
