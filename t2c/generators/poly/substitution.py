"""A one-block host loop as substitution: warps chained by flags, or one block 32 iterations a step.

    substitution_of(p, h) -> (Substitution | None, why);  chained_kernel, kernel, ...: printing

Takes a one-block loop over i, stepping by one, of one-thread launches touching one 1-d array X
only at X[i] (pivots), then one 1-d launch writing X[c] at its grid index, reading X only there
and at X[i], its cells all past i; nothing else written, no subscript or bound reading X:
substitution by columns, up or down (trisolv). Gives "chained": a warp per 32 cells, in ticket
order, applying each earlier block's iterations once its flag is set, then its own; or
"blocked": one block, warp 0 on each diagonal block, every thread on its cells past it. Each
cell's updates in the reference's order. Why: a pivot chain pays a block barrier and an L2 read
per iteration on one SM. Refuses the rest, with the reason. docs/poly.md, "Substitution".
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

from pycparser import c_ast

from ...analysis import Loop, Stmt
from ...analysis.isl_bridge import always_within, constant_value
from ...ir import abi
from ...ir.csyntax import array_name, assignment_reads, cprint, walk
from .ctext import WORD, identifiers, min_expr, rewrite_reads
from .mapping import HostLoop, Launch, launch_box

BLOCK = 32                     # iterations per diagonal block: one warp's lanes, a cell each
SHADOW = (BLOCK + 1) * BLOCK   # the touch's writes: a row of X's block per iteration, and the pivots'


@dataclass(frozen=True)
class Substitution:
    """A one-block loop as substitution (decided by `substitution_of`, printed by `chained_kernel` or `kernel`):
    its items but the last are the pivots, the last the update."""
    array: str                 # X: the cells the loop finishes, one an iteration
    dtype: str
    up: bool                   # i counts up: the cells past i are above it
    first: str                 # C over i: the update's first grid value (its NAME_at index is c - first)
    chained: bool = True       # warps chained by flags (chained_kernel), else one block (kernel)
    reads: tuple = ()          # per item, ((C text, dtype), ...): its reads of arrays the loop never writes,
                               # which the chained kernel loads for 32 iterations before it runs them


def candidate(h: HostLoop) -> bool:
    """Whether the loop has the class's shape: one-thread launches, then one 1-d launch."""
    if not h.items or not all(isinstance(it, Launch) for it in h.items):
        return False
    *pivots, update = h.items
    return not any(it.grid or it.block_sum or it.every_thread for it in pivots) and len(update.grid) == 1


def substitution_of(p, h: HostLoop) -> tuple[Substitution | None, str]:
    """The loop's substitution (p: forms.Context), or None and why not ("" where the
    loop is not even of the class's shape: `candidate`)."""
    l = h.loop
    if not candidate(h):
        return None, ""
    if l.derived or l.geometric or l.time is not None or l.step not in (1, -1):
        return None, "not a loop of consecutive values"
    *pivots, update = h.items
    if update.block_sum or update.reduction or any(isinstance(n, Loop) for it in h.items for n in it.body):
        return None, "a loop inside a thread"
    prog, arrays = p.an.program, {a.name: a for a in p.k.arrays}
    nodes = [n for it in h.items for n in it.nodes()]
    written = {w.name for n in nodes for w in prog.statement(n.stmt.name).writes()}
    if len(written) != 1 or next(iter(written)) not in arrays or len(arrays[next(iter(written))].shape) != 1:
        return None, f"it writes {', '.join(sorted(written)) or 'nothing'}, not one 1-d array of the kernel"
    (x,) = written
    if any(p.plan.storage[w] != "local" for (s, _), w in p.an.web_of.items() if s in {n.stmt.name for n in nodes}):
        return None, "a scalar carried between launches"
    if p.empty(update):
        return None, "the update's iteration domain is empty"
    for n in nodes:
        spec, pivot = p.an.model.specs[n.stmt.name], _at(n, l.var)
        own = _at(n, update.grid[0].var) if any(n is m for m in update.nodes()) else None
        for name, idx, write in spec.accesses:
            if name in p.local_arrays:
                return None, f"the reference's local array {name}"
            if any(x in WORD.findall(e) for e in (*idx, *spec.domain)):
                return None, f"a subscript or bound that reads {x}"
            # a pivot touches X[i] only; the update writes its own cell and reads it and X[i]
            cells = [pivot] if own is None else [own] if write else [own, pivot]
            if name == x and not any(_same(p, spec, idx[0], cell) for cell in cells):
                return None, f"{x}[{idx[0]}] is not the cell an iteration finishes or the update's own"
        if own is not None:
            past, side = (f"({own}) - ({pivot})", "above") if l.step > 0 else (f"({pivot}) - ({own})", "below")
            if not always_within(prog.sizes, prog.context, list(spec.loops), list(spec.domain), past, "1", past):
                return None, f"the update's cells are not all {side} {l.var}"
    chained = p.opt.one_block.substitution == "chained"
    return Substitution(x, arrays[x].dtype, l.step > 0, min_expr(launch_box(p.an, update)[0][0]), chained,
                        tuple(_reads(p, it, x) for it in h.items) if chained else ()), ""


def _reads(p, launch: Launch, x: str) -> tuple:
    """A pivot's or the update's reads that its one statement always evaluates, of kernel arrays
    other than X (the loop writes nothing else), their subscripts free of the reference's locals;
    two at most (registers for 32 iterations each). Loading them for 32 iterations before running
    those gives the same values, and the loads no longer wait one behind another's statement (the
    compiler moves no load past a statement's guard)."""
    stmts = launch.nodes()
    node = stmts[0].stmt.node if len(stmts) == 1 else None
    if not isinstance(node, c_ast.Assignment) or stmts[0].stmt.conditional:
        return ()
    arrays, local, out = {a.name: a for a in p.k.arrays}, set(p.an.program.locals), {}
    for r in assignment_reads(node):
        name, text = array_name(r), cprint(r)
        if name in arrays and name != x and not identifiers(text) & local:
            out.setdefault(text, arrays[name].dtype)
    return tuple(out.items()) if len(out) <= 2 else ()


def _at(n: Stmt, var: str) -> str:
    """An enclosing loop's value at statement `n`, over the statement's own iterators."""
    return n.at.get(var, var) if n.at else var


def _same(p, spec, a: str, b: str) -> bool:
    return constant_value(p.an.program.sizes, spec.loops, f"({a}) - ({b})") == 0


# -- printing (p: cuda.Printer) ----------------------------------------------------------------

def name(p, h: HostLoop) -> str:
    return f"{p.short}_loop_{h.loop.var}_blocked"


def kernel(p, h: HostLoop, calls, args: list[str], decl) -> str:
    """The blocked kernel: `args` the one-block kernel's arguments, `decl` their declarations."""
    s, l, var = h.substitution, h.loop, h.loop.var
    *pivots, update = h.items
    x, t, step = s.array, s.dtype, "+" if s.up else "-"
    count = _count(p, s)
    call = lambda it, xs=x: ", ".join(xs if a == x else a for a in calls[it.name] + p.at_locals.get(it.name, []))
    solve = lambda it, xs, cell: f"{update.name}_at({call(it, xs)}, {cell} - ({s.first}));"
    lo = "poly_first" if s.up else f"poly_first - {BLOCK - 1}"           # the block's cells: [lo, lo + BLOCK)
    beyond = ("poly_first + poly_count", f"(int)({count})") if s.up else ("0", "poly_first - poly_count + 1")
    params = [decl(a).replace(f"*{x}", f"*{x}_global") if a == x else decl(a) for a in args]
    body = ["  extern __shared__ double4 poly_resident[];   /* 32-byte aligned */",
            f"  {t} *{x} = ({t} *)poly_resident;   /* the cells the loop finishes, for the whole loop */",
            f"  {t} *poly_shadow = {x} + {_padded(p, s)};   /* {BLOCK + 1} rows of {BLOCK}: the touch's writes */",
            f"  for (size_t poly_e = threadIdx.x; poly_e < {count}; poly_e += blockDim.x)",
            f"    {x}[poly_e] = {x}_global[poly_e];",
            f"  for (int poly_e = threadIdx.x; poly_e < {SHADOW}; poly_e += blockDim.x)",
            "    poly_shadow[poly_e] = 0;",
            "  __syncthreads();",
            f"  int {var};",
            f"  for ({l.init}; {l.cond}; )", "  {",
            f"    const int poly_first = {var};",
            f"    int poly_count = 0;   /* iterations in this diagonal block, at most {BLOCK} */",
            f"    for (; poly_count < {BLOCK} && ({l.cond}); poly_count++, {l.next})", "      ;",
            "    /* the block's reads touched at once, each (iteration, cell) by a thread writing a row of the shadow */",
            f"    for (int poly_t = threadIdx.x; poly_t < {BLOCK * BLOCK}; poly_t += blockDim.x) {{",
            f"      const int poly_k = poly_t / {BLOCK}, poly_m = poly_t % {BLOCK};",
            "      if (poly_k < poly_count && poly_m < poly_count) {",
            f"        const int {var} = poly_first {step} poly_k;",
            *[f"        if (poly_m == 0)\n          {it.name}_at({call(it, f'poly_shadow + {BLOCK * BLOCK} - ({lo})')});"
              for it in pivots],
            f"        {solve(update, f'poly_shadow + poly_k * {BLOCK} - ({lo})', f'poly_first {step} poly_m')}",
            "      }", "    }",
            "    if (threadIdx.x < 32) {   /* warp 0: the diagonal block in order, a lane per cell */",
            "      for (int poly_k = 0; poly_k < poly_count; poly_k++) {",
            f"        const int {var} = poly_first {step} poly_k;",
            *[f"        if (threadIdx.x == 0)\n          {it.name}_at({call(it)});" for it in pivots],
            *(["        __syncwarp();"] if pivots else []),
            "        if ((int)threadIdx.x < poly_count)",
            f"          {solve(update, x, f'poly_first {step} (int)threadIdx.x')}",
            "        __syncwarp();", "      }", "    }",
            "    __syncthreads();",
            "    /* each thread its own cells past the block, the block's iterations in order */",
            f"    for (int poly_c = {beyond[0]} + (int)threadIdx.x; poly_c < {beyond[1]}; poly_c += (int)blockDim.x)",
            "      for (int poly_k = 0; poly_k < poly_count; poly_k++) {",
            f"        const int {var} = poly_first {step} poly_k;",
            f"        {solve(update, x, 'poly_c')}", "      }",
            "    __syncthreads();", "  }",
            f"  for (size_t poly_e = threadIdx.x; poly_e < {count}; poly_e += blockDim.x)",
            f"    {x}_global[poly_e] = {x}[poly_e];"]
    return "\n".join([
        f"/* {name(p, h)}: host loop {var} as blocked substitution, {x} in shared memory: {BLOCK} iterations at a "
        f"time, the block touching their diagonal block's reads first, warp 0 running them in order on the cells "
        f"they finish, then each thread on its own cells past them; for sizes where {x} fits. */",
        f"__global__ void __launch_bounds__({h.threads}) {name(p, h)}({', '.join(params)})",
        "{", *body, "}"])


CHAINS = 4096                  # the chained kernel's flags: thread blocks of BLOCK cells at most


def chained_name(p, h: HostLoop) -> str:
    return f"{p.short}_loop_{h.loop.var}_chained"


def chained_kernel(p, h: HostLoop, calls, args: list[str], decl) -> str:
    """The chained kernel: a warp per BLOCK cells (positions from the loop's first cell on), in
    the order the warps start (a ticket), so that a warp waits only on warps already running.
    Warp b loads its own iterations' reads; for each earlier block, loads that block's reads,
    waits for its flag and runs its iterations on its cells; then runs its own iterations (lane 0
    the pivots, each lane its cell's update), publishes its cells and sets its flag."""
    s, var = h.substitution, h.loop.var
    *pivots, update = h.items
    x, t, step, name = s.array, s.dtype, "+" if s.up else "-", chained_name(p, h)
    regs = _registers(p, h)
    params = [decl(a).replace(f"*{x}", f"*{x}_global") if a == x else decl(a) for a in args]
    params += ["int poly_start", "int poly_iters", "int poly_cells", "int *poly_sync"]
    at = lambda pos: f"poly_start {step} ({pos})"
    call = lambda it, fn, prefix: _call(h, calls, p.at_locals, regs, it, fn, prefix)
    # each item's call in iteration poly_m: the pivots in lane 0, the update in each lane with a cell
    lanes = lambda items, fn, prefix: [f"      if (poly_lane {'== 0' if it is not update else '< poly_own'})\n"
                                       f"        {call(it, fn, prefix)}" for it in items if fn != "_reads" or regs[it.name]]
    # a block's iterations (unrolled where registers hold their reads), `value` the loop's value
    loop = lambda value, n, inner, unroll: [*(["#pragma unroll"] if unroll else []),
                                            f"  for (int poly_m = 0; poly_m < {BLOCK}; poly_m++) {{",
                                            f"    const int {var} = {value};", f"    if (poly_m < {n}) {{", *inner, "    }", "  }"]
    indent = lambda lines, k: [line if line.startswith("#") else " " * k + line.replace("\n", "\n" + " " * k)
                               for line in lines]
    types = dict(r for item in s.reads for r in item)
    # registers for 32 iterations: poly_d<item>_<read> for its own, poly_e... for an earlier block's
    decls = lambda prefix, items: [f"  {types[t]} {prefix}{r}[{BLOCK}];" for it in items for t, r in regs[it.name].items()]
    mine = at("poly_at + poly_m")
    earlier = at(f"poly_k * {BLOCK} + poly_m")
    own_loads = decls("poly_d", h.items) + loop(mine, "poly_mine", lanes(h.items, "_reads", "poly_d"), True) \
        if any(regs.values()) else []
    body = ["  extern __shared__ double4 poly_resident[];   /* 32-byte aligned */",
            f"  {t} *{x} = ({t} *)poly_resident;   /* its cells and the finished ones it reads, at their own indices */",
            "  __shared__ int poly_ticket;",
            "  const int poly_lane = threadIdx.x;",
            "  if (poly_lane == 0)",
            "    poly_ticket = atomicAdd(poly_sync, 1);",
            "  __syncwarp();",
            f"  const int poly_at = poly_ticket * {BLOCK}, poly_own = min({BLOCK}, poly_cells - poly_at);",
            f"  const int poly_c = {at('poly_at + poly_lane')};   /* the lane's cell */",
            "  int *poly_done = poly_sync + 1;   /* a flag per block: its cells final in global memory */",
            "  if (poly_lane < poly_own)",
            f"    {x}[poly_c] = {x}_global[poly_c];",
            f"  const int poly_mine = max(0, min({BLOCK}, poly_iters - poly_at));   /* its own iterations */",
            *own_loads,
            f"  const int poly_before = min(poly_ticket, (poly_iters + {BLOCK - 1}) / {BLOCK});",
            "  for (int poly_k = 0; poly_k < poly_before; poly_k++) {   /* the earlier blocks' iterations */",
            f"    const int poly_n = min({BLOCK}, poly_iters - poly_k * {BLOCK});",
            *indent(decls("poly_e", [update]) + (loop(earlier, "poly_n", lanes([update], "_reads", "poly_e"), True)
                                                 if regs[update.name] else []), 2),
            "    if (poly_lane == 0) {",
            "      while (((volatile int *)poly_done)[poly_k] == 0)",
            "        ;",
            "      __threadfence();",
            "    }",
            "    __syncwarp();",
            "    if (poly_lane < poly_n) {",
            f"      const int poly_i = {at(f'poly_k * {BLOCK} + poly_lane')};",
            f"      {x}[poly_i] = ((volatile {t} *){x}_global)[poly_i];",
            "    }",
            "    __syncwarp();",
            *indent(loop(earlier, "poly_n", lanes([update], "_pre", "poly_e"), bool(regs[update.name])), 2),
            "  }",
            "  __syncwarp();",
            *loop(mine, "poly_mine", [*lanes(pivots, "_pre", "poly_d"), *(["      __syncwarp();"] if pivots else []),
                                      *lanes([update], "_pre", "poly_d"), "      __syncwarp();"], any(regs.values())),
            "  if (poly_lane < poly_own)",
            f"    {x}_global[poly_c] = {x}[poly_c];",
            "  __threadfence();",
            "  __syncwarp();",
            "  if (poly_lane == 0)",
            "    atomicExch(&poly_done[poly_ticket], 1);"]
    return "\n".join([
        f"__device__ int {name}_sync[1 + {CHAINS}];   /* {name}'s ticket, then a flag per block */", "",
        f"/* {name}: host loop {var} as chained substitution, a warp per {BLOCK} cells in the order warps start: "
        f"each earlier block's iterations on its cells once that block is done, then its own; for sizes where "
        f"{x} fits in shared memory. */",
        f"__global__ void __launch_bounds__({BLOCK}) {name}({', '.join(params)})",
        "{", *body, "}"])


def _registers(p, h: HostLoop) -> dict[str, dict[str, str]]:
    """Per item, the registers the chained kernel loads its reads into (C text -> name suffix);
    empty where it has none, or its NAME_at takes the reference's locals (then it runs NAME_at)."""
    s = h.substitution
    return {it.name: {t: f"{j}_{k}" for k, (t, _) in enumerate(r)} if r and p.at_params.get(it.name) is not None else {}
            for j, (it, r) in enumerate(zip(h.items, s.reads or [()] * len(h.items)))}


def _call(h: HostLoop, calls, at_locals, regs, it: Launch, fn: str, prefix: str) -> str:
    """An item's call for iteration poly_m of a block: `fn` ("_reads", "_pre") with its registers,
    or NAME_at where it has none; the update's at the lane's cell."""
    mine = regs[it.name]
    fn = fn if mine else "_at"
    args = calls[it.name] + at_locals.get(it.name, []) + [f"{prefix}{r}[poly_m]" for r in mine.values()] * (fn != "_at")
    cell = [f"poly_c - ({h.substitution.first})"] if it is h.items[-1] else []
    return f"{it.name}{fn}({', '.join(args + cell)});"


def read_functions(p, h: HostLoop, at_function) -> list[str]:
    """Each item with registers as `NAME_reads` (loads its reads into references) and `NAME_pre`
    (its statement on them), both with NAME_at's parameters and then the registers (`at_function`:
    oneblock's)."""
    out, types = [], dict(r for item in h.substitution.reads for r in item)
    for it in h.items:
        regs = {t: f"poly_r{k}" for k, t in enumerate(_registers(p, h)[it.name])}
        if not regs:
            continue
        pick = lambda e, regs=regs: c_ast.ID(regs[t]) if isinstance(e, c_ast.ArrayRef) and (t := cprint(e)) in regs else None
        pre = lambda node, pick=pick: rewrite_reads(node, pick)

        def loads(node, regs=regs):
            refs = {cprint(e): e for e in walk(node) if isinstance(e, c_ast.ArrayRef)}
            return c_ast.Compound([c_ast.Assignment("=", c_ast.ID(r), copy.deepcopy(refs[t])) for t, r in regs.items()])
        box, (inner, locals_) = launch_box(p.an, it) if it.grid else [], p.thread_variables(it)
        for suffix, hook, ref in (("_reads", loads, "&"), ("_pre", pre, "")):
            decls = ", ".join(f"{types[t]} {ref}{r}" for t, r in regs.items())
            text = "\n".join(p.point_body(it, box, inner, locals_, True, reads=hook))
            out.append(at_function(p, it, text, ", ".join(x for x in (p.at_params[it.name], decls) if x), suffix))
    return out


def chained_host(p, h: HostLoop, indent: str, args: list[str]) -> list[str]:
    """The chained kernel's launch where it fits (an `else` follows): the loop's first cell and
    iterations counted on the host, the cells from the first on, the flags cleared."""
    s, l, name, i = h.substitution, h.loop, chained_name(p, h), indent + "  "
    cells = f"(long long)({_count(p, s)}) - poly_start" if s.up else "poly_start + 1LL"
    return [f"{indent}int poly_start = 0, poly_iters = 0;",
            f"{indent}for ({l.init}; {l.cond}; {l.next})",
            f"{indent}  if (poly_iters++ == 0)", f"{indent}    poly_start = {l.var};",
            f"{indent}const long long poly_cells = poly_iters > 0 ? poly_max_ll({cells}, 0) : 0;",
            f"{indent}const long long poly_links = (poly_cells + {BLOCK - 1}) / {BLOCK};",
            f"{indent}const size_t poly_chained = {shared_bytes(p, h, False)};   /* {s.array} in shared memory */",
            f"{indent}int *poly_sync = NULL;   /* the current device's flags */",
            f"{indent}cudaGetSymbolAddress((void **)&poly_sync, {name}_sync);",
            f"{indent}if (poly_links > 0 && poly_links <= {CHAINS} && poly_chained <= (size_t)poly_shared &&",
            f"{indent}    cudaFuncSetAttribute({name}, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)poly_chained) == cudaSuccess) {{",
            f"{i}cudaMemsetAsync(poly_sync, 0, (size_t)(1 + poly_links) * sizeof(int));",
            f"{i}{name}<<<(unsigned)poly_links, {BLOCK}, poly_chained>>>({', '.join(args)}, poly_start, poly_iters, "
            "(int)poly_cells, poly_sync);",
            f"{indent}}}"]


def shared_bytes(p, h: HostLoop, shadow: bool = True) -> str:
    """The kernel's dynamic shared memory, C (size_t): X, then the blocked kernel's shadow."""
    s = h.substitution
    return abi.nbytes(s.dtype, f"({_padded(p, s)} + {SHADOW})" if shadow else _count(p, s))


def _count(p, s: Substitution) -> str:
    """X's cells, C (size_t)."""
    return abi.count(p.k.array(s.array).shape)


def _padded(p, s: Substitution) -> str:
    """X's cells rounded up to 4 (the shadow after them 32-byte aligned for doubles), C."""
    return f"({_count(p, s)} + 3) / 4 * 4"


def notes(p) -> list[str]:
    """The header's lines on the one-block loops taken as substitution, and on those of
    its shape refused."""
    return [(f"  ... host loop {h.loop.var} runs as chained substitution ({chained_name(p, h)}) where "
             f"{h.substitution.array} fits in shared memory: a warp per {BLOCK} cells, each applying the finished "
             "cells' iterations once their warp is done, then its own." if h.substitution.chained else
             f"  ... host loop {h.loop.var} runs as blocked substitution ({name(p, h)}) where {h.substitution.array} "
             f"fits in shared memory: {BLOCK} iterations a step, warp 0 on the cells they finish, each thread on its "
             "own cells past them.") if h.substitution else
            f"  ... host loop {h.loop.var} keeps its one-block form (no substitution kernel): {h.not_substitution}."
            for h in p.block_loops if h.substitution or h.not_substitution]
