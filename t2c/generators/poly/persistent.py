"""A host loop of grid launches as one persistent cooperative launch: no launch per step.

A time-stepped stencil (jacobi-2d, fdtd-2d, heat-3d, hotspot) keeps its time loop on the host
and launches its kernels once per step; at PolyBench's sizes a launch costs about as much as
its work (issue #37).  With `launches.persistent` such a loop also gets one `__global__`
function, `SHORT_persistent_VAR`, that runs the whole loop:

- as many blocks as the device holds at once (the occupancy query times the multiprocessors),
  launched with `cudaLaunchCooperativeKernel`, so that all of them are resident together and
  `grid.sync()` is defined; at small sizes fewer, each thread `grid.coarsen` points of the
  loop's largest launch at least (as its coarsened launches would take): a barrier waits for
  every block, so blocks with little work each only make it longer;
- per iteration, each launch a grid-stride loop over its bounding box (the grid's threads in
  turn, x fastest, so a warp's points stay consecutive), calling the launch's body as a
  `__device__` function of its grid index (`NAME_at`, as merged launches call it);
- `grid.sync()` after each group of consecutive launches no dependence joins within one
  iteration (isl, `Model.meets`, as merge.py decides), and after every iteration;
- where the device has no cooperative launch, or not one block of the kernel fits on a
  multiprocessor, the host runs the loop's launches as before, chosen at run time.

Both paths run the same statement instances; each group's instances are independent and the
groups run in the launches' order, so either computes what the reference does.

`persistent_of(context, host_loop)` takes a top-level host loop whose items are all plain grid
launches (a grid of threads each running its statements and loops, nothing shared in a block) or
launches of one thread (thread 0 of the grid runs them), and refuses, with the reason, anything
else: a loop that runs in one block (oneblock.py: those stay as they are), a wavefront (its many
short diagonals would each cost a barrier of the whole resident grid, and the emulator's
checks a switch through all of its threads), host loops inside it, reductions, scans, atomic
updates, and forms whose blocks have shapes of their own (tiles, sweeps).
"""
from __future__ import annotations

from dataclasses import dataclass

from .ctext import WORD, names_used
from .mapping import HostLoop, Launch
from .oneblock import at_function, launches, param_decl
from .transform import WAVE
from .wavetiles import TILE_WAVE


@dataclass
class Persistent:
    """A host loop that also runs as one cooperative launch."""
    threads: int                     # threads per block
    points: int                      # grid points per thread at least, where the device holds more blocks
    groups: list[list[Launch]]       # its launches in order; grid.sync() after each group


def persistent_of(p, h: HostLoop) -> tuple[Persistent | None, str]:
    """The loop's persistent form (p: forms.Context), or None and why not."""
    if h.one_block:
        return None, "it runs in one block (oneblock.py)"
    if h.time_tile:
        return None, "it runs in time tiles (timetiles.py)"
    if h.pivot_blocks:
        return None, "it runs in blocks of pivots (pivotblocks.py)"
    if h.loop.var in (WAVE, TILE_WAVE) or any(l.grid and l.grid[-1].derived for l in launches(h)):
        return None, "a wavefront: many short diagonals, a barrier of the whole grid each"
    inner = [it.loop.var for it in h.items if isinstance(it, HostLoop)]
    if inner:
        return None, f"host loop {', '.join(inner)} inside it"
    for launch in h.items:
        if why := _refusal(p, launch):
            return None, f"{launch.name}: {why}"
    schedule, groups = p.an.schedule(p.plan.tree), []
    for launch in h.items:
        depth = 2 * len(launch.host_loops)        # (position, value) per host loop: one iteration
        if groups and not any(p.an.model.meets(p.an.all_deps, schedule, other.statements(), launch.statements(), depth)
                              for other in groups[-1]):
            groups[-1].append(launch)
        else:
            groups.append([launch])
    return Persistent(p.opt.grid.block_1d[0], p.opt.grid.coarsen or 1, groups), ""


def _refusal(p, launch: Launch) -> str:
    """Why a launch cannot be a grid-stride loop of the persistent kernel ("" where it can)."""
    if launch.reduction or launch.row or launch.phases or launch.block_sum:
        return "a reduction"
    if launch.scan or launch.banded or launch.running_max:
        return "a scan"
    if launch.private or any(p.an.program.statement(s).atomic for s in launch.statements()):
        return "atomic updates"
    if launch.tile or launch.sweep or launch.shared_bytes:
        return "blocks of its own shape"
    return ""


def loops(plan) -> list[HostLoop]:
    return [it for it in plan.items if isinstance(it, HostLoop) and it.persistent]


def name(p, h: HostLoop) -> str:
    return f"{p.short}_persistent_{h.loop.var}"


# -- printing (p: cuda.Printer) ----------------------------------------------------------------

def point_functions(p, calls: dict) -> list[str]:
    """`NAME_at` of each launch of the persistent loops that has none yet (a merged launch's
    parts have theirs); its arguments go into `calls` under `NAME_at`."""
    out = []
    for h in loops(p.plan):
        for launch in launches(h):
            if launch.merged_threads:
                calls[f"{launch.name}_at"] = calls[launch.name]
                continue
            inner, locals_ = p.thread_variables(launch)
            box = p.launch_box(launch) if launch.grid else []
            text = "\n".join(p.point_body(launch, box, inner, locals_, at=True))
            args = p.kernel_args(launch, names_used(text))
            out.append(at_function(p, launch, text, ", ".join(p.param_decl(a, launch) for a in args)))
            calls[f"{launch.name}_at"] = args
    return out


def _arguments(p, h: HostLoop, body: list[str]) -> list[str]:
    """The kernel's parameters: the names its body uses that are the kernel's or host scalars."""
    used = names_used("\n".join(body)) - {h.loop.var}
    order = list(p.k.params) + [w for w, s in p.plan.storage.items() if s == "host"]
    return [a for a in order if a in used]


def _body(p, h: HostLoop, calls) -> list[str]:
    l, rec = h.loop, h.persistent
    out = ["  cooperative_groups::grid_group poly_grid = cooperative_groups::this_grid();",
           "  const long long poly_rank = (long long)poly_grid.thread_rank(), poly_size = (long long)poly_grid.size();",
           f"  int {l.var};", f"  for ({l.init}; {l.cond}; {l.next})", "  {"]
    for group in rec.groups:
        for launch in group:
            out += _sweep(p, launch, calls[f"{launch.name}_at"], "    ")
        out.append("    poly_grid.sync();   /* every write above is seen by every block below */")
    return out + ["  }"]


def _sweep(p, launch: Launch, args: list[str], indent: str) -> list[str]:
    """A launch's points as a grid-stride loop: the thread's index and the grid's stride in the
    mixed radix of the launch's extents (x fastest), stepped with carries, no division per point."""
    if not launch.grid:
        return [f"{indent}if (poly_rank == 0)   /* one thread */", f"{indent}  {launch.name}_at({', '.join(args)});"]
    ext = p.extents(launch)
    if ext is None:
        return [f"{indent}/* {launch.name}: empty iteration domain */"]
    axes = list(ext)
    radix = lambda total, k: total + "".join(f" / extent_{a}" for a in axes[:k]) + \
        ("" if k == len(axes) - 1 else f" % extent_{axes[k]}")
    first = ", ".join(f"poly_{ax} = {radix('poly_rank', k)}" for k, ax in enumerate(axes))
    stride = ", ".join(f"poly_s{ax} = {radix('poly_size', k)}" for k, ax in enumerate(axes))
    call = ", ".join([*args, *(f"(int)poly_{ax}" for ax in axes)])
    return [f"{indent}{{",
            *[f"{indent}  const int extent_{ax} = {ext[ax][0]};   /* {ext[ax][1]} */" for ax in axes],
            f"{indent}  if ({' && '.join(f'extent_{ax} > 0' for ax in axes)}) {{",
            f"{indent}    const long long {stride};",
            f"{indent}    for (long long {first}; poly_{axes[-1]} < extent_{axes[-1]}; ) {{",
            f"{indent}      {launch.name}_at({call});",
            f"{indent}      {' '.join(f'poly_{ax} += poly_s{ax};' for ax in axes)}",
            *[f"{indent}      if (poly_{ax} >= extent_{ax}) {{ poly_{ax} -= extent_{ax}; poly_{nxt}++; }}"
              for ax, nxt in zip(axes, axes[1:])],
            f"{indent}    }}", f"{indent}  }}", f"{indent}}}"]


def kernel(p, h: HostLoop, calls) -> str:
    """The persistent kernel of a loop (after `point_functions`)."""
    body = _body(p, h, calls)
    args = _arguments(p, h, body)
    calls[name(p, h)] = args
    return "\n".join([f"/* {name(p, h)}: host loop {h.loop.var} in one cooperative launch, the grid as large as the "
                      "device holds at once: each launch a grid-stride loop over its points, grid.sync() after each "
                      "group of launches that are independent within an iteration. */",
                      f"__global__ void __launch_bounds__({h.persistent.threads}) "
                      f"{name(p, h)}({', '.join(param_decl(p, h, a) for a in args)})", "{", *body, "}"])


def host_code(p, h: HostLoop, indent: str, calls) -> list[str]:
    """The cooperative launch where the device allows it, the loop's launches otherwise."""
    kname, threads, var = name(p, h), h.persistent.threads, h.loop.var
    each = threads * h.persistent.points       # points a block takes at least
    most = []
    for launch in launches(h):
        if not launch.grid:
            most.append(f"poly_most = poly_max_ll(poly_most, 1);   /* {launch.name}: one thread */")
        elif (ext := p.extents(launch)) is not None:
            points = " * ".join(f"(long long)poly_max({e}, 0)" for e, _ in ext.values())
            most.append(f"poly_most = poly_max_ll(poly_most, {points});   /* {launch.name} */")
    if any(var in WORD.findall(line) for line in most):      # the extents move with the loop: walk it
        l = h.loop
        most = [f"for ({l.init}; {l.cond}; {l.next})", "{", *[f"  {line}" for line in most], "}"]
    i = indent
    return [f"{i}{{",
            f"{i}  int poly_device = 0, poly_cooperative = 0, poly_sms = 0, poly_per_sm = 0;",
            f"{i}  cudaGetDevice(&poly_device);",
            f"{i}  cudaDeviceGetAttribute(&poly_cooperative, cudaDevAttrCooperativeLaunch, poly_device);",
            f"{i}  cudaDeviceGetAttribute(&poly_sms, cudaDevAttrMultiProcessorCount, poly_device);",
            f"{i}  if (poly_cooperative)",
            f"{i}    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&poly_per_sm, {kname}, {threads}, 0);",
            f"{i}  long long poly_most = 0;   /* the most points a launch of loop {var} has */",
            *[f"{i}  {line}" for line in most],
            f"{i}  const long long poly_needed = (poly_most + {each - 1}) / {each}, "
            "poly_resident = (long long)poly_sms * poly_per_sm;",
            f"{i}  if (poly_resident > 0 && poly_needed > 0) {{   /* every block resident at once: grid.sync() holds */",
            f"{i}    const unsigned poly_grid_blocks = (unsigned)(poly_needed < poly_resident ? poly_needed : poly_resident);",
            f"{i}    void *poly_args[] = {{{', '.join(f'&{a}' for a in calls[kname])}}};",
            f"{i}    cudaLaunchCooperativeKernel((void *){kname}, dim3(poly_grid_blocks), dim3({threads}), poly_args, 0, 0);",
            f"{i}  }} else {{   /* no cooperative launch here: a launch per iteration */",
            *p.host_loop(h, i + "    ", calls),
            f"{i}  }}",
            f"{i}}}"]


def notes(p) -> list[str]:
    """The header's lines on the host loops a persistent launch runs, and on those it does not."""
    out = []
    for h in (it for it in p.plan.items if isinstance(it, HostLoop)):
        if h.persistent:
            syncs = [g[-1].name for g in h.persistent.groups[:-1]]
            after = f"after {', '.join(syncs)} and " if syncs else ""
            out.append(f"  ... host loop {h.loop.var} also runs whole in one cooperative launch ({name(p, h)}): each "
                       f"launch a grid-stride loop, grid.sync() {after}after each iteration; the launches where the "
                       "device has no cooperative launch.")
        elif h.not_persistent:
            out.append(f"  ... host loop {h.loop.var} keeps a launch per iteration (no persistent launch): "
                       f"{h.not_persistent}.")
    return out
