"""Consecutive launches that touch no cell another of them writes, as one launch.

    runs(context) -> [[Launch]];  kernel, launch_code: their printing

Takes the plan's launches; gives runs of consecutive plain launches (no shared memory, barrier,
`__device__` scalar or local array) with the same threads per block, or of row and column
reductions (`launches.merge.reductions`), between whose statements no dependence joins two
instances in the same iteration of the host loops around them (isl, `Model.meets`). A run is one
kernel whose blocks are the parts' blocks in turn, each part a `__device__` function of the index
it had in its own launch, so every instance runs once with its own values. Why: a launch costs
more than many launches' work (fdtd-2d's, bicg's). docs/poly.md, "Merged launches".
"""
from __future__ import annotations

from math import prod

from . import reduce
from .mapping import HostLoop, Launch
from .oneblock import launch_axes


def plain(p, launch: Launch) -> bool:
    """A grid of threads each running its statements, nothing shared (p: forms.Context)."""
    if not launch.grid or launch.reduction or launch.row or launch.row_scan or launch.phases or launch.sweep or launch.tile \
            or launch.staged or launch.private or launch.transposed \
            or launch.mma or launch.block_sum or launch.shared_bytes or launch.grid[-1].derived \
            or launch.in_block or p.empty(launch):
        return False
    for s in launch.statements():
        if any(a.name in p.local_arrays for a in p.an.program.statement(s).accesses):
            return False
        if any(st == s and p.plan.storage[w] == "global" for (st, _), w in p.an.web_of.items()):
            return False
    return True


def reduction(p, launch: Launch) -> bool:
    """A reduction along rows or down columns (reduce.py) outside one-block loops, its domain
    not empty."""
    return bool(p.opt.launches.merge and p.opt.launches.merge.reductions and launch.grid and launch.row
                and not launch.sweep and not launch.in_block and not p.empty(launch))


def threads(p, run) -> int:
    """The merged launch's threads per block: the plain parts' own; with reductions the column
    parts' (`reductions.rows.column_block`), or reduce.ROW_BLOCK when there is none."""
    if not run[0].row:
        return prod(p.opt.block(len(run[0].grid)))
    return prod(p.opt.reductions.rows.column_block) if any(l.row.column for l in run) else reduce.ROW_BLOCK


def _shaped(p, run) -> bool:
    """Whether every part runs in blocks of the run's threads: plain parts with the same
    threads; reductions whole warps (at most 1024), a row's lanes dividing them."""
    t = threads(p, run)
    if not run[0].row:
        return all(prod(p.opt.block(len(l.grid))) == t for l in run)
    return t % 32 == 0 and t <= p.target.max_threads and all(l.row.column or t % l.row.lanes == 0 for l in run)


def runs(p) -> list[list[Launch]]:
    """Runs of at least two consecutive launches of one kind (plain, or reductions), pairwise
    independent, in the plan's host code outside one-block loops."""
    out, schedule = [], []

    def fits(run, launch):
        if bool(launch.row) != bool(run[0].row) or not _shaped(p, [*run, launch]):
            return False
        schedule[:] = schedule or [p.an.schedule(p.plan.tree)]
        depth = 2 * len(launch.host_loops)        # (position, value) per host loop
        return not any(p.an.model.meets(p.an.all_deps, schedule[0], other.statements(), launch.statements(), depth)
                       for other in run)

    def walk(items):
        run = []
        for it in [*items, None]:
            if isinstance(it, Launch) and (plain(p, it) or reduction(p, it)):
                if run and fits(run, it):
                    run.append(it)
                    continue
                if len(run) > 1:
                    out.append(run)
                run = [it]
                continue
            if len(run) > 1:
                out.append(run)
            run = []
            if isinstance(it, HostLoop) and not it.one_block:
                walk(it.items)
    walk(p.plan.items)
    return out


def name(p, run) -> str:
    return f"{run[0].name}_merged"


def _index(p, launch: Launch, n: int) -> list[str]:
    """The grid index of the part's thread from `poly_b` (its block among the part's blocks,
    x fastest) and threadIdx.x (x fastest within the part's block shape)."""
    axes, dims = launch_axes(launch), p.opt.block(len(launch.grid))
    out = []
    for k, ax in enumerate(axes):
        grids = "".join(f" / poly_grid_{n}_{a}" for a in axes[:k])
        threads = "".join(f" / {d}" for d in dims[:k])
        last = k == len(axes) - 1
        b = f"poly_b{grids}" + ("" if last else f" % poly_grid_{n}_{ax}")
        t = f"threadIdx.x{threads}" + ("" if last else f" % {dims[k]}")
        out.append(f"(int)(({b}) * {dims[k]} + ({t}))")
    return out


def kernel(p, run, calls) -> tuple[str, list[str]]:
    """The run's `__global__` function and its argument names (the parts' arguments, each
    once, then each part's grid width and block count)."""
    args, decls = [], {}
    for l in run:
        for a in calls[l.name]:
            d = p.param_decl(a, l)
            if a not in decls:
                args.append(a)
                decls[a] = d
            elif decls[a].startswith("const ") and not d.startswith("const "):
                decls[a] = d                     # written by some part
    rows = bool(run[0].row)             # reductions: each part's function takes its block's index
    shape = [] if rows else [f"poly_grid_{n}_{ax}" for n, l in enumerate(run, 1) for ax in launch_axes(l)[:-1]]
    counts = [f"poly_count_{n}" for n in range(1, len(run))]
    params = [decls[a] for a in args] + [f"unsigned {x}" for x in shape + counts]
    body = ["  unsigned poly_b = blockIdx.x;"]
    for n, l in enumerate(run, 1):
        call = f"{l.name}_at({', '.join(calls[l.name] + (['poly_b'] if rows else _index(p, l, n)))});"
        if n < len(run):
            body += [f"  if (poly_b < poly_count_{n}) {{", f"    {call}", "    return;", "  }",
                     f"  poly_b -= poly_count_{n};"]
        else:
            body.append(f"  {call}")
    parts = ", ".join(l.name for l in run)
    head = (f"/* {name(p, run)}: each thread a point of one of {parts}, with the grid index it has in its "
            f"own launch (the parts' blocks in turn): no cell one of them writes is touched by another in "
            f"the same host iteration (isl). */")
    bounds = f"__launch_bounds__({run[0].merged_threads}) " if rows else ""
    return "\n".join([head, f"__global__ void {bounds}{name(p, run)}({', '.join(params)})", "{",
                      *p.waits(name(p, run), run[0].host_loops, params), *body, "}"]), \
        args + shape + counts


def launch_code(p, run, args, indent) -> list[str]:
    """The host's one launch for the run: each part's extents and block count."""
    out, counts = [f"{indent}{{"], []
    t = run[0].merged_threads
    for n, l in enumerate(run, 1):
        ext, dims = p.extents(l), l.block
        if l.row:           # a reduction's blocks: column_block's indices, or rows of row_lanes lanes
            dims = (l.block[0] if l.row.column else t // l.row.lanes,)
        for ax, d in zip(ext, dims):
            out += [f"{indent}  const int extent_{n}_{ax} = {ext[ax][0]};   /* {ext[ax][1]} */",
                    f"{indent}  const unsigned poly_grid_{n}_{ax} = poly_blocks(extent_{n}_{ax}, {d});"]
        live = " && ".join(f"extent_{n}_{ax} > 0" for ax in ext)
        grid = " * ".join(f"poly_grid_{n}_{ax}" for ax in ext)
        out.append(f"{indent}  const unsigned poly_count_{n} = ({live}) ? {grid} : 0;   /* {l.name} */")
        counts.append(f"poly_count_{n}")
    total = " + ".join(counts)
    out += [f"{indent}  if ({total} > 0)",
            f"{indent}    {p.launch_line(name(p, run), (total, str(t)), ', '.join(args), run[0].host_loops)}",
            f"{indent}}}"]
    return out


def describe(p, run) -> str:
    return (f"{name(p, run)}: {', '.join(l.name for l in run)} as one launch (no cell one writes is "
            f"touched by another in the same host iteration; each part's blocks in turn).")
