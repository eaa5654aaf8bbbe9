"""A block per row: a 1-d grid whose threads each run several loops along their row in turn.

    phases_of(analysis, storage, launch, held) -> RowPhases | None

Takes a launch whose threads run phases (a row softmax, a layer norm): row statements, loops
over j that fold into row scalars or carry nothing, arrays indexed by j in the last subscript
only (several grid loops: a box of rows). Gives a block of `THREADS` per row: threads stride
each loop, folds combine in a fixed order so every thread holds the same total, array writes in
thread 0 (a row's cell of a local array in registers, rows.row_cells; rows several phases
read held in shared memory, rows.held_rows), a barrier after each writing phase. Refuses (None)
anything else. Why: a thread per row coalesced no load. docs/poly.md, "A block per row".
Where the record says (rows.warp_rows), the same phases also print as a kernel of a warp per row
(`kernel_body(..., warp=True)`), which calls with short rows run instead.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...ir.csyntax import cprint
from .rows import LANES, REG_BLOCKS, REG_THREADS, WIDE, WarpRows, held_rows, kept_rows, row_cells, swapped, warp_rows, \
    wide_phases
from .ctext import array_refs, extent_text, identifiers, max_expr, min_expr, parens
from .transform import depth_of
from .reduce import OPS, combine, warps_name, fold_of, join, temporaries, typed

THREADS = 256


@dataclass(frozen=True)
class Phase:
    kind: str                   # "stmt" | "fold" | "map"
    node: object                # Stmt (stmt) or Loop (fold, map)
    folds: tuple = ()           # fold: (statement, op, accumulator) per statement of the loop
    temps: tuple = ()           # fold: the loop's temporaries (reduce.temporaries), run before the folds


@dataclass(frozen=True)
class RowPhases:
    phases: tuple
    cells: tuple = ()           # (array, stored): row cells every thread keeps in a register (rows.row_cells)
    held: tuple = ()            # rows.Held: arrays whose row the block keeps in shared memory
    wide: tuple = ()            # rows.Wide: loop phases taking 4 elements a thread by 16-byte accesses on a fit row
    kept: tuple = ()            # rows.Kept: arrays whose row's elements each thread keeps in registers
    fits: str = ""              # rows kept (rows.Kept): C text of whether a call's rows fit the registers of
                                # REG_THREADS threads, which then run the kernel; else `plain_name`'s kernel
    warp: WarpRows | None = None   # also a kernel of a warp per row (`warps_name`) for short rows
    per_sm: int = 0             # rows kept: the kept kernel's launch bounds' blocks a multiprocessor (rows.REG_BLOCKS)

    threads = THREADS           # a block's most (launch bounds, shared arrays)


def phases_of(an: Analysis, storage: dict, launch, held: int | None = None,
              registers: int | None = None, warps: int | None = None) -> RowPhases | None:
    """The launch as row phases (module docstring), or None; `held`: the elements of a row a
    block may keep in shared memory per array (rows.held_rows; None: none); `registers`: the
    elements of a row a thread may keep in registers per array (rows.kept_rows; None: none);
    `warps`: the longest row a warp takes (rows.warp_rows; None: no warp kernel)."""
    grid = {l.var for l in launch.grid}
    if not launch.grid or launch.host_loops and any(l.derived for l in launch.grid) or len(launch.grid) > 1 and (
            any(l.derived for l in launch.grid) or any((grid - {l.var}) & identifiers(f"{l.init} {l.cond}") for l in launch.grid)):
        return None              # several grid loops: a box of rows, a block each
    rows = launch.grid[0]
    local = lambda name: _scalar(an, name)
    phases = []
    for n in launch.body:
        if isinstance(n, Stmt):
            w = n.stmt.writes()
            if any(local(a.name) for a in w) and any(not local(a.name) for a in w):
                return None
            phases.append(Phase("stmt", n))
            continue
        if not (isinstance(n, Loop) and n.step == 1 and n.body and all(isinstance(s, Stmt) for s in n.body)) \
                or n.time is not None or n.derived:
            return None
        for s in n.body:                 # j only in the last subscript: consecutive threads, consecutive cells
            for a in s.stmt.accesses:
                if any(n.var in identifiers(x) for x in a.index[:-1]) or a.atomic:
                    return None
        temps, others = temporaries(an, storage, n)
        folds = [fold_of(s, n.var) for s in others]
        folds = [f and f.kind == "op" and local(f.acc) and typed(f, an.program.locals[f.acc].dtype) for f in folds]
        if folds and all(folds):
            accs = [f.acc for f in folds]
            if len(set(accs)) != len(accs) or any(r.name in accs and r.name != f.acc for f in folds
                                                  for r in f.stmt.stmt.reads()) \
                    or any(s.stmt.reads(a) for s in temps for a in accs):
                return None
            phases.append(Phase("fold", n, tuple((f.stmt, f.op, f.acc) for f in folds), tuple(temps)))
        elif not any(local(a.name) for s in n.body for a in s.stmt.writes()) and \
                depth_of([rows], n) is not None and not an.carries([rows], n, depth_of([rows], n)):
            phases.append(Phase("map", n))
        else:
            return None
    if not any(p.kind == "fold" for p in phases) or len([p for p in phases if p.kind != "stmt"]) < 2:
        return None              # one loop: the warp-per-row form (reduce.RowReduction) or plain threads
    for n in launch.body:        # row scalars live in registers of every thread
        for s in ([n] if isinstance(n, Stmt) else n.body):
            for a in s.stmt.accesses:
                web = an.web_of.get((s.stmt.name, a.name))
                if local(a.name) and (web is None or storage.get(web) != "local" or not grid <= set(an.webs[web].private)):
                    return None
    held_ = held_rows(an, launch, phases, held)
    wide = wide_phases(an, launch, phases, held_)
    kept = kept_rows(an, launch, phases, held_, wide, registers)
    fits = " && ".join(dict.fromkeys(f"({r.extent}) <= {REG_THREADS * r.count}" for r in kept))
    return RowPhases(tuple(phases), tuple(row_cells(an, launch, phases).items()), held_, wide, kept, fits,
                     warp_rows(an, launch, phases, held_, warps), REG_BLOCKS if kept else 0)


def plain(rp: RowPhases) -> RowPhases:
    """The record without its kept rows: the kernel of calls whose rows do not fit them."""
    return replace(rp, kept=(), fits="", per_sm=0)


def plain_name(launch) -> str:
    return f"{launch.name}_rows"


@dataclass(frozen=True)
class _Team:
    """The threads that run one row in a kernel, as C text (printing only): a block's or a warp's."""
    index: str                  # a thread's index in the team
    size: str                   # the team's threads
    first: str                  # the test of the team's first thread (statements that write arrays)
    barrier: str                # the team's barrier


_BLOCK = _Team("(int)threadIdx.x", "(int)blockDim.x", "threadIdx.x == 0", "__syncthreads();")
_WARP = _Team("poly_lane", "32", "poly_lane == 0", "__syncwarp();")


def kernel_body(p, launch, rp: RowPhases, warp: bool = False) -> list[str]:
    """The kernel's statements (p: the Printer): rows in a grid-stride loop (one per grid loop,
    on the block index of its axis), phases in order; row cells in registers and held rows in
    shared memory as the record says (rows.py).  `warp`: the warp kernel (rows.warp_rows): a
    warp per row, WARPS rows a block along x, lanes as the block's threads, a butterfly of
    shuffles for the block's combine, each warp's held rows in its own slice."""
    team, wr = (_WARP, rp.warp) if warp else (_BLOCK, None)
    taken = set(p.k.params) | set(p.an.program.locals) | {l.var for l in launch.grid}
    declared, shared = [], []
    for ph in rp.phases:
        if ph.kind != "stmt" and ph.node.var not in declared:
            declared.append(ph.node.var)
    types = {a.name: a.dtype for a in p.k.arrays} | {n: v.dtype for n, v in p.an.program.locals.items()}
    regs = {a: _fresh(f"poly_row_{a}", taken) for a, _ in rp.cells}
    stored = dict(rp.cells)
    rows_ = {h.array: (h, _fresh(f"poly_row_{h.array}", taken), _fresh(f"poly_v_{h.array}", taken)) for h in rp.held}
    holds = {a: wr.held if wr else h.elements for a, (h, _, _) in rows_.items()}     # elements held per row
    pair = _fresh("poly_x", taken) if wr else ""       # a lane's partner's part (_butterfly)
    wide = {w.phase: w for w in rp.wide}
    quads = {a: _fresh(f"poly_q_{a}", taken) for a in dict.fromkeys(a for w in rp.wide for a in w.loads)}
    outs = {a: _fresh(f"poly_o_{a}", taken) for a in dict.fromkeys(a for w in rp.wide for _, a in w.stores)}
    units = {v: _fresh(f"poly_{v}u", taken) for v in dict.fromkeys(rp.phases[w.phase].node.var for w in rp.wide)}
    if wr:                       # a warp's slice of each held array
        shared.append("  const int poly_lane = (int)threadIdx.x % 32, poly_warp = (int)threadIdx.x / 32;   /* a warp per row */")
        for a, (h, name, _) in rows_.items():
            whole = _fresh(f"poly_rows_{a}", taken)
            shared += [f"  __shared__ {'__align__(16) ' if a in quads else ''}{h.dtype} {whole}[{wr.warps} * {wr.held}];"
                       f"   /* each warp's row: its first {wr.held} elements of {a} */",
                       f"  {h.dtype} *const {name} = {whole} + {wr.held} * poly_warp;"]
    else:
        shared += [f"  __shared__ {'__align__(16) ' if a in quads else ''}{h.dtype} {name}[{h.elements}];"
                   f"   /* the row's first {h.elements} elements of {a} */" for a, (h, name, _) in rows_.items()]
    kept_ = {r.array: (r, _fresh(f"poly_r_{r.array}", taken)) for r in rp.kept}

    def lines(s: Stmt, indent: str, names: dict | None = None, cells: dict | None = None, node=None) -> list[str]:
        node = swapped(node or s.stmt.node, {**regs, **(cells or {})})
        return p.r.statement(node, names or p.names_for(s.stmt.name), indent)

    def cell_of(loop, a: str, at: str | None = None) -> str:
        """The C text of the loop's reference to array a, at index `at` of its loop variable."""
        ref = next(r for s in loop.body for r in array_refs(s.stmt.node, a))
        return cprint(p.r.node(ref, {**p.names_for(loop.body[0].stmt.name), **({loop.var: at} if at else {})}))

    def kept(k: int, loop, indent: str, unit: str | None = None, skip=()) -> tuple[list[str], dict]:
        """The held rows' values this phase reads: loaded and kept, or read back (at the wide
        path's element index `unit`, else at the loop variable; the arrays of `skip` left out)."""
        out, cells = [], {}
        lo = loop.init.split("=", 1)[1].strip()
        at = unit or (loop.var if lo == "0" else f"{loop.var} - {parens(lo)}")
        for a, (h, name, value) in rows_.items():
            if k != h.loader and k not in h.readers or a in skip:
                continue
            cell = cell_of(loop, a, unit)
            if k == h.loader:
                out += [f"{indent}const {h.dtype} {value} = {cell};",
                        f"{indent}if ({at} < {holds[a]})", f"{indent}  {name}[{at}] = {value};   /* kept for the phases after */"]
            else:
                out.append(f"{indent}const {h.dtype} {value} = {at} < {holds[a]} ? {name}[{at}] : {cell};")
            cells[a] = value
        return out, cells

    def fit(w, loop) -> str:
        """Whether this row takes the phase's 16-byte path: its extent a multiple of LANES, each
        vectored pointer 16-byte aligned at the row's start."""
        starts = [cell_of(loop, a, "0") for a in (*w.loads, *(a for _, a in w.stores))]
        return " && ".join([f"{parens(w.bound)} % {LANES} == 0",
                            *(f"((unsigned long long)&{x} & 15u) == 0" for x in dict.fromkeys(starts))])

    def wide_loop(k: int, loop, w, indent: str, unit) -> list[str]:
        """The phase's loop on a fit row: LANES consecutive elements a thread, each vectored array
        moved by one 16-byte access; unit(indent, names, cells, lane) prints one element's statements."""
        v, u = loop.var, units[loop.var]
        out = [f"{indent}for ({v} = {LANES} * {team.index}; {loop.cond}; {v} += {LANES} * {team.size})",
               f"{indent}{{"]
        for a in w.loads:
            h, row, _ = rows_[a]
            ty = WIDE[h.dtype]
            load = f"*(const {ty} *)&{cell_of(loop, a)}"
            if k == h.loader:
                out += [f"{indent}  const {ty} {quads[a]} = {load};", f"{indent}  if ({v} < {holds[a]})",
                        f"{indent}    *({ty} *)&{row}[{v}] = {quads[a]};   /* kept for the phases after */"]
            else:
                out.append(f"{indent}  const {ty} {quads[a]} = {v} < {holds[a]} ? *(const {ty} *)&{row}[{v}] : {load};")
        out += [f"{indent}  {WIDE[types[a]]} {outs[a]};" for _, a in w.stores]
        for i, lane in enumerate("xyzw"[:LANES]):
            loads, cells = kept(k, loop, indent + "    ", u, skip=w.loads)
            cells |= {a: f"{quads[a]}.{lane}" for a in w.loads}
            text = [*loads, *unit(indent + "    ", {v: u}, cells, lane)]
            if u in identifiers("\n".join(text)):       # the element's index, where its statements use it
                out += [f"{indent}  {{", f"{indent}    const int {u} = {v} + {i};", *text, f"{indent}  }}"]
            else:
                out += [x[2:] for x in text]
        by = {s.stmt.name: s for s in loop.body}
        out += [f"{indent}  *({WIDE[types[a]]} *)&{cprint(p.r.node(by[st].stmt.node.lvalue, p.names_for(st)))} = {outs[a]};"
                for st, a in w.stores]
        return [*out, f"{indent}}}"]

    def map_unit(loop, w):
        """A map phase's unit (wide_loop): its statements, each stored write into its lane."""
        stores = dict(w.stores) if w else {}

        def unit(indent, rename, cells, lane):
            out = []
            for s in loop.body:
                node = s.stmt.node
                if s.stmt.name in stores:
                    node = c_ast.Assignment("=", c_ast.ID(f"{outs[stores[s.stmt.name]]}.{lane}"), node.rvalue)
                out += lines(s, indent, {**p.names_for(s.stmt.name), **rename}, cells, node)
            return out
        return unit

    def loader(r, name: str) -> list[str]:
        """The thread's elements of a kept row (rows.Kept), loaded together at the row's start."""
        loop = rp.phases[r.readers[0]].node
        return ["#pragma unroll", f"for (int poly_u = 0; poly_u < {r.count}; poly_u++) {{",
                f"  {loop.var} = {team.index} + poly_u * {team.size};",
                f"  if ({r.guard})", f"    {name}[poly_u] = {cell_of(loop, r.array)};", "}"]

    def registered(k: int, loop, indent: str, unit) -> list[str] | None:
        """A phase reading kept rows: its elements of the kept part from the registers (unit(indent,
        cells) prints one element's statements), then the rest of the row from memory; None for
        a phase reading none."""
        mine = [(r, name) for r, name in kept_.values() if k in r.readers]
        if not mine:
            return None
        v, K, lo = loop.var, mine[0][0].count, loop.init.split("=", 1)[1].strip()
        inside = loop.cond if lo == "0" else f"{v} >= {parens(lo)} && {loop.cond}"
        rest = unit(indent + "  ", {}) if lo == "0" else \
            [f"{indent}  if ({v} >= {parens(lo)}) {{", *unit(indent + "    ", {}), f"{indent}  }}"]
        return [f"{indent}#pragma unroll", f"{indent}for (int poly_u = 0; poly_u < {K}; poly_u++) {{   /* the kept elements */",
                f"{indent}  {v} = {team.index} + poly_u * {team.size};", f"{indent}  if ({inside}) {{",
                *unit(indent + "    ", {r.array: f"{name}[poly_u]" for r, name in mine}), f"{indent}  }}", f"{indent}}}",
                f"{indent}for ({v} = {team.index} + {K} * {team.size}; {loop.cond}; {v} += {team.size})",
                f"{indent}{{", *rest, f"{indent}}}"]

    def either(k: int, loop, indent: str, unit, scalar: list[str]) -> list[str]:
        """The 16-byte path on a fit row, else the scalar loop `scalar` (printed at `indent`)."""
        if k not in wide:
            return scalar
        return [f"{indent}if ({fit(wide[k], loop)}) {{   /* {LANES} consecutive elements a thread, 16-byte accesses */",
                *wide_loop(k, loop, wide[k], indent + "  ", unit), f"{indent}}} else {{",
                *("  " + x for x in scalar), f"{indent}}}"]

    body = [f"    {x}" for r, name in kept_.values() for x in loader(r, name)]
    for k, ph in enumerate(rp.phases):
        if ph.kind == "stmt":
            w = ph.node.stmt.writes()
            if w and w[0].name in regs:         # every thread: its register; thread 0 stores it
                reg = regs[w[0].name]
                body += lines(ph.node, "    ")
                if stored[w[0].name]:
                    store = c_ast.Assignment("=", ph.node.stmt.node.lvalue, c_ast.ID(reg))
                    body += [f"    if ({team.first})", *p.r.statement(store, p.names_for(ph.node.stmt.name), "      ")]
                continue
            text = lines(ph.node, "      " if _writes_array(p, ph) else "    ")
            body += [f"    if ({team.first}) {{", *text, "    }", f"    {team.barrier}"] if _writes_array(p, ph) else text
            continue
        loop = ph.node
        lo = loop.init.split("=", 1)[1].strip()
        head = f"    for ({loop.var} = {'' if lo == '0' else lo + ' + '}{team.index}; {loop.cond}; {loop.var} += {team.size})"
        if ph.kind == "map":
            def elements(indent, regs_, loop=loop, k=k):
                loads, cells = kept(k, loop, indent)
                return [*loads, *(x for s in loop.body for x in lines(s, indent, cells={**cells, **regs_}))]
            scalar = [head, "    {", *elements("      ", {}), "    }"]
            body += [*(registered(k, loop, "    ", elements) or either(k, loop, "    ", map_unit(loop, wide.get(k)), scalar)),
                     f"    {team.barrier}"]
            continue
        parts = []
        for stmt, op, acc in ph.folds:
            names = p.names_for(stmt.stmt.name)
            reg, t = names.get(acc, acc), p.web_type[p.an.web_of[(stmt.stmt.name, acc)]]
            part = _fresh(f"poly_part_{reg.removeprefix('poly_')}", taken)
            warps = "" if wr else _fresh(f"poly_warps_{reg.removeprefix('poly_')}", taken)
            if not wr:
                shared.append(f"  __shared__ {t} {warps}[{rp.threads // 32}];")
            parts.append((stmt, op, reg, part, warps, t, names, acc))

        def unit(indent, rename, cells, lane=None):
            return [*(x for s in ph.temps for x in lines(s, indent, {**p.names_for(s.stmt.name), **rename}, cells)),
                    *(x for stmt, _, reg, part, _, _, names, acc in parts
                      for x in lines(stmt, indent, {**names, acc: part, **rename}, cells))]
        def elements(indent, regs_, loop=loop, k=k, unit=unit):
            loads, cells = kept(k, loop, indent)
            return [*loads, *unit(indent, {}, {**cells, **regs_})]
        scalar = ["  " + head, "      {", *elements("        ", {}), "      }"]
        body += [f"    {{   /* phase {k + 1}: each {'lane' if wr else 'thread'} folds its elements, then the "
                 f"{'warp' if wr else 'block'} combines them */",
                 *(f"      {t} {part} = {OPS[op][0]};" for _, op, _, part, _, t, _, _ in parts),
                 *(registered(k, loop, "      ", elements) or either(k, loop, "      ", unit, scalar))]
        if wr:
            body += [*(x for _, op, reg, part, _, t, _, _ in parts for x in _butterfly(op, reg, part, t, pair)),
                     f"      {team.barrier}", "    }"]
            continue
        for _, op, reg, part, warps, t, _, _ in parts:
            body += [f"      for (int poly_o = 16; poly_o > 0; poly_o >>= 1)",
                     f"        {part} = {combine(op, part, f'__shfl_down_sync(0xffffffffu, {part}, poly_o)')};",
                     f"      if (threadIdx.x % 32 == 0)", f"        {warps}[threadIdx.x / 32] = {part};"]
        body.append("      __syncthreads();")
        for _, op, reg, part, warps, t, _, _ in parts:
            body += [f"      {part} = {warps}[0];   /* every thread: the same total, in a fixed order */",
                     f"      for (int poly_w = 1; poly_w < (int)(blockDim.x / 32); poly_w++)",
                     f"        {part} = {combine(op, part, f'{warps}[poly_w]')};",
                     f"      {join(op, reg, part)}"]
        body += ["      __syncthreads();", "    }"]
    shared += [f"  {types[a]} {reg};   /* {a}[{', '.join(l.var for l in launch.grid)}]: every thread's copy */"
               for a, reg in regs.items()]
    shared += [f"  {r.dtype} {name}[{r.count}];   /* {r.array}: the thread's elements of the row, kept */"
               for r, name in kept_.values()]
    locals_ = {}
    for n in launch.body:
        for s in ([n] if isinstance(n, Stmt) else n.body):
            for (st, scalar), web in p.an.web_of.items():
                if st == s.stmt.name and p.plan.storage[web] == "local":
                    locals_[web] = p.web_type[web]
    locals_ |= p.registers_of(launch)          # contracted arrays (contract.py): registers too
    return [*shared, *(f"  {t} {w};" for w, t in locals_.items()), *(f"  int {v};" for v in declared),
            *row_heads(p, launch, "  ", wr.warps if wr else 0), *body, "  }"]


def _butterfly(op: str, reg: str, part: str, t: str, pair: str) -> list[str]:
    """A warp's combine of each lane's `part` (the warp kernel; `pair`: the partner's value): at
    each step a lane and its partner combine the same two values in lane order, so every lane
    ends with the same total, bit for bit (as every thread of a block's combine does), whether
    or not the op commutes bit for bit (fmax of -0 and +0); then the accumulator `reg` takes it."""
    return ["      for (int poly_o = 16; poly_o > 0; poly_o >>= 1) {   /* every lane: the same pairs, in lane order */",
            f"        const {t} {pair} = __shfl_xor_sync(0xffffffffu, {part}, poly_o);",
            f"        {part} = (poly_lane & poly_o) ? {combine(op, pair, part)} : {combine(op, part, pair)};",
            "      }", f"      {join(op, reg, part)}"]


def row_heads(p, launch, indent: str, warps: int = 0) -> list[str]:
    """The grid loops as loops over blocks (a block per row, striding over blockIdx), the last
    one's brace open; `warps`: that many rows a block along x, a warp each (rows.warp_rows)."""
    heads = []
    for l, (lows, _) in zip(launch.grid, p.launch_box(launch)):
        start, ax = min_expr(lows), launch.axes[l.var]
        start = "" if start == "0" else start + " + "
        if warps and ax == "x":
            heads.append(f"{indent}for (int {l.var} = {start}(int)blockIdx.x * {warps} + poly_warp; {l.cond}; "
                         f"{l.var} += (int)gridDim.x * {warps})")
        else:
            heads.append(f"{indent}for (int {l.var} = {start}(int)blockIdx.{ax}; {l.cond}; {l.var} += (int)gridDim.{ax})")
    return [*heads[:-1], heads[-1] + " {"]


def _scalar(an: Analysis, name: str) -> bool:
    """Whether `name` is a local scalar (a register).  A local array (a spec's `let mx[r] = ...`)
    is global scratch (`dev_mx`) like an output array: written by thread 0 and read after the
    barrier, and by the launches after this one."""
    v = an.program.locals.get(name)
    return v is not None and not v.shape


def _writes_array(p, ph: Phase) -> bool:
    return any(not _scalar(p.an, a.name) for a in ph.node.stmt.writes())


def _fresh(name: str, taken: set) -> str:
    out, k = name, 1
    while out in taken:
        k += 1
        out = f"{name}_{k}"
    taken.add(out)
    return out


def launch_code(p, launch, args: list[str], indent: str, threads: int | None = None) -> list[str]:
    """A block per row, at most 1048576 along x and 65535 along y and z (the rows' loops stride);
    `threads` a block (default: the launch's RowPhases'); where the record has a warp kernel
    (rows.WarpRows), a call whose rows are short runs it, WARPS rows a block along x."""
    box, threads = p.launch_box(launch), threads or launch.phases.threads
    rp = launch.phases                                   # (a row scan's launch has no phases)
    fits, wr = (rp.fits, rp.warp) if rp else ("", None)
    if any(not lows or not highs for lows, highs in box):
        return [f"{indent}/* {launch.name}: empty iteration domain, nothing to launch */"]
    call = ", ".join(args)

    def either(grid: str, rows: str) -> list[str]:
        """The launch (`grid` blocks; `rows`: the warp kernel's), or where rows are short the warp
        kernel, where rows are kept the kept kernel if the call's rows fit, else the plain one."""
        line = lambda name, t, g=grid: p.launch_line(name, (g, str(t)), call, launch.host_loops)
        out = [f"{indent}    if ({wr.short})   /* rows of at most {wr.bound} elements: a warp each, {wr.warps} a block */",
               f"{indent}      {line(warps_name(launch), wr.warps * 32, rows)}"] if wr else []
        if not fits:
            return [*out, f"{indent}    else", f"{indent}      {line(launch.name, threads)}"] if wr else \
                [f"{indent}    {line(launch.name, threads)}"]
        return [*out, f"{indent}    {'else ' if wr else ''}if ({fits})   /* rows that fit the registers of {REG_THREADS} threads */",
                f"{indent}      {line(launch.name, REG_THREADS)}", f"{indent}    else",
                f"{indent}      {line(plain_name(launch), threads)}"]

    warps = wr.warps if wr else 1
    if len(box) == 1:
        (lows, highs), = box
        return [f"{indent}{{",
                f"{indent}  const int extent = {extent_text(max_expr(highs), min_expr(lows))};   /* {launch.grid[0].var}: a block each */",
                f"{indent}  if (extent > 0)", *either('extent < 1048576 ? extent : 1048576',
                                                      f'poly_cap(poly_blocks(extent, {warps}), 1048576)'),
                f"{indent}}}"]
    axes = sorted(zip(launch.grid, box), key=lambda g: launch.axes[g[0].var])
    dims = [f"extent_{launch.axes[l.var]} < {cap} ? extent_{launch.axes[l.var]} : {cap}"
            for (l, _), cap in zip(axes, (1048576, 65535, 65535))]
    rows = [f"poly_cap(poly_blocks(extent_x, {warps}), 1048576)", *dims[1:]]
    return [f"{indent}{{",
            *(f"{indent}  const int extent_{launch.axes[l.var]} = {extent_text(max_expr(highs), min_expr(lows))};   /* {l.var} */"
              for l, (lows, highs) in axes),
            f"{indent}  if ({' && '.join(f'extent_{launch.axes[l.var]} > 0' for l, _ in axes)})",
            *either('dim3(' + ', '.join(dims) + ')', 'dim3(' + ', '.join(rows) + ')'), f"{indent}}}"]


def describe(launch, rp: RowPhases) -> str:
    kinds = {"fold": "a fold combined by the block", "map": "a loop split among the threads", "stmt": ""}
    steps = ", ".join(f"{kinds[ph.kind]} over {ph.node.var}" for ph in rp.phases if ph.kind != "stmt")
    rows = ", ".join(l.var for l in launch.grid)
    regs = ", ".join(f"{a}[{rows}]{' (thread 0 stores it)' if stored else ''}" for a, stored in rp.cells)
    held = ", ".join(f"{h.array} (its first {h.elements} elements)" for h in rp.held)
    return (f"{launch.name}: a block of {rp.threads} threads per {rows if len(launch.grid) == 1 else f'({rows})'} runs its phases in turn: "
            f"{steps}; statements of the row between them"
            + (f"; {regs} in every thread's registers" if regs else "")
            + (f"; the row of {held} kept in shared memory by the phase that reads it first" if held else "")
            + (f"; on a row whose extent is a multiple of {LANES} and whose pointers are 16-byte aligned, a thread "
               f"takes {LANES} consecutive elements ({wide})" if (wide := _wide_text(rp)) else "")
            + "".join(f"; each thread keeps its elements j = t + u * blockDim.x (u < {r.count}) of {r.array}'s row in "
                      f"registers, read from memory once" for r in rp.kept)
            + (f" ({REG_THREADS} threads a row where {rp.fits}; any other call runs {launch.name}_rows, the same "
               f"phases without registers, {rp.threads} threads a row)" if rp.fits else "")
            + (f"; a call whose rows are short ({wr.short}) runs {warps_name(launch)} instead: a warp per row, "
               f"{wr.warps} rows a block, lanes striding the loops, folds combined by a butterfly of shuffles "
               f"(every lane the same total), warp barriers"
               + (f", each warp's held rows (their first {wr.held} elements) in its slice of shared memory"
                  if rp.held else "") if (wr := rp.warp) else "") + ".")


def _wide_text(rp: RowPhases) -> str:
    """The 16-byte accesses of the record, in words (describe)."""
    loads = dict.fromkeys(a for w in rp.wide for a in w.loads if any(h.array == a and h.loader == w.phase for h in rp.held))
    stores = dict.fromkeys(a for w in rp.wide for _, a in w.stores)
    return ", ".join([*([f"16-byte loads of {', '.join(loads)}"] if loads else []),
                      *([f"16-byte stores of {', '.join(stores)}"] if stores else [])])
