"""Printing a launch plan as one CUDA candidate file with the t2c ABI (DESIGN §3).

    Printer(kernel, analysis, plan, options, target).candidate() -> the .cu text
    sequential_candidate(kernel, why) -> the whole reference in one thread (the fallback)

Takes the IS kernel, its `Analysis` and a complete `Plan` (lower.final_plan: every form decided
in forms.py); gives a header comment with the mapping and its reasons, `__device__` globals for
what lives across launches, one `__global__` function per launch, `NAME_device` (host loops and
launches; no allocation but pool scratch for copies) and the drop-in `NAME`. Statements print
from the reference's own AST, subscripts flattened row-major, scalar webs renamed to their
storage. Decides nothing the plan has not. docs/poly.md, "Printing".
"""
from __future__ import annotations

import copy
import re
from contextlib import contextmanager

from pycparser import c_ast

from ...analysis import Analysis, Loop, Stmt
from ...analysis.model import parse_expr
from ...ir import Kernel, abi
from ...ir.csyntax import array_name, clone, cprint, kernel_definition, reference_helpers, takes_arrays
from .mapping import HostLoop, HostStmt, Launch, Plan, launch_box
from . import (banded, contract, kadane, merge, oneblock, persistent, phases, pivotblocks, private, reduce, rowscan, scan, slabs, stage,
               strips, substitution, sweep, tensor, timetiles, transposed, vector, wavetiles)
from .scratch import entries, give_back, scratch_head, take
from .ctext import (WORD, array_refs, extent_text, loop_guard, max_expr, min_expr, names_used, replace_refs, rewrite,
                    rewrite_reads)
from .options import PolyOptions
from ...runtime.target import M8N8K4, M16N8K8, SM90, Target

HELPERS = [line + "\n" for line in """\
static __host__ __device__ inline int poly_min(int a, int b) { return a < b ? a : b; }
static __host__ __device__ inline int poly_max(int a, int b) { return a > b ? a : b; }
static __host__ __device__ inline int poly_floord(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static inline long long poly_max_ll(long long a, long long b) { return a > b ? a : b; }
static inline unsigned poly_blocks(int extent, int block) { return (unsigned)((extent + block - 1) / block); }
static inline unsigned poly_cap(unsigned blocks, unsigned most) { return blocks < most ? blocks : most; }
""".splitlines()] + [
    "static inline int poly_warp_rows() { int d = 0, sms = 0; cudaGetDevice(&d); cudaDeviceGetAttribute(&sms, "
    f"cudaDevAttrMultiProcessorCount, d); return (sms > 0 ? sms : 1) * {reduce.WARP_ROWS_PER_SM}; }}\n"] + ["""\
/* A launch that may begin while the launch before it in the stream ends (programmatic dependent
   launch): its kernel waits for that one's results first (poly_wait), so nothing changes but the
   time between them.  Only where this file's kernels were built for sm_90 or newer (PTX version),
   where poly_wait waits; a plain launch otherwise. */
/* poly_arch_probe: one thread that does nothing; its attributes name the architecture this file was built for */
static __global__ void poly_arch_probe() {}
static bool poly_programmatic()
{
  static const bool on = [] {
    cudaFuncAttributes a;
    return cudaFuncGetAttributes(&a, poly_arch_probe) == cudaSuccess && a.ptxVersion >= 90;
  }();
  return on;
}
struct poly_after_config {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t config;
  poly_after_config(dim3 grid, dim3 block, size_t shared) : attr(), config()
  {
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = shared;
    config.stream = 0;
    config.numAttrs = poly_programmatic() ? 1 : 0;
  }
  const cudaLaunchConfig_t *at() { config.attrs = attr; return &config; }
};
static inline poly_after_config poly_after(dim3 grid, dim3 block, size_t shared) { return poly_after_config(grid, block, shared); }
""", """\
/* The kernels before this one in the stream have finished and their writes are visible (a no-op
   unless it was launched with poly_after) */
static __device__ __forceinline__ void poly_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}
""", """\
/* c0, c1 += this lane's two points of an 8 x 8 x 4 product: a holds A[lane / 4][lane % 4], b holds
   B[lane % 4][lane / 4], c0 and c1 are C[lane / 4][lane % 4 * 2 + 0, 1] (PTX mma.sync m8n8k4 f64) */
static __device__ __forceinline__ void poly_dmma(double &c0, double &c1, double a, double b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800   /* no fp64 tensor cores: the same sums by shuffles */
  const int lane = (int)((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) % 32;
  for (int q = 0; q < 4; q++) {
    const double x = __shfl_sync(0xffffffffu, a, lane / 4 * 4 + q);
    c0 = fma(x, __shfl_sync(0xffffffffu, b, lane % 4 * 8 + q), c0);
    c1 = fma(x, __shfl_sync(0xffffffffu, b, lane % 4 * 8 + 4 + q), c1);
  }
#else
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(c0), "+d"(c1) : "d"(a), "d"(b));
#endif
}
""", """\
/* c0..c3 += this lane's four points of a 16 x 8 x 8 product: a0..a3 hold A[lane / 4 + 8 (r % 2)]
   [lane % 4 + 4 (r / 2)], b0, b1 hold B[lane % 4 + 4 r][lane / 4], c0, c1 are C[lane / 4]
   [lane % 4 * 2 + 0, 1] and c2, c3 the two 8 rows below (PTX mma.sync m16n8k8 f64, sm_90) */
static __device__ __forceinline__ void poly_dmma16(double &c0, double &c1, double &c2, double &c3,
                                                   double a0, double a1, double a2, double a3, double b0, double b1)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900   /* the same products as four 8 x 8 x 4 ones */
  poly_dmma(c0, c1, a0, b0);
  poly_dmma(c0, c1, a2, b1);
  poly_dmma(c2, c3, a1, b0);
  poly_dmma(c2, c3, a3, b1);
#else
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
               "{%0, %1, %2, %3};" : "+d"(c0), "+d"(c1), "+d"(c2), "+d"(c3)
               : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#endif
}
"""]


# -- statements ---------------------------------------------------------------------------

class Renderer:
    """C text of reference statements, with flat subscripts and renamed scalars; a statement the
    model marks atomic (`Statement.atomic`, given as its node) adds through atomicAdd. `return E`
    stores E in `dev_return`; with `exits` (the whole body in one thread) it also leaves the kernel,
    as an early return leaves the reference, and a bare `return` stays one.  A cell of a contracted
    array (`registers`: array -> register, contract.py) is that register, renamed as a scalar is."""

    def __init__(self, k: Kernel, local_arrays: dict[str, tuple[str, ...]], atomic=(), exits=False, registers=None):
        self.shapes = {a.name: a.shape for a in k.arrays}
        self.rename_arrays = {n: f"dev_{n}" for n in local_arrays}
        self.shapes.update({f"dev_{n}": s for n, s in local_arrays.items()})
        self.atomic = {id(n) for n in atomic}
        self.exits = exits
        self.registers = registers or {}

    def reshaped(self, shapes: dict[str, tuple[str, ...]]) -> Renderer:
        """This renderer with `shapes` in place of those arrays' own (their subscripts flattened
        by another pitch: a 2-d time tile's window, timetiles.py)."""
        other = copy.copy(self)
        other.shapes = {**self.shapes, **shapes}
        return other

    def node(self, node, names: dict[str, str]) -> c_ast.Node:
        atomic = id(node) in self.atomic
        node = copy.deepcopy(node)
        return self._go(_atomic_add(node) if atomic else node, names)

    def _go(self, n, names):
        if isinstance(n, c_ast.ArrayRef):
            subs, base = [], n
            while isinstance(base, c_ast.ArrayRef):
                subs.append(self._go(base.subscript, names))
                base = base.name
            subs.reverse()
            if isinstance(base, c_ast.ID) and base.name in self.registers:
                return self._go(c_ast.ID(self.registers[base.name]), names)
            name = self.rename_arrays.get(base.name, base.name) if isinstance(base, c_ast.ID) else None
            shape = self.shapes.get(name, ())
            if name is None:
                return n
            flat = subs[0]
            for ext, sub in zip(shape[1:], subs[1:]):
                ext_node = c_ast.ID(ext if WORD.fullmatch(ext) or ext.isdigit() else f"({ext})")
                flat = c_ast.BinaryOp("+", c_ast.BinaryOp("*", flat, ext_node), sub)
            return c_ast.ArrayRef(c_ast.ID(name), flat)
        if isinstance(n, c_ast.ID):
            n.name = names.get(n.name, n.name)
            return n
        if isinstance(n, c_ast.Return):
            if n.expr is None:
                return n
            store = c_ast.Assignment("=", c_ast.ID("dev_return"), self._go(n.expr, names))
            return c_ast.Compound([store, c_ast.Return(None)]) if self.exits else store
        for attr in n.__slots__:
            if attr in ("coord", "__weakref__"):
                continue
            child = getattr(n, attr, None)
            if isinstance(child, c_ast.Node):
                setattr(n, attr, self._go(child, names))
            elif isinstance(child, list):
                setattr(n, attr, [self._go(c, names) if isinstance(c, c_ast.Node) else c for c in child])
        return n

    def statement(self, node, names, indent: str) -> list[str]:
        r = self.node(node, names)
        text = cprint(r)
        if not isinstance(r, (c_ast.If, c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile)):   # an opaque loop
            text += ";"
        return [indent + line for line in text.splitlines()]


# -- the candidate ------------------------------------------------------------------------

class Printer:
    """Prints a complete plan (lower.final_plan: forms.formed made its decisions) as the
    candidate file; it reads the plan's records and leaves them as they are."""

    def __init__(self, abi: Kernel, an: Analysis, plan: Plan, options: PolyOptions, target: Target = SM90):
        self.abi = abi                      # the caller's parameters; k adds the copies of inputs
        self.k = k = an.program.kernel
        self.an, self.plan, self.opt, self.target = an, plan, options, target
        prog = an.program
        scratch = {a for l in plan.launches if l.phases for a, stored in l.phases.cells if not stored}
        self.contracted = contract.arrays(plan)    # contract.py: a register of each thread, no buffer either
        self.local_arrays = {n: v.shape for n, v in prog.locals.items()      # rows.row_cells: registers
                             if v.shape and n not in scratch and n not in self.contracted}
        self.r = Renderer(k, self.local_arrays, [s.node for s in prog.statements if s.atomic],
                          registers={n: c.register for n, c in self.contracted.items()})
        self.short = short_name(k)
        self.dtypes = {s.name: s.dtype for s in k.scalars}
        self.dtypes.update({a.name: a.dtype for a in k.arrays})
        self.web_type = {w: prog.locals[an.webs[w].scalar].dtype for w in an.webs}
        self.kernels: list[str] = []
        self.reduction_globals: list[str] = []
        self.at_locals: dict[str, list[str]] = {}   # launch -> `dev_X` its NAME_at takes as pointers
        self.at_params: dict[str, str | None] = {}   # launch -> its NAME_at's parameters (None: it takes locals too)
        self.waiting: set[str] = set()              # kernels printed waiting (begins_early)
        self.per_point: dict[str, str] = {}         # while a tiled body prints: web -> its point's copy
        self.block_loops = plan.block_loops()

    # names --------------------------------------------------------------------------------
    def names_for(self, stmt_name: str) -> dict[str, str]:
        """Scalar name -> storage name for one statement."""
        out = {}
        for (s, scalar), web in self.an.web_of.items():
            if s == stmt_name:
                out[scalar] = f"dev_{web}" if self.plan.storage[web] == "global" else self.per_point.get(web, web)
        for c in self.contracted.values():       # a tile's point copy of a contracted array's register
            if c.register in self.per_point:
                out[c.register] = self.per_point[c.register]
        return out

    def registers_of(self, launch: Launch) -> dict[str, str]:
        """The registers (name -> C type) of the contracted arrays the launch's statements touch
        (contract.py): declared with its thread-local scalars."""
        mine = {a.name for s in launch.statements() for a in self.an.program.statement(s).accesses}
        return {c.register: c.dtype for c in self.contracted.values() if c.array in mine}

    def render_nodes(self, nodes, indent, reads=None, loops=None) -> list[str]:
        """Statements and loops as C; `reads` (node -> node) rewrites each plain statement first
        (slabs.read: a read from a shared copy); `loops` ((loop, indent) -> lines or None) prints
        the loops it takes (slabs.split: a row in registers)."""
        out = []
        for n in nodes:
            if isinstance(n, Stmt):
                out += self.r.statement(reads(n.stmt.node) if reads else n.stmt.node, self.names_for(n.stmt.name), indent)
            elif loops is not None and (lines := loops(n, indent)) is not None:
                out += lines
            elif (reg := self.register_accumulator(n, reads)) is not None:
                out += reg(indent)
            elif (rec := self.recurrences(n, reads)) is not None:
                out += rec(indent)
            else:
                out.append(f"{indent}for ({n.init}; {n.cond}; {n.next})")
                # unbraced only around one statement: a recurrence's register form is several
                # unless its header's declaration gave it a block of its own
                one = len(n.body) == 1 and isinstance(n.body[0], Loop) and \
                    (self.recurrences(n.body[0]) is None or _declares(n.body[0])) and \
                    (loops is None or loops(n.body[0], indent) is None)       # a split loop is two
                if one:
                    out += self.render_nodes(n.body, indent + "  ", reads, loops)
                else:
                    out.append(indent + "{")
                    out += self.render_nodes(n.body, indent + "  ", reads, loops)
                    out.append(indent + "}")
        return out

    def recurrences(self, loop: Loop, reads=None):
        """A loop of statements in which an array cell written in one iteration is read in the next
        (adi's `p[i][j] = -c / (a * p[i][j - 1] + b)`): the value also stays in a register, which
        the next iteration reads instead of memory (scalar replacement; strips.chains finds them).
        The cell is still stored; the first iteration's value is loaded before the loop.  `reads`:
        as render_nodes'.  A printer, or None when nothing qualifies."""
        parts = self.recurrence_parts(loop, reads)
        if parts is None:
            return None
        firsts, body = parts

        # A header that declares its variable (`int i = 1`) leaves the `for`: it gets a block of
        # its own, so it cannot redeclare the kernel's `int i;` (nor leak into what follows).
        scoped = _declares(loop)

        def printed(indent):             # the first iteration's cell loaded only if there is one
            if scoped:
                return [f"{indent}{{", *printed_in(indent + "  "), f"{indent}}}"]
            return printed_in(indent)

        def printed_in(indent):
            return [f"{indent}{loop.init};", f"{indent}if ({loop.cond}) {{",
                    *[f"{indent}  {t} {reg} = {load};" for t, reg, load in firsts],
                    f"{indent}  for (; {loop.cond}; {loop.next})", f"{indent}  {{",
                    *body(indent + "    "), f"{indent}  }}", f"{indent}}}"]
        return printed

    def recurrence_parts(self, loop: Loop, reads=None):
        """The scalar-replaced form of `loop` (recurrences) as parts: its registers as (C type,
        register, the first iteration's load) and its body (indent -> lines: the statements on
        the registers, then each register moved on); None where no chain qualifies."""
        if not self.opt.registers.scalar_replacement:
            return None
        arrays = {a.name: a.dtype for a in self.k.arrays}
        chains = strips.chains(loop, set(arrays))
        if not chains:
            return None
        taken = set(self.k.params) | set(self.an.program.locals) | set(WORD.findall(
            " ".join(cprint(m.stmt.node) for m in loop.body)))
        regs = {x: (reduce.fresh_name(f"{x}_prev", taken), reduce.fresh_name(f"{x}_now", taken)) for x in chains}
        firsts = [(arrays[x], regs[x][0], self.r.statement(parse_expr(prev), self.names_for(st.stmt.name), "")[0].rstrip(";"))
                  for x, (st, prev) in chains.items()]

        def body(indent):
            out = []
            for m in loop.body:
                node = copy.deepcopy(m.stmt.node)
                for x, (st, prev) in chains.items():
                    node = replace_refs(node, prev, regs[x][0])
                node = reads(node) if reads else node
                names = self.names_for(m.stmt.name)
                mine = [x for x, (st, _) in chains.items() if st is m]
                if mine:
                    x = mine[0]
                    value = self.r.statement(node.rvalue, names, "")[0].rstrip(";")
                    cell = self.r.statement(node.lvalue, names, "")[0].rstrip(";")
                    out += [f"{indent}const {arrays[x]} {regs[x][1]} = {value};", f"{indent}{cell} = {regs[x][1]};"]
                else:
                    out += self.r.statement(node, names, indent)
            return out + [f"{indent}{regs[x][0]} = {regs[x][1]};" for x in chains]
        return firsts, body

    def register_accumulator(self, loop: Loop, reads=None):
        """A loop whose one statement updates one array cell that does not move with the loop
        (gemm's `C[i][j] += alpha * A[i][k] * B[k][j]` for k) keeps that cell in a register:
        loaded before the loop, stored after it.  The same operations in the same order, so
        the same bits; only the loads and stores of C in every iteration go (the compiler
        may not do it itself: C could alias A or B as far as it knows, not as the model
        knows).  `reads`: as render_nodes'.  A printer for the loop, or None when the form does not apply."""
        parts = self.accumulator_parts(loop, reads=reads)
        if parts is None:
            return None
        dtype, acc, cell, body = parts

        def printed(indent):
            return [f"{indent}{{", f"{indent}  {dtype} {acc} = {cell};   /* the cell stays in a register */",
                    f"{indent}  for ({loop.init}; {loop.cond}; {loop.next})", f"{indent}  {{",
                    *[f"{indent}    {line}" for line in body], f"{indent}  }}",
                    f"{indent}  {cell} = {acc};", f"{indent}}}"]
        return printed

    def accumulator_parts(self, loop: Loop, scalars=False, index: str = "", reads=None):
        """(dtype, register name, the cell's C text, the loop body on the register) of the
        register accumulator's form (above; accumulator_of), or None.  `index`: the subscripts
        the body reads the register with (a tile's one register per point, `[tm][tn]`); `reads`:
        as render_nodes', applied to the body's statement."""
        found = accumulator_of(self, loop, scalars)
        if found is None:
            return None
        dtype, acc, target, st = found
        names = self.names_for(st.name)
        cell = self.r.statement(st.node.lvalue, names, "")[0].rstrip(";")
        node = replace_refs(copy.deepcopy(st.node), target, acc + index)
        body = self.r.statement(reads(node) if reads else node, names, "")
        return dtype, acc, cell, body

    # kernels ------------------------------------------------------------------------------
    @contextmanager
    def row_pitch(self, arrays, pitch: int):
        """While printing: `arrays` flattened with rows of `pitch` elements (a tile in shared memory
        their names point into: timetiles.py's window, pivotblocks.py's diagonal tile)."""
        saved = self.r
        self.r = self.r.reshaped({a: (*self.k.array(a).shape[:-1], str(pitch)) for a in arrays})
        try:
            yield
        finally:
            self.r = saved

    def launch_box(self, launch: Launch):
        return launch_box(self.an, launch)

    def kernel(self, launch: Launch) -> tuple[str, list[str]]:
        """The __global__ function of a launch and its argument names."""
        if launch.tiles:
            return wavetiles.kernel(self, launch)
        if launch.scan:
            src, args, decls = scan.kernels(self, launch, launch.scan)
            self.reduction_globals.append(decls)
            return src, args
        if launch.row_scan:
            return rowscan.kernel(self, launch, launch.row_scan)
        if launch.banded:
            src, args, decls = banded.kernels(self, launch, launch.banded)
            self.reduction_globals.append(decls)
            return src, args
        if launch.running_max:
            src, args, decls = kadane.kernels(self, launch, launch.running_max)
            self.reduction_globals.append(decls)
            return src, args
        inner_vars, locals_ = self.thread_variables(launch)
        box = self.launch_box(launch) if launch.grid else []
        part = launch.merged_threads if launch.row else 0    # a part of merged reductions: its block's threads
        if launch.phases:       # with rows kept in registers, also the kernel for calls whose rows do not fit;
            rp = launch.phases  # with a warp kernel (rows.WarpRows), also the kernel for short rows
            kinds = [(launch.name, rp, phases.REG_THREADS if rp.kept else launch.threads, False)]
            if rp.kept:
                kinds.append((phases.plain_name(launch), phases.plain(rp), launch.threads, False))
            if rp.warp:
                kinds.append((phases.warps_name(launch), rp, rp.warp.warps * 32, True))
            texts = ["\n".join(phases.kernel_body(self, launch, r, warp)) for _, r, _, warp in kinds]
            args = self.kernel_args(launch, names_used("\n".join(texts)))
            params = ", ".join(self.param_decl(a, launch) for a in args)
            src = []
            for (name, r, threads, warp), text in zip(kinds, texts):
                bounds = f"{threads}, {r.per_sm}" if r.per_sm and not warp else f"{threads}"   # the kept kernel's
                src += [*([""] if src else [f"/* {self.describe(launch)} */"]),
                        f"__global__ void __launch_bounds__({bounds}) {name}({params})",
                        "{", *self.waits(name, launch.host_loops, params), text, "}"]
            return "\n".join(src), args
        if launch.row or launch.sweep:
            start = min_expr(box[0][0]) if box else "0"
            start = "" if start == "0" else f"{start} + "
            body = [f"  {t} {web};" for web, t in locals_.items()]
            if launch.sweep:
                guard = loop_guard(launch.grid[0]) if launch.grid else ""
                body = sweep.kernel_body(self, launch, launch.sweep, start, guard, body)
            else:
                form = reduce.column_kernel if launch.row.column else reduce.row_kernel
                if launch.row.warps:                    # and the kernel of a warp per row (reduce.warp_rows)
                    warps = body + reduce.row_kernel(self, launch, launch.row, start, loop_guard(launch.grid[0]), width=32)
                body += form(self, launch, launch.row, start, loop_guard(launch.grid[0]), *(("poly_b", part) if part else ()))
            text = "\n".join(body)
            if launch.row and launch.row.warps:
                wtext = "\n".join(warps)
                args = self.kernel_args(launch, names_used(text + "\n" + wtext))
                params = ", ".join(self.param_decl(a, launch) for a in args)
                return "\n".join([f"/* {self.describe(launch)} */",
                                   f"__global__ void {launch.name}({params})", "{",
                                   *self.waits(launch.name, launch.host_loops, params), text, "}", "",
                                   f"__global__ void {reduce.warps_name(launch)}({params})", "{",
                                   *self.waits(reduce.warps_name(launch), launch.host_loops, params), wtext, "}"]), args
            args = self.kernel_args(launch, names_used(text))
            # a data row's gathers (`x[col[k]]`) read `in` arrays only: read-only loads
            restrict = bool(launch.row and launch.row.data)
            params = ", ".join(self.param_decl(a, launch, restrict=restrict) for a in args)
            if part:
                return "\n".join([f"/* {self.describe(launch)} */",
                                  f"static __device__ void {launch.name}_at({params}{', ' if params else ''}unsigned poly_b)",
                                  "{", text, "}"]), args
            threads = launch.threads if launch.sweep or launch.row.column else 0
            bounds = f"__launch_bounds__({threads}) " if threads else ""
            return "\n".join([f"/* {self.describe(launch)} */",
                              f"__global__ void {bounds}{launch.name}({params})", "{",
                              *self.waits(launch.name, launch.host_loops, params), text, "}"]), args
        merged = bool(launch.merged_threads)     # a part of a merged launch: a device function
        at = launch.in_block or merged           # also run inside a one-block loop: the same
        if launch.tile:
            text = "\n".join(self.strided(launch, self.tiled_body(launch, box, inner_vars)))
            args = self.kernel_args(launch, names_used(text))
            params = ", ".join([self.param_decl(a, launch) for a in args] + self.cap_params(launch))
            bounds = f"__launch_bounds__({launch.threads}, {launch.per_sm}) " if launch.per_sm else ""
            return "\n".join([f"/* {self.describe(launch)} */",
                              f"__global__ void {bounds}{launch.name}({params})", "{",
                              *self.waits(launch.name, launch.host_loops, params), text, "}"]), args
        if launch.transposed:
            text = "\n".join(transposed.kernel_body(self, launch, box, locals_))
            args = self.kernel_args(launch, names_used(text))
            params = ", ".join([self.param_decl(a, launch, restrict=True) for a in args] + self.cap_params(launch))
            return "\n".join([f"/* {self.describe(launch)} */",
                              f"__global__ void __launch_bounds__({launch.threads}) {launch.name}({params})",
                              "{", *self.waits(launch.name, launch.host_loops, params), text, "}"]), args
        if launch.coarsen > 1:
            body = self.coarsened_body(launch, box, locals_)
            text = "\n".join(self.strided(launch, body))
            args = self.kernel_args(launch, names_used(text))
            params = ", ".join([self.param_decl(a, launch, restrict=True) for a in args] + self.cap_params(launch))
            return "\n".join([f"/* {self.describe(launch)} */", f"__global__ void {launch.name}({params})",
                              "{", *self.waits(launch.name, launch.host_loops, params), text, "}"]), args
        if launch.reduction:
            return self.reduction_kernels(launch)
        body = self.point_body(launch, box, inner_vars, locals_, at)
        text = "\n".join(self.strided(launch, body))
        if launch.private:           # its copy per block, and the plain kernel for an array too large
            declared = [f"  int {v};" for v in inner_vars] + [f"  {t} {web};" for web, t in locals_.items()]
            own = "\n".join(private.kernel_body(self, launch, launch.private, box, declared))
            args = self.kernel_args(launch, names_used(text + own))
            params = ", ".join(self.param_decl(a, launch) for a in args)
            return "\n".join([f"/* {self.describe(launch)} */",
                              f"__global__ void __launch_bounds__({private.THREADS}) {launch.name}_private({params})",
                              "{", *self.waits(f"{launch.name}_private", launch.host_loops, params), own, "}", "",
                              f"__global__ void {launch.name}({params})", "{",
                              *self.waits(launch.name, launch.host_loops, params), text, "}"]), args
        walked = "\n".join(self.strips_body(launch, box, inner_vars, locals_)) if launch.strips else ""
        args = self.kernel_args(launch, names_used(text + walked))
        params = ", ".join(self.param_decl(a, launch) for a in args)
        if merged:
            return oneblock.at_function(self, launch, text, params), args
        if at:                 # the reference's local arrays as pointers: a resident kernel passes its copies
            locals_decl = [f"  {t} {web};" for web, t in locals_.items()]
            block = lambda ps: reduce.block_sum_function(self, launch, launch.block_sum, ps, locals_decl,
                                                         launch.every_thread) if launch.block_sum else []
            used = names_used(text + "\n".join(block(params)))
            ptrs = [f"dev_{n}" for n in self.local_arrays if f"dev_{n}" in used]
            refs = [f"dev_{w}" for w in sorted(launch.own_scalars) if f"dev_{w}" in used]
            self.at_locals[launch.name] = ptrs + refs      # a one-block kernel passes its own copies
            self.at_params[launch.name] = None if ptrs or refs else params
            at_params = ", ".join([x for x in [params] if x] +
                                  [f"{self.an.program.locals[x[4:]].dtype} *{x}" for x in ptrs] +
                                  [f"{self.web_type[x[4:]]} &{x}" for x in refs])
            if walked:           # the one-block loop's NAME_at, and the grid kernel walking in strips
                src = "\n".join([oneblock.at_function(self, launch, text, at_params), "",
                                  *self.plain_kernel(launch, params, walked)])
            elif any(launch is l for h in pivotblocks.loops(self.plan) for l in h.items):   # only its blocks call it
                src = oneblock.at_function(self, launch, text, at_params)
            else:
                src = oneblock.device_and_kernel(self, launch, text, args + ptrs + refs, params, at_params)
            if launch.block_sum:
                src += "\n\n" + "\n".join(block(at_params))
            return src, args
        params = ", ".join([params] * bool(params) + self.cap_params(launch) + (slabs.params(launch) if launch.slab else []))
        return "\n".join(self.plain_kernel(launch, params, walked or text)), args

    def plain_kernel(self, launch: Launch, params: str, text: str) -> list[str]:
        """A launch's `__global__` function around its body `text`."""
        bounds = f"__launch_bounds__({launch.strips.threads}) " if launch.strips else ""
        return [f"/* {self.describe(launch)} */", f"__global__ void {bounds}{launch.name}({params})",
                "{", *self.waits(launch.name, launch.host_loops, params), text, "}"]

    def strips_body(self, launch: Launch, box, inner_vars, locals_) -> list[str]:
        """A launch walking its loops in strips (strips.py): the grid kernel's body."""
        (l, (lows, _)), = zip(launch.grid, box)
        start = min_expr(lows)
        start = "" if start == "0" else f"{start} + "
        index = f"  const int {l.var} = {start}(int)(blockIdx.x * blockDim.x + threadIdx.x);"
        declared = [f"  int {v};" for v in inner_vars] + [f"  {t} {web};" for web, t in locals_.items()]
        return strips.kernel_body(self, launch, index, loop_guard(l), declared)

    def thread_variables(self, launch: Launch) -> tuple[list[str], dict[str, str]]:
        """The loop variables a launch's threads declare, and its thread-local scalars' types."""
        locals_ = {}
        for s in launch.statements():
            for (st, scalar), web in self.an.web_of.items():
                if st == s and self.plan.storage[web] == "local":
                    locals_[web] = self.web_type[web]
        return _inner_loops(launch.body), locals_ | self.registers_of(launch)

    def point_body(self, launch: Launch, box, inner_vars, locals_, at: bool, reads=None,
                   leave: str | None = None, guard: str | None = None) -> list[str]:
        """A plain launch's body for one grid point: its indices from the thread's (`at`: from the
        arguments `idx_x`, ..., as a one-block loop, a merged launch or a persistent loop calls
        it), a point outside the domain leaving (by `leave` where given; `guard`: that condition
        where the caller knows more, "" none), the thread's variables, its statements (each
        rewritten by `reads`, node -> node, where given)."""
        body = []
        for l, (lows, _) in zip(launch.grid, box):
            ax = launch.axes[l.var]
            start = min_expr(lows)
            start = "" if start == "0" else f"{start} + "
            index = f"idx_{ax}" if at else f"(int)({self.block_index(launch, ax)} * blockDim.{ax} + threadIdx.{ax})"
            body.append(f"  const int {l.var} = {start}{index};")
        leave = leave or ("continue;" if launch.grid_cap and not at else "return;")    # a capped launch: the block's next index
        slab = launch.slab if not at else None
        if slab:                                          # before the guard: every thread meets its barrier
            (l, (lows, _)), = zip(launch.grid, box)
            start = min_expr(lows)
            body += slabs.staging(self, launch, "" if start == "0" else f"{start} + ", loop_guard(l))
        if launch.grid and guard != "":
            guard = guard or " && ".join(loop_guard(l) for l in launch.grid)
            body.append(f"  if (!({guard}))")
            body.append(f"    {leave}")
            for var, expr, cond in launch.grid[-1].derived:   # a wavefront: the other index
                body.append(f"  const int {var} = {expr};")
                body.append(f"  if (!({cond}))")
                body.append(f"    {leave}")
        body += [f"  int {v};" for v in inner_vars] + [f"  {t} {web};" for web, t in locals_.items()]
        if not slab:
            return body + self.render_nodes(launch.body, "  ", reads)
        split = (lambda loop, indent: slabs.split(self, launch, loop, indent)) if slab.registers else None
        return body + slabs.kept(self, launch) + self.render_nodes(launch.body, "  ", lambda node: slabs.read(node, slab), split)

    def coarsened_body(self, launch: Launch, box, locals_) -> list[str]:
        """A loop-free launch whose threads each take `launch.coarsen` x indices blockDim.x apart
        (forms.coarsened): where all of them are in the domain, unrolled without a branch (the
        loads of every index issue first); at the domain's edge, each index checked."""
        c, lines, x = launch.coarsen, [], None
        for l, (lows, _) in zip(launch.grid, box):
            ax = launch.axes[l.var]
            start = min_expr(lows)
            start = "" if start == "0" else f"{start} + "
            if ax == "x" and launch.vector:      # consecutive indices (vector.py: the start is 0)
                x = f"const int {l.var} = poly_x + poly_u;"
                lines.append(f"  const int poly_x = (int)(({self.block_index(launch, ax)} * blockDim.x + threadIdx.x) * {c});")
            elif ax == "x":
                x = f"const int {l.var} = {start}poly_x + poly_u * (int)blockDim.x;"
                lines.append(f"  const int poly_x = (int)({self.block_index(launch, ax)} * blockDim.x * {c} + threadIdx.x);")
            else:
                lines.append(f"  const int {l.var} = {start}(int)({self.block_index(launch, ax)} * blockDim.{ax} + threadIdx.{ax});")
        guard = " && ".join(loop_guard(l) for l in launch.grid)
        decls = [f"      {t} {web};" for web, t in locals_.items()]
        each = decls + self.render_nodes(launch.body, "      ")
        return lines + [
            "  bool poly_full = true;",
            "#pragma unroll",
            f"  for (int poly_u = 0; poly_u < {c}; poly_u++) {{",
            f"    {x}", f"    poly_full = poly_full && ({guard});", "  }",
            *([f"  poly_full = poly_full && {vector.aligned(launch.vector)};"] if launch.vector else []),
            "  if (poly_full) {",
            *self.preloads(launch, x, decls),
            "  } else {",
            f"    for (int poly_u = 0; poly_u < {c}; poly_u++) {{", f"      {x}",
            f"      if (!({guard}))", "        continue;", *each, "    }",
            "  }"]

    def preloads(self, launch: Launch, x: str, decls: list[str]) -> list[str]:
        """A coarsened launch's in-domain path (its lines, four spaces in): the reads of
        `launch.preload` for every index into registers `poly_v<K>[poly_u]` first, then the
        statements, which read those from the registers (forms.preloaded)."""
        c, regs, loads, vec = launch.coarsen, {}, [], launch.vector
        chunked, stored = [], {}
        for n in launch.body:
            names = self.names_for(n.stmt.name)
            for ref in array_refs(n.stmt.node):
                text = cprint(ref)
                if text not in regs and any(text == t for t, _ in launch.preload):
                    regs[text] = f"poly_v{len(regs)}"
                    dtype = self.k.array(array_name(ref)).dtype
                    if vec and text in vec.loads:    # whole chunks of the thread's indices
                        chunked += vector.chunk_lines(vec, array_name(ref), regs[text], dtype, c, "poly_x", True)
                        loads.append((f"    {dtype} {regs[text]}[{c}];", None))
                    else:
                        loads.append((f"    {dtype} {regs[text]}[{c}];",
                                      f"      {regs[text]}[poly_u] = {cprint(self.r.node(ref, names))};"))
        for s, a in vec.stores if vec else ():
            stored[s] = (a, f"poly_w{len(stored)}")
        body = []
        for n in launch.body:
            node, mine = n.stmt.node, {t: regs[t] for t, users in launch.preload if n.stmt.name in users and t in regs}
            if (mine or n.stmt.name in stored) and isinstance(node, c_ast.Assignment):
                pick = lambda e: c_ast.ID(f"{mine[t]}[poly_u]") if isinstance(e, c_ast.ArrayRef) and (t := cprint(e)) in mine else None
                node = rewrite_reads(node, pick)
                if n.stmt.name in stored:            # into registers, stored by chunks after the loop
                    node.lvalue = c_ast.ID(f"{stored[n.stmt.name][1]}[poly_u]")
            body += self.r.statement(node, self.names_for(n.stmt.name), "      ")
        var = x.split("=")[0].split()[-1]
        unrolled = lambda inner: ["#pragma unroll", f"    for (int poly_u = 0; poly_u < {c}; poly_u++) {{",
                                  *([f"      {x}"] if var in names_used("\n".join(inner)) else []), *inner, "    }"] if inner else []
        out = [d for d, _ in loads] + ["    " + line for line in chunked]
        out += [f"    {self.k.array(a).dtype} {w}[{c}];" for a, w in stored.values()]
        out += unrolled([l for _, l in loads if l]) + unrolled(decls + body)
        for a, w in stored.values():
            out += ["    " + line for line in vector.chunk_lines(vec, a, w, self.k.array(a).dtype, c, "poly_x", False)]
        return out

    def block_index(self, launch: Launch, ax: str) -> str:
        """The block's index on grid axis `ax`: blockIdx's, or on a capped axis the index of the
        strided loop around the body (`strided`)."""
        return f"poly_b{ax}" if ax in launch.grid_cap else f"blockIdx.{ax}"

    def cap_params(self, launch: Launch) -> list[str]:
        """The kernel's parameters after its arguments: each capped axis's number of blocks."""
        return [f"unsigned poly_blocks_{ax}" for ax in launch.grid_cap]

    def strided(self, launch: Launch, body: list[str]) -> list[str]:
        """A kernel body (its lines, two spaces in) whose block index on each capped axis
        (Launch.grid_cap: y, z) is `poly_by`, `poly_bz`, and whose threads leave a point with
        `continue`, inside a loop over those indices: the launch has at most the cap's blocks on
        that axis, each taking every gridDim-th block index of the axis's `poly_blocks_y` from its
        own.  The loops' bounds are the same for every thread of a block, so a barrier in the body
        is met by all of them or none; a tiled body's shared memory is reused by the next index
        only after a barrier (each staged tile's writes wait for every thread's reads first)."""
        pad, out = "  ", []
        for ax in sorted(launch.grid_cap, reverse=True):      # z outside y
            b = f"poly_b{ax}"
            head = f"{pad}for (unsigned {b} = blockIdx.{ax}; {b} < poly_blocks_{ax}; {b} += gridDim.{ax}) {{"
            out.append(head if out else f"{head}   /* at most {launch.grid_cap[ax]} blocks on {ax} */")
            pad += "  "
        if not out:
            return body
        out += [pad[2:] + line if line else line for line in "\n".join(body).split("\n")]
        return out + ["  " * n + "}" for n in range(len(launch.grid_cap), 0, -1)]

    def tiled_body(self, launch: Launch, box, inner_vars) -> list[str]:
        """Each thread computes a tile of grid points (rows apart by blockDim.y, columns by
        blockDim.x, so a warp's accesses stay consecutive): each statement for every point in
        turn, and each accumulator loop jammed, one register per point, so that a value loaded
        for one point serves the others.  The grid points are independent (the grid loops
        carry nothing), so any interleaving of different points is legal; each point's own
        operations keep their order (the reference's bits)."""
        rows, cols = launch.tile
        y, x = launch.rows_cols()
        taken = set(self.k.params) | set(self.an.program.locals) | set(inner_vars) | {y.var, x.var}
        tm, tn, ok = (reduce.fresh_name(n, taken) for n in ("tm", "tn", "ok"))
        out, lows_of = [], {l.var: lows for l, (lows, _) in zip(launch.grid, box)}
        for z in (l for l in launch.grid if launch.axes[l.var] == "z"):      # the batch: a block per z
            start = min_expr(lows_of[z.var])
            out.append(f"  const int {z.var} = {'' if start == '0' else f'{start} + '}(int){self.block_index(launch, 'z')};")
        for l in (y, x):
            ax, per = launch.axes[l.var], rows if l is y else cols
            start = min_expr(lows_of[l.var])
            b = self.block_index(launch, ax)
            count = f"poly_blocks_{ax}" if ax in launch.grid_cap else f"gridDim.{ax}"
            block = f"({count} - 1 - {b})" if launch.staged and self.opt.tiles.staging.heavy_first \
                and l.var in stage.heavier(launch) else b
            out.append(f"  const int {l.var}_base = {'' if start == '0' else f'{start} + '}"
                       f"(int)({block} * blockDim.{ax} * {per});   /* the block's first point */")
        if launch.mma:
            # a warp's tile: rows/2 x cols fragments of 8 x 8; a lane holds two neighbours in a row
            bx = launch.block[0]
            out += ["  const int poly_t = (int)(threadIdx.y * blockDim.x + threadIdx.x), poly_lane = poly_t % 32;",
                    f"  const int poly_wy = poly_t / 32 / {bx // 8} * {4 * rows}, "
                    f"poly_wx = poly_t / 32 % {bx // 8} * {8 * cols};",
                    f"  const int {y.var}_first = {y.var}_base + poly_wy + poly_lane / 4;",
                    f"  const int {x.var}_first = {x.var}_base + poly_wx + poly_lane % 4 * 2;"]
            at = {"y": f"({tm} / 2) * 8", "x": f"{tn} * 8 + {tm} % 2"}
        else:
            out += [f"  const int {l.var}_first = {l.var}_base + (int)threadIdx.{launch.axes[l.var]};" for l in (y, x)]
            at = {"y": f"{tm} * (int)blockDim.y", "x": f"{tn} * (int)blockDim.x"}
        out += [f"  int {v};" for v in inner_vars] + [f"  bool {ok}[{rows}][{cols}];"]
        webs = {w: self.web_type[w] for (st, _), w in self.an.web_of.items()
                if st in launch.statements() and self.plan.storage[w] == "local"} | self.registers_of(launch)
        out += [f"  {webs[w]} {w}[{rows}][{cols}];   /* a thread-private scalar: one per point */"
                for w in sorted(webs)]
        self.per_point = {w: f"{w}[{tm}][{tn}]" for w in webs}

        def points(lines, indent="  "):
            return [f"{indent}#pragma unroll", f"{indent}for (int {tm} = 0; {tm} < {rows}; {tm}++)",
                    f"{indent}  #pragma unroll", f"{indent}  for (int {tn} = 0; {tn} < {cols}; {tn}++) {{",
                    f"{indent}    const int {y.var} = {y.var}_first + {at['y']};",
                    f"{indent}    const int {x.var} = {x.var}_first + {at['x']};",
                    *[f"{indent}    {line}" for line in lines], f"{indent}  }}"]
        mine = f"{ok}[{tm}][{tn}]"
        # the statements around the loops, in order: lists of lines, each run for every point,
        # and lines that declare a stored value's registers (loads_first)
        first, values = [[f"{mine} = {' && '.join(loop_guard(l) for l in launch.grid)};"]], []
        flush = lambda items: [line for item in items for line in (points(item) if isinstance(item, list) else [item])]
        # stores held back (forward_stores): cell -> (its array, the register with its value)
        held: dict[str, tuple[str, str]] = {}

        def release(arrays=None, keep=None):
            """The held stores to `arrays` (None: all) as blocks, but `keep`'s (being overwritten)."""
            blocks = []
            for cell in [c for c, (a, _) in held.items() if arrays is None or a in arrays]:
                reg = held.pop(cell)[1]
                if cell != keep:
                    blocks.append([f"if ({mine})", f"  {cell} = {reg};"])
            return blocks

        def store(cell, array, reg):
            if self.opt.registers.forward_stores and array:
                held[cell] = (array, reg)
                return []
            return [[f"if ({mine})", f"  {cell} = {reg};"]]
        for node in launch.body:
            if isinstance(node, Stmt):
                split = self.loads_first(node, {c: r for c, (_, r) in held.items()}, launch.rect)
                if split:
                    dtype, value, cell, array, unforwarded = split
                    v = reduce.fresh_name(f"poly_v{len(values)}", taken)
                    values.append(v)
                    first += [*release(unforwarded), *release({array}, keep=cell),
                              f"  {dtype} {v}[{rows}][{cols}];   /* every point's value, loaded before any is stored */",
                              [f"if ({mine})", f"  {v}[{tm}][{tn}] = {value};"], *store(cell, array, f"{v}[{tm}][{tn}]")]
                    continue
                first += release()
                if not first or not isinstance(first[-1], list):
                    first.append([])
                first[-1] += [f"if ({mine}) {{", *self.r.statement(node.stmt.node, self.names_for(node.stmt.name), "  "), "}"]
                continue
            dtype, acc, cell, body = self.accumulator_parts(node, scalars=True, index=f"[{tm}][{tn}]")
            reg = f"{acc}[{tm}][{tn}]"
            if first and launch.staged:     # a block with no point in the domain (a triangle's far side)
                out += [*flush(first), "  bool poly_any = false;",
                        f"  for (int {tm} = 0; {tm} < {rows}; {tm}++)", f"    for (int {tn} = 0; {tn} < {cols}; {tn}++)",
                        f"      poly_any = poly_any || {mine};",
                        "  if (!__syncthreads_or(poly_any))   /* no point of this block is in the domain */",
                        f"    {'continue' if launch.grid_cap else 'return'};"]
            elif first:
                out += flush(first)
            first = []
            # the loop's cell starts from its held value (every ref of its array in the loop is
            # that cell: accumulator_parts), whose store the loop's own then overwrites
            start = held.pop(cell)[1] if cell in held else cell
            out += flush(release())   # before the loop's loads
            out += [f"  {dtype} {acc}[{rows}][{cols}];   /* one register per point */"]
            staged = (launch.staged or {}).get(id(node))
            if staged:
                out += points([f"{reg} = {mine} ? {start} : ({dtype})0;"])
                out += self.staged_loop(launch, node, staged, box, points, reg, tm, tn)
            else:
                out += [*points([f"if ({mine})", f"  {reg} = {start};"]),
                        f"  for ({node.init}; {node.cond}; {node.next})", "  {",
                        *points([f"if ({mine}) {{", *[f"  {line}" for line in body], "}"], "    "), "  }"]
            lvalue = node.body[0].stmt.node.lvalue
            # a contracted array's cell is a register already (contract.py): set at once, never held,
            # since the readers that forwarding rewrites are memory references
            array = array_name(lvalue) if isinstance(lvalue, c_ast.ArrayRef) and \
                array_name(lvalue) not in self.contracted else None
            out += flush(store(cell, array and self.r.rename_arrays.get(array, array), reg))
        out += flush(first + release())
        self.per_point = {}
        return out

    def loads_first(self, node: Stmt, held: dict[str, str], rect: bool = False) -> tuple | None:
        """(type, value, cell, array, arrays read from memory) of a tiled launch's statement
        outside its loops that stores an array element from values it reads from memory (`C[i][j]
        = beta * C[i][j] + ...`), with `registers.loads_first`: the tile then computes every point's value
        before it stores any, so the loads of all its points are in flight at once (stored one
        point at a time, each point's loads wait for the store before them: the compiler cannot
        tell that C[i][j] of one point is not the next point's; the grid points are independent,
        so the order is free).  A read of a cell in `held` (cell -> register: stores the tile
        holds back) is that register; the arrays it reads otherwise are returned, for their held
        stores to go first.  With `registers.forward_stores.constants`, in a tile over a rectangle (`rect`), also a
        store of a value that reads nothing (2mm's `tmp[i][j] = 0.0`), which the tile then holds
        (forward_stores) and its accumulator loop starts from (faster for doitgen, 3mm and 2mm,
        slower for covariance's and correlation's triangles: not there; docs/poly-options.md,
        `forward_stores.constants`).  None for any other statement."""
        st = node.stmt.node
        if not (self.opt.registers.loads_first and isinstance(st, c_ast.Assignment) and isinstance(st.lvalue, c_ast.ArrayRef)):
            return None
        array = array_name(st.lvalue)
        dtype = self.dtypes.get(array) if array not in self.local_arrays else self.an.program.locals[array].dtype
        constants = (fw := self.opt.registers.forward_stores) and fw.constants and rect
        if not dtype or st.op == "=" and not stage._reads(st.rvalue) and not constants:
            return None
        r = self.r.node(st, self.names_for(node.stmt.name))
        rvalue = rewrite(r.rvalue, lambda n: c_ast.ID(held[cprint(n)]) if isinstance(n, c_ast.ArrayRef)
                         and cprint(n) in held else None)
        cell = cprint(r.lvalue)
        value = cprint(rvalue) if r.op == "=" else f"{held.get(cell, cell)} {r.op[:-1]} ({cprint(rvalue)})"
        reads = [n for n in _walk(rvalue) if isinstance(n, c_ast.ArrayRef)]
        array = self.r.rename_arrays.get(array, array)         # as the references read (dev_X)
        return dtype, value, cell, array, {array_name(n) for n in reads} | \
            ({array} if r.op != "=" and cell not in held else set())

    def staged_loop(self, launch: Launch, loop: Loop, s, box, points, reg, tm, tn, hulled=False) -> list[str]:
        """An accumulator loop of a tiled launch, its operands staged through shared memory
        BK values of the loop at a time (stage.py says what is staged and why it is exact).
        With `tiles.staging.prefetch` each thread loads its share of the next tile into registers
        while the block computes on this one, and a whole tile's loop is unrolled (off by default:
        it helps 3mm and hurts gemm, docs/poly.md "Staged tiles").  A loop whose
        products run on the tensor cores (tensor.py) multiplies whole tiles four k at a time,
        its tiles copied ahead asynchronously where its operands allow (tensor.async_loop)."""
        if s.moving and not hulled:      # the block's hull of the loop's bounds, then the loop over it
            inner = self.staged_loop(launch, loop, s, box, points, reg, tm, tn, True)
            return ["  {", *["    " + line for line in stage.hull(self, launch, s, box)],
                    *["  " + line for line in inner], "  }"]
        bx, by = launch.block[:2]
        y, x = launch.rows_cols()
        bk, names, threads = s.depth, self.names_for(loop.body[0].stmt.name), bx * by
        pairs = (launch.mma or {}).get(id(loop))
        if pairs and s.ring:            # its tiles copied ahead asynchronously (forms: the ring fits)
            return tensor.async_loop(self, launch, loop, s, box, pairs, reg.split("[")[0])
        prefetch = self.opt.tiles.staging.prefetch
        # fetches: per operand (lines before, grid offset, k offset, lines after) of its loads of a
        # tile, printed for a tile's first k (`fetch`)
        decl, fetches, store = [], [], []
        for op in s.operands:
            g = y if op.kind == "row" else x
            lows, highs = dict(zip((l.var for l in launch.grid), box))[g.var]
            n = stage.span(launch, op)
            kk, r = stage.slot(op, bk, n)
            value = cprint(self.r.node(op.node, {**names, g.var: "poly_g", loop.var: "poly_k"}))
            staged = (f"poly_g >= {min_expr(lows)} && poly_g <= {max_expr(highs)} && poly_k < {s.end}"
                      f"{stage.mask(self, s, op, {**names, g.var: 'poly_g', loop.var: 'poly_k'})} ? {value} : ({op.dtype})0;")
            decl.append(f"  __shared__ {op.dtype} {op.name}[{bk}][{stage.pitch(n, bool(launch.mma))}];   /* {op.kind} operand "
                        f"{cprint(op.node)} */")
            if not prefetch:
                fetches.append(([f"for (int poly_e = (int)(threadIdx.y * blockDim.x + threadIdx.x); poly_e < {bk * n}; "
                                 f"poly_e += {threads}) {{"], f"{g.var}_base + {r}", kk, [f"  {op.name}[{kk}][{r}] = {staged}", "}"]))
                continue
            per = -(-bk * n // threads)                 # this thread's elements of a tile
            each = ["#pragma unroll", f"for (int poly_q = 0; poly_q < {per}; poly_q++) {{",
                    f"  const int poly_e = poly_t + poly_q * {threads};"]
            decl.append(f"  {op.dtype} {op.name}_next[{per}];")
            fetches.append((each, f"{g.var}_base + {r}", kk, [f"  {op.name}_next[poly_q] = poly_e < {bk * n} && {staged}", "}"]))
            store += [*each, f"  if (poly_e < {bk * n})", f"    {op.name}[{kk}][{r}] = {op.name}_next[poly_q];", "}"]
        refs = {op.name: f"{op.name}[poly_kk][{tm if op.kind == 'row' else tn} * {by if op.kind == 'row' else bx}"
                         f" + (int)threadIdx.{'y' if op.kind == 'row' else 'x'}]" for op in s.operands}
        # a float partial sum per tile (stage.partial_type): the terms add up in `part`, which the
        # accumulator adds once the tile is done; the statement reads its operands (IDs) from `refs`
        part = f"poly_part[{tm}][{tn}]" if s.partial else reg
        body = self.r.statement(s.node, {**names, **refs, reg.split("[")[0]: part}, "")
        step = [f"{loop.var} = poly_k0 + poly_kk;"] if loop.var in WORD.findall(" ".join(body)) else []
        step += [line[2:] for line in points(body)]
        ind = lambda lines, pad: [pad + line for line in lines]
        fetch = lambda k0: [line for before, g0, kk, after in fetches
                            for line in [*before, f"  const int poly_g = {g0}, poly_k = {k0} + {kk};", *after]]
        head = f"  for (int poly_k0 = {s.low}; poly_k0 < {s.end}; poly_k0 += {bk}) {{"
        if pairs:       # whole tiles, four k at a time: a tile's values past the loop's end are 0
            whole = tensor.tile(self, launch, s, pairs, reg.split("[")[0], bk)
        summed = lambda lines: lines if not s.partial else [
            f"    {s.partial} poly_part[{launch.tile[0]}][{launch.tile[1]}];",
            *["  " + line for line in points([f"{part} = ({s.partial})0;"])], *lines,
            *["  " + line for line in points([f"{reg} += {part};"])]]
        if not prefetch:
            return [*decl, head, "    __syncthreads();   /* the last tile's values are read */",
                    *ind(fetch("poly_k0"), "    "), "    __syncthreads();",
                    *(ind(whole, "    ") if pairs else summed(
                      [f"    for (int poly_kk = 0; poly_kk < poly_min({bk}, {s.end} - poly_k0); poly_kk++) {{",
                       *ind(step, "      "), "    }"])), "  }"]
        tiles = ind(whole, "    ") if pairs else summed([
            f"    if ({s.end} - poly_k0 >= {bk}) {{", "      #pragma unroll",
            f"      for (int poly_kk = 0; poly_kk < {bk}; poly_kk++) {{", *ind(step, "        "), "      }",
            "    } else {", f"      for (int poly_kk = 0; poly_kk < {s.end} - poly_k0; poly_kk++) {{",
            *ind(step, "        "), "      }", "    }"])
        return ind(["{", *decl, "  const int poly_t = (int)(threadIdx.y * blockDim.x + threadIdx.x);",
                    "  {", f"    const int poly_k0 = {s.low};", *ind(fetch("poly_k0"), "    "), "  }", head,
                    "    __syncthreads();   /* the last tile's values are read */", *ind(store, "    "),
                    "    __syncthreads();", "    {", f"      const int poly_k0_ = poly_k0 + {bk};",
                    *ind(fetch("poly_k0_"), "      "), "    }",
                    *tiles, "  }", "}"], "  ")

    def reduction_kernels(self, launch: Launch) -> tuple[str, list[str]]:
        body, decl = reduce.kernels(self, launch, launch.reduction)
        self.reduction_globals.append(decl)
        args = self.kernel_args(launch, names_used("\n".join(body)))
        params = ", ".join(self.param_decl(a, launch) for a in args)
        src = [f"/* {self.describe(launch)} */", f"__global__ void {launch.name}({params})", "{",
               *self.waits(launch.name, launch.host_loops, params), *body, "}"]
        return "\n".join(src), args

    def kernel_args(self, launch, used) -> list[str]:
        args = []
        hosts = [w for w, s in self.plan.storage.items() if s == "host"]
        for p in self.k.params:
            arr = next((a for a in self.k.arrays if a.name == p), None)
            if p in used or (arr and any(e in used for e in ())):
                args.append(p)
        shapes_needed = set()
        for a in self.k.arrays:
            if a.name in used:
                for ext in a.shape[1:]:
                    shapes_needed |= set(WORD.findall(ext))
        for s in self.k.sizes:
            if s.name in shapes_needed and s.name not in args:
                args.insert(0, s.name)
        args = [p for p in self.k.params if p in args]
        args += [w for w in hosts if w in used]
        args += [l.var for l in launch.host_loops if l.var in used]
        return args

    def param_decl(self, name, launch, restrict: bool = False) -> str:
        """A kernel parameter; `restrict`: an array's pointer is `__restrict__` (forms.coarsened, transposed.py)."""
        arr = next((a for a in self.k.arrays if a.name == name), None)
        if arr:
            written = any(a.name == name for s in launch.statements()
                          for a in self.an.program.statement(s).writes())
            return str(abi.Param(name, arr.dtype, pointer=True, const=not written, restrict=restrict))
        return str(abi.Param(name, self.dtypes[name] if name in self.dtypes else self.web_type.get(name, "int")))

    # host code ------------------------------------------------------------------------------
    def begins_early(self, loops, params) -> bool:
        """Whether a kernel launched inside host loops (`loops`) with parameters (`params`: its
        call passes as many) may begin while the launch before it ends, with
        `launches.programmatic`: its launch is `poly_after`'s and its body first waits (`waits`),
        so the launch's own latency overlaps the previous kernel's end (docs/poly-options.md)."""
        return bool(loops and params and self.opt.launches.programmatic)

    def waits(self, name: str, loops, params) -> list[str]:
        """The first lines of kernel `name`'s body: `poly_wait` where it begins early."""
        if not self.begins_early(loops, params):
            return []
        self.waiting.add(name)
        return ["  poly_wait();   /* the launch before this one has finished */"]

    def launch_line(self, name: str, config: tuple, call: str, loops) -> str:
        """`name<<<config>>>(call);`, or a launch that begins early (begins_early: its kernel was
        printed waiting)."""
        if not self.begins_early(loops, call):
            return f"{name}<<<{', '.join(config)}>>>({call});"
        assert name in self.waiting, f"{name} begins early, but its kernel does not wait"
        return f"cudaLaunchKernelEx(poly_after({', '.join((*config, '0')[:3])}).at(), {name}, {call});"

    def launch_code(self, launch: Launch, args, indent) -> list[str]:
        if launch.reduction:
            return reduce.launch_code(self, launch, launch.reduction, args, indent)
        if launch.scan:
            return scan.launch_code(self, launch, launch.scan, args, indent)
        if launch.row_scan:
            return rowscan.launch_code(self, launch, launch.row_scan, args, indent)
        if launch.banded:
            return banded.launch_code(self, launch, launch.banded, args, indent)
        if launch.running_max:
            return kadane.launch_code(self, launch, launch.running_max, args, indent)
        if launch.tiles:
            return wavetiles.launch_code(self, launch, args, indent)
        call = ", ".join(args)
        if launch.sweep and not launch.grid:
            return [indent + self.launch_line(launch.name, ("1", f"dim3(1, {launch.threads})"), call,
                                              launch.host_loops)]
        if launch.phases:
            return phases.launch_code(self, launch, args, indent)
        if launch.private:
            return private.launch_code(self, launch, launch.private, call, indent)
        if launch.row or launch.sweep:
            (lows, highs), = self.launch_box(launch)
            if not lows or not highs:
                return [f"{indent}/* {launch.name}: empty iteration domain, nothing to launch */"]
            column = launch.sweep or launch.row.column
            if launch.sweep:                            # (its block's x and y: launch.block)
                width, lanes = sweep.shape(launch)
            elif column:
                width, lanes = launch.block
            else:
                lanes = launch.row.lanes
                width = launch.threads // lanes         # grid indices per block
            shape = (f"poly_blocks(extent, {width})", f"dim3({launch.block[0]}, {launch.block[1]})" if column
                     else str(launch.threads))
            head = [f"{indent}{{",
                    f"{indent}  const int extent = {extent_text(max_expr(highs), min_expr(lows))};   /* {launch.grid[0].var}: "
                    f"{f'{lanes} lanes' if column or lanes != 32 else 'a warp'} each */"]
            line = self.launch_line(launch.name, shape, call, launch.host_loops)
            if not column and launch.row.warps:        # many rows: a warp each (reduce.warp_rows)
                warps = (f"poly_blocks(extent, {launch.threads // 32})", str(launch.threads))
                return [*head, f"{indent}  if (extent >= poly_warp_rows())   /* rows enough for a warp each to fill the device */",
                        f"{indent}    {self.launch_line(reduce.warps_name(launch), warps, call, launch.host_loops)}",
                        f"{indent}  else if (extent > 0)", f"{indent}    {line}", f"{indent}}}"]
            return [*head, f"{indent}  if (extent > 0)", f"{indent}    {line}", f"{indent}}}"]
        if not launch.grid:
            return [indent + self.launch_line(launch.name, ("1", "1"), call, launch.host_loops)]
        ext = self.extents(launch)
        if ext is None:
            return [f"{indent}/* {launch.name}: empty iteration domain, nothing to launch */"]
        axes = list(ext)
        block = launch.block
        out = [f"{indent}{{"]
        for ax in axes:
            out.append(f"{indent}  const int extent_{ax} = {ext[ax][0]};   /* {ext[ax][1]} */")
        out.append(f"{indent}  if ({' && '.join(f'extent_{ax} > 0' for ax in axes)}) {{")
        out.append(f"{indent}    dim3 block({', '.join(str(b) for b in block)});")
        per = dict(zip(("y", "x"), launch.per_thread()))
        blocks = {ax: f"poly_blocks(extent_{ax}, {b * per.get(ax, 1)})" for ax, b in zip(axes, block)}
        for ax, most in launch.grid_cap.items():     # the kernel strides over the blocks past the cap
            out.append(f"{indent}    const unsigned poly_blocks_{ax} = {blocks[ax]};")
            blocks[ax] = f"poly_cap(poly_blocks_{ax}, {most})"
        out.append(f"{indent}    dim3 grid({', '.join(blocks.values())});")
        call = ", ".join([call] * bool(call) + [f"poly_blocks_{ax}" for ax in launch.grid_cap])
        if launch.slab:                               # its rows' bytes are known here, at run time
            rows, shared, flag = slabs.host(launch, indent)
            out += rows
            call = ", ".join([call] * bool(call) + [flag])
            out.append(f"{indent}    {self.launch_line(launch.name, ('grid', 'block', shared), call, launch.host_loops)}")
            return out + [f"{indent}  }}", f"{indent}}}"]
        if launch.shared_bytes > self.target.shared_static:
            out.append(f"{indent}    cudaFuncSetAttribute({launch.name}, cudaFuncAttributeMaxDynamicSharedMemorySize, "
                       f"{launch.shared_bytes});")
        config = ("grid", "block", str(launch.shared_bytes)) if launch.shared_bytes else ("grid", "block")
        out.append(f"{indent}    {self.launch_line(launch.name, config, call, launch.host_loops)}")
        out.append(f"{indent}  }}")
        out.append(f"{indent}}}")
        return out

    def extents(self, launch: Launch) -> dict[str, tuple[str, str]] | None:
        """Axis -> (C extent of the launch's bounding box, the loop variable), x first; None
        when the iteration domain is empty."""
        box = self.launch_box(launch)
        if any(not lows or not highs for lows, highs in box):
            return None
        by_axis = {launch.axes[l.var]: (l, b) for l, b in zip(launch.grid, box)}
        return {ax: (extent_text(max_expr(by_axis[ax][1][1]), min_expr(by_axis[ax][1][0])), by_axis[ax][0].var)
                for ax in ("x", "y", "z") if ax in by_axis}

    def host_items(self, items, indent, calls) -> list[str]:
        out = []
        for it in items:
            if isinstance(it, HostStmt):
                out += self.r.statement(it.stmt.node, self.names_for(it.stmt.name), indent)
            elif isinstance(it, HostLoop) and it.time_tile:
                out += timetiles.host_code(self, it, indent, calls)
            elif isinstance(it, HostLoop) and it.pivot_blocks:
                out += pivotblocks.host_code(self, it, indent, calls)
            elif isinstance(it, HostLoop) and it.private:
                out += oneblock.blocks_host_code(self, it, calls, it.private, indent,
                                                 oneblock.host_code(self, it, indent + "    ", calls))
            elif isinstance(it, HostLoop) and it.one_block:
                out += oneblock.host_code(self, it, indent, calls)
            elif isinstance(it, HostLoop) and it.persistent:
                out += persistent.host_code(self, it, indent, calls)
            elif isinstance(it, HostLoop):
                out += self.host_loop(it, indent, calls)
            elif run := next((r for r in self.plan.merged if r[0] is it), None):
                out += merge.launch_code(self, run, calls[merge.name(self, run)], indent)
            elif not it.merged_threads:
                out += self.launch_code(it, calls[it.name], indent)
        return out

    def host_loop(self, it: HostLoop, indent, calls) -> list[str]:
        l = it.loop
        return [f"{indent}for ({l.init}; {l.cond}; {l.next})", indent + "{",
                *self.host_items(it.items, indent + "  ", calls), indent + "}"]

    # the file ---------------------------------------------------------------------------------
    def candidate(self) -> str:
        k = self.abi
        kernels, calls = [], {}
        for launch in self.plan.launches:
            src, args = self.kernel(launch)
            kernels.append(src)
            calls[launch.name] = args
        for run in self.plan.merged:
            src, args = merge.kernel(self, run, calls)
            kernels.append(src)
            calls[merge.name(self, run)] = args
        kernels += persistent.point_functions(self, calls)
        kernels += [persistent.kernel(self, h, calls) for h in persistent.loops(self.plan)]
        kernels += [timetiles.kernel(self, h, calls) for h in timetiles.loops(self.plan)]
        kernels += [src for h in pivotblocks.loops(self.plan) for src in pivotblocks.kernels(self, h, calls)]
        kernels += [oneblock.block_kernel(self, h, calls) for h in self.block_loops]
        kernels += [oneblock.substitution_kernel(self, h, calls) for h in self.block_loops if h.substitution]
        kernels += [r for h in self.block_loops if (r := oneblock.resident_kernel(self, h, calls))]
        kernels += [oneblock.blocks_kernel(self, h, calls, h.private) for h in self.block_loops if h.private]
        ret = abi.result_type(k)
        out = [f"// t2c poly candidate for {k.name} (generated by `t2c gen`; do not edit).",
               "//"]
        out += ["// " + line for line in self.mapping_notes()]
        out += ["", "#include <cuda_runtime.h>", "#include <math.h>", *abi.headers(k), ""]
        if any(launch.vector for launch in self.plan.launches):
            out.insert(out.index("#include <math.h>") + 1, "#include <string.h>")
        if any("__pipeline_memcpy_async" in src for src in kernels):
            out.insert(out.index("#include <math.h>") + 1, "#include <cuda_pipeline.h>")
        if persistent.loops(self.plan):
            out.insert(out.index("#include <math.h>") + 1, "#include <cooperative_groups.h>")
        head, out = out, []         # the helpers the candidate calls go between the two (below)
        globals_ = [f"__device__ {self.web_type[w]} dev_{w};   /* carried between launches */"
                    for w, s in self.plan.storage.items() if s == "global"]
        sized = {n: shape for n, shape in self.local_arrays.items() if _constant(shape)}
        globals_ += [f"__device__ {self.an.program.locals[n].dtype} dev_{n}"      # flat, as indexed (Renamer)
                     f"[{' * '.join(shape) if len(shape) == 1 else ' * '.join(f'({e})' for e in shape)}];"
                     "   /* the reference's local array */" for n, shape in sized.items()]
        # A local array whose extent is a size (durbin's z[n]): a pointer that NAME_device
        # points at pool memory for the sizes of the call, indexed the same way.
        runtime_locals = {n: shape for n, shape in self.local_arrays.items() if n not in sized}
        globals_ += [line for n in runtime_locals for line in device_pointer(self.an.program.locals[n].dtype, f"dev_{n}")]
        globals_ += self.reduction_globals
        if k.returns:
            globals_.append(f"__device__ {ret} dev_return;")
        if globals_:
            out += globals_ + [""]
        for src in kernels:
            out += [src, ""]
        top, out = out, []          # NAME_device's body
        host_vars = []

        def collect(items):
            for it in items:
                if isinstance(it, HostLoop):
                    if it.loop.var not in host_vars:
                        host_vars.append(it.loop.var)
                    collect(it.items)
        collect(self.plan.items)
        for v in host_vars:
            out.append(f"  int {v};")
        for w, s in self.plan.storage.items():
            if s == "host":
                out.append(f"  {self.web_type[w]} {w};")
        copies, expanded, pool = self.an.program.copies, self.an.program.expanded, self.opt.pool
        takes = bool(copies or expanded or runtime_locals or timetiles.loops(self.plan))
        if takes:
            out += scratch_head(pool, bool(runtime_locals))
        for c, a in copies.items():
            arr = self.k.array(c)
            out += [f"  {arr.dtype} *{c} = NULL;   /* {a} as the call passed it, for the reads that see only that */",
                    f"  const size_t bytes_{c} = {abi.array_bytes(arr)};",
                    f"  {take(c, f'bytes_{c}', pool)};",
                    f"  cudaMemcpyAsync({c}, {a}, bytes_{c}, cudaMemcpyDeviceToDevice, 0);"]
        for e, (x, extents) in expanded.items():
            arr, count = self.k.array(e), abi.count(self.k.array(x).shape)
            out += [f"  {arr.dtype} *{e} = NULL;   /* a copy of {x} per iteration of the loops around it */",
                    f"  const size_t poly_each_{e} = {' * '.join(f'(({d}) > 0 ? (size_t)({d}) : 0)' for d in extents)};   /* iterations */",
                    f"  {take(e, f'(poly_each_{e} ? poly_each_{e} : 1) * {abi.nbytes(arr.dtype, count)}', pool)};"]
        for n, shape in runtime_locals.items():
            out += local_buffer(self.an.program.locals[n].dtype, n, shape, f"dev_{n}", pool)
        out += self.host_items(self.plan.items, "  ", calls)
        for e, (x, _) in expanded.items():
            count = abi.count(self.k.array(x).shape)
            out += [f"  if (poly_each_{e} > 0)   /* {x}'s final value: the last iteration's copy */",
                    f"    cudaMemcpyAsync({x}, {e} + (poly_each_{e} - 1) * {count}, {abi.nbytes(self.k.array(e).dtype, count)}, "
                    "cudaMemcpyDeviceToDevice, 0);"]
        out += [f"  {give_back(c, pool)}" for c in [*copies, *expanded, *(f"poly_local_{n}" for n in runtime_locals)]]
        out = top + entries(k, out + device_result(k), pool, takes)
        head, text = "\n".join(head) + "\n", "\n".join(out) + "\n"
        used = "\n".join(x for x in (helpers(head + text), *(f + "\n" for f in own_helpers(k))) if x)
        return head + (used + "\n" if used else "") + text

    def describe(self, launch: Launch) -> str:
        """One sentence: what each thread of a launch does."""
        inner = _inner_loops(launch.body)
        host = [l.var for l in launch.host_loops]
        where = f" Launched once per host iteration of {', '.join(host)}." if host else ""
        if launch.tiles:
            return wavetiles.describe(launch)
        if launch.sweep:
            return sweep.describe(self, launch, launch.sweep) + where
        if launch.phases:
            return phases.describe(launch, launch.phases) + where
        if launch.private:
            return private.describe(launch, launch.private) + where
        if launch.scan:
            return scan.describe(self, launch) + where
        if launch.row_scan:
            return rowscan.describe(self, launch) + where
        if launch.banded:
            return banded.describe(self, launch) + where
        if launch.running_max:
            return kadane.describe(self, launch) + where
        if launch.row and launch.row.column:
            r = launch.row
            return (f"{launch.name}: {launch.block[1]} lanes per {launch.grid[0].var} (consecutive "
                    f"{launch.grid[0].var}, consecutive elements) split loop {r.loop.var}; lane 0 adds their "
                    f"parts ({r.op}) in a fixed order and finishes.{where}")
        if launch.row:
            r, rows = launch.row, launch.row.lanes
            where = (" Each lane stops at its first hit (the least index is wanted)." if r.search else "") + where
            if r.data:
                where = f" Its bounds are read from arrays: {r.loop.init}; {r.loop.cond}." + where
            if rows < 32:
                return (f"{launch.name}: {rows} lanes of a warp per {launch.grid[0].var}: they stride loop "
                        f"{r.loop.var} (consecutive lanes, consecutive elements), a shuffle tree adds their parts "
                        f"({r.op}), lane 0 finishes the row.{where}")
            if rows == 32:
                return (f"{launch.name}: one warp per {launch.grid[0].var}: its lanes stride loop {r.loop.var} "
                        f"(consecutive lanes, consecutive elements), a shuffle tree adds their parts ({r.op}), "
                        f"lane 0 finishes the row.{where}")
            if r.warps:
                where = (f" Calls with at least {reduce.WARP_ROWS_PER_SM} rows a multiprocessor run "
                         f"{reduce.warps_name(launch)}, a warp per {launch.grid[0].var}.") + where
            return (f"{launch.name}: {rows} lanes ({rows // 32} warps) per {launch.grid[0].var} stride loop "
                    f"{r.loop.var} (consecutive lanes, consecutive elements), a shuffle tree per warp and the "
                    f"warps' parts in a fixed order add them ({r.op}), lane 0 finishes the row.{where}")
        if launch.reduction:
            r = launch.reduction
            stop = {"least": "; a thread stops past the least index any thread has found",
                    "greatest": "; a thread stops past the greatest index any thread has found"}
            over = r.loop.var if not r.flat else (
                f"{', '.join(v for v, _, _ in r.flat)} as one flat range (consecutive threads, consecutive "
                f"{r.flat[-1][0]})")
            if r.ahead:
                over += (f", each thread loading {', '.join(t for t, _ in r.ahead[1])} at its next {r.ahead[0]} "
                         + ("points before it folds them" if r.flat else
                            "indices before it tests them, and reading the grid's best once for them"))
            return (f"{launch.name}: a reduction ({r.op}) over {over}: each block combines its "
                    f"threads' partial results, then the last block to finish combines the blocks'"
                    f"{stop.get(reduce.search_order(r), '')}.{where}")
        if not launch.grid:
            runs = f" runs loop{'s' if len(inner) > 1 else ''} {', '.join(inner)} in order" if inner else ""
            return f"{launch.name}: one thread{runs}: nothing here is parallel.{where}"
        axes = ", ".join(f"{l.var} -> {launch.axes[l.var]}" for l in launch.grid)
        for var, expr, _ in launch.grid[-1].derived:
            axes += f" ({var} = {expr}: the threads of one launch form a diagonal wavefront)"
        tail = (f"; loop{'s' if len(inner) > 1 else ''} {', '.join(inner)} run{'' if len(inner) > 1 else 's'}"
                f" in order inside each thread") if inner else ""
        if launch.transposed:
            return f"{launch.name}: {transposed.describe(launch)} ({axes}).{where}"
        if launch.tile:
            rows, cols = launch.tile
            staged = (" The operands that depend on one grid index and the loop index go through shared "
                      "memory, a tile of the loop at a time.") if launch.staged else ""
            spread = "rows blockDim.y apart, columns blockDim.x apart"
            if launch.mma:
                spread = "as the lanes of 8 x 8 tensor-core fragments"
                m16 = self.opt.tiles.staging.tensor_cores.m16 and self.target.has(M16N8K8) and rows % 4 == 0 and all(x.depth % 8 == 0 for x in launch.staged.values())
                staged += (f" Their products run on the fp64 tensor cores (mma.sync {(M16N8K8 if m16 else M8N8K4).shape}), "
                           f"{8 if m16 else 4} values of the loop at a time.")
            if any(x.partial for x in (launch.staged or {}).values()):
                staged += " Each tile's float terms add up in float, then into the double sum."
            if any(x.moving for x in (launch.staged or {}).values()):
                staged += (" A loop whose bounds move with a grid index runs over the hull of the block's points'"
                           " bounds, the moving side's operand staged as 0 outside a point's own.")
            return (f"{launch.name}: each thread a {rows} x {cols} tile of ({', '.join(l.var for l in launch.grid)}) "
                    f"points ({axes}; {spread}){tail}, its loops jammed "
                    f"with a register per point.{staged}{where}")
        tail += slabs.describe(launch) if launch.slab else ""
        tail += strips.describe(launch) if launch.strips else ""
        return f"{launch.name}: one thread per ({', '.join(l.var for l in launch.grid)}): {axes}{tail}.{where}"

    def mapping_notes(self) -> list[str]:
        head = ["Mapping: parallel loops become grid dimensions (the one indexing the contiguous",
                "dimension of most accesses goes to x, for coalescing); loops that carry a dependence",
                "stay on the host around the launches, or run in order inside a thread."]
        host_loops = []

        def hl(items):
            for it in items:
                if isinstance(it, HostLoop):
                    host_loops.append(it.loop.var)
                    hl(it.items)
        hl(self.plan.items)
        if "wave" in host_loops:
            head.append("  host loop wave: a wavefront; the instances on one diagonal are independent, "
                        "so each value of wave is one launch of parallel work.")
        if wavetiles.TILE_WAVE in host_loops:
            head.append(f"  host loop {wavetiles.TILE_WAVE}: a tiled wavefront; the tiles on one diagonal of tiles are "
                        "independent, so each value of it is one launch of a block per tile.")
        host_loops = list(dict.fromkeys(l for l in host_loops if l not in ("wave", wavetiles.TILE_WAVE)))
        if host_loops:
            names = ", ".join(host_loops)
            head.append(f"  host loop{'s' if len(host_loops) > 1 else ''} {names}: "
                        f"carr{'y' if len(host_loops) > 1 else 'ies'} a dependence from one iteration "
                        "to the next, so each iteration launches its kernels in order.")
        for h in self.block_loops:
            if h.private:
                loops = [l.var for l in oneblock.chain_of(h)[0]]
                arrays = ", ".join(h.private)
                head.append(f"  ... but {', '.join(loops)} carry only what goes through {arrays}: given a copy of "
                            f"{arrays} each, their iterations are independent, one block each "
                            f"({self.short}_blocks_{h.loop.var}) when the copies fit in shared memory.")
        hosts = [w for w, s in self.plan.storage.items() if s == "host"]
        if hosts:
            head.append(f"  host scalars {', '.join(hosts)}: computed once on the host, passed by value.")
        glob = [w for w, s in self.plan.storage.items() if s == "global"]
        if glob:
            head.append(f"  device scalars {', '.join(glob)}: carried between launches in __device__ memory.")
        local = [w for w, s in self.plan.storage.items() if s == "local"]
        if local:
            head.append(f"  thread-local scalars {', '.join(local)}: private to each thread (no value "
                        "crosses iterations of the parallel loops).")
        return head + ["  " + self.describe(l) for l in self.plan.launches] + \
            ["  " + merge.describe(self, run) for run in self.plan.merged] + persistent.notes(self) + timetiles.notes(self) + pivotblocks.notes(self) + \
            substitution.notes(self) + \
            self.plan.notes + helper_note(self.abi)


def accumulator_of(p, loop: Loop, scalars=False) -> tuple | None:
    """(dtype, register name, the cell's C text as the reference writes it, the statement) of a
    loop whose one statement updates one cell that does not move with the loop (the register
    accumulator's form: Printer.register_accumulator), or None.  `p` has the analysis `an`, the
    `plan`, the options `opt`, the kernel `k`, `local_arrays` and `web_type`: the Printer or the
    planning context (forms.Context).  `scalars`: the cell may also be a scalar private to the
    thread (symm's `temp2 += B[k][j] * A[i][k]`), for a tiled launch, which keeps one per point."""
    if not p.opt.registers.accumulators or len(loop.body) != 1 or not isinstance(loop.body[0], Stmt):
        return None
    st = loop.body[0].stmt
    node = st.node
    if st.conditional or st.atomic or not isinstance(node, c_ast.Assignment):
        return None                  # an atomic update's cell is shared with other threads
    target = cprint(node.lvalue)
    if isinstance(node.lvalue, c_ast.ID):
        web = p.an.web_of.get((st.name, target))
        if not scalars or web is None or p.plan.storage.get(web) != "local":
            return None
        name, dtype = target, p.web_type[web]
    elif isinstance(node.lvalue, c_ast.ArrayRef):
        name = array_name(node.lvalue)
        dtype = next((a.dtype for a in p.k.arrays if a.name == name), None) or \
            (p.an.program.locals[name].dtype if name in p.local_arrays or name in contract.arrays(p.plan) else None)
    else:
        return None
    if dtype is None or loop.var in WORD.findall(target) or \
            any(cprint(r) != target for r in array_refs(node, name)):
        return None
    acc = reduce.fresh_name("acc", set(p.k.params) | set(p.an.program.locals) |
                            set(WORD.findall(cprint(node))))
    return dtype, acc, target, st


def _statements(nodes) -> list[Stmt]:
    return [s for n in nodes for s in ([n] if isinstance(n, Stmt) else n.statements())]


def _atomic_add(node):
    """`node` with its update (`X[s] += e`, `-= e`, `++`, `--`) as `atomicAdd(&X[s], e)`."""
    if isinstance(node, c_ast.Assignment) and node.op in ("+=", "-="):
        value = node.rvalue if node.op == "+=" else c_ast.UnaryOp("-", node.rvalue)
    elif isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--", "p++", "p--"):
        value = c_ast.Constant("int", "1" if "+" in node.op else "-1")
    else:
        for attr in node.__slots__:
            child = getattr(node, attr, None) if attr not in ("coord", "__weakref__") else None
            if isinstance(child, c_ast.Node):
                setattr(node, attr, _atomic_add(child))
        return node
    target = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
    return c_ast.FuncCall(c_ast.ID("atomicAdd"), c_ast.ExprList([c_ast.UnaryOp("&", target), value]))


def _declares(loop: Loop) -> bool:
    """Whether the loop's C header declares its variable (`int i = 1`, C99) rather than
    assigning one declared before it (`i = 1`)."""
    return re.match(rf"\s*{re.escape(loop.var)}\s*=", loop.init) is None


def helpers(text: str) -> str:
    """The HELPERS whose function (the last one a helper defines) the candidate or a helper it
    takes calls (nvcc warns about the others); a helper calls only those before it."""
    chosen = []
    for h in reversed(HELPERS):
        if re.findall(r"static [^(]*?(\w+)\(", h)[-1] in WORD.findall(text.replace(h, "") + "".join(chosen)):
            chosen.insert(0, h)
    return "".join(chosen)


def _constant(shape) -> bool:
    """Every extent an integer literal (a local array that can be a `__device__` array)."""
    return all(re.fullmatch(r"\s*\d+\s*", e) for e in shape)



def device_pointer(dtype: str, symbol: str) -> list[str]:
    """The `__device__` pointer `symbol` to a local array sized by the call, and the host's record
    of what it was last set to on which device (`point`)."""
    return [f"__device__ {dtype} *{symbol};   /* the reference's local array, sized by the call */",
            f"static const void *{symbol}_held = NULL;   /* what {symbol} holds, on device {symbol}_on */",
            f"static int {symbol}_on = -1;"]


def point(symbol: str, local: str, indent: str = "  ") -> list[str]:
    """Host lines that set the device pointer `symbol` to `local` when it holds something else: the
    pool hands a repeated call the same memory, and each copy is a transfer before the launches."""
    return [f"{indent}if ({symbol}_held != {local} || {symbol}_on != poly_device) {{",
            f"{indent}  cudaMemcpyToSymbolAsync({symbol}, &{local}, sizeof({local}), 0, cudaMemcpyHostToDevice, 0);",
            f"{indent}  {symbol}_held = {local};", f"{indent}  {symbol}_on = poly_device;", f"{indent}}}"]


def local_buffer(dtype: str, name: str, shape, symbol: str, pool: bool) -> list[str]:
    """Host lines that take scratch for the reference's local array `name` at the call's sizes and
    point the device symbol `symbol` at it (given back by `give_back("poly_local_NAME", pool)`)."""
    return [f"  {dtype} *poly_local_{name} = NULL;   /* {symbol} for these sizes */",
            f"  {take(f'poly_local_{name}', abi.nbytes(dtype, abi.count(shape)) + ' + 1', pool)};",
            *point(symbol, f"poly_local_{name}")]


def short_name(k: Kernel) -> str:
    """`kernel_2mm` -> `k2mm`, `kernel_gemm` -> `gemm`: a prefix for kernel names."""
    name = k.name[7:] if k.name.startswith("kernel_") else k.name
    return name if name[:1].isalpha() or name[:1] == "_" else f"k{name}"


def _inner_loops(nodes) -> list[str]:
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            if n.var not in out:
                out.append(n.var)
            out += [v for v in _inner_loops(n.body) if v not in out]
    return out




# -- around the ABI (ir/abi.py prints the ABI itself) ------------------------------------

def device_result(k: Kernel) -> list[str]:
    """NAME_device's last lines for a kernel that returns a value: the kernels leave it in
    `dev_return` (none: no lines)."""
    return [f"  {k.returns.dtype} result;", "  cudaMemcpyFromSymbol(&result, dev_return, sizeof(result));",
            "  return result;"] if k.returns else []


def own_helpers(k: Kernel) -> list[str]:
    """The reference's helper functions as `static __device__` C++: an array parameter (C99's
    `double a[n][m]`, which C++ does not take) a flat pointer, indexed `a[i * m + j]`, as the
    kernel's arrays are."""
    out = []
    for h in reference_helpers(clone(k.tree)):       # a copy: it drops their storage class
        h.decl.storage = []
        shapes = {}
        for p in h.decl.type.args.params if h.decl.type.args else ():
            if isinstance(p, c_ast.Decl) and isinstance(p.type, c_ast.ArrayDecl):
                dims, t = [], p.type
                while isinstance(t, c_ast.ArrayDecl):
                    dims.append(t.dim)
                    t = t.type
                p.type, shapes[p.name] = c_ast.PtrDecl([], t), dims
        out.append("static __device__ " + cprint(_flat_params(h, shapes)))
    return out


def _flat_params(n, shapes: dict[str, list]):
    """`n` with each full subscript `a[i][j]` of a k-d array parameter in `shapes` flat."""
    if isinstance(n, c_ast.ArrayRef):
        subs, base = [], n
        while isinstance(base, c_ast.ArrayRef):
            subs.append(base.subscript)
            base = base.name
        dims = shapes.get(base.name, ()) if isinstance(base, c_ast.ID) else ()
        if len(dims) >= 2 and len(subs) == len(dims):
            subs = [_flat_params(x, shapes) for x in reversed(subs)]
            flat = subs[0]
            for ext, sub in zip(dims[1:], subs[1:]):
                flat = c_ast.BinaryOp("+", c_ast.BinaryOp("*", flat, copy.deepcopy(ext)), sub)
            return c_ast.ArrayRef(base, flat)
    for attr in n.__slots__:
        if attr in ("coord", "__weakref__"):
            continue
        child = getattr(n, attr, None)
        if isinstance(child, c_ast.Node):
            setattr(n, attr, _flat_params(child, shapes))
        elif isinstance(child, list):
            setattr(n, attr, [_flat_params(c, shapes) if isinstance(c, c_ast.Node) else c for c in child])
    return n


def helper_note(k: Kernel) -> list[str]:
    """The header lines saying what became of the reference's helper functions (none: no line)."""
    helpers = reference_helpers(k.tree)
    names = [h.decl.name for h in helpers]
    arrays = [h.decl.name for h in helpers if takes_arrays(h)]
    what = "    a pure function of scalars, called like a math function (loops around a call stay parallel)."
    if arrays:
        what = (f"    called as the reference calls {'it' if len(names) == 1 else 'them'}; {', '.join(arrays)} "
                f"take{'s' if len(arrays) == 1 else ''} arrays, read and written through the kernel's device pointers.")
    return [f"  helper{'s' if len(names) > 1 else ''} {', '.join(names)}: the source's own function"
            f"{'s' if len(names) > 1 else ''}, defined as static __device__:", what] if names else []


def _sequential_locals(k: Kernel, body) -> dict[str, tuple[str, tuple[str, ...]]]:
    """name -> (C element type, extents) of the reference's local arrays whose extents read the
    kernel's parameters (and nothing else): device memory of the candidate (a pointer the host
    sets to pool memory for the call's sizes), since a thread's stack holds no array sized at run
    time. Arrays of literal extents stay the thread's own, declared flat (`_flat_local`)."""
    out = {}
    for d in _walk(body):
        if not (isinstance(d, c_ast.Decl) and isinstance(d.type, c_ast.ArrayDecl) and d.init is None):
            continue
        shape, t = [], d.type
        while isinstance(t, c_ast.ArrayDecl):
            shape.append(t.dim)
            t = t.type
        if all(x is not None and {i.name for i in _walk(x) if isinstance(i, c_ast.ID)} <= set(k.params)
               for x in shape) and not _constant(tuple(cprint(x) for x in shape)) and \
                isinstance(t, c_ast.TypeDecl) and isinstance(t.type, c_ast.IdentifierType):
            out[d.name] = (" ".join(t.type.names), tuple(cprint(x) for x in shape))
    return out


def sequential_candidate(k: Kernel, reason: str, pool: bool = True) -> str:
    """The whole reference in one GPU thread: always correct, never fast. Its local arrays with
    extents over the parameters live in device memory (`_sequential_locals`), indexed flat; any
    other local array stays a declaration of the thread, flattened as it is indexed."""
    fn = kernel_definition(k.tree)
    moved = _sequential_locals(k, fn.body)
    kept = {}
    for n in _walk(fn.body):
        if isinstance(n, c_ast.Decl) and isinstance(n.type, c_ast.ArrayDecl) and n.name not in moved:
            shape, t = [], n.type
            while isinstance(t, c_ast.ArrayDecl):
                shape.append(cprint(t.dim))
                t = t.type
            kept[n.name] = tuple(shape)
    r = Renderer(k, {n: shape for n, (_, shape) in moved.items()}, exits=True)
    # not `dev_NAME` as the model's printer names them: `dev_t` is a type of <sys/types.h>
    r.rename_arrays = {n: f"poly_buf_{n}" for n in moved}
    r.shapes.update({f"poly_buf_{n}": shape for n, (_, shape) in moved.items()})
    r.shapes.update(kept)
    body = cprint(_thread_decls(r.node(fn.body, {}), moved, kept))
    short = short_name(k)
    out = [f"// t2c poly candidate for {k.name} (generated by `t2c gen`; do not edit).",
           "//",
           "// Mapping: the whole reference runs in one GPU thread, in its original order.",
           f"//   why: {reason}",
           *("// " + line for line in helper_note(k)),
           "",
           "#include <cuda_runtime.h>", "#include <math.h>", *abi.headers(k), ""]
    out += [line for f in own_helpers(k) for line in (f, "")]
    if k.returns:
        out += [f"__device__ {k.returns.dtype} dev_return;", ""]
    runtime = moved                     # (sized at run time: pool memory for the call's sizes)
    out += [line for n, (t, _) in runtime.items() for line in device_pointer(t, f"poly_buf_{n}")]
    out += [""] if moved else []
    out.append(f"__global__ void {short}_sequential({abi.param_list(k)})")
    out += body.splitlines()
    out.append("")
    body = (scratch_head(pool, True) if runtime else []) + \
        [line for n, (t, shape) in runtime.items() for line in local_buffer(t, n, shape, f"poly_buf_{n}", pool)]
    body.append(f"  {short}_sequential<<<1, 1>>>({abi.call_args(k)});")
    body += [f"  {give_back(f'poly_local_{n}', pool)}" for n in runtime]
    out += entries(k, body + device_result(k), pool, bool(runtime))
    return "\n".join(out) + "\n"


def _flat_local(decl: c_ast.Decl) -> None:
    """A local `T t[a][b] (= {{...}, ...})` declared `T t[a * b] (= {...})`: the renderer indexes
    it `t[i * b + j]`. Rows given in part keep C's zeros; an initializer of any other shape stays
    as written."""
    dims, t = [], decl.type
    while isinstance(t, c_ast.ArrayDecl):
        dims.append(t.dim)
        t = t.type
    sizes = [int(d.value) if isinstance(d, c_ast.Constant) and d.value.isdigit() else None for d in dims]
    init = decl.init
    if init is not None:
        if None in sizes or (init := _flat_init(init, sizes)) is None:
            return
        init = c_ast.InitList(init)
    total = dims[0]
    for d in dims[1:]:
        total = c_ast.BinaryOp("*", total, d)
    decl.type, decl.init = c_ast.ArrayDecl(t, total, []), init


def _flat_init(init, sizes: list[int]) -> list | None:
    """The elements of a brace initializer of an array of extents `sizes`, in memory order, the
    ones it leaves out zero (None: a mix of braced and unbraced rows)."""
    if not isinstance(init, c_ast.InitList):
        return None
    total = 1
    for n in sizes:
        total *= n
    items = init.exprs
    if len(sizes) > 1 and items and all(isinstance(x, c_ast.InitList) for x in items):
        out = []
        for x in items[:sizes[0]]:
            if (row := _flat_init(x, sizes[1:])) is None:
                return None
            out += row
    elif not any(isinstance(x, c_ast.InitList) for x in items):
        out = list(items)
    else:
        return None
    return out[:total] + [c_ast.Constant("int", "0") for _ in range(total - len(out))]


def _thread_decls(body: c_ast.Compound, moved: dict, kept: dict) -> c_ast.Compound:
    """body (a rendered copy) without the declarations of the arrays `moved` to device memory, and
    with each array in `kept` declared in one dimension, the product of its extents, as the
    renderer indexes it (`_flat_local`); at any depth."""
    for n in _walk(body):               # an array passed whole (`fill(t, 0.5)`) by its device name too
        if isinstance(n, c_ast.ID) and n.name in moved:
            n.name = f"poly_buf_{n.name}"
    for block in _walk(body):
        if not isinstance(block, c_ast.Compound):
            continue
        block.block_items = [x for x in block.block_items or [] if not (isinstance(x, c_ast.Decl) and x.name in moved)]
        for d in block.block_items:
            if isinstance(d, c_ast.Decl) and len(kept.get(d.name, ())) > 1 and isinstance(d.type, c_ast.ArrayDecl):
                _flat_local(d)
    return body


def _walk(node):
    yield node
    for _, child in node.children():
        yield from _walk(child)
