"""Geometric counters (`for (s = 1; s < n; s *= 2)`, `s >>= 1`, ...) as host loops around launches.

    narrowed(program, options) -> PolyOptions;  misplaced(plan) -> str | None
    networked(kernel, program, target) -> network.Network | None

The model reads such a loop as one over every integer between its ends (model._Builder.geometric):
a superset of the counter's values in their order, so the dependences and the parallel loops it
finds inside hold for the real values, and the loop itself is held carried (Analysis.carries).
What stays unsound is any use of the loop that runs its phantom values or reads one value as the
previous one plus one: a grid over it, a block or a copy per iteration, a scan or recurrence
along it, a skew, isl's own schedule. `narrowed` turns off the passes over whole programs that do
that (the copy per iteration, isl's scheduler, wavefronts; running sums skip such loops
themselves); `misplaced` checks the finished plan: each geometric loop a host loop printed from
its own header (launches once per value, in order) or a plain loop inside a thread, and names
the loop, its line and the form otherwise, for the caller to fall back to one thread. Where the
exchange networks (network.py), built for such level loops before the model read them, take the
kernel, their candidate is kept (`networked`): it may fold a pairwise tree into one block tree,
tile levels in shared memory or trade buffers instead of copying; the model's plan serves the
kernels they refuse (halving trees whose pairs are no XOR partners, nests whose points overlap
across loops, a counter inside a parallel loop).
docs/poly.md, "Analysis" (geometric loop counters).
"""
from __future__ import annotations

from ...analysis import Loop, Program
from ...ir import Kernel
from ...runtime.target import Target
from . import network
from .mapping import HostLoop, Launch, Plan
from .options import PolyOptions

#: The head line of a network candidate chosen over the model's plan.
NETWORK = ("The model reads its geometric level loop; the exchange networks take the kernel too, and "
           "their candidate is kept (block trees, shared-memory tiles, traded buffers where they apply)")

#: Launch forms that reshape the loops of their body (a fold, a scan, tiles ...): a geometric loop
#: inside any of them is refused; a sweep's and staged operands' only where they reshape that loop.
_FORMS = ("reduction", "scan", "banded", "running_max", "row_scan", "row", "phases", "block_sum",
          "private", "tiles", "tile", "mma", "transposed")


def _reshaped(launch: Launch, l: Loop) -> bool:
    """Whether the launch's sweep or staged operands run `l` other than from its header: shared
    among lanes, summed in parts, taken in chunks, tiled (a sweep's carried loop runs as written)."""
    sw = launch.sweep
    return bool(sw and (id(l) in sw.split or id(l) in sw.sums or sw.rows is l)
                or launch.staged and id(l) in launch.staged)


def loops(nodes) -> list[Loop]:
    """The geometric loops of a loop tree, outermost first."""
    out = []
    for n in nodes:
        if isinstance(n, Loop):
            out += [n] * bool(n.geometric) + loops(n.body)
    return out


def networked(k: Kernel, program: Program, target: Target):
    """The exchange network of a kernel with a geometric loop (module docstring), else None."""
    return network.network_of(k, target) if loops(program.body) else None


def narrowed(program: Program, options: PolyOptions) -> PolyOptions:
    """The options without the program-wide passes that read a loop's values as consecutive, where
    the program has a geometric loop; the options themselves otherwise."""
    if not loops(program.body):
        return options
    return options.replace({"loops.expand_private": False, "loops.isl_schedule": False}, wavefront=None)


def misplaced(plan: Plan) -> str | None:
    """Why the plan cannot run a geometric loop as the reference does (module docstring), or None."""
    def named(l: Loop) -> str:
        return f"loop '{l.var}' (line {l.geometric.line}, `{l.geometric.step}`)"

    def why(l: Loop, where: str) -> str:
        return (f"{named(l)} steps geometrically, and poly runs such a loop only as a host loop around "
                f"launches or as a plain loop in a thread; its plan puts it {where}")

    def rewritten(l: Loop) -> bool:      # skewed, or bounds rebuilt from the model's (`v++`)
        return l.time is not None or bool(l.derived) or l.next != l.geometric.step

    def walk(items) -> str | None:
        for it in items:
            if isinstance(it, HostLoop):
                l = it.loop
                if l.geometric and (it.private or rewritten(l)):
                    return why(l, "in a block per iteration" if it.private else "under another header")
                if found := walk(it.items):
                    return found
            elif isinstance(it, Launch) and (found := in_launch(it)):
                return found
        return None

    def in_launch(launch: Launch) -> str | None:
        if g := next((l for l in launch.grid if l.geometric), None):
            return why(g, "on the grid")
        inner = loops(launch.body)
        if not inner:
            return None
        form = next((f for f in _FORMS if getattr(launch, f)), None)
        form = form or next(("sweep" if launch.sweep else "staged" for l in inner if _reshaped(launch, l)), None)
        if form or any(rewritten(l) for l in inner):
            return why(inner[0], f"inside launch {launch.name}, " + (f"as part of its {form} form" if form else
                                                                      "under another header"))
        return None
    return walk(plan.items) or next(filter(None, (in_launch(l) for l in plan.launches)), None)
